"""Plans are events: several stand side by side; a plan of a kind one holds one of at a time (a
move, a new job) replaces the earlier one of that kind only, whatever order they arrive in."""

from __future__ import annotations

from typing import Any

from memworks.models.enums import MemoryStatus
from memworks.models.schemas import Scope
from tests.factories import day_episode as ep

S = Scope(tenant_id="t1", user_id="u1")

TURNS = [
    ("2026-03-24", "I'm moving to Lisbon on March 31."),
    ("2026-03-25", "I'm starting a new job at Feedzai on April 13."),
    ("2026-03-26", "I'm flying to Rome in May."),
    ("2026-03-27", "I'm flying to Oslo in June."),
    ("2026-03-28", "Change of plans, I'm moving to Madrid on April 2."),
    ("2026-03-30", "I'm flying to Rome in May."),
]


def plans(mw: Any) -> dict[str, tuple[MemoryStatus, float]]:
    return {m.value: (m.status, m.confidence) for m in mw.memories(S, include_history=True) if m.key == "user.plan"}


def test_a_new_job_keeps_the_move_and_a_second_trip_keeps_the_first(make_memworks: Any, sqlite_url: str) -> None:
    mw = make_memworks(sqlite_url)
    for i, (day, text) in enumerate(TURNS):
        mw.enqueue_episodes([ep(i, day, text)])
        mw.drain()
    got = plans(mw)
    assert {v for v, (st, _) in got.items() if st is MemoryStatus.ACTIVE} == {
        "start at Feedzai",
        "travel to Rome",
        "travel to Oslo",
        "move to Madrid",
    }
    assert got["move to Lisbon"][0] is MemoryStatus.SUPERSEDED  # the changed move, kept as history
    assert len(got) == 5  # the trip said twice is one record


def test_plans_end_the_same_whatever_order_they_arrive_in(make_memworks: Any, tmp_path: Any) -> None:
    states = []
    n = len(TURNS)
    for name, order in (("in-order", range(n)), ("reversed", range(n - 1, -1, -1))):
        mw = make_memworks(f"sqlite:///{tmp_path / (name + '.db')}")
        for i in order:
            mw.enqueue_episodes([ep(i, *TURNS[i])])
            mw.drain()
        rows = mw.memories(S, include_history=True)
        states.append(sorted((m.value, str(m.status), m.valid_to) for m in rows if m.key == "user.plan"))
    assert states[0] == states[1]
