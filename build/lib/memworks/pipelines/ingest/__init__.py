"""Ingest: from one episode to judged candidates (:mod:`.episode`), then to a write plan
(:mod:`.supersession`, :mod:`.retraction`, :mod:`.working_records`, :mod:`.write_plan`), with
slot vocabulary (:mod:`.slots`) and deterministic ids (:mod:`.record_ids`).
"""

from memworks.pipelines.ingest.episode import (
    DEFAULT_CAPS,
    MAX_CANDIDATES,
    MAX_CHARS_READ,
    TRANSCRIPT_CONFIDENCE,
    EpisodeCaps,
    EpisodeJudgement,
    Judged,
    bounded_text,
    bounded_turn,
    equal_parts,
    judge_episode,
    overflow_refusal,
    transcript_candidate,
    weighted_parts,
)

__all__ = [
    "DEFAULT_CAPS",
    "MAX_CANDIDATES",
    "MAX_CHARS_READ",
    "TRANSCRIPT_CONFIDENCE",
    "EpisodeCaps",
    "EpisodeJudgement",
    "Judged",
    "bounded_text",
    "bounded_turn",
    "equal_parts",
    "judge_episode",
    "overflow_refusal",
    "transcript_candidate",
    "weighted_parts",
]
