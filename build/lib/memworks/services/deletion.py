"""Deletion: the state machine from a request to a manifest whose every target is CLOSED, and its previews.

A request is planned once (the plan is saved before anything goes) and opens one target per
projection. Each target is purged, then verified: it closes only when its projection confirms
absence by id and by fingerprint; residue sends it back to purge, later and later, and after
:data:`MAX_ATTEMPTS` rounds it is FAILED. A purge or verification job that keeps raising is
retried by the broker with backoff; once its retries are used the target is FAILED too
(:func:`give_up`). Either way the target's detail says why. The request completes when every
target is CLOSED, and fails when one FAILED. The sweeper (:func:`resume`) plans pending requests
again and re-drives OPEN targets; FAILED ones reopen only when a person asks
(``memworks deletions resume``), so retries stay bounded. Every step is safe to run twice.

A request identical to one not yet planned (same tenant, user, keys and records) is not saved
again: :func:`submit` answers with that request's id, so repeating a request adds no work. Its
plan, made later, covers everything stored by then. A request already planned is not reused:
its plan predates what was stored since.

The functions here decide and write; they return what should happen next (which targets to
purge, when to purge again, in which lane), and the workers carry those messages.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

from memworks.models.enums import DeletionStatus, TargetState
from memworks.models.schemas import DeletionRequestIn, ManifestOut
from memworks.pipelines.deletion import TARGETS, DeletionSubject
from memworks.services.deps import Deps
from memworks.services.fairness import bulk_requests, deletion_bulk_tenants
from memworks.services.profiles import rebuild_profile
from memworks.store import backlog, memories
from memworks.store import deletion as store
from memworks.store.deletion import erasure
from memworks.store.deletion.erasure import disk
from memworks.store.projections.dead_letters import DeadLetters
from memworks.store.sql import locks
from memworks.store.sql.db import checkpoint, error_text, session_scope

#: Verify rounds that find residue before a target is marked FAILED (the sweeper can retry it).
MAX_ATTEMPTS = 5
#: First re-purge delay after residue was found (ms); doubles each round.
REPURGE_DELAY_MS = 500


@dataclass(frozen=True)
class Submitted:
    """A request as submitted: its id, whether it is new (else it is an identical one not yet
    planned), and whether its jobs go to the bulk lane."""

    request_id: str
    fresh: bool
    bulk: bool


@dataclass(frozen=True)
class Planned:
    """A saved plan: ``fresh`` when this run saved it, and the targets still to purge."""

    tenant_id: str
    fresh: bool
    to_purge: list[str]
    summary: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Verified:
    """One verification: the target's new state and the request's status."""

    state: TargetState
    remaining: int
    attempts: int
    status: DeletionStatus

    @property
    def repurge_after_ms(self) -> int | None:
        """When residue was found and rounds are left: the delay before purging again."""
        return REPURGE_DELAY_MS * 2 ** (self.attempts - 1) if self.state == TargetState.OPEN else None


@dataclass(frozen=True)
class Resumed:
    """The sweeper's work: requests to plan again, targets to purge again."""

    requests: int
    to_plan: list[str]
    to_purge: list[tuple[str, str]]
    #: Requests whose tenant is over its backlog threshold: their jobs go to the bulk lane.
    bulk: set[str] = field(default_factory=set)


def next_state(*, absent: bool, attempts: int) -> TargetState:
    """A target after a verification: CLOSED on confirmed absence, FAILED when out of rounds."""
    if absent:
        return TargetState.CLOSED
    return TargetState.FAILED if attempts >= MAX_ATTEMPTS else TargetState.OPEN


def submit(deps: Deps, request: DeletionRequestIn, *, now: datetime) -> Submitted:
    """Save a deletion request, or find the identical one not yet planned (see the module).

    Keys and record ids are stored sorted, each once, so the same subject is the same request
    whatever order it was named in. A new request goes to the bulk lane when its tenant has
    more than ``bulk_deletion_backlog`` requests at work with it.
    """
    req = request.model_copy(update={"keys": sorted(set(request.keys)), "memory_ids": sorted(set(request.memory_ids))})
    with session_scope(deps.engine, write=True) as s:
        locks.hold(s, locks.deletion_requests(req.tenant_id, req.user_id))  # two identical ones open one
        twin = backlog.pending_twin(s, request=req)
        over = deletion_bulk_tenants(
            s, [req.tenant_id], threshold=deps.settings.bulk_deletion_backlog, adding=0 if twin else 1
        )
        rid = twin or store.save_request(s, request=req, now=now)
    return Submitted(rid, twin is None, req.tenant_id in over)


def plan_request(deps: Deps, request_id: str, *, now: datetime) -> Planned:
    """Save the request's plan and open every target (once); name the targets not yet CLOSED.

    Raises:
        NotFound: no such request.
    """
    with session_scope(deps.engine, write=True) as s:
        row = store.get_request(s, request_id=request_id)
        # After any identical submission that took this request as its own (it reads the rows
        # as they are once that one is committed), before any that would.
        locks.hold(s, locks.deletion_requests(row.tenant_id, row.user_id))
        locks.hold(s, locks.scope(row.tenant_id, row.user_id))
        s.refresh(row)
        plan = store.compute_plan(s, subject=store.subject_of(row), policy=deps.lesson_policy)
        fresh = store.save_plan(s, row=row, plan=plan, now=now)
        to_purge = [t.target for t in store.targets_of(s, request_id=request_id) if t.state != TargetState.CLOSED]
    return Planned(row.tenant_id, fresh, to_purge, plan.summary())


def purge_target(deps: Deps, request_id: str, target: str, *, dead_letters: DeadLetters, now: datetime) -> int | None:
    """Remove the plan's entries from one projection; how many went, or None if the target is CLOSED.

    Raises:
        NotFound: no such request or target, or the request has no plan yet.
    """
    with session_scope(deps.engine, write=True) as s:
        t = store.get_target(s, request_id=request_id, target=target)
        if t.state == TargetState.CLOSED:
            return None
        subject = _subject(deps, s, request_id, dead_letters, now)
        locks.hold(s, locks.scope(subject.tenant_id, subject.user_id))
        purged = erasure.PROJECTIONS[target][0](s, subject)
        t.purged += purged
        s.add(t)
    return purged


def verify_target(
    deps: Deps, request_id: str, target: str, *, dead_letters: DeadLetters, now: datetime
) -> Verified | None:
    """Check one projection for residue and move its target (and the request) on; None if already CLOSED.

    Raises:
        NotFound: no such request or target, or the request has no plan yet.
    """
    with session_scope(deps.engine, write=True) as s:
        locks.hold(s, locks.deletion(request_id))
        t = store.get_target(s, request_id=request_id, target=target)
        if t.state == TargetState.CLOSED:
            return None
        evidence = erasure.PROJECTIONS[target][1](s, _subject(deps, s, request_id, dead_letters, now))
        t.attempts += 1
        t.remaining, t.checked_at = evidence.remaining, evidence.checked_at
        detail: dict[str, object] = {
            "checked": evidence.checked,
            "remaining": evidence.remaining,
            "attempt": t.attempts,
        }
        t.state = next_state(absent=evidence.absent, attempts=t.attempts)
        if t.state == TargetState.FAILED:
            detail["reason"] = f"{t.remaining} still present after {t.attempts} purge-and-verify rounds"
        t.detail = json.dumps(detail)
        s.add(t)
        s.flush()
        status = store.finish_if_closed(s, request_id=request_id, now=now)
    if status == DeletionStatus.COMPLETE:
        checkpoint(deps.engine)  # erased pages leave the WAL too
    return Verified(TargetState(t.state), t.remaining, t.attempts, status)


def resume(deps: Deps, *, older_than_s: int, now: datetime, reopen_failed: bool = False) -> Resumed:
    """The sweeper: requests older than ``older_than_s`` not complete, and their OPEN targets
    (work whose messages may be lost). FAILED targets have used their retries: they stay FAILED
    unless ``reopen_failed`` (a person asking for another round) reopens them.
    Each request's jobs go to the lane its tenant's backlog names now."""
    with session_scope(deps.engine, write=True) as s:
        work = store.unfinished(s, created_before=now - timedelta(seconds=older_than_s))
        ids = [rid for rid, status in work if reopen_failed or status != DeletionStatus.FAILED]
        retry = store.reopen_failed(s, request_ids=ids, reopen=reopen_failed) if ids else []
    return Resumed(
        len(ids),
        [rid for rid, status in work if status == DeletionStatus.PENDING],
        retry,
        bulk_requests(deps, ids),
    )


def note_failure(deps: Deps, request_id: str, target: str, exc: BaseException, *, now: datetime) -> None:
    """Keep a failed purge's or verification's error in its target's detail (it stays OPEN)."""
    with session_scope(deps.engine, write=True) as s:
        store.note_error(s, request_id=request_id, target=target, error=error_text(exc), now=now)


def give_up(
    deps: Deps, request_id: str, target: str, *, job: str, runs: int, exc: BaseException | None, now: datetime
) -> DeletionStatus | None:
    """A target's purge or verification job has used its retries: the target is FAILED with the
    reason, and the request fails with it. None when the target was not OPEN (nothing changed).

    Args:
        job: what gave up ("purge" or "verification"), as the reason names it.
        runs: how many times the job ran and failed.
        exc: its last error, if it raised one.
    """
    error = error_text(exc) if exc is not None else "no error recorded"
    reason = f"{job} failed {runs} time{'s' if runs != 1 else ''}, retries exhausted: {error}"
    with session_scope(deps.engine, write=True) as s:
        locks.hold(s, locks.deletion(request_id))
        if not store.fail_target(s, request_id=request_id, target=target, reason=reason, now=now):
            return None
        return store.finish_if_closed(s, request_id=request_id, now=now)


@dataclass(frozen=True)
class Rewritten:
    """A rewrite of the database files: the completed requests whose bytes it took off the disk,
    and the tables it left for the next run (their lock was not granted in time)."""

    requests: list[str]
    tables_left: list[str]


def rewrite_files(deps: Deps, *, now: datetime, lock_timeout_s: float = 5) -> Rewritten:
    """Rewrite the database files if a deletion completed since the last rewrite (PostgreSQL:
    :mod:`memworks.store.deletion.erasure.disk`; on SQLite the bytes are zeroed already and requests
    are only marked). Requests are marked once every table was rewritten after they completed."""
    with session_scope(deps.engine, write=False) as s:
        waiting = disk.awaiting_rewrite(s)  # read first: a request completing later waits for the next run
    if not waiting:
        return Rewritten([], [])
    left = disk.rewrite_tables(deps.engine, lock_timeout_s=lock_timeout_s)
    if not left:
        with session_scope(deps.engine, write=True) as s:
            disk.mark_rewritten(s, waiting, now=now)
    return Rewritten([] if left else waiting, left)


def _subject(deps: Deps, s: Session, request_id: str, dead_letters: DeadLetters, now: datetime) -> erasure.Subject:
    row = store.get_request(s, request_id=request_id)

    def rebuild(session: Session, tenant: str, user: str, at: datetime, exclude: Collection[str]) -> object:
        return rebuild_profile(deps, session, tenant, user, at, exclude=exclude)

    return erasure.Subject(
        row.tenant_id,
        row.user_id,
        store.plan_of(row),
        deps.cache,
        dead_letters,
        now,
        rebuild,
        whole_subject=store.subject_of(row).whole_subject,
    )


def preview(deps: Deps, request: DeletionRequestIn) -> dict[str, Any]:
    """What a deletion would erase (records with key and value, episodes, targets); changes nothing."""
    subject = DeletionSubject(request.tenant_id, request.user_id, tuple(request.keys), tuple(request.memory_ids))
    with session_scope(deps.engine, write=False) as s:
        plan = store.compute_plan(s, subject=subject, policy=deps.lesson_policy)
        rows = memories.get_rows(s, ids=plan.memory_ids)
    derived = set(plan.derived_ids)
    return {
        "tenant_id": request.tenant_id,
        "user_id": request.user_id,
        "keys": plan.keys,
        "records": [
            {
                "memory_id": r.memory_id,
                "kind": r.kind,
                "key": r.key,
                "value": r.value,
                "status": r.status,
                "derived": r.memory_id in derived,
                "transcript": r.extractor == "transcript",
            }
            for r in rows
        ],
        "episodes": plan.episode_ids,
        "outcomes": plan.outcome_ids,
        "decisions": plan.decisions,
        "targets": list(TARGETS),
        "counts": plan.summary(),
    }


def manifest(deps: Deps, request_id: str) -> ManifestOut:
    """The deletion manifest: status and, per projection, state, residue, attempts, evidence."""
    with session_scope(deps.engine, write=False) as s:
        return store.manifest(s, request_id=request_id)
