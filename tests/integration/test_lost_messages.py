"""No silent loss on Redis: the outbox sweeper resends exactly the episodes no message holds.

dramatiq's Redis broker keeps a message in its queue's ``.msgs`` hash from enqueue to ack, so an
episode named in no hash (waiting, delayed, in a worker, dead-lettered) has lost its message.
"""

from __future__ import annotations

import time
from typing import Any

import dramatiq
import pytest
from sqlalchemy import select
from sqlmodel import Session

from memworks.models.enums import EpisodeState
from memworks.models.tables import Episode
from tests.factories import episode

pytestmark = pytest.mark.integration

NS = "dramatiq"


def queued(client: Any, queue: str) -> list[list[int]]:
    """The episode ids of each message waiting on ``queue``, in order."""
    import json

    raw = client.hgetall(f"{NS}:{queue}.msgs")
    return [json.loads(raw[mid])["args"][0] for mid in client.lrange(f"{NS}:{queue}", 0, -1)]


@pytest.fixture
def stored(pg_url: str, redis_url: str, make_memworks: Any) -> tuple[Any, Any]:
    """A store on PostgreSQL with a Redis broker and no worker, and a client of that Redis."""
    import redis

    return make_memworks(pg_url, broker_url=redis_url), redis.Redis.from_url(redis_url)


def test_only_an_episode_no_message_holds_is_sent_again(stored: tuple[Any, Any]) -> None:
    import memworks.workers as w

    mw, client = stored
    mw.enqueue_episodes([episode(1, "I live in Lisbon."), episode(2, "I work at Initech.")])
    mw.enqueue_episodes([episode(3, "I have a cat named Miso.")])
    with Session(mw.runtime.engine) as s:
        ids = list(s.scalars(select(Episode.id).order_by(Episode.id)))
    first, second = queued(client, "extraction")
    assert sorted(first + second) == ids

    # Given both messages waiting, the sweeper sends nothing;
    w.resend_unprocessed(0)
    assert len(queued(client, "extraction")) == 2
    # given the first fetched by a worker (off the queue, still unacked in its hash) and the
    # second dead-lettered, it still sends nothing: both are accounted for;
    msg_ids = client.lrange(f"{NS}:extraction", 0, -1)
    client.lrem(f"{NS}:extraction", 0, msg_ids[0])
    client.hset(f"{NS}:extraction.XQ.msgs", msg_ids[1], client.hget(f"{NS}:extraction.msgs", msg_ids[1]))
    client.lrem(f"{NS}:extraction", 0, msg_ids[1])
    client.hdel(f"{NS}:extraction.msgs", msg_ids[1])
    w.resend_unprocessed(0)
    assert queued(client, "extraction") == []
    # when the first is lost too (its worker gone and Redis emptied of it), exactly its episodes
    # are sent again, once however often the sweeper runs;
    client.hdel(f"{NS}:extraction.msgs", msg_ids[0])
    w.resend_unprocessed(0)
    w.resend_unprocessed(0)
    assert queued(client, "extraction") == [first]
    # and a worker then processes them.
    worker = dramatiq.Worker(mw.broker, worker_threads=1, worker_timeout=100)
    worker.start()
    try:
        mw.broker.join("extraction", timeout=60_000)
        worker.join()
    finally:
        worker.stop()
    with Session(mw.runtime.engine) as s:
        states = {i: st for i, st in s.execute(select(Episode.id, Episode.state))}
    assert {i for i, st in states.items() if st == EpisodeState.PROCESSED} == set(first)


def test_a_message_held_by_a_worker_that_went_silent_is_sent_again(stored: tuple[Any, Any]) -> None:
    # A worker SIGKILLed mid-message leaves the message in its ack set; dramatiq requeues it only
    # after its heartbeat timeout, on a rare maintenance pass. The sweeper does not wait for that.
    import memworks.workers as w
    from memworks.workers.lanes import SILENT_WORKER_S

    mw, client = stored
    mw.enqueue_episodes([episode(1, "I live in Lisbon.")])
    (mid,) = client.lrange(f"{NS}:extraction", 0, -1)
    ids = queued(client, "extraction")
    client.lrem(f"{NS}:extraction", 0, mid)
    client.sadd(f"{NS}:__acks__.w-1.extraction", mid)  # fetched by worker w-1, never acked
    now_ms = int(time.time() * 1000)
    client.zadd(f"{NS}:__heartbeats__", {"w-1": now_ms})
    w.resend_unprocessed(0)
    assert queued(client, "extraction") == []  # its worker is alive: the message is in hand
    client.zadd(f"{NS}:__heartbeats__", {"w-1": now_ms - (SILENT_WORKER_S + 5) * 1000})
    w.resend_unprocessed(0)
    assert queued(client, "extraction") == ids  # silent: sent again


def test_the_sweeper_waits_its_grace_for_a_message_still_being_sent(stored: tuple[Any, Any]) -> None:
    # An episode committed a moment ago may not have its message yet: the grace covers that gap.
    import memworks.workers as w

    mw, client = stored
    mw.enqueue_episodes([episode(1, "I live in Lisbon.")])
    client.delete(f"{NS}:extraction", f"{NS}:extraction.msgs")
    w.resend_unprocessed(60)
    assert queued(client, "extraction") == []
    time.sleep(1.1)
    w.resend_unprocessed(1)
    assert len(queued(client, "extraction")) == 1


def test_the_scheduler_sweeps_the_outbox_every_few_seconds() -> None:
    from apscheduler.triggers.interval import IntervalTrigger

    from memworks.config import Settings
    from memworks.scheduler import JOB_IDS, build_scheduler, jobs

    sched = build_scheduler(Settings(database_url="sqlite://", outbox_sweep_s=7))
    job = sched.get_job(JOB_IDS[3])
    assert isinstance(job.trigger, IntervalTrigger) and job.trigger.interval.total_seconds() == 7
    assert jobs.OUTBOX_GRACE_S <= 10
