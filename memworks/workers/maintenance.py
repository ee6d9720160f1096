"""Maintenance actors: consolidation (fan-out and per tenant), TTL expiry, the outbox sweeper."""

from __future__ import annotations

import time
from datetime import timedelta

import dramatiq
from pydantic import BaseModel, Field, ValidationError

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.models.tables import ConsolidationRun
from memworks.store import audit, episodes
from memworks.store import consolidation as store
from memworks.store import lessons as lesson_store
from memworks.store.db import analyze, lock_scope, session_scope
from memworks.workers.broker import register
from memworks.workers.common import message_id, reject
from memworks.workers.ingest import extract_memories
from memworks.workers.lessons import mine_lessons
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)


class TenantPayload(BaseModel):
    tenant_id: str = Field(min_length=1, max_length=200)


@register
@dramatiq.actor(queue_name="maintenance", max_retries=3, time_limit=300_000)
def fan_out_consolidation() -> None:
    """One consolidation message per tenant, so tenants run in parallel and fail alone."""
    rt = get_runtime()
    analyze(rt.engine)  # the planner's statistics follow the day's growth
    with session_scope(rt.engine, write=False) as s:
        tenants = store.tenants(s)
    for t in tenants:
        consolidate.send(t)
    log.info("consolidation.fanned_out", tenants=len(tenants))


@register
@dramatiq.actor(queue_name="maintenance", max_retries=5, min_backoff=1_000, time_limit=3_600_000, throws=(InvalidInput,))
def consolidate(tenant_id: str) -> None:
    """Consolidate a tenant user by user (one transaction each), then queue its learning rounds."""
    try:
        TenantPayload(tenant_id=tenant_id)
    except ValidationError as exc:
        raise reject("consolidate", {"tenant_id": tenant_id}, exc) from None
    rt, t0, started = get_runtime(), time.perf_counter(), utcnow()
    with session_scope(rt.engine) as s:
        run = ConsolidationRun(tenant_id=tenant_id, message_id=message_id(), started_at=started)
        s.add(run)
        s.flush()
        run_id = int(run.id or 0)
        users = store.users(s, tenant_id=tenant_id)
        task_types = lesson_store.task_types(s, tenant_id=tenant_id)
    totals: dict[str, int] = {"users": len(users), "profiles": 0} | {k: 0 for k in store.STEPS}
    for user in users:
        with session_scope(rt.engine) as s:
            lock_scope(s, f"{tenant_id}\x1f{user}")
            counts = store.consolidate_user(s, tenant_id=tenant_id, user_id=user, knobs=rt.consolidation_knobs, now=utcnow())
        totals["profiles"] += counts.get("profile_tokens", 0) > 0
        for k, v in counts.items():
            totals[k] = totals.get(k, 0) + v
    for task_type in task_types:
        mine_lessons.send(tenant_id, task_type)
    totals["lesson_rounds"] = len(task_types)
    ms = (time.perf_counter() - t0) * 1000
    with session_scope(rt.engine) as s:
        store.mark_run(s, run_id=run_id, counts=totals, status="done", duration_ms=ms, now=utcnow())
        audit.record_job(s, actor="consolidate", message_id=message_id(), outcome="ok", started_at=started,
                         duration_ms=ms, tenant_id=tenant_id, counts=totals)  # fmt: skip
    log.info("consolidation.done", tenant=tenant_id, duration_ms=round(ms, 1), **totals)


@register
@dramatiq.actor(queue_name="maintenance", max_retries=3, time_limit=300_000)
def sweep_expired() -> None:
    """The hourly TTL sweep across every tenant."""
    with session_scope(get_runtime().engine) as s:
        n = store.expire_due(s, now=utcnow())
    log.info("forgetting.expired", expired=n)


@register
@dramatiq.actor(queue_name="maintenance", max_retries=3, time_limit=300_000)
def resend_unprocessed(older_than_s: int = 300) -> None:
    """The outbox sweeper: episodes stored but never processed (a message lost) are sent again."""
    rt = get_runtime()
    with session_scope(rt.engine, write=False) as s:
        ids = episodes.unprocessed_ids(s, received_before=utcnow() - timedelta(seconds=older_than_s))
    size = rt.settings.ingest_batch_size
    for i in range(0, len(ids), size):
        extract_memories.send(ids[i : i + size])
    log.info("outbox.resent", episodes=len(ids))
