"""Task outcomes and the lessons mined from them, as projections of a subject's data.

A subject's outcomes hold their words (features, the action taken, the verified action, the
task id): erasure blanks those and tombstones the row, keeping the id and content hash so a
replay is known and not stored again. A lesson resting on them gets the decision its plan
recorded: a removed one goes entirely (row and lineage), a kept one loses its lineage to the
subject's outcomes and any report that names one of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlmodel import Session, col

from memworks.models.enums import LessonDecision
from memworks.models.tables import Lesson, Lineage, Outcome
from memworks.store.projections.base import Evidence

#: Rows per IN (...) list.
CHUNK = 500
#: How a client id is written in a report: the same alphabet as the ids themselves.
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@\-]*")


def _chunks(items: Sequence[str]) -> Iterable[Sequence[str]]:
    return (items[i : i + CHUNK] for i in range(0, len(items), CHUNK))


def _holding() -> Any:
    """An outcome row that still holds words, or is not tombstoned."""
    return or_(
        col(Outcome.features_raw) != "",
        col(Outcome.features_json) != "[]",
        col(Outcome.action_taken) != "",
        col(Outcome.verified_action).is_not(None),
        col(Outcome.task_id).is_not(None),
        col(Outcome.task_text).is_not(None),
        col(Outcome.feedback).is_not(None),
        col(Outcome.tombstoned_at).is_(None),
    )


def _outcome_filters(tenant_id: str, user_id: str, ids: Sequence[str], fingerprints: Sequence[str]) -> list[Any]:
    """The planned outcomes by id, and the subject's copies of them by content hash."""
    out = [(col(Outcome.tenant_id) == tenant_id) & col(Outcome.outcome_id).in_(c) for c in _chunks(ids)]
    out += [
        (col(Outcome.tenant_id) == tenant_id) & (col(Outcome.user_id) == user_id) & col(Outcome.content_hash).in_(c)
        for c in _chunks(fingerprints)
    ]
    return out


def purge_outcomes(
    session: Session, *, tenant_id: str, user_id: str, ids: Sequence[str], fingerprints: Sequence[str], now: datetime
) -> int:
    n = 0
    for where in _outcome_filters(tenant_id, user_id, ids, fingerprints):
        result: Any = session.execute(
            update(Outcome)
            .where(where, _holding())
            .values(
                features_raw="",
                features_json="[]",
                action_taken="",
                verified_action=None,
                task_id=None,
                task_text=None,
                feedback=None,
                tombstoned_at=func.coalesce(Outcome.tombstoned_at, now),
            )
        )
        n += result.rowcount or 0
    return n


def outcomes_absent(
    session: Session, *, tenant_id: str, user_id: str, ids: Sequence[str], fingerprints: Sequence[str]
) -> Evidence:
    rows = {
        r
        for where in _outcome_filters(tenant_id, user_id, ids, fingerprints)
        for r in session.scalars(select(col(Outcome.id)).where(where, _holding()))
    }
    return Evidence(
        "outcomes",
        len(rows),
        [
            f"outcomes by id ({len(ids)}) holding features, actions or a task id, or not tombstoned",
            f"outcomes of the subject by content hash ({len(fingerprints)})",
        ],
        datetime.now(UTC),
    )


# -- lessons --------------------------------------------------------------------------------


def _resting_on(session: Session, tenant_id: str, outcome_ids: Sequence[str]) -> set[str]:
    """Lessons with a lineage edge to one of ``outcome_ids``."""
    return {
        child
        for c in _chunks(outcome_ids)
        for child in session.scalars(
            select(col(Lineage.child_id)).where(
                col(Lineage.tenant_id) == tenant_id,
                col(Lineage.parent_type) == "outcome",
                col(Lineage.parent_id).in_(c),
            )
        )
    }


def _naming(session: Session, tenant_id: str, outcome_ids: Sequence[str]) -> list[Lesson]:
    """The tenant's lessons whose report names one of ``outcome_ids`` (a misfire report does)."""
    wanted = set(outcome_ids)
    if not wanted:
        return []
    rows = session.scalars(select(Lesson).where(col(Lesson.tenant_id) == tenant_id, col(Lesson.report) != ""))
    return [r for r in rows if wanted.intersection(_TOKEN.findall(r.report))]


def purge_lessons(
    session: Session,
    *,
    tenant_id: str,
    outcome_ids: Sequence[str],
    decisions: Mapping[str, str],
    bases: Mapping[str, str],
) -> int:
    """Apply the plan's decisions (lesson id → removed | rebuilt | retained).

    A lesson that came to rest on the subject's outcomes after the plan was made has no
    decision: it is removed, the safe side for an erasure (mining rebuilds it from survivors).
    """
    late = _resting_on(session, tenant_id, outcome_ids) - set(decisions)
    removed = sorted({lid for lid, d in decisions.items() if d == LessonDecision.REMOVED} | late)
    n = 0
    for c in _chunks(removed):
        result: Any = session.execute(
            delete(Lineage).where(col(Lineage.tenant_id) == tenant_id, col(Lineage.child_id).in_(c))
        )
        n += result.rowcount or 0
        result = session.execute(delete(Lesson).where(col(Lesson.tenant_id) == tenant_id, col(Lesson.lesson_id).in_(c)))
        n += result.rowcount or 0
    for c in _chunks(outcome_ids):
        result = session.execute(
            delete(Lineage).where(
                col(Lineage.tenant_id) == tenant_id,
                col(Lineage.parent_type) == "outcome",
                col(Lineage.parent_id).in_(c),
            )
        )
        n += result.rowcount or 0
    for row in _naming(session, tenant_id, outcome_ids):
        row.report = f"report withdrawn by a deletion: {bases.get(row.lesson_id, 'it named an erased outcome')}"
        session.add(row)
        n += 1
    session.flush()
    return n


def lessons_absent(session: Session, *, tenant_id: str, outcome_ids: Sequence[str], removed: Sequence[str]) -> Evidence:
    left = sum(
        int(
            session.scalar(
                select(func.count())
                .select_from(Lesson)
                .where(col(Lesson.tenant_id) == tenant_id, col(Lesson.lesson_id).in_(c))
            )
            or 0
        )
        for c in _chunks(removed)
    )
    resting = _resting_on(session, tenant_id, outcome_ids)
    naming = _naming(session, tenant_id, outcome_ids)
    return Evidence(
        "lessons",
        left + len(resting) + len(naming),
        [
            f"lessons removed by the plan ({len(removed)}) still stored",
            f"lessons of the tenant with lineage to the subject's outcomes ({len(outcome_ids)})",
            "lesson reports of the tenant naming one of the subject's outcomes",
        ],
        datetime.now(UTC),
    )
