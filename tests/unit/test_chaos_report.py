"""The chaos report's judgement: it must see a lost, a doubled or a different episode."""

from __future__ import annotations

from collections import Counter

import pytest

from memworks.errors import InvalidInput
from memworks_tools.chaos import Snapshot, compare, require_loopback, stream


def snap(states: dict[str, str], decisions: int = 1, cited: int = 1, rows: tuple[str, ...] = ("a",)) -> Snapshot:
    return Snapshot(
        states=states,
        decisions={e: Counter({("semantic", "k", "accepted", "add", "ok"): decisions}) for e in states},
        cited=Counter({e: cited for e in states}),
        memories=Counter(rows),
    )


def test_a_clean_copy_is_judged_identical() -> None:
    clean = snap({"e1": "processed", "e2": "processed"})
    r = compare(snap({"e1": "processed", "e2": "processed"}), clean)
    assert (r["processed_once"], r["lost"], r["duplicated"], r["identical_state"]) == (2, 0, 0, True)


def test_lost_doubled_and_different_are_each_seen() -> None:
    clean = snap({"e1": "processed", "e2": "processed"})
    assert compare(snap({"e1": "processed", "e2": "received"}), clean)["lost"] == 1
    doubled = compare(snap({"e1": "processed", "e2": "processed"}, decisions=2), clean)
    assert doubled["duplicated"] == 2 and doubled["processed_once"] == 0
    assert compare(snap({"e1": "processed", "e2": "processed"}, cited=2), clean)["duplicated"] == 2
    differs = compare(snap({"e1": "processed", "e2": "processed"}, rows=("a", "b")), clean)
    assert differs["identical_state"] is False and differs["differing_rows"] == 1


def test_the_stream_is_deterministic_and_mixed() -> None:
    a, b = stream(200, users=10, seed=3), stream(200, users=10, seed=3)
    assert a == b and len({e["episode_id"] for e in a}) == 200
    assert {e["source"] for e in a} == {"user", "retrieved_document"}


@pytest.mark.parametrize(
    ("db", "broker", "field"),
    [
        ("postgresql+psycopg://u@10.0.0.5/x", "redis://127.0.0.1:6379/0", "MEMWORKS_DATABASE_URL"),
        ("sqlite:///x.db", "redis://cache.internal:6379/0", "MEMWORKS_BROKER_URL"),
        ("sqlite:///x.db", "stub://", "MEMWORKS_BROKER_URL"),
    ],
)
def test_only_loopback_services_are_accepted(db: str, broker: str, field: str) -> None:
    with pytest.raises(InvalidInput) as exc:
        require_loopback(db, broker)
    assert exc.value.field == field
    require_loopback("postgresql+psycopg://postgres@127.0.0.1:5432/test", "redis://localhost:6379/0")
