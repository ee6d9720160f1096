"""Rank scoped candidates: reciprocal rank fusion of lexical and vector ranks, then abstain.

The store has already applied scope and time filters inside its candidate queries; this module
only orders what it was given and decides whether anything is worth answering with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from memworks.models.enums import MemoryKind

#: RRF damping constant. Lower than the usual 60: among ~100 candidates a top match on one
#: side should beat a middling one on both (measured on LoCoMo, README "Evaluation").
RRF_K = 10
#: Transcripts are evidence; a fact distilled from them should rank first.
KIND_WEIGHT: Mapping[MemoryKind, float] = {
    MemoryKind.SEMANTIC: 1.0,
    MemoryKind.PROCEDURAL: 1.0,
    MemoryKind.WORKING: 0.9,
    MemoryKind.EPISODIC: 0.8,
}
TRANSCRIPT_WEIGHT = 0.6


@dataclass(frozen=True)
class RankPolicy:
    """Thresholds that decide relevance; the caller passes them from settings."""

    #: Cosine similarity at or above which a hit counts on its own.
    min_similarity: float = 0.25
    #: Lower cosine floor for a hit that also matched lexically.
    min_similarity_lexical: float = 0.15


class Candidate(Protocol):
    """What ranking reads of a record (a ``MemoryView`` has it; the read path loads only this)."""

    @property
    def memory_id(self) -> str: ...
    @property
    def kind(self) -> MemoryKind: ...
    @property
    def extractor(self) -> str: ...
    @property
    def confidence(self) -> float: ...


@dataclass(frozen=True)
class Ranked:
    memory: Candidate
    score: float
    similarity: float
    lexical_rank: int | None
    vector_rank: int | None


def rank(
    memories: Mapping[str, Candidate],
    lexical: Sequence[str],
    similarities: Mapping[str, float],
    *,
    k: int,
    policy: RankPolicy,
) -> list[Ranked]:
    """Fuse lexical order and vector similarity; drop what is not relevant enough.

    Args:
        memories: every candidate record by id (already scope- and time-filtered).
        lexical: candidate ids in lexical (BM25) order, best first.
        similarities: cosine similarity of each candidate to the query.
        k: how many hits to return at most.
        policy: relevance thresholds.

    Returns:
        At most ``k`` hits, best first. Empty means: abstain.
    """
    lex_rank = {mid: i for i, mid in enumerate(lexical) if mid in memories}
    by_vector = sorted(similarities, key=lambda mid: -similarities[mid])
    vec_rank = {mid: i for i, mid in enumerate(by_vector) if mid in memories}
    out: list[Ranked] = []
    for mid in set(lex_rank) | set(vec_rank):
        sim = similarities.get(mid, 0.0)
        relevant = sim >= policy.min_similarity or (mid in lex_rank and sim >= policy.min_similarity_lexical)
        if not relevant:
            continue
        m = memories[mid]
        fused = sum(1.0 / (RRF_K + 1 + r) for r in (lex_rank.get(mid), vec_rank.get(mid)) if r is not None)
        weight = TRANSCRIPT_WEIGHT if m.extractor == "transcript" else KIND_WEIGHT[m.kind]
        # The cosine already counts through the vector rank; multiplying by it again let the
        # vector side outvote a top lexical match.
        score = fused * (0.5 + 0.5 * m.confidence) * weight
        out.append(Ranked(m, score, sim, lex_rank.get(mid), vec_rank.get(mid)))
    out.sort(key=lambda r: (-r.score, r.memory.memory_id))
    return out[:k]
