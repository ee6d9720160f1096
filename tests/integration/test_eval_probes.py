"""``memworks eval probes``: three designs on the same cases, graded by rule.

The whole suite runs once (embedded SQLite, in-process workers) and the tests read its report.
The deletion grader is checked on its own: a leftover planted in any projection after a completed
deletion must make the probe fail, so a passing deletion slice really means the data is gone.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col

from memworks.models.schemas import Scope
from memworks.models.tables import Episode, GateDecision, LexicalPosting, Memory, Profile, VectorEntry
from memworks.pipelines.text.terms import terms
from memworks.store.projections.cache import cache_prefix
from memworks.store.sql.db import session_scope
from memworks_tools.evaluation import probes
from memworks_tools.evaluation.probes.cases import DELETIONS, QUESTIONS, SLICES, USERS, Question, conversation
from tests.factories import episode

#: Slices where memworks answers every probe today (knowledge update and temporal reasoning are
#: targets too, but some facts fall under the retrieval similarity floor: see the report's failures).
TARGET_SLICES = ("knowledge_update", "temporal_reasoning", "abstention", "isolation", "deletion")
#: One run of the whole suite takes about a minute on two cores.
pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return probes.run(out=lambda _: None)


def test_report_shape(report: dict[str, Any]) -> None:
    """The JSON report names its tokenizer and gives, per design, accuracy per slice, tokens and failures."""
    assert report["cases"] == len(QUESTIONS) + len(DELETIONS)
    assert list(report["per_slice"]) == list(SLICES)
    assert all(5 <= n <= 10 for n in report["per_slice"].values()), report["per_slice"]
    assert report["tokenizer"]
    assert set(report["designs"]) == set(probes.DESIGNS)
    for name, d in report["designs"].items():
        assert set(d["slices"]) == set(SLICES), name
        assert all(0.0 <= v <= 1.0 for v in d["slices"].values())
        assert isinstance(d["tokens_per_question"], float) and d["tokens_per_question"] > 0
        assert [f["id"] for f in d["failures"]] == [a["id"] for a in d["answers"] if not a["ok"]]
    json.dumps(report)  # plain JSON all the way down


def test_memworks_is_never_below_a_baseline(report: dict[str, Any]) -> None:
    """Per slice, memworks answers at least as well as each baseline."""
    d = report["designs"]
    for s in SLICES:
        for base in ("no_memory", "transcript_only"):
            assert d["memworks"]["slices"][s] >= d[base]["slices"][s], (s, base)


def test_baselines_show_their_weaknesses(report: dict[str, Any]) -> None:
    """No memory only abstains (and has nothing to delete); a kept transcript cannot forget or tell time."""
    nm, tr, mw = (report["designs"][n]["slices"] for n in ("no_memory", "transcript_only", "memworks"))
    assert nm["abstention"] == 1.0 and nm["deletion"] == 1.0 and nm["information_extraction"] == 0.0
    assert tr["deletion"] == 0.0
    assert tr["temporal_reasoning"] < mw["temporal_reasoning"] and tr["abstention"] < mw["abstention"]
    for s in TARGET_SLICES:
        assert mw[s] == 1.0, (s, report["designs"]["memworks"]["failures"])


def test_memworks_spends_a_tenth_of_the_transcript_tokens(report: dict[str, Any]) -> None:
    """Hits instead of the whole history: at most 1/10 of the tokens per question."""
    d = report["designs"]
    assert d["memworks"]["tokens_per_question"] * 10 <= d["transcript_only"]["tokens_per_question"]
    assert report["token_ratio"] >= 10
    assert min(report["history_tokens"].values()) > 1000  # histories long enough to matter


def test_deletion_evidence_comes_from_every_projection(report: dict[str, Any]) -> None:
    """Each deletion probe inspected every projection and found nothing; every request completed."""
    for ev in report["deletion_evidence"]:
        assert set(ev["residue"]) >= {
            "memory_rows",
            "episodes",
            "lexical_index",
            "vector_index",
            "read_cache",
            "profile",
            "audit_log",
            "dead_letters",
        }
        assert not any(ev["residue"].values()) and ev["ids_checked"] > 0, ev
        assert ev["manifests"] and all(m["status"] == "complete" for m in ev["manifests"]), ev


def test_the_plot_is_a_png(report: dict[str, Any], tmp_path: Path) -> None:
    png = probes.plot(report, tmp_path / "probes.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cases_are_deterministic() -> None:
    """The same histories on every run: the filler is seeded, never random."""
    assert all(conversation(t, u) == conversation(t, u) for t, u in USERS)


# --- the grading rules --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expect", "got", "ok"),
    [
        ("Berlin", "berlin", True),
        ("AC 837|AC837", "AC837", True),
        ("Berlin", "Lisbon", False),
        ("Berlin", None, False),
        (None, None, True),
        (None, "Oslo", False),
        (("Pixel", "Miso"), ("miso", "Pixel"), True),
        (("Pixel", "Miso"), ("Pixel",), False),
        (("vegetarian", "peanuts"), ("peanuts", "pescatarian", "vegetarian"), False),
        ("lactose-free|lactose intolerant", "lactose intolerant", True),
    ],
)
def test_answer_key_rules(expect: Any, got: Any, ok: bool) -> None:
    assert probes.matches(expect, got) is ok


def test_isolation_fails_on_the_other_scopes_value_anywhere_in_the_context() -> None:
    q = Question("q", "isolation", "t", "u", "Where do I live?", "Oslo", not_values=("Berlin",))
    assert probes.grade(q, probes.Reply("Oslo", 10, ["User lives in Oslo."]))
    assert not probes.grade(q, probes.Reply("Oslo", 10, ["User lives in Oslo.", "I moved to Berlin."]))


# --- the deletion grader looks at the projections themselves ------------------------------

T, U = "t1", "u1"


def _plant_posting(mw: Any, n: probes.Needles) -> None:
    with session_scope(mw.runtime.engine) as s:
        s.add(LexicalPosting(tenant_id=T, user_id=U, term=terms("Biscuit")[0], memory_id=sorted(n.memory_ids)[0], tf=1))


def _plant_vector(mw: Any, n: probes.Needles) -> None:
    with session_scope(mw.runtime.engine) as s:
        s.add(VectorEntry(memory_id=sorted(n.memory_ids)[0], tenant_id=T, user_id=U, model="m", vector=b"\0" * 4))


def _plant_memory_text(mw: Any, n: probes.Needles) -> None:
    with session_scope(mw.runtime.engine) as s:
        s.execute(
            update(Memory)
            .where(col(Memory.memory_id) == sorted(n.memory_ids)[0])
            .values(text="User has a dog named Biscuit.")
        )


def _plant_episode_text(mw: Any, n: probes.Needles) -> None:
    with session_scope(mw.runtime.engine) as s:
        s.execute(
            update(Episode)
            .where(col(Episode.episode_id) == sorted(n.episode_ids)[0])
            .values(content="Biscuit loves the beach.")
        )


def _plant_gate_text(mw: Any, n: probes.Needles) -> None:
    with session_scope(mw.runtime.engine) as s:
        s.execute(
            update(GateDecision)
            .where(col(GateDecision.episode_id).in_(sorted(n.episode_ids)))
            .values(candidate_text="User has a dog named Biscuit.")
        )


def _plant_profile(mw: Any, n: probes.Needles) -> None:
    with session_scope(mw.runtime.engine) as s:
        s.merge(
            Profile(
                tenant_id=T,
                user_id=U,
                text="- User has a dog named Biscuit.",
                lines_json="[]",
                tokens=8,
                built_at=datetime.now(UTC),
            )
        )


def _plant_cache(mw: Any, n: probes.Needles) -> None:
    hit = {"hits": [{"memory_id": "elsewhere", "text": "User has a dog named Biscuit.", "value": "Biscuit"}]}
    mw.runtime.cache.put(cache_prefix(T, U) + "planted", json.dumps(hit), ttl_s=60, tenant_id=T)


PLANTS: dict[str, Callable[[Any, probes.Needles], None]] = {
    "lexical_index": _plant_posting,
    "vector_index": _plant_vector,
    "memory_rows": _plant_memory_text,
    "episodes": _plant_episode_text,
    "audit_log": _plant_gate_text,
    "profile": _plant_profile,
    "read_cache": _plant_cache,
}


@pytest.mark.parametrize("projection", list(PLANTS))
def test_a_planted_leftover_fails_the_deletion_probe(make_memworks: Any, sqlite_url: str, projection: str) -> None:
    # Given a dog's name said twice, asked about (so the read cache holds it), then erased by a request
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes(
        [
            episode(1, "My dog is called Biscuit."),
            episode(2, "Biscuit loves the beach.", session="s2"),
            episode(3, "My dog is called Biscuit.", user="u2"),
        ]
    )
    mw.drain()
    assert mw.retrieve(Scope(tenant_id=T, user_id=U), "What is my dog called?").hits
    needles = probes.capture(mw, T, U, ("Biscuit",))
    assert needles.memory_ids and needles.episode_ids
    rid = mw.submit_deletion({"tenant_id": T, "user_id": U, "keys": ["user.pet.dog"]})
    mw.drain()
    manifests = [{"status": mw.manifest(rid).status, "open_targets": []}]
    # Then the probe passes on what the deletion left (the neighbour's own Biscuit is not residue) ...
    left = probes.residue(mw, needles)
    assert probes.erased(left, manifests), left
    # ... and fails, naming the projection, once a leftover is planted there
    PLANTS[projection](mw, needles)
    left = probes.residue(mw, needles)
    assert left[projection] > 0, left
    assert not probes.erased(left, manifests)
