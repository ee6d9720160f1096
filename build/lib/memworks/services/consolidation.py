"""Consolidation and the other maintenance sweeps: which tenants, which users, which episodes.

A tenant is consolidated user by user, in short transactions under the user's scope lock, so
a big tenant never holds one long write and a crash loses one user's work at most (the next run
redoes it: every step is idempotent). Its learning rounds are queued once its users are done.

Users go in groups of :data:`USERS_PER_EMBEDDING`: each user's dedup runs first (its own
transaction: the summaries cite the facts that survive it), then the summaries due for the
whole group are embedded in one call (a read, no lock), then each user's other steps run with
those vectors at hand. The model batches texts of similar length together, so this costs less
than a few texts per user; a summary that changed in between is embedded in its user's
transaction, as before.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import numpy.typing as npt

from memworks.models.enums import RunStatus
from memworks.models.tables import ConsolidationRun
from memworks.services.deps import Deps
from memworks.store import consolidation as store
from memworks.store import episodes
from memworks.store import lessons as lesson_store
from memworks.store.consolidation import summaries
from memworks.store.sql import locks
from memworks.store.sql.db import analyze, session_scope

#: Queues one learning round: (tenant id, task type).
QueueRound = Callable[[str, str], object]
#: Users whose summaries are embedded in one call (bounds the vectors held: ~50 per user at
#: 1k memories each, 1.5 KB per vector).
USERS_PER_EMBEDDING = 25


@dataclass(frozen=True)
class Run:
    """A tenant's consolidation: its counts (users, profiles, each step, lesson rounds) and duration."""

    totals: dict[str, int]
    duration_ms: float


def tenants_to_consolidate(deps: Deps) -> list[str]:
    """Every tenant with memories or outcomes, after refreshing the planner's statistics.

    The nightly fan-out runs this first, so the statistics follow the day's growth.
    """
    analyze(deps.engine)
    with session_scope(deps.engine, write=False) as s:
        return store.tenants(s)


def consolidate_tenant(
    deps: Deps, tenant_id: str, *, clock: Callable[[], datetime], queue_round: QueueRound, message_id: str = ""
) -> Run:
    """Consolidate ``tenant_id`` user by user, queue a learning round per task type, record the run
    (its ``consolidation_run`` row; the job-run log is the actor middleware's)."""
    t0, started = time.perf_counter(), clock()
    with session_scope(deps.engine) as s:
        # The run row is written first, so a run that dies half way still shows as running.
        run = ConsolidationRun(tenant_id=tenant_id, message_id=message_id, started_at=started)
        s.add(run)
        s.flush()
        run_id = int(run.id or 0)
        users = store.users(s, tenant_id=tenant_id)
        task_types = lesson_store.task_types(s, tenant_id=tenant_id)
    totals: dict[str, int] = {"users": len(users), "profiles": 0} | {k: 0 for k in store.STEPS}
    knobs = deps.consolidation_knobs
    for start in range(0, len(users), USERS_PER_EMBEDDING):
        group = users[start : start + USERS_PER_EMBEDDING]
        for user in group:
            with session_scope(deps.engine) as s:
                locks.hold(s, locks.scope(tenant_id, user))
                _add(totals, store.merge_user(s, tenant_id=tenant_id, user_id=user, knobs=knobs, now=clock()))
        vectors = _embed_summaries(deps, tenant_id, group)
        for user in group:
            with session_scope(deps.engine) as s:
                locks.hold(s, locks.scope(tenant_id, user))
                counts = store.consolidate_user(
                    s, tenant_id=tenant_id, user_id=user, knobs=knobs, now=clock(), vectors=vectors, merged=True
                )
            totals["profiles"] += counts.get("profile_tokens", 0) > 0
            _add(totals, counts)
    for task_type in task_types:
        queue_round(tenant_id, task_type)
    totals["lesson_rounds"] = len(task_types)
    ms = (time.perf_counter() - t0) * 1000
    with session_scope(deps.engine) as s:
        store.mark_run(s, run_id=run_id, counts=totals, status=RunStatus.DONE, duration_ms=ms, now=clock())
    return Run(totals, ms)


def last_run(deps: Deps, tenant_id: str) -> dict[str, Any] | None:
    """The tenant's latest consolidation run (counts, status, times), or None before its first."""
    with session_scope(deps.engine, write=False) as s:
        run = store.latest_run(s, tenant_id=tenant_id)
        if run is None:
            return None
        return {
            "run_id": run.id,
            "tenant_id": tenant_id,
            "status": run.status,
            "counts": json.loads(run.counts_json),
            "duration_ms": round(run.duration_ms, 1),
            "started_at": run.started_at,
            "finished_at": run.finished_at,
        }


def _add(totals: dict[str, int], counts: dict[str, int]) -> None:
    for k, v in counts.items():
        totals[k] = totals.get(k, 0) + v


def _embed_summaries(deps: Deps, tenant_id: str, users: list[str]) -> dict[str, npt.NDArray[np.float32]]:
    """The embeddings of the texts that indexing the summaries now due for ``users`` will need."""
    with session_scope(deps.engine, write=False) as s:
        texts = [t for u in users for t in summaries.index_texts(summaries.due(s, tenant_id=tenant_id, user_id=u))]
    texts = list(dict.fromkeys(texts))
    return dict(zip(texts, deps.embedder.embed(texts), strict=True)) if texts else {}


def expire_due(deps: Deps, *, now: datetime) -> int:
    """The TTL sweep across every tenant: active records past ``expires_at`` expire; how many."""
    with session_scope(deps.engine) as s:
        return store.expire_due(s, now=now)


@dataclass(frozen=True)
class Lost:
    """Episodes whose message was lost, and what the broker said it holds (None: it cannot tell)."""

    ids: list[int]
    held: set[int] | None


def lost_episodes(deps: Deps, *, older_than_s: int, now: datetime, held: Callable[[], set[int] | None]) -> Lost:
    """The outbox sweeper's work: episodes stored over ``older_than_s`` ago, never processed, and
    named by no message ``held()`` reports. The broker is asked only when such episodes exist,
    and before the rows are read again: a message acked in between left its episodes processed."""
    cutoff = now - timedelta(seconds=older_than_s)
    with session_scope(deps.engine, write=False) as s:
        if not episodes.unprocessed_ids(s, received_before=cutoff, limit=1):
            return Lost([], None)
    holds = held()
    with session_scope(deps.engine, write=False) as s:
        ids = episodes.unprocessed_ids(s, received_before=cutoff)
    return Lost([i for i in ids if holds is None or i not in holds], holds)
