"""The chaos scenario: batches through killed workers and an emptied queue, then a clean run of
the same stream to compare with (see :mod:`memworks_tools.chaos`)."""

from __future__ import annotations

import os
import random
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, select
from sqlmodel import Session, col

from memworks.errors import InvalidInput
from memworks.models.enums import EpisodeState
from memworks.models.tables import Episode
from memworks_tools.chaos.loopback import PrivateRedis, require_loopback, scratch_database
from memworks_tools.chaos.snapshot import Snapshot, compare, snapshot
from memworks_tools.chaos.stream import stream
from memworks_tools.chaos.workers import Workers

__all__ = ["ChaosConfig", "clean_run", "run"]


@dataclass(frozen=True)
class ChaosConfig:
    episodes: int = 1000
    kills: int = 10
    users: int = 40
    workers: int = 2
    threads: int = 2
    seed: int = 7
    own_redis: bool = False
    #: The outbox sweeper re-sends episodes unprocessed this long (a scheduler job in production).
    sweep_after_s: int = 5
    timeout_s: float = 600.0


def clean_run(episodes: list[dict[str, Any]], chunk: int) -> Snapshot:
    """The same stream, in the same batches, on the embedded default without faults."""
    from memworks.client import Memworks
    from memworks.config import Settings

    with tempfile.TemporaryDirectory(prefix="memworks-clean-") as tmp:
        settings = Settings(database_url=f"sqlite:///{Path(tmp) / 'clean.db'}", broker_url="stub://")
        with Memworks(settings) as mw:
            for i in range(0, len(episodes), chunk):
                mw.enqueue_episodes(episodes[i : i + chunk])
                mw.drain()
            return snapshot(mw.runtime.engine)


def run(cfg: ChaosConfig, *, database_url: str, broker_url: str, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the chaos scenario; returns the report (see the module docstring)."""
    if cfg.episodes < 1 or cfg.kills < 0 or cfg.workers < 1:
        raise InvalidInput("episodes and workers must be ≥ 1, kills ≥ 0", field="episodes")
    private = PrivateRedis() if cfg.own_redis else None
    broker_url = private.url if private else broker_url
    require_loopback(database_url, broker_url)
    episodes = stream(cfg.episodes, users=cfg.users, seed=cfg.seed)
    rounds = max(cfg.kills, 1) * 2
    chunk = -(-len(episodes) // rounds)
    t0 = time.monotonic()
    try:
        with scratch_database(database_url) as db, tempfile.TemporaryDirectory(prefix="memworks-chaos-") as tmp:
            report = _chaos(cfg, episodes, chunk, db, broker_url, private, Path(tmp), say)
    finally:
        if private:
            private.stop()
    say("clean run of the same stream (embedded, no faults)")
    report = compare(report["snapshot"], clean_run(episodes, chunk)) | {
        k: v for k, v in report.items() if k != "snapshot"
    }
    report["seconds"] = round(time.monotonic() - t0, 1)
    return report


def _chaos(
    cfg: ChaosConfig,
    episodes: list[dict[str, Any]],
    chunk: int,
    db: str,
    broker_url: str,
    private: PrivateRedis | None,
    tmp: Path,
    say: Callable[[str], None],
) -> dict[str, Any]:
    from memworks.client import Memworks
    from memworks.config import Settings
    from memworks.store.sql.db import upgrade

    namespace = f"memworks-chaos-{uuid.uuid4().hex[:8]}"
    upgrade(db)  # migrations run once, before any worker starts
    env = dict(
        os.environ,
        MEMWORKS_DATABASE_URL=db,
        MEMWORKS_BROKER_URL=broker_url,
        MEMWORKS_QUEUE_NAMESPACE=namespace,
        MEMWORKS_CACHE_URL="memory",
    )
    settings = Settings(database_url=db, broker_url=broker_url, queue_namespace=namespace, cache_url="memory")
    rng = random.Random(cfg.seed)
    mw = Memworks(settings)
    workers = Workers(env, cfg.workers, cfg.threads, tmp)
    kills, flushed, batches = 0, False, list(range(0, len(episodes), chunk))
    kill_after = set(rng.sample(range(len(batches)), min(cfg.kills, len(batches))))
    extra_kills = max(cfg.kills - len(kill_after), 0)  # beyond one per batch: after the last one
    seen = 0
    try:
        for b, start in enumerate(batches):
            mw.enqueue_episodes(episodes[start : start + chunk])
            if b in kill_after or (b == len(batches) - 1 and extra_kills):
                for _ in range(1 + (extra_kills if b == len(batches) - 1 else 0)):
                    # Kill a worker that is serving: after fresh progress, a random moment into the next message.
                    seen = _wait_for_progress(mw.runtime.engine, seen, timeout_s=60)
                    time.sleep(rng.uniform(0.0, 1.2))
                    workers.kill_one(rng)
                    kills += 1
            if not flushed and b >= len(batches) // 2:
                _flush_queue(mw, private, namespace)
                flushed = True
                say(f"queue emptied (redis {'restarted' if private else 'namespace flushed'}) after batch {b + 1}")
            say(f"batch {b + 1}/{len(batches)} enqueued; {kills} kills so far")
        done = _settle(mw, cfg, len(episodes), say)
        snap = snapshot(mw.runtime.engine)
    finally:
        workers.stop()
        mw.close()
        mw.runtime.engine.dispose()
        if not private:
            drop_namespace(broker_url, namespace)
    return {
        "snapshot": snap,
        "kills": kills,
        "redis_flushes": int(flushed),
        "workers_started": workers.started,
        "settled": done,
        "database": "postgresql" if db.startswith("postgresql") else "sqlite",
    }


def _flush_queue(mw: Any, private: PrivateRedis | None, namespace: str) -> None:
    if private:
        private.restart()
        return
    client = mw.broker.client
    for key in client.scan_iter(f"{namespace}:*"):
        client.delete(key)


def drop_namespace(broker_url: str, namespace: str) -> None:
    import redis

    client = redis.Redis.from_url(broker_url)
    for key in client.scan_iter(f"{namespace}:*"):
        client.delete(key)
    client.close()


def _unprocessed(engine: Engine) -> int:
    with Session(engine) as s:
        q = select(func.count()).select_from(Episode).where(col(Episode.state) != EpisodeState.PROCESSED)
        return int(s.scalar(q) or 0)


def _wait_for_progress(engine: Engine, seen: int, *, timeout_s: float) -> int:
    """Wait until more episodes are processed than ``seen`` (or all are); returns the new count."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with Session(engine) as s:
            done = int(
                s.scalar(select(func.count()).select_from(Episode).where(col(Episode.state) == EpisodeState.PROCESSED))
                or 0
            )
        if done > seen or _unprocessed(engine) == 0:
            return done
        time.sleep(0.1)
    return seen


def _settle(mw: Any, cfg: ChaosConfig, n: int, say: Callable[[str], None]) -> bool:
    """Wait for every episode to be processed, sending the outbox sweeper as a scheduler would."""
    deadline, last_sweep = time.monotonic() + cfg.timeout_s, 0.0
    while time.monotonic() < deadline:
        left = _unprocessed(mw.runtime.engine)
        if left == 0:
            say(f"all {n} episodes processed")
            return True
        if time.monotonic() - last_sweep >= cfg.sweep_after_s:
            try:
                mw.sweep_outbox(cfg.sweep_after_s)
            except Exception as exc:  # noqa: BLE001 - Redis may be coming back; the next sweep retries
                say(f"sweep not sent: {exc}")
            last_sweep = time.monotonic()
            say(f"{left} episodes still unprocessed; outbox sweeper sent")
        time.sleep(0.5)
    return False
