"""Extraction actor: stored episodes → governed memory (see :mod:`memworks.services.ingest`)."""

from __future__ import annotations

import dramatiq
from pydantic import BaseModel, Field, ValidationError

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.services.fairness import bulk_requests
from memworks.services.ingest import extract
from memworks.workers import lanes, metrics
from memworks.workers.broker import register
from memworks.workers.common import reject
from memworks.workers.deletion import plan_deletion_request
from memworks.workers.jobs import report
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)


class ExtractPayload(BaseModel):
    episode_ids: list[int] = Field(min_length=1, max_length=1000)


@lanes.with_bulk_lane
@register
@dramatiq.actor(queue_name="extraction", throws=(InvalidInput,))
def extract_memories(episode_ids: list[int]) -> None:
    """Extract, gate and write memories for stored episodes; safe to run twice."""
    try:
        payload = ExtractPayload.model_validate({"episode_ids": episode_ids})
    except ValidationError as exc:
        raise reject("extract_memories", {"episode_ids": episode_ids}, exc) from None
    rt = get_runtime()
    outcome = extract(rt, payload.episode_ids, now=utcnow)
    if outcome.deferred:  # past the message's budget: to the back of its lane
        lanes.send(extract_memories, outcome.deferred)
    metrics.count_gate(outcome.gate)
    metrics.count_ops(outcome.counts)
    bulk = bulk_requests(rt, outcome.deletions)
    for rid in outcome.deletions:  # users' retractions are erased like any deletion request
        lanes.send(plan_deletion_request, rid, bulk=rid in bulk)
    log.info("extraction.done", deletions=len(outcome.deletions), tenant=",".join(outcome.tenants), **outcome.counts)
    report(outcome.counts, ",".join(outcome.tenants) or None, f"episodes:{len(payload.episode_ids)}")
