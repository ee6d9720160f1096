"""The online guard: does a promoted lesson still beat the policy it replaced, on live cases?

After promotion the gate's held-out replay is history; what counts is how the lesson does on
the cases where it fires from then on. A *fired case* is a case reported after the lesson's
activation (server time, ``received_at``) whose features it matches and for which it is the
lesson that fires (the most specific active one), with a known correct action. The lesson is
*right* on it when that action is the lesson's.

The *base policy* is what the agent did on the lesson's pattern before the lesson existed:
the cases matching it that were reported before activation, right when the action taken was
the correct one. When the lesson has fired on at least ``guard_min_cases`` cases and its
success rate there is below the base policy's, it is rolled back with a report that gives both
rates and names the cases it got wrong. With no base cases to compare with it is kept, and so
it is when the cases it got wrong rest on one end user's word (as promotion needs more).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memworks.models.drafts import LessonView, OutcomeView
from memworks.models.enums import LessonStatus
from memworks.pipelines.lessons.mining import LessonPolicy, matches, plural, select_lesson, voice

#: How many wrong cases a rollback report names.
_SHOWN = 3


@dataclass(frozen=True)
class GuardVerdict:
    """The guard's numbers for one active lesson, and whether it goes."""

    rollback: bool
    fired: int
    right: int
    base_cases: int
    base_right: int
    report: str
    #: Outcome ids of the fired cases it got wrong, oldest first.
    wrong: tuple[str, ...] = ()


def _arrived(o: OutcomeView) -> datetime:
    return o.received_at or o.occurred_at


def _latest_known(outcomes: Sequence[OutcomeView]) -> list[OutcomeView]:
    best: dict[str, OutcomeView] = {}
    for o in sorted(outcomes, key=lambda o: (_arrived(o), o.occurred_at, o.outcome_id)):
        if o.correct_action is not None:
            best[o.case] = o
    return sorted(best.values(), key=lambda o: (_arrived(o), o.outcome_id))


def guard_lesson(
    lesson: LessonView, outcomes: Sequence[OutcomeView], lessons: Sequence[LessonView], *, policy: LessonPolicy
) -> GuardVerdict:
    """Compare ``lesson`` (active) on its live fired cases with the base policy before it.

    ``lessons`` are the task type's lessons (the active ones decide which lesson fires).
    """
    since = lesson.activated_at
    own = [o for o in outcomes if o.task_type == lesson.task_type and matches(lesson.pattern, o.features)]
    if since is None:
        return GuardVerdict(False, 0, 0, 0, 0, "kept: not active")
    active = [l for l in lessons if l.status == LessonStatus.ACTIVE and l.task_type == lesson.task_type]
    if lesson.lesson_id not in {l.lesson_id for l in active}:
        active.append(lesson)
    after = [o for o in own if _arrived(o) >= since]
    fired = [
        o for o in _latest_known(after) if (w := select_lesson(active, o.features)) and w.lesson_id == lesson.lesson_id
    ]
    wrong = [o for o in fired if o.correct_action != lesson.action]
    right = len(fired) - len(wrong)
    base = _latest_known([o for o in own if _arrived(o) < since])
    base_right = sum(1 for o in base if o.action_taken == o.correct_action)
    rate = f"right on {right} of {plural(len(fired), 'live case')} where it fired"
    base_rate = f"the base policy's {base_right} of {len(base)} on its pattern before activation"

    def verdict(rollback: bool, report: str) -> GuardVerdict:
        return GuardVerdict(
            rollback, len(fired), right, len(base), base_right, report, tuple(o.outcome_id for o in wrong)
        )

    if len(fired) < policy.guard_min_cases:
        return verdict(False, f"kept: {rate}, fewer than {policy.guard_min_cases}")
    if not base:
        return verdict(False, f"kept: {rate}; no base-policy cases to compare with")
    if right * len(base) < base_right * len(fired):  # right/fired < base_right/base, exactly
        voices = {voice(o) for o in wrong}
        if "tenant" not in voices and len(voices) < policy.min_reporters:
            # One end user's reports alone do not take a tenant-wide lesson away either.
            return verdict(
                False,
                f"kept: {rate}, below {base_rate}, but the wrong cases come from {plural(len(voices), 'user')} only",
            )
        shown = ", ".join(f"{o.outcome_id} wants {o.correct_action}" for o in wrong[:_SHOWN])
        return verdict(
            True,
            f"rolled back by the online guard: {rate} ({right / len(fired):.2f}), below "
            f"{base_rate} ({base_right / len(base):.2f}); wrong: {shown}",
        )
    return verdict(False, f"kept: {rate}, not below {base_rate}")
