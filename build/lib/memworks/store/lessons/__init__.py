"""Outcome and lesson rows: store outcomes, load views, save proposals and gate decisions."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Literal

from sqlalchemy import select
from sqlmodel import Session, col

from memworks.errors import NotFound
from memworks.models.drafts import LessonView, OutcomeView
from memworks.models.enums import LessonStatus, Relation
from memworks.models.schemas import LessonOut, OutcomeIn
from memworks.models.tables import Lesson, Lineage, Outcome
from memworks.pipelines.ingest.supersession import memory_id_for
from memworks.pipelines.lessons.features import outcome_features
from memworks.store.sql.idempotent import partition

#: Whose word an outcome is (see :attr:`memworks.models.tables.Outcome.reporter`).
Reporter = Literal["tenant", "user"]


def _hash(o: OutcomeIn) -> str:
    body = [
        o.user_id,
        o.task_id,
        o.task_type,
        o.features,
        o.action_taken,
        o.verified_action,
        o.success,
        o.occurred_at.isoformat(),
    ]
    if o.task_text is not None or o.feedback is not None:  # hashes of outcomes without them stay as they were
        body += [o.task_text, o.feedback]
    return hashlib.sha256(json.dumps(body, ensure_ascii=False).encode()).hexdigest()


def reporter_of(o: OutcomeIn, reporter: Reporter | None) -> Reporter:
    """Whose word an outcome is: as the caller vouches, else its user's when it names one."""
    if reporter is not None:
        return reporter
    return "user" if o.user_id else "tenant"


def insert_outcomes(
    session: Session, *, outcomes: Sequence[OutcomeIn], now: datetime, reporter: Reporter | None = None
) -> tuple[list[str], list[str]]:
    """Store new outcomes (idempotent on tenant + outcome id). Returns (new ids, duplicate ids).

    ``reporter`` comes from the caller's credentials (see :func:`reporter_of`), never from the body.

    Raises:
        Conflict: an outcome id already stored with different content (nothing is written).
    """
    fresh, dups = partition(
        session,
        table=Outcome,
        id_field="outcome_id",
        items=outcomes,
        key=lambda o: (o.tenant_id, o.outcome_id),
        digest=_hash,
        what="outcome_id",
    )
    rows = [
        Outcome(
            outcome_id=o.outcome_id,
            tenant_id=o.tenant_id,
            user_id=o.user_id,
            task_id=o.task_id,
            task_type=o.task_type,
            features_json=json.dumps(list(outcome_features(o.features, o.task_text))),
            features_raw=json.dumps(o.features, ensure_ascii=False),
            action_taken=o.action_taken,
            verified_action=o.verified_action,
            success=o.success,
            content_hash=h,
            occurred_at=o.occurred_at,
            received_at=now,
            reporter=reporter_of(o, reporter),
            task_text=o.task_text,
            feedback=o.feedback,
        )
        for o, h in fresh
    ]
    session.add_all(rows)
    session.flush()
    return [o.outcome_id for o in rows], dups


def outcome_views(session: Session, *, tenant_id: str, task_type: str) -> list[OutcomeView]:
    rows = session.scalars(
        select(Outcome)
        .where(
            col(Outcome.tenant_id) == tenant_id,
            col(Outcome.task_type) == task_type,
            col(Outcome.tombstoned_at).is_(None),
        )
        .order_by(col(Outcome.occurred_at), col(Outcome.id))
    )
    return [
        OutcomeView(
            outcome_id=r.outcome_id,
            user_id=r.user_id,
            task_id=r.task_id,
            task_type=r.task_type,
            features=tuple(json.loads(r.features_json)),
            action_taken=r.action_taken,
            verified_action=r.verified_action,
            success=r.success,
            occurred_at=r.occurred_at,
            reporter=r.reporter,
            received_at=r.received_at,
        )
        for r in rows
    ]


def known_actions(session: Session, *, tenant_id: str) -> set[str]:
    """Actions the tenant vouched for: right on a tenant-level outcome of any task type, or the
    action of a lesson an operator proposed."""
    live = [
        col(Outcome.tenant_id) == tenant_id,
        col(Outcome.reporter) == "tenant",
        col(Outcome.tombstoned_at).is_(None),
    ]
    verified = session.scalars(
        select(col(Outcome.verified_action)).distinct().where(*live, col(Outcome.verified_action).is_not(None))
    )
    succeeded = session.scalars(
        select(col(Outcome.action_taken))
        .distinct()
        .where(*live, col(Outcome.success).is_(True), col(Outcome.verified_action).is_(None))
    )
    proposed = session.scalars(
        select(col(Lesson.action))
        .distinct()
        .where(col(Lesson.tenant_id) == tenant_id, col(Lesson.origin) == "proposed")
    )
    return {a for a in (*verified, *succeeded, *proposed) if a}


def task_types(session: Session, *, tenant_id: str) -> list[str]:
    return sorted(set(session.scalars(select(col(Outcome.task_type)).where(col(Outcome.tenant_id) == tenant_id))))


def _mined_from(session: Session, *, tenant_id: str, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {i: [] for i in ids}
    rows = session.execute(  # tenant checked and edges ordered here: see memories.evidence_of
        select(col(Lineage.id), col(Lineage.tenant_id), col(Lineage.child_id), col(Lineage.parent_id)).where(
            col(Lineage.child_id).in_(ids), col(Lineage.relation) == Relation.MINED_FROM
        )
    ).all()
    for _, tenant, child, parent in sorted(rows):
        if tenant == tenant_id:
            out[child].append(parent)
    return {k: tuple(v) for k, v in out.items()}


def _view(row: Lesson, mined: tuple[str, ...]) -> LessonView:
    return LessonView(
        lesson_id=row.lesson_id,
        task_type=row.task_type,
        pattern=tuple(json.loads(row.pattern_json)),
        action=row.action,
        guidance=row.guidance,
        version=row.version,
        status=row.status,
        mined_from=mined,
        activated_at=row.activated_at,
    )


def lesson_rows(session: Session, *, tenant_id: str, task_type: str | None = None) -> list[Lesson]:
    q = select(Lesson).where(col(Lesson.tenant_id) == tenant_id)
    if task_type is not None:
        q = q.where(col(Lesson.task_type) == task_type)
    return list(session.scalars(q.order_by(col(Lesson.task_type), col(Lesson.created_at), col(Lesson.lesson_id))))


def lesson_evidence(
    session: Session, *, tenant_id: str, task_type: str | None = None
) -> dict[str, tuple[set[str], set[str]]]:
    """Per lesson of the tenant (of one task type, if given) with lineage: the outcome ids it was
    mined from and those it was validated on."""
    lessons = select(col(Lesson.lesson_id)).where(col(Lesson.tenant_id) == tenant_id)
    if task_type is not None:
        lessons = lessons.where(col(Lesson.task_type) == task_type)
    rows = session.execute(
        select(col(Lineage.child_id), col(Lineage.parent_id), col(Lineage.relation)).where(
            col(Lineage.tenant_id) == tenant_id,
            col(Lineage.child_id).in_(lessons.scalar_subquery()),
            col(Lineage.relation).in_([Relation.MINED_FROM, Relation.VALIDATED_ON]),
        )
    ).all()
    out: dict[str, tuple[set[str], set[str]]] = {}
    for child, parent, relation in rows:
        mined, validated = out.setdefault(child, (set(), set()))
        (mined if relation == Relation.MINED_FROM else validated).add(parent)
    return out


def user_outcome_ids(session: Session, *, tenant_id: str, user_id: str) -> set[str]:
    """Ids of the outcomes about one user of the tenant (not erased)."""
    return set(
        session.scalars(
            select(col(Outcome.outcome_id)).where(
                col(Outcome.tenant_id) == tenant_id,
                col(Outcome.user_id) == user_id,
                col(Outcome.tombstoned_at).is_(None),
            )
        )
    )


def lesson_views(session: Session, *, tenant_id: str, task_type: str) -> list[LessonView]:
    rows = lesson_rows(session, tenant_id=tenant_id, task_type=task_type)
    mined = _mined_from(session, tenant_id=tenant_id, ids=[r.lesson_id for r in rows])
    return [_view(r, mined[r.lesson_id]) for r in rows]


def add_lesson(
    session: Session,
    *,
    tenant_id: str,
    task_type: str,
    pattern: Sequence[str],
    action: str,
    guidance: str,
    mined_from: Iterable[str],
    origin: str,
    now: datetime,
) -> LessonView:
    """A new candidate, the next version of its pattern, with lineage to its outcomes."""
    pat = sorted(set(pattern))
    same = [
        r for r in lesson_rows(session, tenant_id=tenant_id, task_type=task_type) if json.loads(r.pattern_json) == pat
    ]
    version = max((r.version for r in same), default=0) + 1
    lid = memory_id_for(tenant_id, "lesson", task_type, json.dumps(pat), action, str(version))
    row = Lesson(
        lesson_id=lid,
        tenant_id=tenant_id,
        task_type=task_type,
        pattern_json=json.dumps(pat),
        action=action,
        guidance=guidance,
        version=version,
        origin=origin,
        created_at=now,
    )
    session.add(row)
    parents = list(dict.fromkeys(mined_from))
    session.add_all(
        Lineage(
            tenant_id=tenant_id,
            child_id=lid,
            parent_type="outcome",
            parent_id=p,
            relation=Relation.MINED_FROM,
            created_at=now,
        )
        for p in parents
    )
    session.flush()
    return _view(row, tuple(parents))


def decide(
    session: Session,
    *,
    tenant_id: str,
    lesson_id: str,
    status: str,
    report: str,
    evidence: Sequence[str],
    now: datetime,
) -> None:
    """Record a gate decision (forward-only: only a candidate changes here).

    A promotion supersedes the active lesson of the same pattern, which the new version
    remembers (``previous_id``) so that rolling it back restores the old one.
    """
    row = session.get(Lesson, lesson_id)
    if row is None or row.status != LessonStatus.CANDIDATE:
        return
    row.report, row.decided_at = report, now
    if status != LessonStatus.CANDIDATE:
        row.status = status
        row.activated_at = now if status == LessonStatus.ACTIVE else None
        if status == LessonStatus.ACTIVE:
            for old in lesson_rows(session, tenant_id=tenant_id, task_type=row.task_type):
                same_pattern = old.pattern_json == row.pattern_json and old.lesson_id != lesson_id
                if old.status == LessonStatus.ACTIVE and same_pattern:
                    old.status, old.retired_at = LessonStatus.SUPERSEDED, now
                    old.report = f"superseded by version {row.version} ({lesson_id}); {old.report}"
                    row.previous_id = old.lesson_id
                    session.add(old)
        have = set(
            session.scalars(
                select(col(Lineage.parent_id)).where(
                    col(Lineage.child_id) == lesson_id, col(Lineage.relation) == Relation.VALIDATED_ON
                )
            )
        )
        session.add_all(
            Lineage(
                tenant_id=tenant_id,
                child_id=lesson_id,
                parent_type="outcome",
                parent_id=e,
                relation=Relation.VALIDATED_ON,
                created_at=now,
            )
            for e in dict.fromkeys(evidence)
            if e not in have
        )
    session.add(row)


def retire(session: Session, *, tenant_id: str, lesson_id: str, status: str, report: str, now: datetime) -> Lesson:
    """active → rolled_back (or deleted), with the evidence in the report.

    A rolled-back version that replaced another restores it: the previous version of the
    pattern is active again (its report says why), and recommendations fall back to it.
    """
    row = session.get(Lesson, lesson_id)
    if row is None or row.tenant_id != tenant_id:
        raise NotFound(f"no lesson {lesson_id!r}")
    if row.status in (LessonStatus.ACTIVE, LessonStatus.CANDIDATE):
        was_active = row.status == LessonStatus.ACTIVE
        row.status, row.report, row.retired_at = status, report, now
        session.add(row)
        prev = session.get(Lesson, row.previous_id) if row.previous_id and was_active else None
        if prev is not None and prev.tenant_id == tenant_id and prev.status == LessonStatus.SUPERSEDED:
            prev.status, prev.activated_at, prev.retired_at = LessonStatus.ACTIVE, now, None
            prev.report = f"restored: version {row.version} ({lesson_id}) was rolled back; {prev.report}"
            session.add(prev)
    return row


def to_out(row: Lesson) -> LessonOut:
    return LessonOut(
        lesson_id=row.lesson_id,
        task_type=row.task_type,
        pattern=json.loads(row.pattern_json),
        action=row.action,
        guidance=row.guidance,
        status=row.status,
        version=row.version,
        origin=row.origin,
        report=row.report,
        created_at=row.created_at,
        activated_at=row.activated_at,
        previous_id=row.previous_id,
    )
