"""Slot resolution for open keys (pure): endings close valid time, restatements reinforce,
neighbouring slots stay apart, forget requests match stored slots; relative times; the parser's
weights are checked before loading."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memworks.adapters.nlp import WEIGHTS_SHA256, model_dir, verify_weights
from memworks.errors import MemworksError
from memworks.models.drafts import Candidate, ForgetRequest, MemoryView
from memworks.models.enums import CandidateOp, MemoryKind, MemoryStatus, Op, Source
from memworks.pipelines.extraction.open_vocab.time import read_time, written
from memworks.pipelines.gate import judge
from memworks.pipelines.ingest.slots import is_multi_valued, match_forget_topic, names_value, slot_words, values_agree
from memworks.pipelines.ingest.supersession import Accepted, decide_writes

NOW = datetime(2025, 6, 1, tzinfo=UTC)
SCOPE = "t1\x1fu1"


def day(n: int) -> datetime:
    return datetime(2025, 1, 1, tzinfo=UTC) + timedelta(days=n)


def view(
    key: str,
    value: str,
    *,
    start: int = 0,
    mid: str | None = None,
    derived: tuple[str, ...] = (),
    extractor: str = "open",
    kind: MemoryKind = MemoryKind.SEMANTIC,
) -> MemoryView:
    return MemoryView(
        memory_id=mid or f"{key}={value}",
        kind=kind,
        key=key,
        value=value,
        text=f"{key} {value}",
        source=Source.USER,
        confidence=0.8,
        trusted=True,
        status=MemoryStatus.ACTIVE,
        extractor=extractor,
        valid_from=day(start),
        recorded_at=day(start),
        evidence=(f"e-{value}",),
        derived_from=derived,
    )


def accepted(c: Candidate, when: datetime, ep: str = "e9") -> Accepted:
    c = c.model_copy(update={"evidence": (ep,)})
    return Accepted(c, judge(c), ep, when)


def end(key: str, named: str = "", *, prefix: bool = False, rule: str = "end.open") -> Candidate:
    extra = {"rule": rule, **({"retracted_value": named} if named else {})}
    return Candidate(op=CandidateOp.RETRACT, key=key, text="ends", extra=extra, key_is_prefix=prefix, extractor="open")


def say(key: str, value: str, *, kind: MemoryKind = MemoryKind.SEMANTIC, when: datetime | None = None) -> Candidate:
    return Candidate(key=key, value=value, text=f"User {key} {value}.", kind=kind, extractor="open", valid_from=when)


# --- endings ------------------------------------------------------------------------------------


def test_a_retraction_closes_valid_time_and_keeps_the_record() -> None:
    car = view("user.car", "Prius")
    plan = decide_writes([accepted(end("user.car", "car"), day(30))], [car], scope_key=SCOPE, now=NOW)
    assert plan.ops == [(Op.DELETE, car.memory_id)]
    assert [(c.memory_id, c.valid_to, c.superseded_by) for c in plan.closes] == [(car.memory_id, day(30), None)]
    assert plan.deleted == [] and plan.new == []


def test_an_ending_that_names_another_value_ends_nothing() -> None:
    # "I left Acme" while the current employer is Globex
    job = view("user.employer", "Globex", extractor="rules")
    plan = decide_writes(
        [accepted(end("user.employer", "Acme", rule="retract.employer"), day(30))], [job], scope_key=SCOPE, now=NOW
    )
    assert plan.ops == [(Op.DELETE, None)] and plan.closes == []


def test_a_family_retraction_ends_every_slot_holding_the_value_and_derived_records() -> None:
    learning = view("user.instrument.learning", "cello")
    playing = view("user.instrument.playing", "piano")
    derived = view("user.instrument.teacher", "Ana", derived=(learning.memory_id,))
    plan = decide_writes(
        [accepted(end("user.instrument", "the cello", prefix=True), day(40))],
        [learning, playing, derived],
        scope_key=SCOPE,
        now=NOW,
    )
    assert sorted(c.memory_id for c in plan.closes) == sorted([learning.memory_id, derived.memory_id])


def test_a_slot_holds_again_after_its_ending() -> None:
    cello = view("user.instrument.learning", "cello")
    plan = decide_writes(
        [
            accepted(end("user.instrument.learning", "cello"), day(40), "e2"),
            accepted(say("user.instrument.learning", "cello"), day(90), "e3"),
        ],
        [cello],
        scope_key=SCOPE,
        now=NOW,
    )
    assert [op for op, _ in plan.ops] == [Op.DELETE, Op.ADD]
    assert plan.new[0].valid_from == day(90) and plan.new[0].valid_to is None and plan.new[0].supersedes is None


def test_forget_requests_still_erase() -> None:
    home = view("user.home_city", "Lisbon", extractor="rules")
    forget = Candidate(
        op=CandidateOp.RETRACT,
        key="user.home_city",
        text="forget",
        forget=ForgetRequest(topic="where they live", terms=("home_city",)),
    )
    plan = decide_writes([accepted(forget, day(10))], [home], scope_key=SCOPE, now=NOW)
    assert home.memory_id in plan.deleted and plan.closes == []


# --- restatements, neighbours, several values ------------------------------------------------------


def test_a_restatement_in_other_words_reinforces() -> None:
    car = view("user.car", "Toyota Corolla")
    plan = decide_writes([accepted(say("user.car", "a Corolla"), day(20))], [car], scope_key=SCOPE, now=NOW)
    assert plan.ops == [(Op.NOOP, car.memory_id)] and plan.reinforces[0].evidence == ("e9",)


def test_fixed_keys_keep_exact_values() -> None:
    # "York" is not a restatement of "New York" for the rules' home city
    ny = view("user.home_city", "New York", extractor="rules")
    c = Candidate(key="user.home_city", value="York", text="User lives in York.")
    plan = decide_writes([accepted(c, day(20))], [ny], scope_key=SCOPE, now=NOW)
    assert plan.ops[0][0] is Op.UPDATE


def test_neighbouring_slots_and_several_values() -> None:
    plan = decide_writes(
        [
            accepted(say("user.code_editor.theme", "dark"), day(1), "e1"),
            accepted(say("user.terminal.theme", "light"), day(1), "e2"),
            accepted(say("user.language.speaking", "Spanish"), day(1), "e3"),
            accepted(say("user.language.speaking", "French"), day(2), "e4"),
            accepted(say("user.language.speaking", "spanish"), day(3), "e5"),
        ],
        [],
        scope_key=SCOPE,
        now=NOW,
    )
    assert [op for op, _ in plan.ops] == [Op.ADD, Op.ADD, Op.ADD, Op.ADD, Op.NOOP] and plan.closes == []


def test_events_collect_and_an_undated_restatement_is_the_same_event() -> None:
    trip = say("user.kyoto.visit", "Kyoto", kind=MemoryKind.EPISODIC, when=day(10))
    again = say("user.kyoto.visit", "Kyoto", kind=MemoryKind.EPISODIC, when=day(200))
    same = say("user.kyoto.visit", "Kyoto", kind=MemoryKind.EPISODIC)
    plan = decide_writes(
        [accepted(trip, day(10), "e1"), accepted(again, day(200), "e2"), accepted(same, day(210), "e3")],
        [],
        scope_key=SCOPE,
        now=NOW,
    )
    assert [op for op, _ in plan.ops] == [Op.ADD, Op.ADD, Op.NOOP] and plan.closes == []


def test_value_and_topic_matching() -> None:
    assert values_agree("cello", "the cello") and values_agree("iPhone", "iPhone 15")
    assert not values_agree("dark", "light") and not values_agree("Android phone", "iPhone")
    assert names_value("user.car", "Prius", "car") and not names_value("user.car", "Prius", "Tesla")
    assert is_multi_valued("person.gina.interests") and is_multi_valued("user.language.speaking")
    assert not is_multi_valued("user.phone") and not is_multi_valued("user.language.learning")
    assert slot_words("person.caroline.phone") == slot_words("user.phone") == "phone, mobile"
    records = [
        view("user.instrument.learning", "cello"),
        view("user.sister.wedding", "in September 2025"),
        view("user.phone", "iPhone"),
        view("user.car", "Prius"),
    ]
    assert match_forget_topic(ForgetRequest(topic="the cello", terms=("cello",)), records) == [
        "user.instrument.learning"
    ]
    assert match_forget_topic(ForgetRequest(topic="their sister's wedding", terms=("sister", "wedding")), records) == [
        "user.sister.wedding"
    ]
    assert match_forget_topic(ForgetRequest(topic="their boat", terms=("boat",)), records) == []


# --- relative times ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "when", "words"),
    [
        ("I started it last month", datetime(2023, 4, 8, tzinfo=UTC), "in April 2023"),
        ("we went there in June", datetime(2022, 6, 1, tzinfo=UTC), "in June 2022"),
        ("the wedding is next October", datetime(2023, 10, 1, tzinfo=UTC), "in October 2023"),
        ("we hiked last weekend", datetime(2023, 5, 6, tzinfo=UTC), "on the weekend of 6 May 2023"),
        ("last summer we went to Spain", datetime(2022, 6, 1, tzinfo=UTC), "in summer 2022"),
        ("next spring I will run", datetime(2024, 3, 1, tzinfo=UTC), "in spring 2024"),
        ("last Christmas I got a dog", datetime(2022, 12, 25, tzinfo=UTC), "on 25 December 2022"),
        ("on Thanksgiving we ate", datetime(2022, 11, 24, tzinfo=UTC), "on 24 November 2022"),
        ("I lost it earlier this month", datetime(2023, 5, 1, tzinfo=UTC), "in May 2023"),
        ("two weekends ago we camped", datetime(2023, 4, 29, tzinfo=UTC), "on the weekend of 29 April 2023"),
        ("I joined a group last Tues", datetime(2023, 5, 2, tzinfo=UTC), "on 2 May 2023"),
        ("a week before Black Friday", datetime(2022, 11, 18, tzinfo=UTC), "on 18 November 2022"),
    ],
)
def test_relative_times_resolve_against_the_episode_time(text: str, when: datetime, words: str) -> None:
    got = read_time(text, datetime(2023, 5, 8, 13, 56, tzinfo=UTC))  # a Monday
    assert got is not None and (got.when, written(got)) == (when, words)


@pytest.mark.parametrize(
    ("text", "future", "when"),
    [
        ("we're flying out at Christmas", None, datetime(2023, 12, 25, tzinfo=UTC)),
        ("we flew out at Christmas", None, datetime(2022, 12, 25, tzinfo=UTC)),
        ("the party is on the 21st", None, datetime(2023, 5, 21, tzinfo=UTC)),
        ("the party on May 3", True, datetime(2024, 5, 3, tzinfo=UTC)),
        ("the party on May 3", False, datetime(2023, 5, 3, tzinfo=UTC)),
    ],
)
def test_the_tense_of_the_clause_or_the_callers_reading_decides(text: str, future: bool | None, when: datetime) -> None:
    """Given a time with no year, when no tense is passed, then the clause's own tense picks the
    coming or the past one; when the caller passes one (from a parse), it wins."""
    got = read_time(text, datetime(2023, 5, 8, 13, 56, tzinfo=UTC), future=future)  # a Monday
    assert got is not None and got.when == when


def test_no_time_where_none_is_named() -> None:
    anchor = datetime(2023, 5, 8, tzinfo=UTC)
    assert read_time("I love summer", anchor) is None
    assert read_time("I volunteer once a month", anchor, phrases=("once a month",)) is None
    assert read_time("x", anchor, phrases=("a fortnight ago",)) is not None  # dateparser, on a phrase only


# --- the parser's weights -----------------------------------------------------------------------------


def test_tampered_weights_are_refused(tmp_path: Path) -> None:
    verify_weights(model_dir())
    copy = tmp_path / "model"
    shutil.copytree(model_dir(), copy)
    target = copy / next(iter(WEIGHTS_SHA256))
    target.write_bytes(target.read_bytes()[:-1] + b"\x00")
    with pytest.raises(MemworksError, match="sha256"):
        verify_weights(copy)
    target.unlink()
    with pytest.raises(MemworksError, match="missing"):
        verify_weights(copy)
