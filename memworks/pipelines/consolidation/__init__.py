"""Sleep-time consolidation, per user scope: eviction, dedup, summaries and the profile."""

from memworks.pipelines.consolidation.dedup import ANTONYMS, NEGATIONS, MergeGroup, contradicts, find_duplicate_groups
from memworks.pipelines.consolidation.eviction import (
    EvictionPolicy,
    decayed_attention,
    expires_at_for,
    is_live,
    select_evictions,
    select_expired,
)
from memworks.pipelines.consolidation.profile import (
    CONSTRAINT,
    FACT,
    HEADER,
    PREFERENCE,
    TIER_PRIORITY,
    Profile,
    ProfileLine,
    build_profile,
    choose_lines,
    fit_lines,
    profile_lines,
    select_profile,
    tier_of,
)
from memworks.pipelines.consolidation.summaries import SummaryDraft, first_sentence, summarize_sessions

__all__ = [
    "ANTONYMS",
    "CONSTRAINT",
    "FACT",
    "HEADER",
    "NEGATIONS",
    "PREFERENCE",
    "TIER_PRIORITY",
    "EvictionPolicy",
    "MergeGroup",
    "Profile",
    "ProfileLine",
    "SummaryDraft",
    "build_profile",
    "contradicts",
    "decayed_attention",
    "expires_at_for",
    "find_duplicate_groups",
    "first_sentence",
    "fit_lines",
    "is_live",
    "profile_lines",
    "select_evictions",
    "select_expired",
    "choose_lines",
    "select_profile",
    "summarize_sessions",
    "tier_of",
]
