"""Deletion: the plan of what a request erases (:mod:`.plan`, with what becomes of the lessons in
:mod:`.lesson_decisions`) and forget requests said in conversation (:mod:`.forget`, matched by
:mod:`.forget_match`).
"""

from memworks.pipelines.deletion.plan import (
    MIN_VALUE_CHARS,
    REFLECTION,
    RETRACTS_SAID,
    REVEALS,
    STANDALONE,
    SUMMARY,
    TARGETS,
    TRANSCRIPT,
    DeletionPlan,
    DeletionSubject,
    EpisodeRef,
    decide_lessons,
    expand_keys,
    hash_key,
    nothing_matched,
    plan_deletion,
    redact_keys,
    scrub_reason,
    slot_keys,
)

__all__ = [
    "MIN_VALUE_CHARS",
    "REFLECTION",
    "RETRACTS_SAID",
    "REVEALS",
    "STANDALONE",
    "SUMMARY",
    "TARGETS",
    "TRANSCRIPT",
    "DeletionPlan",
    "DeletionSubject",
    "EpisodeRef",
    "decide_lessons",
    "expand_keys",
    "hash_key",
    "nothing_matched",
    "plan_deletion",
    "redact_keys",
    "scrub_reason",
    "slot_keys",
]
