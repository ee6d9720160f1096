"""The distributed deployment: real Redis broker, real PostgreSQL, real worker processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dramatiq
import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from memworks.models.enums import EpisodeState
from memworks.models.schemas import Scope
from memworks.models.tables import Episode, Memory
from memworks.output import jsonable
from tests.factories import episode

pytestmark = pytest.mark.integration

STORY = [
    episode(1, "I live in Lisbon.", when="2025-01-06T09:00:00+00:00"),
    episode(2, "I'm based in Lisbon, yes.", when="2025-01-20T09:00:00+00:00"),
    episode(3, "I moved to Berlin two weeks ago.", when="2025-03-15T09:00:00+00:00"),
    episode(4, "I work at Initech as a nurse.", when="2025-03-16T09:00:00+00:00"),
]


def wait_until(cond: Callable[[], bool], timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.2)
    raise AssertionError("timed out waiting for the workers")


def processed(engine: Any, n: int) -> Callable[[], bool]:
    def check() -> bool:
        with Session(engine) as s:
            return (
                s.scalar(select(func.count()).select_from(Episode).where(Episode.state == EpisodeState.PROCESSED)) or 0
            ) >= n

    return check


def test_same_episode_sent_twice_through_redis_creates_one_row(pg_url: str, redis_url: str, make_memworks: Any) -> None:
    # Given a Redis broker and two worker threads, when the same episodes are enqueued twice and
    # their extraction message is also delivered twice, then each memory exists once.
    from memworks.workers import extract_memories

    mw = make_memworks(pg_url, broker_url=redis_url)
    worker = dramatiq.Worker(mw.broker, worker_threads=2, worker_timeout=100)
    worker.start()
    try:
        mw.enqueue_episodes(STORY)
        mw.enqueue_episodes(STORY)
        with Session(mw.runtime.engine) as s:
            ids = list(s.scalars(select(Episode.id)))
        extract_memories.send(ids)
        extract_memories.send(ids)
        wait_until(processed(mw.runtime.engine, len(STORY)))
        mw.broker.join("extraction", timeout=60_000)
        worker.join()
    finally:
        worker.stop()
    rows = mw.memories(Scope(tenant_id="t1", user_id="u1"), include_history=True)
    keys = [(m.key, m.value) for m in rows if m.key]
    assert sorted(keys) == sorted(set(keys)), "a memory was written twice"
    assert ("user.home_city", "Berlin") in keys and ("user.employer", "Initech") in keys
    with Session(mw.runtime.engine) as s:
        assert s.scalar(select(func.count()).select_from(Episode)) == len(STORY)
        assert s.scalar(select(func.count()).select_from(Memory).where(Memory.key == "user.home_city")) == 2


def test_memworks_worker_processes_serve_the_queue(
    pg_url: str, redis_url: str, make_memworks: Any, tmp_path: Any
) -> None:
    # Given `memworks worker` running as separate processes, when an agent enqueues through Redis,
    # then the episodes are processed and answer a retrieval, the same as embedded mode does.
    env = dict(
        os.environ, MEMWORKS_DATABASE_URL=pg_url, MEMWORKS_BROKER_URL=redis_url, MEMWORKS_WORKER_IDLE_POLL_MS="150"
    )
    log = (tmp_path / "worker.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memworks.cli", "worker", "--processes", "1", "--threads", "2"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        mw = make_memworks(pg_url, broker_url=redis_url)
        mw.enqueue_episodes(STORY)
        wait_until(processed(mw.runtime.engine, len(STORY)))
        hits = mw.retrieve(Scope(tenant_id="t1", user_id="u1"), "Where do I live?").hits
        assert hits and hits[0].value == "Berlin"
        embedded = make_memworks(f"sqlite:///{tmp_path / 'x.db'}")
        embedded.enqueue_episodes(STORY)
        embedded.drain()
        strip = lambda rows: [  # noqa: E731 (one use, read inline)
            {
                k: v
                for k, v in r.items()
                if k
                not in (
                    "memory_id",
                    "superseded_by",
                    "recorded_at",  # noqa: E731
                    "superseded_at",
                    "last_retrieved_at",
                    "expires_at",
                )
            }
            for r in jsonable(rows)
        ]
        scope = Scope(tenant_id="t1", user_id="u1")
        assert strip(mw.memories(scope, include_history=True)) == strip(embedded.memories(scope, include_history=True))
        # The idle poll setting reaches dramatiq (the process `memworks worker` became).
        environ = (Path("/proc") / str(proc.pid) / "environ").read_bytes().split(b"\0")
        assert b"dramatiq_worker_timeout=150" in environ
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        log.close()


def test_redis_read_cache_keeps_tenants_apart_and_sees_new_writes(
    sqlite_url: str, redis_url: str, make_memworks: Any
) -> None:
    # Given the shared Redis read cache, when two tenants ask the identical question,
    # then each gets only its own answer, and a new write is visible at once.
    import redis

    mw = make_memworks(sqlite_url, cache_url=redis_url)
    mw.enqueue_episodes([episode(1, "I live in Lisbon.", tenant="ta"), episode(1, "I live in Oslo.", tenant="tb")])
    mw.drain()
    for _ in range(2):
        a = mw.retrieve(Scope(tenant_id="ta", user_id="u1"), "Where do I live?")
        b = mw.retrieve(Scope(tenant_id="tb", user_id="u1"), "Where do I live?")
        assert a.hits[0].value == "Lisbon" and b.hits[0].value == "Oslo"
    assert len(redis.Redis.from_url(redis_url).keys("memworks:cache:*")) == 2
    mw.enqueue_episodes([episode(2, "I moved to Rome.", tenant="ta", when="2025-02-01T09:00:00+00:00")])
    mw.drain()
    assert mw.retrieve(Scope(tenant_id="ta", user_id="u1"), "Where do I live?").hits[0].value == "Rome"


def test_lessons_are_learned_through_redis_workers(pg_url: str, redis_url: str, make_memworks: Any) -> None:
    from tests.workers.test_lesson_actor import breach_cases, normal_login

    mw = make_memworks(pg_url, broker_url=redis_url)
    worker = dramatiq.Worker(mw.broker, worker_threads=2, worker_timeout=100)
    worker.start()
    try:
        mw.report_outcomes(breach_cases(0, 1))
        mw.report_outcomes(breach_cases(0, 1))  # the same outcome again: one row, one round more
        wait_until(lambda: bool(mw.lessons("t1")))
        mw.report_outcomes(breach_cases(10, 3) + normal_login(20, 3))
        wait_until(lambda: any(l.status == "active" for l in mw.lessons("t1")))
        mw.broker.join("maintenance", timeout=60_000)
        worker.join()
    finally:
        worker.stop()
    assert mw.recommend("t1", "triage", ["login", "breach"]).action == "escalate_security"
    assert [l.version for l in mw.lessons("t1") if l.pattern == ["breach"]] == [1]


def test_worker_processes_serve_queue_and_memworks_metrics(
    pg_url: str, redis_url: str, make_memworks: Any, tmp_path: Any
) -> None:
    # Given `memworks worker --metrics-port`, when it serves the queue, then one scrape of that port
    # shows dramatiq's per-actor counts and latency and memworks' own counters from the workers.
    import httpx

    from memworks_tools.chaos import free_port

    port = free_port()
    env = dict(os.environ, MEMWORKS_DATABASE_URL=pg_url, MEMWORKS_BROKER_URL=redis_url)
    log = (tmp_path / "worker.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memworks.cli",
            "worker",
            "--processes",
            "1",
            "--threads",
            "1",
            "--metrics-port",
            str(port),
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        mw = make_memworks(pg_url, broker_url=redis_url)
        mw.enqueue_episodes(STORY + [episode(5, "thanks!", when="2025-03-17T09:00:00+00:00")])
        wait_until(processed(mw.runtime.engine, len(STORY) + 1))

        def scraped() -> bool:
            try:
                text = httpx.get(f"http://127.0.0.1:{port}/", timeout=2).text
            except httpx.HTTPError:
                return False
            return (
                'dramatiq_messages_total{actor_name="extract_memories"' in text and "memworks_memory_ops_total" in text
            )

        wait_until(scraped, timeout_s=30)
        text = httpx.get(f"http://127.0.0.1:{port}/", timeout=2).text
        assert "dramatiq_message_duration_milliseconds_bucket" in text
        assert 'memworks_gate_decisions_total{outcome="rejected",reason="small talk"} 1.0' in text
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        log.close()


#: The suite's chaos stream: every fault (several kills at random moments, one emptied queue) on a
#: stream small enough for CI. MEMWORKS_SOAK=1 runs the full soak stream (1,000 episodes, 10 kills).
SOAK = os.environ.get("MEMWORKS_SOAK", "") == "1"
CHAOS_EPISODES, CHAOS_KILLS = (1000, 10) if SOAK else (240, 4)


@pytest.mark.timeout(800 if SOAK else 300)  # the soak takes minutes beside another test process
def test_chaos_harness_keeps_every_episode_exactly_once(pg_url: str) -> None:
    # Given worker processes on PostgreSQL and a private Redis, when the episode stream is ingested
    # while workers are SIGKILLed several times and Redis is restarted empty once, then every episode
    # is processed exactly once and the memory table equals a clean run's. Known gap: a transcript's
    # retirement (every statement ended) may differ under out-of-order redelivery; facts may not.
    import json

    env = dict(os.environ, MEMWORKS_DATABASE_URL=pg_url, MEMWORKS_BROKER_URL="redis://127.0.0.1:6379/0")
    argv = ["chaos", "--episodes", str(CHAOS_EPISODES), "--kills", str(CHAOS_KILLS), "--own-redis", "--json"]
    out = subprocess.run(
        [sys.executable, "-m", "memworks.cli", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=700 if SOAK else 280,
    )
    report = json.loads(out.stdout)
    assert out.returncode == 0, (report, out.stderr[-2000:])
    assert report["episodes"] == report["processed_once"] == CHAOS_EPISODES, report
    assert report["lost"] == report["duplicated"] == 0
    assert report["identical_state"] is True or report["differing_transcripts_only"] is True, report["examples"]
    assert report["kills"] == CHAOS_KILLS and report["redis_flushes"] == 1
    assert report["memories"] > CHAOS_EPISODES


def test_chaos_refuses_anything_but_loopback() -> None:
    env = dict(
        os.environ,
        MEMWORKS_DATABASE_URL="postgresql+psycopg://postgres@db.example.com:5432/x",
        MEMWORKS_BROKER_URL="redis://127.0.0.1:6379/0",
    )
    out = subprocess.run(
        [sys.executable, "-m", "memworks.cli", "chaos", "--episodes", "10"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "loopback" in out.stderr and "MEMWORKS_DATABASE_URL" in out.stderr
