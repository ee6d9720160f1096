"""Best-first candidate order of the in-memory scope indexes: exact, ties by index."""

from __future__ import annotations

import numpy as np
import pytest

from memworks.store.projections.scope_cache import best_first


@pytest.mark.parametrize("step", [1, 3, 8, 64])
def test_batches_concatenate_to_the_full_order_with_ties_by_index(step: int) -> None:
    rng = np.random.default_rng(step)
    scores = rng.integers(0, 5, size=200).astype(np.float64)  # many ties
    got = np.concatenate(list(best_first(scores, step)))
    want = np.lexsort((np.arange(len(scores)), -scores))
    assert got.tolist() == want.tolist()


def test_batches_grow_so_a_long_walk_takes_few_round_trips() -> None:
    scores = np.linspace(1.0, 0.0, 10_000)
    sizes = [len(b) for b in best_first(scores, 64)]
    assert sizes[:4] == [64, 128, 256, 512] and sum(sizes) == 10_000 and len(sizes) < 10


def test_a_short_list_is_one_sorted_batch() -> None:
    assert [b.tolist() for b in best_first(np.array([0.1, 0.9, 0.9]), 10)] == [[1, 2, 0]]
