"""``memworks eval conversations``: the written conversations are well-formed and cover every kind;
each kind of check passes on the right answer and fails on the wrong one; the command runs a
conversation end to end through the embedded store and reports per kind, conversation, split and
stage. The pass rate itself is not asserted here: it is what the evaluation measures."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memworks.errors import InvalidInput
from memworks.models.schemas import HitOut, MemoryOut, RetrieveResult, Scope
from memworks_tools.evaluation import conversations
from memworks_tools.evaluation.conversations import Check, Conversation, Grader
from tests.cli.cli_helpers import run_here

NEVER_SAID = "Atlantis Widget Co"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _fold(s: str) -> str:
    return " ".join(s.replace("\u2019", "'").split()).casefold()


# -- the shipped set ---------------------------------------------------------------------------


def test_the_shipped_set_is_large_enough_and_covers_every_kind() -> None:
    convs = conversations.load()
    checks = [c for conv in convs for c in conv.checks]
    assert len(convs) >= 10 and len(checks) >= 160
    assert {conv.kind for conv in convs} == set(conversations.KINDS)
    assert {c.kind for c in checks} == set(conversations.CHECK_KINDS)
    assert sum(conv.split == "heldout" for conv in convs) >= 3
    for conv in convs:
        if conv.kind == "small_store":
            assert 12 <= len(conv.turn_map()) <= 16, conv.id
        if conv.kind == "two_person_chat":  # two people or more, each named
            assert len({t.speaker for t in conv.turn_map().values()} - {None}) >= 2, conv.id


def test_every_expected_value_was_said_in_its_conversation() -> None:
    """A check can only be fair if what it expects (or expects gone) was said: a typo in the data
    would otherwise read as a failure of the store. A forgotten value was said before the request."""
    for conv in conversations.load():
        turns = conv.turn_map()
        said = _fold(" ".join(t.content for t in turns.values()))
        order = list(turns)
        for c in conv.checks:
            values = [*c.stale, *c.earlier, *c.about] + ([] if c.kind in ("profile", "forget") else list(c.expect))
            if values:
                assert any(_fold(v) in said for v in values), f"{conv.id}/{c.id}: {values} never said"
            for group in (c.stale, c.earlier, c.about):
                assert all(_fold(v) in said for v in group), f"{conv.id}/{c.id}: one of {group} never said"
            if c.kind == "forget":
                before = " ".join(turns[t].content for t in order[: order.index(c.request)])
                assert all(_fold(v) in _fold(before) for v in c.forgotten), f"{conv.id}/{c.id}"
            if c.kind == "as_of":
                assert c.as_of is not None and c.as_of < conv.question_time(c), f"{conv.id}/{c.id}"


def _minimal(**check: Any) -> dict[str, Any]:
    return {
        "id": "mini",
        "kind": "small_store",
        "user": "u1",
        "sessions": [{"id": "s1", "at": "2026-03-01T09:00:00+00:00", "turns": [{"content": "I live in Porto."}]}],
        "checks": [{"id": "c1", **check}],
    }


@pytest.mark.parametrize(
    ("check", "field", "says"),
    [
        ({"kind": "guess", "query": "q"}, "checks.0.kind", "Input should be"),
        ({"kind": "current", "query": "Where do I live?"}, "checks.0", "a current check needs expect"),
        ({"kind": "forget", "request": "s1-9", "forgotten": ["Porto"], "probe": "q"}, "conversation", "no turn 's1-9'"),
        ({"kind": "attribution", "query": "q", "speaker": "Nadia"}, "conversation", "nobody named 'Nadia'"),
        ({"kind": "as_of", "query": "q", "expect": ["Porto"], "as_of": "2026-02-01T00:00"}, "checks.0.as_of", ""),
    ],
)
def test_a_malformed_conversation_is_refused_naming_the_field(check: dict[str, Any], field: str, says: str) -> None:
    with pytest.raises(InvalidInput) as err:
        conversations.parse(_minimal(**check), where="mini.json")
    assert err.value.field is not None and err.value.field.startswith(f"mini.json: {field}")
    assert says in str(err.value)


# -- grading, against a store whose answers are fixed ------------------------------------------


def _item(cls: type[Any], value: str, *, evidence: tuple[str, ...] = ("mini.s1-1",), **kw: Any) -> Any:
    base: dict[str, Any] = {
        "memory_id": f"m-{abs(hash((value, evidence))) % 10**8}",
        "kind": "semantic",
        "key": None,
        "value": value,
        "text": value,
        "source": "user",
        "status": "active",
        "valid_from": T0,
        "valid_to": None,
        "recorded_at": T0,
        "evidence": list(evidence),
    }
    if cls is HitOut:
        base |= {"score": 0.9, "similarity": 0.9}
    else:
        base |= {"trusted": True, "confidence": 0.9, "user_id": "u1", "retracted_at": None, "superseded_at": None}
        base |= {"expires_at": None, "last_retrieved_at": None, "superseded_by": None}
    return cls.model_validate(base | kw)


class FixedStore:
    """Answers every question with the same hits (or an abstention), and lists the same records."""

    def __init__(
        self, hits: list[HitOut], records: Sequence[MemoryOut] = (), profile: str = "", *, flagged: bool = False
    ) -> None:
        self.hits, self.records, self.text, self.flagged = hits, list(records), profile, flagged
        self.asked: list[dict[str, Any]] = []

    def retrieve(self, scope: Scope, query: str, **kw: Any) -> RetrieveResult:
        self.asked.append({"query": query} | kw)
        return RetrieveResult(
            abstained=not self.hits, hits=self.hits, subject_mismatch=self.flagged and bool(self.hits)
        )

    def memories(self, scope: Scope, *, include_history: bool = False) -> list[MemoryOut]:
        return [m for m in self.records if include_history or not m.stale]

    def profile(self, scope: Scope) -> dict[str, Any]:
        return {"text": self.text}


CHAT = {
    "id": "mini",
    "kind": "two_person_chat",
    "user": "u1",
    "sessions": [
        {
            "id": "s1",
            "at": "2026-03-01T09:00:00+00:00",
            "turns": [
                {"content": "I'm a nurse at the Royal Free.", "speaker": "Nadia"},
                {"content": "I'm a nurse too, at Homerton.", "speaker": "Omar"},
                {"content": "Please forget where Nadia works.", "speaker": "Nadia"},
            ],
        }
    ],
}


def _conv(check: dict[str, Any]) -> tuple[Conversation, Check]:
    conv = conversations.parse(CHAT | {"checks": [{"id": "c", **check}]}, where="chat")
    return conv, conv.checks[0]


H, M = HitOut, MemoryOut
NADIA, OMAR, ASK = ("mini.s1-1",), ("mini.s1-2",), ("mini.s1-3",)
CASES: list[tuple[str, dict[str, Any], FixedStore, FixedStore]] = [
    (
        "current",
        {"query": "q", "expect": ["Royal Free"]},
        FixedStore([_item(H, "Royal Free")]),
        FixedStore([_item(H, "Homerton"), _item(H, "Royal Free")]),  # right answer only at rank 2
    ),
    (
        "not_stale",
        {"query": "q", "stale": ["Homerton"]},
        FixedStore([_item(H, "Royal Free")]),
        FixedStore([_item(H, "Royal Free"), _item(H, "works at Homerton")]),
    ),
    (
        "as_of",
        {"query": "q", "as_of": "2026-02-01T00:00:00+00:00", "expect": ["Homerton"]},
        FixedStore([_item(H, "Homerton", valid_to=T0)]),
        FixedStore([]),
    ),
    (
        "forget",
        {"request": "s1-3", "forgotten": ["Royal Free"], "probe": "Where does Nadia work?"},
        FixedStore([_item(H, "a nurse")], [_item(M, "a nurse")]),
        FixedStore([_item(H, "a nurse")], [_item(M, "Please forget where Nadia works.", evidence=ASK)]),
    ),
    (
        "restated",
        {"expect": ["nurse"], "turns": ["s1-1", "s1-2"]},
        FixedStore([], [_item(M, "nurse", evidence=NADIA + OMAR), _item(M, "summary: nurse", evidence=NADIA + ASK)]),
        FixedStore([], [_item(M, "nurse", evidence=NADIA + OMAR), _item(M, "a nurse", evidence=OMAR)]),
    ),
    (
        "date",
        {"query": "q", "about": ["Royal Free"], "date": "2026-09-08"},
        FixedStore([_item(H, "Royal Free", event_at=datetime(2026, 9, 8, tzinfo=UTC))]),
        FixedStore([_item(H, "Royal Free", event_at=datetime(2025, 9, 8, tzinfo=UTC))]),
    ),
    (
        "tool",
        {"query": "q", "expect": ["delivered"], "earlier": ["awaiting stock"]},
        FixedStore([_item(H, "status=delivered"), _item(H, "Royal Free")]),
        FixedStore([_item(H, "status=delivered"), _item(H, "status=awaiting stock")]),
    ),
    ("abstain", {"query": "q"}, FixedStore([]), FixedStore([_item(H, "Royal Free")])),
    (
        "attribution",
        {"query": "What does Nadia do?", "speaker": "Nadia", "expect": ["nurse"]},
        FixedStore([_item(H, "nurse", evidence=NADIA)]),
        FixedStore([_item(H, "nurse", evidence=OMAR), _item(H, "nurse", evidence=NADIA)]),
    ),
    ("profile", {"expect": ["shellfish"]}, FixedStore([], profile="- Allergic to shellfish."), FixedStore([])),
]


@pytest.mark.parametrize(("kind", "check", "right", "wrong"), CASES, ids=[c[0] for c in CASES])
def test_each_kind_passes_on_the_right_answer_and_fails_on_the_wrong_one(
    kind: str, check: dict[str, Any], right: FixedStore, wrong: FixedStore
) -> None:
    conv, c = _conv({"kind": kind, **check})
    assert Grader(right, conv).grade(c).ok
    failed = Grader(wrong, conv).grade(c)
    assert not failed.ok and failed.reason


def test_every_hit_flagged_as_someone_elses_is_no_answer() -> None:
    # "What instrument does Nadia play?": only Omar's piano, flagged as his
    conv, c = _conv({"kind": "abstain", "query": "q"})
    assert Grader(FixedStore([_item(H, "piano", evidence=OMAR)], flagged=True), conv).grade(c).ok
    assert not Grader(FixedStore([_item(H, "piano", evidence=OMAR)]), conv).grade(c).ok


def test_questions_are_asked_a_day_after_the_last_turn_unless_told() -> None:
    conv, c = _conv({"kind": "abstain", "query": "q"})
    store = FixedStore([])
    Grader(store, conv).grade(c)
    assert store.asked[0]["asked_at"] == datetime.fromisoformat("2026-03-02T09:02:00+00:00")


# -- the command, end to end -------------------------------------------------------------------


def test_the_command_runs_a_conversation_and_reports_by_kind_split_and_stage(tmp_path: Path) -> None:
    """One shipped small store, plus checks that expect what nobody said: those fail, whatever
    the store does, so the run cannot meet its target (exit 1) and the report names them."""
    raw = json.loads((Path(conversations.__file__).parent / "small-kwame.json").read_text())
    raw["sessions"][0]["turns"][0]["speaker"] = "Kwame"
    wrong: list[dict[str, Any]] = [
        {"id": "wrong-current", "kind": "current", "query": "Who do I work for?", "expect": [NEVER_SAID]},
        {"id": "wrong-as-of", "kind": "as_of", "query": "Who did I work for?", "as_of": "2026-03-05T00:00:00+00:00"}
        | {"expect": [NEVER_SAID]},
        {"id": "wrong-tool", "kind": "tool", "query": "Status?", "expect": [NEVER_SAID], "earlier": ["Aviva"]},
        {"id": "wrong-restated", "kind": "restated", "expect": [NEVER_SAID], "turns": ["s01-1", "s02-1"]},
        {"id": "wrong-date", "kind": "date", "query": "When?", "about": [NEVER_SAID], "date": "2026-05-01"},
        {"id": "wrong-attribution", "kind": "attribution", "query": "What does Kwame do?", "speaker": "Kwame"}
        | {"expect": [NEVER_SAID]},
        {"id": "wrong-profile", "kind": "profile", "expect": [NEVER_SAID]},
    ]
    raw["id"], raw["split"], raw["checks"] = "kwame-test", "heldout", raw["checks"] + wrong
    data = tmp_path / "kwame-test.json"
    data.write_text(json.dumps(raw))
    out = tmp_path / "out"
    res = run_here(["eval", "conversations", "--data", str(data), "--out", str(out)], tmp_path / "unused.db")
    assert res.returncode == 1, res.stderr[-2000:]  # the wrong checks fail: target not met
    report = json.loads((out / "conversations.json").read_text())
    assert report["suite"] == "conversations" and report["conversations"] == 1
    assert report["checks"] == len(raw["checks"]) == len(report["results"])
    assert set(report["by_split"]) == {"dev", "heldout"} and report["by_split"]["dev"]["checks"] == 0
    assert report["by_split"]["heldout"]["checks"] == report["checks"]
    assert set(report["by_stage"]) == set(conversations.STAGES)
    assert set(report["by_kind"]) == {c["kind"] for c in raw["checks"]}
    assert report["by_conversation"]["kwame-test"]["checks"] == report["checks"]
    failed = {f["check"]: f for f in report["failures"]}
    for w in wrong:
        assert w["id"] in failed and failed[w["id"]]["reason"], w["id"]
        assert failed[w["id"]]["failed_at"] == list(conversations.STAGES)
    assert report["met"] is False and report["overall"] <= 1 - len(wrong) / report["checks"]
    assert re.search(r"overall [\d.]+ over \d+ checks \(target 0\.95: NOT met\)", res.stdout)
    assert "kind" in res.stdout and "held-out" in res.stdout
