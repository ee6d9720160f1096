"""What a deletion decides for the lessons resting on the subject's outcomes (pure).

Lessons are tenant-wide: one built partly from the subject's outcomes may still be a generic
procedure others' outcomes support. The plan records a decision for each (removed, rebuilt or
retained) with a basis that names counts and rules, never the subject's data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memworks.models.drafts import LessonView, OutcomeView
from memworks.models.enums import LessonDecision, LessonStatus
from memworks.pipelines.lessons import LessonPolicy, judge_candidate


def decide_lessons(
    lessons: Sequence[LessonView],
    outcomes: Sequence[OutcomeView],
    *,
    subject_outcomes: set[str],
    rests_on: Mapping[str, set[str]],
    policy: LessonPolicy,
) -> list[dict[str, str]]:
    """What happens to each lesson built partly or wholly from the subject's outcomes.

    Policy, in order:

    * built only from the subject's outcomes → **removed**;
    * a pattern feature that occurs only in the subject's outcomes (it may be personal) → **removed**;
    * an action that no surviving outcome took or verified (the subject's own words) → **removed**;
    * otherwise the pattern and action are a generic procedure. An active lesson is judged again
      by the promotion gate on the surviving outcomes alone: it passes → **rebuilt** (kept, its
      lineage to the subject's outcomes cut), it fails → **removed**. A lesson not in use
      (candidate, blocked, rolled back) is **retained** for audit, its lineage cut.

    Args:
        lessons: lessons whose lineage reaches one of ``subject_outcomes``.
        outcomes: every outcome of those lessons' task types.
        subject_outcomes: ids of the subject's outcomes.
        rests_on: outcome ids each lesson was mined from or validated on.
        policy: the promotion gate's policy.
    """
    survivors = [o for o in outcomes if o.outcome_id not in subject_outcomes]
    seen = {f for o in survivors for f in o.features}
    actions = {a for o in survivors for a in (o.action_taken, o.verified_action) if a}
    out = []
    for lesson in sorted(lessons, key=lambda l: l.lesson_id):
        own = rests_on.get(lesson.lesson_id, set())
        n = len(own & subject_outcomes)
        # Bases name counts and rules, never a feature or an action: the manifest outlives the data.
        if not own - subject_outcomes:
            decision, basis = LessonDecision.REMOVED, f"built only from the subject's outcomes ({n})"
        elif private := set(lesson.pattern) - seen:
            decision = LessonDecision.REMOVED
            basis = f"{len(private)} pattern feature(s) occur only in the subject's outcomes"
        elif lesson.action not in actions:
            decision, basis = LessonDecision.REMOVED, "its action occurs only in the subject's outcomes"
        elif lesson.status == LessonStatus.ACTIVE:
            again = judge_candidate(lesson.model_copy(update={"mined_from": ()}), survivors, [], policy=policy)
            passed = again.status == LessonStatus.ACTIVE
            decision = LessonDecision.REBUILT if passed else LessonDecision.REMOVED
            basis = (
                "generic procedure, still passes the gate without the subject's outcomes: "
                if passed
                else "no longer passes the gate without the subject's outcomes: "
            ) + again.report
        else:
            decision = LessonDecision.RETAINED
            basis = f"generic procedure, not in use ({lesson.status}); lineage to {n} outcome(s) cut"
        out.append({"artifact": f"lesson:{lesson.lesson_id}", "decision": decision, "basis": basis})
    return out
