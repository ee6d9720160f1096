"""Consolidation actors: the nightly fan-out (one message per tenant) and a tenant's run.

What a run does lives in :mod:`memworks.services.consolidation`; these actors carry the messages.
"""

from __future__ import annotations

import dramatiq

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.services import consolidation
from memworks.workers.broker import register
from memworks.workers.common import Name, message_id
from memworks.workers.jobs import report
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
    report({"tenants": len(tenants)})


@register
@dramatiq.actor(queue_name="maintenance", time_limit=CONSOLIDATION_TIME_LIMIT_MS, throws=(InvalidInput,))
def consolidate(tenant_id: Name) -> None:
    """Consolidate a tenant user by user (one transaction each), then queue its learning rounds."""
    run = consolidation.consolidate_tenant(
        get_runtime(), tenant_id, clock=utcnow, queue_round=mine_lessons.send, message_id=message_id()
    )
    log.info("consolidation.done", tenant=tenant_id, duration_ms=round(run.duration_ms, 1), **run.totals)
    report(run.totals, tenant_id)
