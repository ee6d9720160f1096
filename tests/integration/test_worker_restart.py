"""``memworks worker`` starts its processes again when one dies, and they serve the queue.

On a private redis-server (a loopback port of its own, nothing kept on disk) and a fresh
PostgreSQL database: nothing else on the machine sees the kill.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memworks.models.schemas import Scope
from tests.conftest import IN_CI
from tests.factories import episode
from tests.integration.test_distributed import wait_until

pytestmark = pytest.mark.integration


def live_children(pid: int) -> set[int]:
    """Pids of ``pid``'s children that are running (zombies not yet reaped left out)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == pid and state != "Z":
            found.add(int(entry.name))
    return found


@pytest.fixture
def private_redis() -> Iterator[str]:
    if shutil.which("redis-server") is None:
        if IN_CI:
            pytest.fail("redis-server is not on PATH; CI requires it", pytrace=False)
        pytest.skip("redis-server is not on PATH")
    from memworks_tools.chaos.loopback import PrivateRedis

    server = PrivateRedis()
    yield server.url
    server.stop()


def test_a_killed_worker_process_is_started_again_and_serves(
    pg_url: str, private_redis: str, make_memworks: Any, tmp_path: Path
) -> None:
    # Given `memworks worker` with one process serving a private Redis (one is enough: every
    # process is started again when one dies),
    mw = make_memworks(pg_url, broker_url=private_redis, cache_url=private_redis)
    log = tmp_path / "worker.log"
    env = dict(
        os.environ,
        MEMWORKS_DATABASE_URL=pg_url,
        MEMWORKS_BROKER_URL=private_redis,
        MEMWORKS_CACHE_URL=private_redis,
        MEMWORKS_LOG_FORMAT="json",
    )
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "memworks.cli", "worker", "--processes", "1", "--threads", "1"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until(lambda: len(live_children(worker.pid)) == 1, timeout_s=120)
        first = live_children(worker.pid)
        # When it is SIGKILLed,
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        # Then the worker stays up and runs a process again, not the killed one,
        wait_until(
            lambda: worker.poll() is not None or (len(c := live_children(worker.pid)) == 1 and victim not in c),
            timeout_s=120,
        )
        assert worker.poll() is None, log.read_text()
        text = log.read_text()
        assert '"event": "worker.process_died"' in text and '"event": "worker.restarted"' in text, text
        # and an episode sent afterwards is processed.
        mw.enqueue_episode(episode(1, "I live in Lisbon."))
        wait_until(
            lambda: any(m.key == "user.home_city" for m in mw.memories(Scope(tenant_id="t1", user_id="u1"))),
            timeout_s=120,
        )
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=30)
    # A stop signal ends it for good: no restart after SIGTERM.
    assert log.read_text().count('"event": "worker.restarted"') == 1
