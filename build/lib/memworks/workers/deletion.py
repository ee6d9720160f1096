"""Deletion actors: plan a request, then one purge job and one verify job per manifest target.

The state machine lives in :mod:`memworks.services.deletion`; these actors carry its messages.
A request's jobs stay in the lane its plan was sent to (:mod:`memworks.workers.lanes`).
"""

from __future__ import annotations

import dramatiq

from memworks.errors import InvalidInput, NotFound
from memworks.logging import get_logger
from memworks.models.enums import DeletionStatus, TargetState
from memworks.services import dead_letters, deletion
from memworks.workers import lanes, metrics
from memworks.workers.broker import QUEUES, register
from memworks.workers.common import RequestId, Seconds, Target
from memworks.workers.jobs import report
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)


def _dead_letters() -> dead_letters.DeadLetters:
    return dead_letters.of(purge_target.broker, QUEUES)


@lanes.with_bulk_lane
@register
@dramatiq.actor(queue_name="deletion", throws=(InvalidInput, NotFound))
def plan_deletion_request(request_id: RequestId) -> None:
    """Save the plan and open every target (once), then start every target's purge."""
    planned = deletion.plan_request(get_runtime(), request_id, now=utcnow())
    if planned.fresh:
        metrics.MANIFESTS.labels("opened").inc()
    for target in planned.to_purge:
        lanes.send(purge_target, request_id, target)
    log.info(
        "deletion.planned", request_id=request_id, tenant=planned.tenant_id, fresh=planned.fresh, **planned.summary
    )
    report(planned.summary, planned.tenant_id, request_id)


@lanes.with_bulk_lane
@register
@dramatiq.actor(queue_name="deletion", throws=(InvalidInput, NotFound))
def purge_target(request_id: RequestId, target: Target) -> None:
    """Remove the plan's entries from one projection, then ask for its verification."""
    purged = deletion.purge_target(get_runtime(), request_id, target, dead_letters=_dead_letters(), now=utcnow())
    if purged is not None:  # else already CLOSED
        lanes.send(verify_target, request_id, target)
        log.info("deletion.purged", request_id=request_id, target=target, purged=purged)
    report({"purged": purged or 0}, scope=f"{request_id}:{target}")


@lanes.with_bulk_lane
@register
@dramatiq.actor(queue_name="deletion", throws=(InvalidInput, NotFound))
def verify_target(request_id: RequestId, target: Target) -> None:
    """Close the target if its projection confirms absence; otherwise purge again, later."""
    v = deletion.verify_target(get_runtime(), request_id, target, dead_letters=_dead_letters(), now=utcnow())
    if v is None:  # already CLOSED
        report(scope=f"{request_id}:{target}")
        return
    if v.repurge_after_ms is not None:
        lanes.send(purge_target, request_id, target, delay=v.repurge_after_ms)
    if v.state == TargetState.FAILED:
        metrics.MANIFESTS.labels("target_failed").inc()
        metrics.DELETION_FAILED.labels(target, "residue").inc()
    if v.status == DeletionStatus.COMPLETE:
        metrics.MANIFESTS.labels("complete").inc()
    log.info(
        "deletion.verified", request_id=request_id, target=target, state=v.state, remaining=v.remaining, status=v.status
    )
    report({"remaining": v.remaining}, scope=f"{request_id}:{target}")


@register
@dramatiq.actor(queue_name="maintenance", throws=(InvalidInput,))
def resume_deletions(older_than_s: Seconds = 0, reopen_failed: bool = False) -> None:
    """The sweeper: re-drive every request that is still pending or has OPEN targets; with
    ``reopen_failed`` (on demand) FAILED targets get a fresh round too.

    Only through an idle lane: while a lane holds messages, its requests' jobs may still be among
    them, and sending them again would only lengthen it (the next sweep re-drives what is lost).
    """
    work = deletion.resume(get_runtime(), older_than_s=older_than_s, now=utcnow(), reopen_failed=reopen_failed)
    busy = lanes.busy(purge_target.broker, "deletion")
    plans = [rid for rid in work.to_plan if (rid in work.bulk) not in busy]
    purges = [(rid, t) for rid, t in work.to_purge if (rid in work.bulk) not in busy]
    for rid in plans:
        lanes.send(plan_deletion_request, rid, bulk=rid in work.bulk)
    for rid, target in purges:
        lanes.send(purge_target, rid, target, bulk=rid in work.bulk)
    deferred = len(work.to_plan) + len(work.to_purge) - len(plans) - len(purges)
    log.info("deletion.resumed", requests=work.requests, targets=len(purges), deferred=deferred)
    counts = {"requests": work.requests, "plans": len(plans), "targets": len(purges), "deferred": deferred}
    report(counts, idle=not (work.to_plan or work.to_purge))


@register
@dramatiq.actor(queue_name="maintenance", throws=(InvalidInput,))
def rewrite_erased_files() -> None:
    """Rewrite the database files once deletions have completed, so their bytes leave the disk
    (PostgreSQL; a scheduler job). Safe to run twice: with nothing completed since, it does nothing."""
    done = deletion.rewrite_files(get_runtime(), now=utcnow())
    if done.requests or done.tables_left:
        log.info("deletion.rewritten", requests=len(done.requests), tables_left=done.tables_left)
    counts = {"requests": len(done.requests), "tables_left": len(done.tables_left)}
    report(counts, idle=not (done.requests or done.tables_left))


#: The jobs of a target, by actor name (either lane's), as a failure reason names them.
TARGET_JOBS = {"purge_target": "purge", "verify_target": "verification"}


def _target_job(message: dramatiq.MessageProxy) -> tuple[str, str, str] | None:
    """(job, request id, target) when ``message`` is a purge or verify job, else None."""
    job = TARGET_JOBS.get(message.actor_name.removesuffix("_bulk"))
    if job is None or len(message.args) != 2:
        return None
    return job, str(message.args[0]), str(message.args[1])


class RecordTargetErrors(dramatiq.Middleware):
    """A purge or verify job that raised leaves its error in the target's detail (still OPEN);
    one that is given up (retries used, the message rejected) leaves its target FAILED with
    the reason, fails the request and counts in ``memworks_deletion_failed_total``."""

    def after_process_message(
        self,
        broker: dramatiq.Broker,
        message: dramatiq.MessageProxy,
        *,
        result: object | None = None,
        exception: BaseException | None = None,
    ) -> None:
        found = _target_job(message)
        if exception is None or found is None:
            return
        _, request_id, target = found
        deletion.note_failure(get_runtime(), request_id, target, exception, now=utcnow())

    def before_nack(self, broker: dramatiq.Broker, message: dramatiq.MessageProxy) -> None:
        # Before, not after: the rejection is what lets a waiting ``join`` return, and the
        # manifest must already say FAILED by then.
        found = _target_job(message)
        if found is None:
            return
        job, request_id, target = found
        runs = max(1, int(message.options.get("retries", 0)))
        status = deletion.give_up(
            get_runtime(), request_id, target, job=job, runs=runs, exc=message._exception, now=utcnow()
        )
        if status is None:  # the target was not OPEN: nothing was given up
            return
        metrics.MANIFESTS.labels("target_failed").inc()
        metrics.DELETION_FAILED.labels(target, "error").inc()
        log.warning("deletion.target_failed", request_id=request_id, target=target, job=job, runs=runs, status=status)
