"""Retrieval attention in the distributed deployment: Redis broker, PostgreSQL, a worker."""

from __future__ import annotations

from typing import Any

import dramatiq
import pytest
from sqlalchemy import select
from sqlmodel import Session

from memworks.models.schemas import Scope
from memworks.models.tables import Memory
from memworks_tools.bench.sql_writes import is_write, statements_on_this_thread
from tests.factories import episode

pytestmark = pytest.mark.integration


def test_reads_through_redis_write_nothing_and_a_worker_records_their_attention(
    pg_url: str, redis_url: str, make_memworks: Any
) -> None:
    """Given a facade on Redis and PostgreSQL with a worker serving the queues, reads send no
    write to PostgreSQL; once drain has sent their hits, the worker records each hit's
    attention (two reads of one record: attention 2)."""
    mw = make_memworks(pg_url, broker_url=redis_url)
    worker = dramatiq.Worker(mw.broker, worker_threads=2, worker_timeout=100)
    worker.start()
    try:
        mw.enqueue_episodes([episode(1, "I live in Lisbon and my dog is called Pixel.")])
        mw.broker.join("extraction", timeout=60_000)
        worker.join()
        scope = Scope(tenant_id="t1", user_id="u1")
        with statements_on_this_thread(mw.runtime.engine) as sql:
            hits = [mw.retrieve(scope, q).hits for q in ("Where do I live?", "Where do I live now?")]
        assert all(hits) and not [q for q in sql if is_write(q)]
        mw.drain()  # distributed: sends the buffered hits, waits for nothing
        mw.broker.join("maintenance", timeout=60_000)
        worker.join()
    finally:
        worker.stop()
    first = hits[0][0].memory_id
    with Session(mw.runtime.engine) as s:
        attention, last = s.execute(
            select(Memory.attention, Memory.last_retrieved_at).where(Memory.memory_id == first)
        ).one()
    assert attention == sum(h.memory_id == first for read in hits for h in read) == 2
    assert last is not None
