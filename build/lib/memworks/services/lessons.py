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

import re
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from memworks.errors import InvalidInput, NotFound
from memworks.models.drafts import OutcomeView
from memworks.models.enums import LessonStatus
from memworks.models.schemas import LessonOut, OutcomeIn, Recommendation
from memworks.models.tables import Lesson
from memworks.pipelines.lessons import (
    LessonPolicy,
    action_refusal,
    guidance_for,
    mine_candidates,
    run_gate,
    select_lesson,
)
from memworks.pipelines.lessons.features import normalize_features
from memworks.pipelines.lessons.guard import guard_lesson
from memworks.services.deps import Deps
from memworks.store import lessons as store
from memworks.store.lessons import Reporter as Reporter  # the facade names it too
from memworks.store.lessons import reflections
from memworks.store.sql import locks
from memworks.store.sql.db import session_scope

#: What a round reports, zero when a step found nothing to do.
COUNTS = ("rolled_back", "proposed", "promoted", "blocked", "reflections", "reflections_refused")


@dataclass(frozen=True)
class Round:
    """What a round did (see :data:`COUNTS`) and how long it took."""

    counts: dict[str, int]
    duration_ms: float


def run_round(deps: Deps, tenant_id: str, task_type: str, *, now: datetime) -> Round:
    """Run one learning round of ``tenant_id``'s ``task_type``: its counts and duration."""
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
            eviction=deps.eviction_policy,
            now=now,
        )
        known = store.known_actions(s, tenant_id=tenant_id) | set(policy.declared_actions)
        counts["proposed"] = _mine(s, tenant_id, task_type, outcomes, policy, known, now)
        counts["promoted"], counts["blocked"] = _promote(s, tenant_id, task_type, outcomes, policy, known, now)
        ms = (time.perf_counter() - t0) * 1000
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


# -- outcomes in, lessons and recommendations out (the facade's) ----------------------------------

#: An outcome a lesson's report cites ("outcome o7 wants escalate", "outcome o9 answered by …").
_CITED_OUTCOME = re.compile(r"\boutcome ([A-Za-z0-9][A-Za-z0-9._:@\-]{0,199})")


def rests_on_alone(lesson: Lesson, mined: set[str], validated: set[str], own: set[str]) -> bool:
    """Whether a lesson rests on ``own`` outcomes alone: mined from at least one, and every
    outcome it was mined from, validated on or cites in its report is one of them."""
    cited = set(_CITED_OUTCOME.findall(lesson.report))
    return bool(mined) and (mined | validated | cited) <= own


def record_outcomes(
    deps: Deps, items: Sequence[OutcomeIn], *, reporter: Reporter | None, now: datetime
) -> tuple[list[str], list[str]]:
    """Store validated outcomes in one transaction: (new ids, duplicate ids).

    Raises:
        Conflict: an outcome id is already stored with other content; nothing is stored.
    """
    with session_scope(deps.engine) as s:
        return store.insert_outcomes(s, outcomes=items, now=now, reporter=reporter)


def task_types(deps: Deps, tenant_id: str) -> list[str]:
    """Every task type the tenant has reported outcomes of."""
    with session_scope(deps.engine, write=False) as s:
        return list(store.task_types(s, tenant_id=tenant_id))


def propose(deps: Deps, tenant_id: str, task_type: str, pattern: Sequence[str], action: str, *, now: datetime) -> str:
    """An operator's lesson, stored as a candidate for the gate; its id.

    Raises:
        InvalidInput: naming ``pattern`` (empty) or ``action`` (empty, or one the gate refuses).
    """
    feats = normalize_features(list(pattern))
    if not feats or not action.strip():
        raise InvalidInput("a lesson needs a non-empty pattern and an action", field="pattern")
    if refusal := action_refusal(action):
        raise InvalidInput(f"action: {refusal}", field="action")
    with session_scope(deps.engine) as s:
        view = store.add_lesson(
            s,
            tenant_id=tenant_id,
            task_type=task_type,
            pattern=feats,
            action=action.strip(),
            guidance=guidance_for(task_type, feats, action.strip()),
            mined_from=(),
            origin="proposed",
            now=now,
        )
    return view.lesson_id


def roll_back(deps: Deps, tenant_id: str, lesson_id: str, reason: str, *, now: datetime) -> LessonOut:
    """Take an active lesson out of use; the version of its pattern it replaced is restored."""
    with session_scope(deps.engine) as s:
        row = store.retire(
            s, tenant_id=tenant_id, lesson_id=lesson_id, status=LessonStatus.ROLLED_BACK, report=reason, now=now
        )
        return store.to_out(row)


def list_lessons(deps: Deps, tenant_id: str, task_type: str | None = None) -> list[LessonOut]:
    """Every lesson of a tenant (every status) with its gate report."""
    with session_scope(deps.engine, write=False) as s:
        return [store.to_out(r) for r in store.lesson_rows(s, tenant_id=tenant_id, task_type=task_type)]


def user_lessons(deps: Deps, tenant_id: str, user_id: str, task_type: str | None = None) -> list[LessonOut]:
    """The lessons an end user may see: those resting on their own outcomes alone."""
    with session_scope(deps.engine, write=False) as s:
        rows = store.lesson_rows(s, tenant_id=tenant_id, task_type=task_type)
        evidence = store.lesson_evidence(s, tenant_id=tenant_id, task_type=task_type)
        own = store.user_outcome_ids(s, tenant_id=tenant_id, user_id=user_id)
        return [store.to_out(r) for r in rows if rests_on_alone(r, *evidence.get(r.lesson_id, (set(), set())), own)]


def recommend(deps: Deps, tenant_id: str, task_type: str, features: Sequence[str] | str) -> Recommendation:
    """The action of the most specific active lesson that fires, or no lesson."""
    feats = normalize_features(features)
    with session_scope(deps.engine, write=False) as s:
        lesson = select_lesson(store.lesson_views(s, tenant_id=tenant_id, task_type=task_type), feats)
    if lesson is None:
        return Recommendation(action=None, lesson_id=None, guidance=None)
    return Recommendation(action=lesson.action, lesson_id=lesson.lesson_id, guidance=lesson.guidance)


def get(deps: Deps, lesson_id: str) -> LessonOut:
    """One lesson.

    Raises:
        NotFound: there is no such lesson.
    """
    with session_scope(deps.engine, write=False) as s:
        row = s.get(Lesson, lesson_id)
        if row is None:
            raise NotFound(f"no lesson {lesson_id!r}")
        return store.to_out(row)
