"""What the store kept of the subject's activity: gate audit text and rejected inputs, task
outcomes and the lessons resting on them, and dead-letter messages.

A lesson built partly from the subject's outcomes is removed, rebuilt or retained as the plan
decided; the lessons target's evidence records each decision and its basis.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from memworks.models.enums import LessonDecision
from memworks.store.deletion.erasure.base import Subject, evidence
from memworks.store.projections import audit, outcomes
from memworks.store.projections.base import Evidence

__all__ = [
    "check_audit",
    "check_dead_letters",
    "check_lessons",
    "check_outcomes",
    "purge_audit",
    "purge_dead_letters",
    "purge_lessons",
    "purge_outcomes",
]


# -- audit text -----------------------------------------------------------------------------


def purge_audit(session: Session, s: Subject) -> int:
    p = s.plan
    return audit.purge_gate(
        session,
        tenant_id=s.tenant_id,
        user_id=s.user_id,
        episode_ids=p.episode_ids,
        memory_ids=p.memory_ids,
        fingerprints=p.fingerprints,
    ) + audit.purge_rejected(session, tenant_id=s.tenant_id, episode_ids=p.episode_ids)


def check_audit(session: Session, s: Subject) -> Evidence:
    p = s.plan
    gate = audit.gate_absent(
        session,
        tenant_id=s.tenant_id,
        user_id=s.user_id,
        episode_ids=p.episode_ids,
        memory_ids=p.memory_ids,
        fingerprints=p.fingerprints,
    )
    rejected = audit.rejected_absent(session, tenant_id=s.tenant_id, episode_ids=p.episode_ids)
    return evidence("audit_log", gate.remaining + rejected.remaining, [*gate.checked, *rejected.checked])


# -- outcomes and the lessons resting on them ------------------------------------------------


def purge_outcomes(session: Session, s: Subject) -> int:
    return outcomes.purge_outcomes(
        session,
        tenant_id=s.tenant_id,
        user_id=s.user_id,
        ids=s.plan.outcome_ids,
        fingerprints=s.plan.outcome_fingerprints,
        now=s.now,
    )


def check_outcomes(session: Session, s: Subject) -> Evidence:
    return outcomes.outcomes_absent(
        session,
        tenant_id=s.tenant_id,
        user_id=s.user_id,
        ids=s.plan.outcome_ids,
        fingerprints=s.plan.outcome_fingerprints,
    )


def _decided(s: Subject) -> dict[str, dict[str, str]]:
    return {d["artifact"].split(":", 1)[1]: d for d in s.plan.decisions}


def purge_lessons(session: Session, s: Subject) -> int:
    decided = _decided(s)
    return outcomes.purge_lessons(
        session,
        tenant_id=s.tenant_id,
        outcome_ids=s.plan.outcome_ids,
        decisions={k: d["decision"] for k, d in decided.items()},
        bases={k: d["basis"] for k, d in decided.items()},
    )


def check_lessons(session: Session, s: Subject) -> Evidence:
    decided = _decided(s)
    removed = [k for k, d in decided.items() if d["decision"] == LessonDecision.REMOVED]
    found = outcomes.lessons_absent(session, tenant_id=s.tenant_id, outcome_ids=s.plan.outcome_ids, removed=removed)
    # The decision on each lesson built partly from the subject's outcomes, and its basis.
    said = [f"lesson {k}: {d['decision']} ({d['basis']})" for k, d in sorted(decided.items())]
    return evidence("lessons", found.remaining, [*found.checked, *said])


# -- dead letters ---------------------------------------------------------------------------


def _needles(s: Subject) -> set[Any]:
    return set(s.plan.episode_row_ids) | set(s.plan.episode_ids) | set(s.plan.memory_ids)


def purge_dead_letters(session: Session, s: Subject) -> int:
    return s.dead_letters.purge(_needles(s))


def check_dead_letters(session: Session, s: Subject) -> Evidence:
    return s.dead_letters.confirm_absent(_needles(s))
