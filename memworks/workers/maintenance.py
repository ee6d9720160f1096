"""Maintenance actors: consolidation (fan-out and per tenant), TTL expiry, the outbox sweeper.

What they do lives in :mod:`memworks.services.consolidation`; these actors carry the messages.
"""

from __future__ import annotations

import dramatiq

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.services import consolidation
from memworks.workers.broker import register
from memworks.workers.common import Name, Seconds, message_id
from memworks.workers.ingest import extract_memories
from memworks.workers.lessons import mine_lessons
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)

#: A tenant's consolidation walks all its users, one transaction each: it outlasts the
#: deployment's default time limit (MEMWORKS_TIME_LIMIT_MS, ten minutes) on big tenants.
CONSOLIDATION_TIME_LIMIT_MS = 3_600_000


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
    """The outbox sweeper: episodes stored but never processed (a message lost) are sent again."""
    batches = consolidation.lost_episode_batches(get_runtime(), older_than_s=older_than_s, now=utcnow())
    for batch in batches:
        extract_memories.send(batch)
    log.info("outbox.resent", episodes=sum(map(len, batches)))
