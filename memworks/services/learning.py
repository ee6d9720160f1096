"""The learning round of one tenant's task type: guard, reflect, mine, gate.

One round, in one transaction under the task type's lock:

1. the online guard compares each active lesson with the base policy on the live cases where it
   fired, and rolls back one that does worse (the version it replaced comes back);
2. failures with feedback get their reflection notes;
3. failures not yet answered are mined into candidate lessons;
4. the promotion gate replays every candidate on held-out cases: promoted, blocked, or left
   a candidate with the reason it waits.

A second round with no new outcomes finds nothing to do, so a message delivered twice is harmless.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from memworks.models.drafts import OutcomeView
from memworks.models.enums import JobOutcome, LessonStatus
from memworks.pipelines.lesson_guard import guard_lesson
from memworks.pipelines.lessons import LessonPolicy, mine_candidates, run_gate
from memworks.services.deps import Deps
from memworks.store import audit, locks, reflections
from memworks.store import lessons as store
from memworks.store.db import session_scope

#: What a round reports, zero when a step found nothing to do.
COUNTS = ("rolled_back", "proposed", "promoted", "blocked", "reflections", "reflections_refused")


@dataclass(frozen=True)
class Round:
    """What a round did (see :data:`COUNTS`) and how long it took."""

    counts: dict[str, int]
    duration_ms: float


def run_round(deps: Deps, tenant_id: str, task_type: str, *, now: datetime, message_id: str = "") -> Round:
    """Run one learning round and log it as a job run (``mine_lessons``, ``message_id``)."""
    t0, policy = time.perf_counter(), deps.lesson_policy
    counts = dict.fromkeys(COUNTS, 0)
    with session_scope(deps.engine, write=True) as s:
        locks.hold(s, locks.lessons(tenant_id, task_type))  # rounds of one task type serialise
        outcomes = store.outcome_views(s, tenant_id=tenant_id, task_type=task_type)
        counts["rolled_back"] = _guard(s, tenant_id, task_type, outcomes, policy, now)
        # The embedding model loads only when there is a note to index.
        counts["reflections"], counts["reflections_refused"] = reflections.write_reflections(
            s,
            tenant_id=tenant_id,
            task_type=task_type,
            embedder=lambda: deps.embedder,
            forgetting=deps.forgetting_policy,
            now=now,
        )
        known = store.known_actions(s, tenant_id=tenant_id) | set(policy.declared_actions)
        counts["proposed"] = _mine(s, tenant_id, task_type, outcomes, policy, known, now)
        counts["promoted"], counts["blocked"] = _promote(s, tenant_id, task_type, outcomes, policy, known, now)
        ms = (time.perf_counter() - t0) * 1000
        audit.record_job(
            s,
            actor="mine_lessons",
            message_id=message_id,
            outcome=JobOutcome.OK,
            started_at=now,
            duration_ms=ms,
            tenant_id=tenant_id,
            scope=task_type,
            counts=counts,
        )
    return Round(counts, ms)


def _guard(
    s: Session, tenant_id: str, task_type: str, outcomes: Sequence[OutcomeView], policy: LessonPolicy, now: datetime
) -> int:
    """Roll back the active lessons that do worse than the base policy; how many."""
    lessons = store.lesson_views(s, tenant_id=tenant_id, task_type=task_type)
    n = 0
    for lesson in (lv for lv in lessons if lv.status == LessonStatus.ACTIVE):
        if (v := guard_lesson(lesson, outcomes, lessons, policy=policy)).rollback:
            store.retire(
                s,
                tenant_id=tenant_id,
                lesson_id=lesson.lesson_id,
                status=LessonStatus.ROLLED_BACK,
                report=v.report,
                now=now,
            )
            n += 1
    return n


def _mine(
    s: Session,
    tenant_id: str,
    task_type: str,
    outcomes: Sequence[OutcomeView],
    policy: LessonPolicy,
    known: Collection[str],
    now: datetime,
) -> int:
    """Store the new candidate lessons mined from failures; how many."""
    lessons = store.lesson_views(s, tenant_id=tenant_id, task_type=task_type)
    proposals = mine_candidates(outcomes, lessons, task_type=task_type, policy=policy, known=known)
    for p in proposals:
        store.add_lesson(
            s,
            tenant_id=tenant_id,
            task_type=task_type,
            pattern=p.pattern,
            action=p.action,
            guidance=p.guidance,
            mined_from=p.mined_from,
            origin="mined",
            now=now,
        )
    return len(proposals)


def _promote(
    s: Session,
    tenant_id: str,
    task_type: str,
    outcomes: Sequence[OutcomeView],
    policy: LessonPolicy,
    known: Collection[str],
    now: datetime,
) -> tuple[int, int]:
    """Judge every candidate with the promotion gate and record each decision; (promoted, blocked)."""
    lessons = store.lesson_views(s, tenant_id=tenant_id, task_type=task_type)
    candidates = [lv for lv in lessons if lv.status == LessonStatus.CANDIDATE]
    active = [lv for lv in lessons if lv.status == LessonStatus.ACTIVE]
    promoted = blocked = 0
    for lesson, d in run_gate(candidates, outcomes, active, policy=policy, known=known):
        store.decide(
            s,
            tenant_id=tenant_id,
            lesson_id=lesson.lesson_id,
            status=d.status,
            report=d.report,
            evidence=d.evidence,
            now=now,
        )
        promoted += d.status == LessonStatus.ACTIVE
        blocked += d.status == LessonStatus.BLOCKED
    return promoted, blocked
