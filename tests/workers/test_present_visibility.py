"""A present read settles visibility from the scope's cached index, expiry included."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import event

from memworks.models.schemas import Scope
from memworks.services.retrieval import retrieve
from tests.factories import episode

A = Scope(tenant_id="t1", user_id="u1")


def _read(mw: Any, query: str, now: Any) -> list[str]:
    rt = mw.runtime
    result = retrieve(rt, A, query, k=5, now=now, cache_ttl_s=0)
    return [h.memory_id for h in result.hits]


def test_a_record_that_expires_leaves_present_reads_without_a_new_index(sqlite_url: str, make_memworks: Any) -> None:
    """Given a transcript with a time to live, read once before its expiry (the scope's index is
    loaded and cached), then again after it at the same scope version: the second read no
    longer sees it, and neither read asks SQL which candidates are visible."""
    mw = make_memworks(sqlite_url, cache_url="memory")
    mw.enqueue_episodes([episode(1, "We talked about the quarterly budget review with Dana.")])
    mw.drain()
    rows = [m for m in mw.memories(A) if m.expires_at is not None]
    assert rows, "the transcript carries a time to live"
    first = rows[0]
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(mw.runtime.engine, "before_cursor_execute", seen)
    try:
        before = _read(mw, "quarterly budget review", first.expires_at - timedelta(days=1))
        after = _read(mw, "quarterly budget review", first.expires_at + timedelta(seconds=1))
    finally:
        event.remove(mw.runtime.engine, "before_cursor_execute", seen)
    assert first.memory_id in before
    assert first.memory_id not in after
    # The visibility check of candidates (memory_id IN (...) with the present filter) is not asked.
    checks = [s for s in statements if "SELECT memory.memory_id \nFROM memory" in s and "expires_at" in s]
    assert not checks, checks
