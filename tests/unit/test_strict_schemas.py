"""Strict input in the shared schemas (Python facade, CLI and HTTP alike): no type coercion, numbers
bounded in length and finite, metadata and deletion keys bounded, and which lessons an end user
may see."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from memworks.errors import InvalidInput
from memworks.models.schemas import DeletionRequestIn, EpisodeIn, OutcomeIn
from memworks.models.types import (
    MAX_METADATA_BYTES,
    MAX_METADATA_DEPTH,
    MAX_METADATA_KEYS,
    MAX_NUMBER_CHARS,
    RefusedNumber,
    load_json,
)
from memworks.models.validation import check_time, parse_model

WHEN = "2025-01-06T09:00:00+00:00"


def episode(**over: Any) -> dict[str, Any]:
    return {
        "episode_id": "e1",
        "tenant_id": "t1",
        "user_id": "u1",
        "session_id": "s1",
        "turn": 1,
        "role": "user",
        "source": "user",
        "content": "I live in Lisbon.",
        "occurred_at": WHEN,
        **over,
    }


def outcome(**over: Any) -> dict[str, Any]:
    return {
        "outcome_id": "o1",
        "tenant_id": "t1",
        "task_type": "triage",
        "features": ["refund"],
        "action_taken": "route_billing",
        "success": True,
        "occurred_at": WHEN,
        **over,
    }


def refused(model: type[Any], data: dict[str, Any]) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        parse_model(model, data, "input")
    return info.value


def nested(levels: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for _ in range(levels - 1):
        out = {"a": out}
    return out


# -- types ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("turn", ["1", 1.0, True, None, "01"])
def test_turn_must_be_an_integer(turn: Any) -> None:
    assert refused(EpisodeIn, episode(turn=turn)).field == "turn"


@pytest.mark.parametrize("success", ["yes", "true", 1, 0, "false", None])
def test_success_must_be_a_boolean(success: Any) -> None:
    assert refused(OutcomeIn, outcome(success=success)).field == "success"


@pytest.mark.parametrize("when", [1700000000, 1700000000.5, "1700000000", "1700000000.5", True, b"2025-01-06"])
@pytest.mark.parametrize("model", [EpisodeIn, OutcomeIn])
def test_a_time_is_never_read_from_a_number(model: type[Any], when: Any) -> None:
    """A number (or digits as text) would be a Unix time: refused, naming ``occurred_at``."""
    data = episode(occurred_at=when) if model is EpisodeIn else outcome(occurred_at=when)
    err = refused(model, data)
    assert err.field == "occurred_at" and "ISO 8601" in str(err)


@pytest.mark.parametrize(
    "when",
    [
        WHEN,
        "2025-01-06T09:00:00Z",
        "2025-01-06T09:00:00.123456+05:30",
        datetime(2025, 1, 6, 9, tzinfo=UTC),
        datetime(2025, 1, 6, 9, tzinfo=timezone(timedelta(hours=-3))),
    ],
)
def test_an_iso_string_or_an_aware_datetime_is_a_time(when: Any) -> None:
    ep = parse_model(EpisodeIn, episode(occurred_at=when), "episode")
    assert ep.occurred_at == (when if isinstance(when, datetime) else datetime.fromisoformat(when))
    assert parse_model(OutcomeIn, outcome(occurred_at=when), "outcome").occurred_at == ep.occurred_at


def test_a_read_time_in_python_is_never_a_number() -> None:
    for bad in (1700000000, "1700000000"):
        with pytest.raises(InvalidInput) as info:
            check_time(bad, "as_of")  # type: ignore[arg-type]
        assert info.value.field == "as_of"
    assert check_time(WHEN, "as_of") == datetime(2025, 1, 6, 9, tzinfo=UTC)


def test_a_model_dump_validates_again() -> None:
    """What the API hands the facade (``model_dump()``: an int, a bool, a datetime) is accepted."""
    ep = parse_model(EpisodeIn, episode(), "episode")
    assert parse_model(EpisodeIn, ep.model_dump(), "episode") == ep
    assert parse_model(EpisodeIn, ep.model_dump(mode="json"), "episode") == ep
    oc = parse_model(OutcomeIn, outcome(), "outcome")
    assert parse_model(OutcomeIn, oc.model_dump(), "outcome") == oc


# -- numbers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "0." + "1" * 5000,
        "1" + "0" * 5000,
        "NaN",
        "Infinity",
        "-Infinity",
        "1e999",
        "-1e999",
        "1" * (MAX_NUMBER_CHARS + 1),
    ],
)
def test_load_json_marks_overlong_and_non_finite_numbers(text: str) -> None:
    value = load_json('{"n": ' + text + "}")["n"]
    assert isinstance(value, RefusedNumber)
    assert ("finite" in value.reason) != (str(MAX_NUMBER_CHARS) in value.reason)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1", 1), ("-0.25", -0.25), ("1e308", 1e308), ("-1.7976931348623157e+308", -1.7976931348623157e308)],
)
def test_load_json_reads_ordinary_numbers(text: str, expected: float) -> None:
    assert load_json("[" + text + "]") == [expected]
    assert load_json("[" + "9" * MAX_NUMBER_CHARS + "]") == [int("9" * MAX_NUMBER_CHARS)]


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (json.dumps(episode()).replace('"turn": 1', '"turn": 1' + "0" * 5000), "turn"),
        (json.dumps(episode(metadata={"c": 1})).replace('"c": 1', '"c": 0.' + "1" * 5000), "metadata"),
        (json.dumps(episode(metadata={"c": [1]})).replace('"c": [1]', '"c": [NaN]'), "metadata"),
        (json.dumps(episode()).replace(f'"{WHEN}"', "1e999"), "occurred_at"),
        (json.dumps(episode()).replace('"s1"', "Infinity"), "session_id"),
    ],
)
def test_a_refused_number_is_named_by_its_field(line: str, field: str) -> None:
    err = refused(EpisodeIn, load_json(line))
    assert err.field == field and ("finite" in str(err) or "characters" in str(err)), str(err)


def test_a_refused_number_in_an_outcome_or_deletion_is_named_by_its_field() -> None:
    assert refused(OutcomeIn, outcome(success=RefusedNumber("NaN"))).field == "success"
    assert refused(DeletionRequestIn, {"tenant_id": "t1", "user_id": "u1", "keys": [RefusedNumber("1")]}).field


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 10**40, -(10**40)])
def test_python_metadata_holds_finite_numbers_of_bounded_length(value: float) -> None:
    assert refused(EpisodeIn, episode(metadata={"x": {"y": value}})).field == "metadata"


# -- metadata ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "metadata",
    [
        {"blob": "x" * 900_000},
        {"blob": "é" * (MAX_METADATA_BYTES // 2)},  # bytes, not characters
        {f"k{i}": i for i in range(20_000)},
        {f"k{i}": i for i in range(MAX_METADATA_KEYS + 1)},
        {f"k{i}": {f"j{j}": 0 for j in range(8)} for i in range(8)},
        nested(60),
        nested(MAX_METADATA_DEPTH + 1),
        {"a": [[[[]]]]},
        {1: "int key"},
    ],
    ids=[
        "900KB",
        "bytes-not-chars",
        "20k-keys",
        "65-keys",
        "keys-over-levels",
        "depth-60",
        "depth-5",
        "lists",
        "int-key",
    ],
)
def test_metadata_out_of_bounds_is_refused_naming_metadata_and_every_limit(metadata: dict[Any, Any]) -> None:
    err = refused(EpisodeIn, episode(metadata=metadata))
    assert err.field == "metadata"
    for limit in (f"{MAX_METADATA_BYTES} bytes", f"{MAX_METADATA_KEYS} keys", f"{MAX_METADATA_DEPTH} levels"):
        assert limit in str(err)


def test_metadata_deeper_than_the_recursion_limit_is_refused_without_recursing() -> None:
    deep: dict[str, Any] = {}
    for _ in range(100_000):
        deep = {"a": deep}
    assert refused(EpisodeIn, episode(metadata=deep)).field == "metadata"


@pytest.mark.parametrize(
    "metadata",
    [
        {},
        {"speaker": "Dana", "dia_id": "D1:3"},
        {f"k{i}": i for i in range(MAX_METADATA_KEYS)},
        nested(MAX_METADATA_DEPTH),
        {"a": {"b": {"c": [1, 2.5, None, True, "x"]}}},
        {"blob": "x" * (MAX_METADATA_BYTES - 20)},
    ],
)
def test_metadata_within_bounds_is_kept(metadata: dict[str, Any]) -> None:
    assert parse_model(EpisodeIn, episode(metadata=metadata), "episode").metadata == metadata


# -- deletion keys -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "keys", [["a" * 100_000], ["user." + "x" * 196], [f"user.k{i}" for i in range(101)], ["User.Home"], [""]]
)
def test_deletion_keys_are_bounded(keys: list[str]) -> None:
    assert refused(DeletionRequestIn, {"tenant_id": "t1", "user_id": "u1", "keys": keys}).field == "keys"


def test_a_deletion_may_name_100_keys_of_200_characters() -> None:
    keys = [f"user.{i:03d}" + "x" * 192 for i in range(100)]
    assert {len(k) for k in keys} == {200}
    assert parse_model(DeletionRequestIn, {"tenant_id": "t1", "user_id": "u1", "keys": keys}, "deletion").keys == keys


@pytest.mark.parametrize("memory_id", ["x" * 65, "a b", "../etc", ""])
def test_deletion_memory_ids_are_record_ids(memory_id: str) -> None:
    data = {"tenant_id": "t1", "user_id": "u1", "memory_ids": [memory_id]}
    assert refused(DeletionRequestIn, data).field.startswith("memory_ids")


# -- lessons an end user may see -----------------------------------------------------------------


def _lesson(report: str = "pending: evidence from 1 user") -> Any:
    from memworks.models.tables import Lesson

    return Lesson(lesson_id="l1", tenant_id="t1", task_type="triage", pattern_json="[]", action="a", guidance="g",
                  report=report, created_at=datetime(2025, 1, 1, tzinfo=UTC))  # fmt: skip


@pytest.mark.parametrize(
    ("mined", "validated", "report", "visible"),
    [
        ({"o1", "o2"}, set(), "pending: evidence from 1 user", True),
        ({"o1"}, {"o2"}, "pending", True),
        (set(), set(), "proposed by an operator", False),  # no outcomes: not this user's
        ({"o1", "x9"}, set(), "pending", False),  # mined from someone else's too
        ({"o1"}, {"x9"}, "active", False),  # validated on someone else's
        ({"o1"}, set(), "pending: 1 of 1 held-out cases left wrong (outcome x9 wants route_vip)", False),
        ({"o1"}, set(), "blocked: 1 regression (outcome o2 answered by l0)", True),
    ],
)
def test_a_lesson_is_an_end_users_only_when_every_outcome_it_rests_on_or_cites_is_theirs(
    mined: set[str], validated: set[str], report: str, visible: bool
) -> None:
    from memworks.services.lessons import rests_on_alone

    assert rests_on_alone(_lesson(report), mined, validated, {"o1", "o2"}) is visible
