"""Every actor's contract: a message delivered twice, even to two workers at once, changes
nothing the first delivery did not; a malformed message is rejected, recorded, not retried.

Each actor runs on a loaded store (two users, a finished deletion, reported outcomes) on
SQLite and PostgreSQL, with two in-process worker threads taking messages in parallel.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import func, inspect, select, text
from sqlmodel import Session

from memworks.errors import InvalidInput
from memworks.models.tables import Episode, JobRun, Memory, RejectedInput
from tests.factories import episode
from tests.workers.test_lesson_actor import breach_cases, normal_login

#: Run logs: a delivery is allowed to add its own line there, nothing else.
RUN_LOGS = {"job_run", "consolidation_run", "scheduler_job", "alembic_version"}


def world(make_memworks: Any, url: str) -> tuple[Any, str]:
    mw = make_memworks(url, embedded_worker_threads=2)
    mw.enqueue_episodes(
        [
            episode(1, "I live in Lisbon and my dog is called Pixel.", when="2025-01-06T09:00:00+00:00"),
            episode(2, "I love sushi.", when="2025-01-07T09:00:00+00:00"),
            episode(3, "I really love sushi.", when="2025-01-08T09:00:00+00:00"),
            episode(4, "I moved to Berlin two weeks ago.", when="2025-03-15T09:00:00+00:00"),
            episode(1, "I live in Oslo and work at Initech as a nurse.", user="u2"),
        ]
    )
    mw.report_outcomes(breach_cases(0, 2) + breach_cases(10, 3) + normal_login(20, 3))
    mw.drain()
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u2"})
    mw.drain()
    assert mw.manifest(rid).status == "complete"
    return mw, rid


def episode_ids(mw: Any) -> list[int]:
    with Session(mw.runtime.engine) as s:
        return [int(i) for i in s.scalars(select(Episode.id))]


def attention_batch(mw: Any) -> tuple[Any, ...]:
    """One batch of retrievals: two hits on every record of t1/u1."""
    with Session(mw.runtime.engine) as s:
        ids = list(s.scalars(select(Memory.memory_id).where(Memory.tenant_id == "t1", Memory.user_id == "u1")))
    return ("a" * 32, ids + ids, "2025-04-01T09:00:00+00:00")


#: actor → the arguments of one realistic message, given the world.
MESSAGES: dict[str, Callable[[Any, str], tuple[Any, ...]]] = {
    "extract_memories": lambda mw, rid: (episode_ids(mw),),
    "plan_deletion_request": lambda mw, rid: (rid,),
    "purge_target": lambda mw, rid: (rid, "vector_index"),
    "verify_target": lambda mw, rid: (rid, "lexical_index"),
    "resume_deletions": lambda mw, rid: (0,),
    "rewrite_erased_files": lambda mw, rid: (),
    "mine_lessons": lambda mw, rid: ("t1", "triage"),
    "fan_out_consolidation": lambda mw, rid: (),
    "consolidate": lambda mw, rid: ("t1",),
    "sweep_expired": lambda mw, rid: (),
    "resend_unprocessed": lambda mw, rid: (0,),
    "record_attention": lambda mw, rid: attention_batch(mw),
}

#: actor → a malformed message: wrong types, wrong arity, or values its payload refuses.
BAD: dict[str, tuple[Any, ...]] = {
    "extract_memories": (["not-an-id"],),
    "plan_deletion_request": ("not-a-request-id",),
    "purge_target": ("0" * 32, "the_moon"),
    "verify_target": ("0" * 32,),
    "resume_deletions": ("soon",),
    "rewrite_erased_files": ("now",),
    "mine_lessons": ("t1", ""),
    "fan_out_consolidation": ("t1",),
    "consolidate": (42,),
    "sweep_expired": ("now",),
    "resend_unprocessed": ({"older_than_s": 1},),
    "record_attention": ("a" * 32, ["m1"], "yesterday"),
}


def test_every_actor_is_covered() -> None:
    import memworks.workers as w

    actors = {name for name in w.__all__ if hasattr(getattr(w, name), "send_with_options")}
    assert actors == set(MESSAGES) == set(BAD)


def state(mw: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Every table but the run logs, wall-clock columns left out (a second delivery runs later)."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    with Session(mw.runtime.engine) as s:
        for table in sorted(set(inspect(s.get_bind()).get_table_names()) - RUN_LOGS):
            rows = s.execute(text(f'SELECT * FROM "{table}"')).mappings().all()
            out[table] = sorted(
                (
                    tuple((k, v) for k, v in r.items() if not isinstance(v, datetime) and not k.endswith("_at"))
                    for r in rows
                ),
                key=repr,
            )
    return out


def send(name: str, args: tuple[Any, ...]) -> None:
    import memworks.workers as w

    getattr(w, name).send_with_options(args=args, max_retries=0)


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_a_message_delivered_twice_at_once_changes_nothing_more(name: str, db_url: str, make_memworks: Any) -> None:
    mw, rid = world(make_memworks, db_url)
    args = MESSAGES[name](mw, rid)
    send(name, args)
    mw.drain()
    once = state(mw)
    send(name, args)  # two copies queued together: both worker threads take one
    send(name, args)
    mw.drain()
    assert state(mw) == once


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_malformed_message_is_rejected_recorded_and_not_retried(
    name: str, sqlite_url: str, make_memworks: Any
) -> None:
    mw, _ = world(make_memworks, sqlite_url)
    before = state(mw)
    import memworks.workers as w

    getattr(w, name).send_with_options(args=BAD[name], max_retries=3)  # retries allowed, yet none happen
    with pytest.raises(InvalidInput):
        mw.drain()
    with Session(mw.runtime.engine) as s:
        rejected = s.scalars(select(RejectedInput).where(RejectedInput.kind == f"message:{name}")).all()
        attempts = s.scalar(
            select(func.count()).select_from(JobRun).where(JobRun.actor == name, JobRun.outcome == "rejected")
        )
    assert len(rejected) == 1 and rejected[0].reason
    assert attempts == 1
    assert [d["actor"] for d in mw.dead_letters()] == [name]
    after = state(mw)
    assert {k: v for k, v in after.items() if k != "rejected_input"} == {
        k: v for k, v in before.items() if k != "rejected_input"
    }
