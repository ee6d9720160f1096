"""Deletion actors: plan a request, then one purge job and one verify job per manifest target.

The state machine lives in :mod:`memworks.services.erasure`; these actors carry its messages.
A request's jobs stay in the lane its plan was sent to (:mod:`memworks.workers.lanes`).
"""

from __future__ import annotations

import dramatiq

from memworks.errors import InvalidInput, NotFound
from memworks.logging import get_logger
from memworks.models.enums import DeletionStatus, TargetState
from memworks.services import erasure
from memworks.store.projections.dead_letters import DeadLetters, dead_letters_of
from memworks.workers import lanes, metrics
from memworks.workers.broker import QUEUES, register
from memworks.workers.common import RequestId, Seconds, Target
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)


def _dead_letters() -> DeadLetters:
    return dead_letters_of(purge_target.broker, QUEUES)


@lanes.with_bulk_lane
@register
@dramatiq.actor(queue_name="deletion", throws=(InvalidInput, NotFound))
def plan_deletion_request(request_id: RequestId) -> None:
    """Save the plan and open every target (once), then start every target's purge."""
    planned = erasure.plan_request(get_runtime(), request_id, now=utcnow())
    if planned.fresh:
        metrics.MANIFESTS.labels("opened").inc()
    for target in planned.to_purge:
        lanes.send(purge_target, request_id, target)
    log.info(
        "deletion.planned", request_id=request_id, tenant=planned.tenant_id, fresh=planned.fresh, **planned.summary
    )


@lanes.with_bulk_lane
@register
@dramatiq.actor(queue_name="deletion", throws=(InvalidInput, NotFound))
def purge_target(request_id: RequestId, target: Target) -> None:
    """Remove the plan's entries from one projection, then ask for its verification."""
    purged = erasure.purge_target(get_runtime(), request_id, target, dead_letters=_dead_letters(), now=utcnow())
    if purged is None:  # already CLOSED
        return
    lanes.send(verify_target, request_id, target)
    log.info("deletion.purged", request_id=request_id, target=target, purged=purged)


@lanes.with_bulk_lane
@register
@dramatiq.actor(queue_name="deletion", throws=(InvalidInput, NotFound))
def verify_target(request_id: RequestId, target: Target) -> None:
    """Close the target if its projection confirms absence; otherwise purge again, later."""
    v = erasure.verify_target(get_runtime(), request_id, target, dead_letters=_dead_letters(), now=utcnow())
    if v is None:  # already CLOSED
        return
    if v.repurge_after_ms is not None:
        lanes.send(purge_target, request_id, target, delay=v.repurge_after_ms)
    if v.state == TargetState.FAILED:
        metrics.MANIFESTS.labels("target_failed").inc()
    if v.status == DeletionStatus.COMPLETE:
        metrics.MANIFESTS.labels("complete").inc()
    log.info(
        "deletion.verified", request_id=request_id, target=target, state=v.state, remaining=v.remaining, status=v.status
    )


@register
@dramatiq.actor(queue_name="maintenance", throws=(InvalidInput,))
def resume_deletions(older_than_s: Seconds = 0) -> None:
    """The sweeper: re-drive every request that is still pending or has targets not CLOSED.

    Only through an idle lane: while a lane holds messages, its requests' jobs may still be among
    them, and sending them again would only lengthen it (the next sweep re-drives what is lost).
    """
    work = erasure.resume(get_runtime(), older_than_s=older_than_s, now=utcnow())
    busy = lanes.busy(purge_target.broker, "deletion")
    plans = [rid for rid in work.to_plan if (rid in work.bulk) not in busy]
    purges = [(rid, t) for rid, t in work.to_purge if (rid in work.bulk) not in busy]
    for rid in plans:
        lanes.send(plan_deletion_request, rid, bulk=rid in work.bulk)
    for rid, target in purges:
        lanes.send(purge_target, rid, target, bulk=rid in work.bulk)
    deferred = len(work.to_plan) + len(work.to_purge) - len(plans) - len(purges)
    log.info("deletion.resumed", requests=work.requests, targets=len(purges), deferred=deferred)


class RecordTargetErrors(dramatiq.Middleware):
    """A purge or verify job that raised leaves its error in the target's detail (still OPEN)."""

    def after_process_message(
        self,
        broker: dramatiq.Broker,
        message: dramatiq.MessageProxy,
        *,
        result: object | None = None,
        exception: BaseException | None = None,
    ) -> None:
        actor = message.actor_name.removesuffix("_bulk")  # either lane's
        if exception is None or actor not in ("purge_target", "verify_target") or len(message.args) != 2:
            return
        request_id, target = message.args
        erasure.note_failure(get_runtime(), str(request_id), str(target), exception, now=utcnow())
