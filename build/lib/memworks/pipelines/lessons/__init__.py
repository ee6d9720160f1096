"""Lessons: mined from failures and promoted through a replay gate (:mod:`.mining`), watched on
live cases (:mod:`.guard`), with the task features they match (:mod:`.features`) and the
reflection notes a failure leaves (:mod:`.reflection`).
"""

from memworks.pipelines.lessons.mining import (
    Decision,
    LessonPolicy,
    Proposal,
    action_refusal,
    guidance_for,
    judge_candidate,
    known_actions,
    matches,
    mine_candidates,
    plural,
    run_gate,
    select_lesson,
    voice,
)

__all__ = [
    "Decision",
    "LessonPolicy",
    "Proposal",
    "action_refusal",
    "guidance_for",
    "judge_candidate",
    "known_actions",
    "matches",
    "mine_candidates",
    "plural",
    "run_gate",
    "select_lesson",
    "voice",
]
