"""Deletion requests and manifests: save the request, load the subject, save the plan, report."""

from __future__ import annotations

import json
import secrets
import uuid
from dataclasses import asdict
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlmodel import Session, col

from memworks.errors import NotFound
from memworks.models.enums import DeletionStatus, LessonStatus, Relation, TargetState
from memworks.models.schemas import DeletionRequestIn, ManifestOut, TargetOut
from memworks.models.tables import DeletionRequest, Episode, GateDecision, Lineage, ManifestTarget, Memory, Outcome
from memworks.pipelines.deletion import (
    REFLECTION,
    TARGETS,
    DeletionPlan,
    DeletionSubject,
    EpisodeRef,
    nothing_matched,
    plan_deletion,
    redact_keys,
    slot_keys,
)
from memworks.pipelines.deletion.lesson_decisions import decide_lessons
from memworks.pipelines.ingest.supersession import scope_key, transcript_id
from memworks.pipelines.lessons import LessonPolicy
from memworks.store import lessons as lesson_store
from memworks.store import memories

#: What every target of a request that matched nothing says it checked.
NOTHING_MATCHED_DETAIL = (
    "nothing matched: the request's keys and records name no record, episode or outcome of the subject"
)


def save_request(session: Session, *, request: DeletionRequestIn, now: datetime) -> str:
    """Store a request (status pending); the plan follows in the deletion worker."""
    rid = uuid.uuid4().hex
    session.add(
        DeletionRequest(
            request_id=rid,
            tenant_id=request.tenant_id,
            user_id=request.user_id,
            keys_json=json.dumps(request.keys),
            memory_ids_json=json.dumps(request.memory_ids),
            requested_by=request.requested_by,
            created_at=now,
        )
    )
    return rid


def get_request(session: Session, *, request_id: str, tenant_id: str | None = None) -> DeletionRequest:
    row = session.get(DeletionRequest, request_id)
    if row is None or (tenant_id is not None and row.tenant_id != tenant_id):
        raise NotFound(f"no deletion request {request_id!r}")
    return row


def subject_of(row: DeletionRequest) -> DeletionSubject:
    return DeletionSubject(
        row.tenant_id, row.user_id, tuple(json.loads(row.keys_json)), tuple(json.loads(row.memory_ids_json))
    )


def compute_plan(session: Session, *, subject: DeletionSubject, policy: LessonPolicy) -> DeletionPlan:
    """Load the subject's records (every status), episodes and outcomes, and plan what goes."""
    rows = list(
        session.scalars(
            select(Memory).where(col(Memory.tenant_id) == subject.tenant_id, col(Memory.user_id) == subject.user_id)
        )
    )
    views = memories.views(session, tenant_id=subject.tenant_id, rows=rows)
    eps = session.execute(
        select(col(Episode.episode_id), col(Episode.id), col(Episode.content_fingerprint)).where(
            col(Episode.tenant_id) == subject.tenant_id, col(Episode.user_id) == subject.user_id
        )
    ).all()
    key = scope_key(subject.tenant_id, subject.user_id)
    plan = plan_deletion(
        subject,
        records=views,
        fingerprints={r.memory_id: r.fingerprint for r in rows},
        episodes=[EpisodeRef(e, int(i), fp) for e, i, fp in eps],
        transcript_of={e: transcript_id(key, e) for e, _, _ in eps},
        outcomes_of=_outcomes_of(session, subject, [r.memory_id for r in rows if r.extractor == REFLECTION]),
        proposed={} if subject.whole_subject else _proposed(session, subject, slot_keys(subject, views)),
    )
    _plan_outcomes(session, subject, plan, policy)
    return plan


def _outcomes_of(session: Session, subject: DeletionSubject, ids: list[str]) -> dict[str, list[str]]:
    """Outcome ids each of ``ids`` (reflection notes) was built from."""
    out: dict[str, list[str]] = {}
    for start in range(0, len(ids), 500):
        for child, parent in session.execute(
            select(col(Lineage.child_id), col(Lineage.parent_id)).where(
                col(Lineage.child_id).in_(ids[start : start + 500]),
                col(Lineage.tenant_id) == subject.tenant_id,
                col(Lineage.parent_type) == "outcome",
            )
        ):
            out.setdefault(child, []).append(parent)
    return out


def _proposed(session: Session, subject: DeletionSubject, keys: list[str]) -> dict[str, list[str]]:
    """Episodes where the gate judged a candidate for one of ``keys``, by key (from its audit):
    a candidate dropped before it was stored (a forget request in the same batch) left its words
    in the episode all the same. A forget request's own turn is one too: it names the topic
    (``forget my favorite glimwax``), and once the deletion is done it has served its purpose."""
    out: dict[str, list[str]] = {}
    for start in range(0, len(keys), 500):
        for k, episode_id in session.execute(
            select(col(GateDecision.key), col(GateDecision.episode_id))
            .where(
                col(GateDecision.tenant_id) == subject.tenant_id,
                col(GateDecision.user_id) == subject.user_id,
                col(GateDecision.key).in_(keys[start : start + 500]),
            )
            .distinct()
        ):
            out.setdefault(str(k), []).append(episode_id)
    return out


def _plan_outcomes(session: Session, subject: DeletionSubject, plan: DeletionPlan, policy: LessonPolicy) -> None:
    """The outcomes that go (all the subject's for a whole-subject request, else those the plan's
    reflection notes were built from), and a decision for every lesson that rests on them."""
    where: list[Any] = [col(Outcome.tenant_id) == subject.tenant_id, col(Outcome.user_id) == subject.user_id]
    if not subject.whole_subject:
        if not plan.outcome_ids:
            return
        where.append(col(Outcome.outcome_id).in_(plan.outcome_ids))
    rows = session.execute(
        select(col(Outcome.outcome_id), col(Outcome.task_type), col(Outcome.content_hash)).where(*where)
    ).all()
    mine = {oid: task_type for oid, task_type, _ in rows}
    plan.outcome_ids = sorted(mine)
    plan.outcome_fingerprints = sorted({h for _, _, h in rows})
    if not mine:
        return
    rests_on: dict[str, set[str]] = {}
    for child, parent in session.execute(
        select(col(Lineage.child_id), col(Lineage.parent_id)).where(
            col(Lineage.tenant_id) == subject.tenant_id,
            col(Lineage.parent_type) == "outcome",
            col(Lineage.relation).in_([Relation.MINED_FROM, Relation.VALIDATED_ON]),
        )
    ):
        rests_on.setdefault(child, set()).add(parent)
    touched = {lid for lid, parents in rests_on.items() if parents & set(mine)}
    lessons, outcomes = [], []
    for task_type in sorted(set(mine.values())):
        lessons += [
            lv
            for lv in lesson_store.lesson_views(session, tenant_id=subject.tenant_id, task_type=task_type)
            if lv.lesson_id in touched and lv.status != LessonStatus.DELETED
        ]
        outcomes += lesson_store.outcome_views(session, tenant_id=subject.tenant_id, task_type=task_type)
    plan.decisions = decide_lessons(lessons, outcomes, subject_outcomes=set(mine), rests_on=rests_on, policy=policy)


def save_plan(session: Session, *, row: DeletionRequest, plan: DeletionPlan, now: datetime) -> bool:
    """Record the plan and open one target per projection. False when a plan was already saved.

    A plan that erases nothing for a request naming keys or records (:func:`nothing_matched`)
    finishes the request at once: status ``nothing_matched``, every target CLOSED with a detail
    saying so, the plan's keys hashed as on completion. No purge or verification follows.
    """
    if row.plan_json is not None:
        return False
    empty = nothing_matched(subject_of(row), plan)
    row.plan_json = json.dumps(asdict(redact_keys(plan, secrets.token_hex(16)) if empty else plan))
    row.status, row.planned_at = DeletionStatus.OPEN, now
    if empty:
        row.status, row.completed_at = DeletionStatus.NOTHING_MATCHED, now
    session.add(row)
    session.add_all(
        ManifestTarget(
            request_id=row.request_id,
            target=t,
            state=TargetState.CLOSED,
            remaining=0,
            checked_at=now,
            detail=json.dumps({"nothing_matched": True, "checked": [NOTHING_MATCHED_DETAIL], "remaining": 0}),
        )
        if empty
        else ManifestTarget(request_id=row.request_id, target=t)
        for t in TARGETS
    )
    session.flush()
    return True


def plan_of(row: DeletionRequest) -> DeletionPlan:
    if row.plan_json is None:
        raise NotFound(f"deletion request {row.request_id} has no plan yet")
    return DeletionPlan(**json.loads(row.plan_json))


def targets_of(session: Session, *, request_id: str) -> list[ManifestTarget]:
    return list(session.scalars(select(ManifestTarget).where(col(ManifestTarget.request_id) == request_id)))


def get_target(session: Session, *, request_id: str, target: str) -> ManifestTarget:
    row = session.get(ManifestTarget, (request_id, target))
    if row is None:
        raise NotFound(f"deletion request {request_id!r} has no target {target!r}")
    return row


def finish_if_closed(session: Session, *, request_id: str, now: datetime) -> DeletionStatus:
    """Mark the request complete once every target is CLOSED (failed if one FAILED).

    On completion the plan's slot keys are replaced by keyed hashes (:func:`redact_keys`): a
    key can be built from the subject's words, and the manifest outlives them. Its counts stay.
    """
    states = {t.state for t in targets_of(session, request_id=request_id)}
    status = (
        DeletionStatus.COMPLETE
        if states == {TargetState.CLOSED}
        else DeletionStatus.FAILED
        if TargetState.FAILED in states
        else DeletionStatus.OPEN
    )
    if status != DeletionStatus.OPEN:
        # A failed request whose every target was confirmed absent since (a message delivered
        # again) is complete all the same: absence is what the manifest proves.
        was = (
            [DeletionStatus.OPEN, DeletionStatus.FAILED] if status == DeletionStatus.COMPLETE else [DeletionStatus.OPEN]
        )
        result: Any = session.execute(
            update(DeletionRequest)
            .where(col(DeletionRequest.request_id) == request_id, col(DeletionRequest.status).in_(was))
            .values(status=status, completed_at=now)
        )
        if status == DeletionStatus.COMPLETE and result.rowcount:
            _redact_plan(session, request_id)
    return status


def _redact_plan(session: Session, request_id: str) -> None:
    """Hash the finished plan's slot keys (a fresh salt per request)."""
    text = session.scalar(select(col(DeletionRequest.plan_json)).where(col(DeletionRequest.request_id) == request_id))
    if text is None:
        return
    plan = redact_keys(DeletionPlan(**json.loads(text)), secrets.token_hex(16))
    session.execute(
        update(DeletionRequest)
        .where(col(DeletionRequest.request_id) == request_id)
        .values(plan_json=json.dumps(asdict(plan)))
    )


def unfinished(session: Session, *, created_before: datetime) -> list[tuple[str, DeletionStatus]]:
    """(request id, status) of requests not complete: the sweeper's work list."""
    return [
        (rid, DeletionStatus(status))
        for rid, status in session.execute(
            select(col(DeletionRequest.request_id), col(DeletionRequest.status)).where(
                col(DeletionRequest.status).in_([DeletionStatus.PENDING, DeletionStatus.OPEN, DeletionStatus.FAILED]),
                col(DeletionRequest.created_at) < created_before,
            )
        )
    ]


def manifest(session: Session, *, request_id: str, tenant_id: str | None = None) -> ManifestOut:
    row = get_request(session, request_id=request_id, tenant_id=tenant_id)
    planned = plan_of(row) if row.plan_json else None
    plan = planned.summary() if planned else {}
    return ManifestOut(
        request_id=row.request_id,
        status=row.status,
        tenant_id=row.tenant_id,
        user_id=row.user_id,
        keys=json.loads(row.keys_json),
        memory_ids=json.loads(row.memory_ids_json),
        created_at=row.created_at,
        completed_at=row.completed_at,
        plan=plan,
        decisions=planned.decisions if planned else [],
        targets={
            t.target: TargetOut(
                state=t.state,
                remaining=t.remaining,
                attempts=t.attempts,
                checked_at=t.checked_at,
                detail=t.detail,
                reason=reason_of(t),
            )
            for t in sorted(
                targets_of(session, request_id=request_id),
                key=lambda t: TARGETS.index(t.target) if t.target in TARGETS else 99,
            )
        },
    )


def reopen_failed(session: Session, *, request_ids: list[str], reopen: bool = True) -> list[tuple[str, str]]:
    """Targets of unfinished requests still to purge: the OPEN ones, and with ``reopen`` the
    FAILED ones too, which reopen (with their requests) for a fresh round of attempts."""
    if reopen:
        session.execute(
            update(DeletionRequest)
            .where(
                col(DeletionRequest.request_id).in_(request_ids), col(DeletionRequest.status) == DeletionStatus.FAILED
            )
            .values(status=DeletionStatus.OPEN, completed_at=None)
        )
    out = []
    for t in session.scalars(select(ManifestTarget).where(col(ManifestTarget.request_id).in_(request_ids))):
        if t.state == TargetState.CLOSED or (t.state == TargetState.FAILED and not reopen):
            continue
        if t.state == TargetState.FAILED:
            t.state, t.attempts = TargetState.OPEN, 0
            session.add(t)
        out.append((t.request_id, t.target))
    return out


def note_error(session: Session, *, request_id: str, target: str, error: str, now: datetime) -> None:
    """Keep the last error of a target's job in its detail (the target stays OPEN)."""
    row = session.get(ManifestTarget, (request_id, target))
    if row is not None and row.state == TargetState.OPEN:
        row.detail = json.dumps({"error": error[:500]})
        row.checked_at = now
        session.add(row)


def fail_target(session: Session, *, request_id: str, target: str, reason: str, now: datetime) -> bool:
    """Mark an OPEN target FAILED with ``reason`` kept in its detail; False if it was not OPEN
    (already CLOSED or FAILED, or no such target)."""
    row = session.get(ManifestTarget, (request_id, target))
    if row is None or row.state != TargetState.OPEN:
        return False
    detail = _detail(row.detail)
    detail["reason"] = reason[:500]
    row.state, row.detail, row.checked_at = TargetState.FAILED, json.dumps(detail), now
    session.add(row)
    session.flush()
    return True


def _detail(text: str) -> dict[str, Any]:
    try:
        found = json.loads(text) if text else {}
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def reason_of(row: ManifestTarget) -> str:
    """Why a target is where it is, in one line: the reason it FAILED, the last error that keeps
    it OPEN, or nothing once it is CLOSED."""
    detail = _detail(row.detail)
    if row.state == TargetState.CLOSED:
        return "nothing matched" if detail.get("nothing_matched") else ""
    if detail.get("reason"):
        return str(detail["reason"])
    if detail.get("error"):
        return f"last error: {detail['error']}"
    if row.state == TargetState.OPEN and row.attempts:
        return f"{row.remaining} left after {row.attempts} verification rounds, purging again"
    return ""
