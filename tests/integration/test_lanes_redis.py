"""Lanes on the distributed deployment: dotted lane names on a real Redis broker (their delay and
dead-letter queues too), and another tenant's work ahead of a flood's backlog, on PostgreSQL."""

from __future__ import annotations

from typing import Any

import dramatiq
import pytest
from sqlalchemy import func, select
from sqlmodel import Session, col

from memworks.models.enums import EpisodeState
from memworks.models.tables import Episode
from tests.factories import episode
from tests.integration.test_distributed import wait_until

pytestmark = pytest.mark.integration


def _depth(mw: Any, queue: str) -> int:
    from memworks.workers.lanes import depth

    return depth(mw.broker, queue)


def test_another_tenants_episode_goes_ahead_of_a_floods_backlog_on_redis(
    pg_url: str, redis_url: str, make_memworks: Any
) -> None:
    # Given a Redis broker and PostgreSQL, tenant A with 16 episodes queued one message each
    # (over the threshold of 2 after the second) and then tenant B's one,
    mw = make_memworks(pg_url, broker_url=redis_url, bulk_extraction_backlog=2)
    for i in range(16):
        mw.enqueue_episode(episode(i, f"I went for walk number {i} today.", tenant="A", user=f"u{i}"))
    mw.enqueue_episode(episode(1, "I live in Lisbon.", tenant="B"))
    assert (_depth(mw, "extraction"), _depth(mw, "extraction.bulk")) == (3, 14)
    # when one worker thread serves every queue,
    worker = dramatiq.Worker(mw.broker, worker_threads=1, worker_timeout=100)
    worker.start()
    try:
        wait_until(lambda: _processed(mw) == 17, timeout_s=100)
    finally:
        worker.stop()
    # then B's was processed behind a few of A's, not behind A's whole backlog.
    with Session(mw.runtime.engine) as s:
        order = [e.tenant_id for e in s.scalars(select(Episode).order_by(col(Episode.processed_at), col(Episode.id)))]
    assert order.index("B") <= 8, order


def test_a_bulk_lanes_retries_and_dead_letters_stay_on_it_on_redis(
    pg_url: str, redis_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memworks.services import deletion as deletion_service

    # Given every deletion request in the bulk lane, one retry, and planning that fails,
    mw = make_memworks(pg_url, broker_url=redis_url, bulk_deletion_backlog=0, max_retries=1, retry_min_backoff_ms=10)
    calls: list[str] = []

    def down(deps: Any, request_id: str, **kwargs: Any) -> None:
        calls.append(request_id)
        raise ConnectionError("database away")

    monkeypatch.setattr(deletion_service, "plan_request", down)
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    assert (_depth(mw, "deletion"), _depth(mw, "deletion.bulk")) == (0, 1)
    worker = dramatiq.Worker(mw.broker, worker_threads=1, worker_timeout=100)
    worker.start()
    try:
        # when it runs, is retried after a delay (deletion.bulk.DQ) and fails again,
        wait_until(lambda: len(mw.dead_letters()) == 1, timeout_s=60)
    finally:
        worker.stop()
    # then it ran twice and is a dead letter of the bulk lane (deletion.bulk.XQ);
    assert calls == [rid, rid]
    assert [(d["actor"], d["queue"], d["args"]) for d in mw.dead_letters()] == [
        ("plan_deletion_request_bulk", "deletion.bulk", [rid])
    ]
    # sent again once the database is back, it goes to the bulk lane and completes.
    monkeypatch.undo()
    assert mw.retry_dead_letters() == 1 and _depth(mw, "deletion.bulk") == 1
    worker = dramatiq.Worker(mw.broker, worker_threads=2, worker_timeout=100)
    worker.start()
    try:
        wait_until(lambda: mw.manifest(rid).status == "complete", timeout_s=60)
    finally:
        worker.stop()
    assert mw.dead_letters() == []


def _processed(mw: Any) -> int:
    with Session(mw.runtime.engine) as s:
        q = select(func.count()).select_from(Episode).where(col(Episode.state) == EpisodeState.PROCESSED)
        return int(s.scalar(q) or 0)
