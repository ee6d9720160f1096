"""Maintenance actors: consolidation (fan-out and per tenant), TTL expiry, the outbox sweeper,
retrieval attention.

What they do lives in :mod:`memworks.services.consolidation` and :mod:`memworks.services.attention`;
these actors carry the messages.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import dramatiq
from pydantic import AfterValidator, Field, StringConstraints

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.services import attention, consolidation, fairness
from memworks.workers import lanes
from memworks.workers.broker import register
from memworks.workers.common import Name, Seconds, message_id
from memworks.workers.ingest import extract_memories
from memworks.workers.lessons import mine_lessons
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)

#: A tenant's consolidation walks all its users, one transaction each: it outlasts the
#: deployment's default time limit (MEMWORKS_TIME_LIMIT_MS, ten minutes) on big tenants.
CONSOLIDATION_TIME_LIMIT_MS = 3_600_000


def _aware_time(value: str) -> str:
    if datetime.fromisoformat(value).tzinfo is None:  # a malformed string raises ValueError too
        raise ValueError("must be an ISO 8601 time with a UTC offset, e.g. 2025-02-01T09:00:00+00:00")
    return value


#: A batch of retrievals' id (a uuid4 in hex).
BatchId = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]
#: A batch's hits: memory ids (as wide as the column), each once per hit; bounded.
Hits = Annotated[
    list[Annotated[str, StringConstraints(min_length=1, max_length=32)]],
    Field(min_length=1, max_length=attention.MAX_BATCH_HITS),
]
#: An ISO 8601 time with a UTC offset.
AwareTime = Annotated[str, AfterValidator(_aware_time)]


@register
@dramatiq.actor(queue_name="maintenance", throws=(InvalidInput,))
def fan_out_consolidation() -> None:
    """One consolidation message per tenant, so tenants run in parallel and fail alone."""
    tenants = consolidation.tenants_to_consolidate(get_runtime())
    for t in tenants:
        consolidate.send(t)
    log.info("consolidation.fanned_out", tenants=len(tenants))


@register
@dramatiq.actor(queue_name="maintenance", time_limit=CONSOLIDATION_TIME_LIMIT_MS, throws=(InvalidInput,))
def consolidate(tenant_id: Name) -> None:
    """Consolidate a tenant user by user (one transaction each), then queue its learning rounds."""
    run = consolidation.consolidate_tenant(
        get_runtime(), tenant_id, clock=utcnow, queue_round=mine_lessons.send, message_id=message_id()
    )
    log.info("consolidation.done", tenant=tenant_id, duration_ms=round(run.duration_ms, 1), **run.totals)


@register
@dramatiq.actor(queue_name="maintenance", throws=(InvalidInput,))
def sweep_expired() -> None:
    """The hourly TTL sweep across every tenant."""
    log.info("forgetting.expired", expired=consolidation.expire_due(get_runtime(), now=utcnow()))


@register
@dramatiq.actor(queue_name="maintenance", throws=(InvalidInput,))
def resend_unprocessed(older_than_s: Seconds = 300) -> None:
    """The outbox sweeper: episodes stored over ``older_than_s`` ago, never processed and named by
    no message the broker holds (so their message was lost) are sent again, each tenant's in its
    lane. Where the broker cannot say what it holds (in process), only through an idle lane, as
    :func:`resume_deletions` does: in a busy one the work may still be queued.

    Safe to run twice: extraction skips episodes already processed.
    """
    rt, broker = get_runtime(), extract_memories.broker
    lost = consolidation.lost_episodes(
        rt, older_than_s=older_than_s, now=utcnow(), held=lambda: lanes.held_ids(broker, "extraction")
    )
    busy = lanes.busy(broker, "extraction") if lost.held is None and lost.ids else set()
    sent = [p for p in fairness.extraction_parts(rt, lost.ids) if p.bulk not in busy]
    for p in sent:
        lanes.send(extract_memories, p.ids, bulk=p.bulk)
    if lost.ids:
        resent = sum(len(p.ids) for p in sent)
        log.info("outbox.resent", episodes=resent, deferred=len(lost.ids) - resent, held=len(lost.held or ()))


@register
@dramatiq.actor(queue_name="maintenance", throws=(InvalidInput,))
def record_attention(batch_id: BatchId, memory_ids: Hits, at: AwareTime) -> None:
    """Record a batch of retrievals (the facade's, see :mod:`memworks.services.attention`).

    Safe to run twice: a batch id already recorded changes nothing.
    """
    done = attention.record_attention(
        get_runtime(), batch_id=batch_id, memory_ids=memory_ids, at=datetime.fromisoformat(at), now=utcnow()
    )
    log.info("attention.recorded", records=len(set(memory_ids)), hits=len(memory_ids), duplicate=not done)
