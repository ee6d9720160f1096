"""Deletion actors: plan a request, then one purge job and one verify job per manifest target."""

from __future__ import annotations

import json
from collections.abc import Collection
from datetime import datetime, timedelta

import dramatiq
from pydantic import BaseModel, Field, ValidationError
from sqlmodel import Session

from memworks.errors import InvalidInput, NotFound
from memworks.logging import get_logger
from memworks.pipelines.deletion import TARGETS
from memworks.pipelines.supersession import scope_key
from memworks.store import deletion as store
from memworks.store import profiles
from memworks.store.db import checkpoint, error_text, lock_scope, session_scope
from memworks.store.erasure import PROJECTIONS, Subject
from memworks.store.projections.dead_letters import dead_letters_of
from memworks.workers import metrics
from memworks.workers.broker import QUEUES, register
from memworks.workers.common import reject
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)

#: Verify rounds that find residue before a target is marked FAILED (the sweeper can retry it).
MAX_ATTEMPTS = 5
#: First re-purge delay after residue was found (ms); doubles each round.
REPURGE_DELAY_MS = 500


class RequestPayload(BaseModel):
    request_id: str = Field(pattern=r"^[0-9a-f]{32}$")


class TargetPayload(RequestPayload):
    target: str

    def model_post_init(self, _: object) -> None:
        if self.target not in TARGETS:
            raise ValueError(f"target must be one of {', '.join(TARGETS)}")


def _send(actor: dramatiq.Actor[..., None], *args: str, delay: int | None = None) -> None:
    """Send with the deployment's retry budget (settings), not only the actor's default."""
    actor.send_with_options(args=args, delay=delay, max_retries=get_runtime().settings.max_retries)


def _check(actor: str, model: type[BaseModel], **payload: str) -> None:
    try:
        model.model_validate(payload)
    except ValidationError as exc:
        raise reject(actor, dict(payload), exc) from None


def _subject(s: Session, request_id: str) -> Subject:
    row = store.get_request(s, request_id=request_id)
    rt = get_runtime()
    subject = store.subject_of(row)
    return Subject(row.tenant_id, row.user_id, store.plan_of(row), rt.cache, dead_letters_of(purge_target.broker, QUEUES),
                   utcnow(), _rebuild_profile, whole_subject=subject.whole_subject)  # fmt: skip


def _rebuild_profile(s: Session, tenant: str, user: str, now: datetime, exclude: Collection[str]) -> object:
    rt = get_runtime()
    return profiles.rebuild(s, tenant_id=tenant, user_id=user, count_tokens=rt.count_tokens,
                            max_tokens=rt.settings.profile_max_tokens, now=now, exclude=exclude)  # fmt: skip


@register
@dramatiq.actor(queue_name="deletion", max_retries=5, min_backoff=500, max_backoff=30_000, time_limit=300_000,
                throws=(InvalidInput, NotFound))  # fmt: skip
def plan_deletion_request(request_id: str) -> None:
    """Save the plan and open every target (once), then start every target's purge."""
    _check("plan_deletion_request", RequestPayload, request_id=request_id)
    rt = get_runtime()
    with session_scope(rt.engine, write=True) as s:
        row = store.get_request(s, request_id=request_id)
        lock_scope(s, scope_key(row.tenant_id, row.user_id))
        plan = store.compute_plan(s, subject=store.subject_of(row), policy=rt.lesson_policy)
        fresh = store.save_plan(s, row=row, plan=plan, now=utcnow())
        open_targets = [t.target for t in store.targets_of(s, request_id=request_id) if t.state != "CLOSED"]
    if fresh:
        metrics.MANIFESTS.labels("opened").inc()
    for target in open_targets:
        _send(purge_target, request_id, target)
    log.info("deletion.planned", request_id=request_id, tenant=row.tenant_id, fresh=fresh, **plan.summary())


@register
@dramatiq.actor(queue_name="deletion", max_retries=5, min_backoff=500, max_backoff=30_000, time_limit=300_000,
                throws=(InvalidInput, NotFound))  # fmt: skip
def purge_target(request_id: str, target: str) -> None:
    """Remove the plan's entries from one projection, then ask for its verification."""
    _check("purge_target", TargetPayload, request_id=request_id, target=target)
    rt = get_runtime()
    with session_scope(rt.engine, write=True) as s:
        t = store.get_target(s, request_id=request_id, target=target)
        if t.state == "CLOSED":
            return
        subject = _subject(s, request_id)
        lock_scope(s, scope_key(subject.tenant_id, subject.user_id))
        purged = PROJECTIONS[target][0](s, subject)
        t.purged += purged
        s.add(t)
    _send(verify_target, request_id, target)
    log.info("deletion.purged", request_id=request_id, target=target, purged=purged)


@register
@dramatiq.actor(queue_name="deletion", max_retries=5, min_backoff=500, max_backoff=30_000, time_limit=300_000,
                throws=(InvalidInput, NotFound))  # fmt: skip
def verify_target(request_id: str, target: str) -> None:
    """Close the target if its projection confirms absence; otherwise purge again, later."""
    _check("verify_target", TargetPayload, request_id=request_id, target=target)
    rt = get_runtime()
    with session_scope(rt.engine, write=True) as s:
        # Verifications of one request serialise, so the last one to close sees every target.
        lock_scope(s, f"deletion\x1f{request_id}")
        t = store.get_target(s, request_id=request_id, target=target)
        if t.state == "CLOSED":
            return
        evidence = PROJECTIONS[target][1](s, _subject(s, request_id))
        t.attempts += 1
        t.remaining, t.checked_at = evidence.remaining, evidence.checked_at
        t.detail = json.dumps({"checked": evidence.checked, "remaining": evidence.remaining, "attempt": t.attempts})
        if evidence.absent:
            t.state = "CLOSED"
        elif t.attempts >= MAX_ATTEMPTS:
            t.state = "FAILED"
        s.add(t)
        s.flush()
        status = store.finish_if_closed(s, request_id=request_id, now=utcnow())
    if t.state == "OPEN":
        _send(purge_target, request_id, target, delay=REPURGE_DELAY_MS * 2 ** (t.attempts - 1))
    if t.state == "FAILED":
        metrics.MANIFESTS.labels("target_failed").inc()
    if status == "complete":
        metrics.MANIFESTS.labels("complete").inc()
        checkpoint(rt.engine)  # erased pages leave the WAL too
    log.info("deletion.verified", request_id=request_id, target=target, state=t.state, remaining=t.remaining,
             status=status)  # fmt: skip


@register
@dramatiq.actor(queue_name="maintenance", max_retries=3, time_limit=300_000, throws=(InvalidInput,))
def resume_deletions(older_than_s: int = 0) -> None:
    """The sweeper: re-drive every request that is still pending or has targets not CLOSED."""
    rt = get_runtime()
    with session_scope(rt.engine, write=True) as s:
        work = store.unfinished(s, created_before=utcnow() - timedelta(seconds=older_than_s))
        retry = store.reopen_failed(s, request_ids=[rid for rid, _ in work]) if work else []
    for rid, status in work:
        if status == "pending":
            _send(plan_deletion_request, rid)
    for rid, target in retry:
        _send(purge_target, rid, target)
    log.info("deletion.resumed", requests=len(work), targets=len(retry))


class RecordTargetErrors(dramatiq.Middleware):
    """A purge or verify job that raised leaves its error in the target's detail (still OPEN)."""

    def after_process_message(
        self, broker: dramatiq.Broker, message: dramatiq.MessageProxy, *, result: object | None = None,
        exception: BaseException | None = None,
    ) -> None:  # fmt: skip
        if exception is None or message.actor_name not in ("purge_target", "verify_target") or len(message.args) != 2:
            return
        request_id, target = message.args
        with session_scope(get_runtime().engine, write=True) as s:
            store.note_error(s, request_id=str(request_id), target=str(target),
                             error=error_text(exception), now=utcnow())  # fmt: skip
