"""Retrieval attention off the read path: a retrieve writes nothing; its hits' attention is
recorded by the maintenance actor ``record_attention``, once per batch however often delivered."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from memworks.errors import InvalidInput
from memworks.models.schemas import Scope
from memworks.models.tables import AttentionBatch, JobRun, Memory, RejectedInput
from memworks.services.attention import AttentionBuffer
from memworks_tools.bench.sql_writes import is_write, statements_on_this_thread
from tests.factories import episode

A = Scope(tenant_id="ta", user_id="u1")
QUESTIONS = ("Where do I live?", "What is my dog called?", "Where do I live now?")
T0 = datetime(2025, 4, 1, 9, tzinfo=UTC)


def stored(mw: Any) -> Any:
    mw.enqueue_episodes(
        [
            episode(1, "I live in Lisbon and my dog is called Pixel.", tenant="ta"),
            episode(2, "I moved to Berlin two weeks ago.", when="2025-03-15T09:00:00+00:00", tenant="ta"),
        ]
    )
    mw.drain()
    return mw


def clocks(mw: Any) -> dict[str, tuple[float, datetime | None]]:
    """memory id → (attention, last_retrieved_at)."""
    with Session(mw.runtime.engine) as s:
        return {
            m: (a, t) for m, a, t in s.execute(select(Memory.memory_id, Memory.attention, Memory.last_retrieved_at))
        }


def send(args: tuple[Any, ...], **options: Any) -> None:
    from memworks.workers import record_attention

    record_attention.send_with_options(args=args, **{"max_retries": 0, **options})


def test_the_statement_hook_sees_writes(db_url: str, make_memworks: Any) -> None:
    """The capture used below does see a write when one is made (so its silence means something)."""
    mw = make_memworks(db_url)
    with statements_on_this_thread(mw.runtime.engine) as sql:
        mw.enqueue_episodes([episode(1, "I live in Lisbon.", tenant="ta")])
    assert any(is_write(q) for q in sql)
    assert any(q.lstrip().upper().startswith("INSERT") for q in sql)


@pytest.mark.parametrize("flush_every", [1, 500])
def test_a_retrieve_issues_no_write(db_url: str, make_memworks: Any, flush_every: int) -> None:
    """Every SQL statement a retrieve sends (cached or not, with hits, and when its hits are due
    to be sent) is a read: no INSERT, UPDATE or DELETE, no write transaction, no write lock."""
    mw = stored(make_memworks(db_url))
    mw._attention = AttentionBuffer(max_hits=flush_every)
    with statements_on_this_thread(mw.runtime.engine) as sql:
        results = [mw.retrieve(A, q) for q in (*QUESTIONS, QUESTIONS[0])]
    assert all(r.hits for r in results)
    assert sql, "the hook saw no statement at all"
    assert [q for q in sql if is_write(q)] == []
    verbs = {q.split(None, 1)[0].upper() for q in sql}
    assert not verbs & {"INSERT", "UPDATE", "DELETE"}, verbs


def test_drain_leaves_the_hits_attention_recorded(db_url: str, make_memworks: Any) -> None:
    """After retrieves and drain, each hit's attention grew by its number of hits and its
    last_retrieved_at is set; records never hit are untouched, and truth is unchanged."""
    mw = stored(make_memworks(db_url))
    before = clocks(mw)
    truth = {m.memory_id: (m.value, m.status, m.valid_from, m.valid_to) for m in mw.memories(A, include_history=True)}
    hits: dict[str, int] = {}
    for q in (*QUESTIONS, QUESTIONS[0]):
        for h in mw.retrieve(A, q).hits:
            hits[h.memory_id] = hits.get(h.memory_id, 0) + 1
    assert clocks(mw) == before, "a read wrote"
    mw.drain()
    after = clocks(mw)
    assert hits
    for mid, (attention, last) in after.items():
        if mid in hits:
            assert attention == before[mid][0] + hits[mid]
            assert last is not None
        else:
            assert (attention, last) == before[mid]
    assert {
        m.memory_id: (m.value, m.status, m.valid_from, m.valid_to) for m in mw.memories(A, include_history=True)
    } == truth


def test_close_records_what_is_still_buffered(sqlite_url: str, make_memworks: Any) -> None:
    """An embedded facade closed right after a read (a CLI retrieve) still records its attention."""
    mw = stored(make_memworks(sqlite_url))
    hit = mw.retrieve(A, QUESTIONS[0]).hits[0]
    mw.close()
    reopened = make_memworks(sqlite_url)
    attention, last = clocks(reopened)[hit.memory_id]
    assert attention == 1 and last is not None


def test_the_same_batch_delivered_twice_counts_once(db_url: str, make_memworks: Any) -> None:
    """A batch sent again (at-least-once delivery) leaves the state of its first delivery; an
    older batch arriving later still counts but never moves last_retrieved_at back."""
    mw = stored(make_memworks(db_url))
    ids = sorted(clocks(mw))[:2]
    send(("b" * 32, [ids[0], ids[1], ids[0]], T0.isoformat()))
    mw.drain()
    once = clocks(mw)
    with Session(mw.runtime.engine) as s:
        batches = s.scalar(select(func.count()).select_from(AttentionBatch))
    send(("b" * 32, [ids[0], ids[1], ids[0]], T0.isoformat()))
    mw.drain()
    assert clocks(mw) == once
    assert once[ids[0]] == (2.0, T0) and once[ids[1]] == (1.0, T0)
    send(("c" * 32, [ids[0]], (T0 - timedelta(hours=1)).isoformat()))
    mw.drain()
    assert clocks(mw)[ids[0]] == (3.0, T0)
    with Session(mw.runtime.engine) as s:
        assert s.scalar(select(func.count()).select_from(AttentionBatch)) == batches + 1


def test_batch_ids_are_kept_for_the_retention_then_pruned(sqlite_url: str, make_memworks: Any) -> None:
    """A batch id is remembered (a redelivery within the retention is ignored) and pruned after it."""
    from memworks.store import attention
    from memworks.store.sql.db import session_scope

    mw = stored(make_memworks(sqlite_url))
    mid = sorted(clocks(mw))[0]
    later = T0 + timedelta(days=attention.RETENTION_DAYS + 1)
    with session_scope(mw.runtime.engine) as s:
        assert attention.record(s, batch_id="d" * 32, hits={mid: 1}, at=T0, now=T0)
        assert not attention.record(s, batch_id="d" * 32, hits={mid: 1}, at=T0, now=T0 + timedelta(days=1))
        assert attention.record(s, batch_id="e" * 32, hits={mid: 1}, at=later, now=later)
    with Session(mw.runtime.engine) as s:
        assert list(s.scalars(select(AttentionBatch.batch_id))) == ["e" * 32]
    assert clocks(mw)[mid] == (2.0, later)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("not-a-batch", ["m"], "2025-04-01T09:00:00+00:00"), "batch_id"),
        (("b" * 32, [], "2025-04-01T09:00:00+00:00"), "memory_ids"),
        (("b" * 32, [""], "2025-04-01T09:00:00+00:00"), "memory_ids"),
        (("b" * 32, {"m": 1}, "2025-04-01T09:00:00+00:00"), "memory_ids"),
        (("b" * 32, ["m" * 33], "2025-04-01T09:00:00+00:00"), "memory_ids"),
        (("b" * 32, ["m"], "2025-04-01T09:00:00"), "at"),
        (("b" * 32, ["m"]), "arguments"),
    ],
)
def test_a_bad_batch_is_rejected_recorded_and_not_retried(
    sqlite_url: str, make_memworks: Any, args: tuple[Any, ...], field: str
) -> None:
    """A malformed batch fails once as InvalidInput naming the field, is kept in rejected_input
    and the dead letters, is not retried, and records nothing."""
    mw = stored(make_memworks(sqlite_url))
    before = clocks(mw)
    send(args, max_retries=3)
    with pytest.raises(InvalidInput) as err:
        mw.drain()
    assert err.value.field == field
    with Session(mw.runtime.engine) as s:
        rejected = s.scalars(select(RejectedInput).where(RejectedInput.kind == "message:record_attention")).all()
        runs = s.scalar(select(func.count()).select_from(JobRun).where(JobRun.actor == "record_attention"))
        batches = s.scalar(select(func.count()).select_from(AttentionBatch))
    assert len(rejected) == 1 and rejected[0].field == field
    assert runs == 1 and batches == 0
    assert [d["actor"] for d in mw.dead_letters()] == ["record_attention"]
    assert clocks(mw) == before


def test_a_batch_names_its_records_where_a_deletion_looks() -> None:
    """The message lists each hit's id (once per hit), so the dead-letter projection of a
    deletion finds a failed batch by the ids of the records it names."""
    from memworks.services.attention import Batch
    from memworks.store.projections.dead_letters import mentions

    batch = Batch("b" * 32, {"m2": 1, "m1": 2}, T0)
    assert batch.memory_ids() == ["m1", "m1", "m2"]
    assert mentions(["b" * 32, batch.memory_ids(), T0.isoformat()], {"m2"})


def test_the_buffer_sends_when_full_or_old_and_on_take() -> None:
    """A buffer turns into one batch at its size or age limit, or when taken; hits add up, the
    batch's time is its last read's, and every batch has a new id."""
    now = [0.0]
    buf = AttentionBuffer(max_hits=3, max_age_s=10, clock=lambda: now[0])
    assert buf.add(["a", "b"], T0) is None
    full = buf.add(["a", "c"], T0 + timedelta(seconds=1))
    assert full is not None and dict(full.hits) == {"a": 2, "b": 1, "c": 1} and full.at == T0 + timedelta(seconds=1)
    assert buf.take() is None
    assert buf.add(["a"], T0) is None
    now[0] = 10.0  # the buffer is old: it goes without the new read, which starts the next one
    old = buf.add(["b"], T0 + timedelta(hours=6))
    assert old is not None and dict(old.hits) == {"a": 1} and old.at == T0 and old.batch_id != full.batch_id
    assert buf.add([], T0) is None
    assert buf.add(["z"], T0) is None
    taken = buf.take()
    assert taken is not None and dict(taken.hits) == {"b": 1, "z": 1} and taken.at == T0 + timedelta(hours=6)
    assert buf.take() is None
