"""Deletion on the distributed deployment: Redis broker and cache, PostgreSQL, worker processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.integration.test_distributed import wait_until
from tests.workers.test_deletion import QUESTIONS, SECRETS, SUBJECT, loaded, sql_residue

pytestmark = pytest.mark.integration


def start_worker(pg_url: str, redis_url: str, log: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, MEMWORKS_DATABASE_URL=pg_url, MEMWORKS_BROKER_URL=redis_url, MEMWORKS_CACHE_URL=redis_url)
    with log.open("ab") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(
            [sys.executable, "-m", "memworks.cli", "worker", "--processes", "1", "--threads", "2"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, sig)
    proc.wait(timeout=30)


def redis_residue(url: str) -> list[str]:
    """Every key and every value of the Redis database, searched for the subject's words."""
    r = redis.Redis.from_url(url)
    found = []
    for key in r.scan_iter(count=500):
        kind = r.type(key).decode()
        values: list[bytes] = [key]
        if kind == "string":
            values.append(r.get(key) or b"")
        elif kind == "hash":
            values += [b"%s=%s" % kv for kv in r.hgetall(key).items()]
        elif kind in ("list",):
            values += r.lrange(key, 0, -1)
        elif kind in ("set",):
            values += list(r.smembers(key))
        elif kind == "zset":
            values += [m for m, _ in r.zrange(key, 0, -1, withscores=True)]
        blob = b" ".join(values).lower()
        found += [f"{key!r}: {n}" for n in SECRETS if n.lower().encode() in blob]
    r.close()
    return found


def test_worker_killed_mid_deletion_is_resumed_to_completion(
    pg_url: str, redis_url: str, make_memworks: Any, tmp_path: Path
) -> None:
    # Given a subject whose answers sit in the shared Redis cache, when its deletion starts and
    # the worker is SIGKILLed at once, then the sweeper and a new worker finish it: the manifest
    # completes, and neither SQL nor any Redis key holds the subject's words.
    mw = loaded(make_memworks, f"sqlite:///{tmp_path / 'seed.db'}")  # warm the model, check the fixture
    mw.close()
    log = tmp_path / "worker.log"
    first = start_worker(pg_url, redis_url, log)
    try:
        mw = make_memworks(pg_url, broker_url=redis_url, cache_url=redis_url, max_retries=3)
        from tests.workers.test_deletion import story

        mw.enqueue_episodes(story("u1", "Zorblax", "Quixotica", "Vexhollow") + story("u2", "Rex", "Initech", "Oslo"))
        wait_until(lambda: len(mw.memories(SUBJECT)) >= 6)
        time.sleep(1.0)  # let the last batch finish writing
        for q in QUESTIONS:
            mw.retrieve(SUBJECT, q)
        assert redis_residue(redis_url)  # the cache really holds the subject's words

        rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
        stop(first, signal.SIGKILL)
        assert mw.manifest(rid).status != "complete"
        second = start_worker(pg_url, redis_url, log)
        try:
            mw.resume_deletions()
            wait_until(lambda: mw.manifest(rid).status == "complete", timeout_s=120)
        finally:
            stop(second)
    finally:
        stop(first, signal.SIGKILL)
    m = mw.manifest(rid)
    assert all(t.state == "CLOSED" and t.remaining == 0 for t in m.targets.values())
    for q in QUESTIONS:
        assert mw.retrieve(SUBJECT, q).abstained
    assert sql_residue(mw, SECRETS) == []
    assert redis_residue(redis_url) == []
