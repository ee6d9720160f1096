"""Extraction actor: stored episodes → governed memory."""

from __future__ import annotations

import time
from datetime import datetime

import dramatiq
from pydantic import BaseModel, Field, ValidationError
from sqlmodel import Session

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.pipelines.ingest import EpisodeCaps
from memworks.services.fairness import bulk_requests
from memworks.services.ingest import process_episodes
from memworks.store import audit, profiles
from memworks.store.db import session_scope
from memworks.workers import lanes, metrics
from memworks.workers.broker import register
from memworks.workers.common import message_id, reject
from memworks.workers.deletion import plan_deletion_request
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)


class ExtractPayload(BaseModel):
    episode_ids: list[int] = Field(min_length=1, max_length=1000)


def _rebuild_profile(s: Session, tenant: str, user: str, now: datetime) -> None:
    rt = get_runtime()
    profiles.rebuild(
        s,
        tenant_id=tenant,
        user_id=user,
        count_tokens=rt.count_tokens,
        max_tokens=rt.settings.profile_max_tokens,
        now=now,
    )


@lanes.with_bulk_lane
@register
@dramatiq.actor(queue_name="extraction", throws=(InvalidInput,))
def extract_memories(episode_ids: list[int]) -> None:
    """Extract, gate and write memories for stored episodes; safe to run twice."""
    try:
        payload = ExtractPayload.model_validate({"episode_ids": episode_ids})
    except ValidationError as exc:
        raise reject("extract_memories", {"episode_ids": episode_ids}, exc) from None
    rt, started, t0 = get_runtime(), utcnow(), time.perf_counter()
    outcome = process_episodes(
        rt.engine,
        ids=payload.episode_ids,
        extractor=rt.extractor,
        embedder=rt.embedder,
        now=utcnow,
        forgetting=rt.forgetting_policy,
        after_write=_rebuild_profile,
        caps=EpisodeCaps(rt.settings.episode_max_chars, rt.settings.episode_max_candidates),
        most_candidates=rt.settings.ingest_batch_candidates,
        claims=rt.settings.claims,
    )
    if outcome.deferred:  # past the message's budget: to the back of its lane
        lanes.send(extract_memories, outcome.deferred)
    counts, tenants = outcome.counts, outcome.tenants
    metrics.count_gate(outcome.gate)
    metrics.count_ops(counts)
    ms = (time.perf_counter() - t0) * 1000
    with session_scope(rt.engine) as s:
        audit.record_job(
            s,
            actor="extract_memories",
            message_id=message_id(),
            outcome="ok",
            started_at=started,
            duration_ms=ms,
            counts=counts,
            tenant_id=",".join(tenants)[:200] or None,
            scope=f"episodes:{len(payload.episode_ids)}",
        )
    bulk = bulk_requests(rt, outcome.deletions)
    for rid in outcome.deletions:  # users' retractions are erased like any deletion request
        lanes.send(plan_deletion_request, rid, bulk=rid in bulk)
    log.info(
        "extraction.done",
        deletions=len(outcome.deletions),
        tenant=",".join(tenants),
        duration_ms=round(ms, 1),
        **counts,
    )
