"""Index entries of bulk-loaded records: lexical documents and postings exactly as
``lexical.apply`` writes them, and vectors that are the pool sentence's embedding plus small
Gaussian noise, re-normalised (clusters, as real stores have).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from memworks.pipelines.text.terms import term_counts
from memworks_tools.bench.data.pool import Pool

__all__ = ["NOISE", "Indexed", "lexical_rows", "vector_rows"]

#: Gaussian noise per dimension added to a pool vector (cosine to it ≈ 0.98 at 384 dims, ≈ 0.96
#: between two copies: a value restated stays a near-duplicate for consolidation's 0.9).
NOISE = 0.01


@lru_cache(maxsize=20_000)
def _base_counts(text: str) -> Counter[str]:
    return term_counts(text)


Indexed = Sequence[tuple[str, str, str, str, int, str]]


def lexical_rows(indexed: Indexed) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(lexical_doc rows, lexical_posting rows) exactly as ``lexical.apply`` writes them."""
    docs, postings = [], []
    for mid, tenant, user, text, _, fp in indexed:
        counts = term_counts(text) if "#" not in text else _suffixed_counts(text)
        docs.append((mid, tenant, user or "", sum(counts.values()), fp))
        postings += [(tenant, user or "", t, mid, n) for t, n in counts.items()]
    return docs, postings


def _suffixed_counts(text: str) -> Counter[str]:
    # "<pool sentence> #<n>< (slot words)>": the pool part's counts are cached; the number is one more term.
    head, _, tail = text.partition(" #")
    number, _, words = tail.partition(" ")
    counts = Counter(_base_counts(f"{head} {words}".strip()))
    if number.isdigit() and len(number) > 1:
        counts[number] += 1  # the stemmer leaves digits as they are; one digit is no term
    else:
        counts.update(term_counts(number))
    return counts


def vector_rows(
    indexed: Indexed, pool: Pool, *, rng: np.random.Generator
) -> tuple[list[tuple[Any, ...]], npt.NDArray[np.float32]]:
    """vector_entry rows (pool vector + noise, unit length) and the vectors themselves."""
    idx = np.fromiter((r[4] for r in indexed), dtype=np.int64, count=len(indexed))
    vecs = pool.vectors[idx] + rng.standard_normal((len(indexed), pool.vectors.shape[1]), dtype=np.float32) * NOISE
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = vecs.astype(np.float32)
    rows = [
        (mid, tenant, user, pool.model, vecs[i].tobytes(), fp)
        for i, (mid, tenant, user, _, _, fp) in enumerate(indexed)
    ]
    return rows, vecs
