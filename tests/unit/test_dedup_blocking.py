"""Restatement pairs found in linear time join the same records as comparing every pair."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus, Source
from memworks.pipelines.consolidation.dedup import _restated_pairs, restated

T = datetime(2025, 1, 1, tzinfo=UTC)
VALUES = ("jazz", "Jazz", "the jazz", "jazz and blues", "blues", "my blues", "sushi", "", "the")


def view(i: int, key: str, value: str, extractor: str, kind: MemoryKind) -> MemoryView:
    return MemoryView(
        memory_id=f"m{i:03d}",
        kind=kind,
        key=key,
        value=value,
        text=value,
        source=Source.USER,
        confidence=0.9,
        trusted=True,
        status=MemoryStatus.ACTIVE,
        extractor=extractor,
        valid_from=T,
        recorded_at=T,
    )


def components(n: int, pairs: list[tuple[int, int]]) -> set[frozenset[int]]:
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        parent[find(a)] = find(b)
    groups: dict[int, set[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), set()).add(i)
    return {frozenset(g) for g in groups.values()}


@pytest.mark.parametrize("key", ["user.likes", "user.pref.music", "user.home_city"])
@pytest.mark.parametrize("seed", range(20))
def test_linear_restatements_give_the_components_of_every_pair(key: str, seed: int) -> None:
    """Random slots (collecting or not, some values read by the open extractor, two kinds):
    the star edges and the all-pairs edges of :func:`restated` make the same components."""
    rng = random.Random(seed)
    block = [
        view(
            i,
            key,
            rng.choice(VALUES),
            rng.choice(["rules", "rules", "open"]),
            rng.choice([MemoryKind.SEMANTIC, MemoryKind.PROCEDURAL]),
        )
        for i in range(rng.randint(2, 40))
    ]
    every = [(a, b) for a in range(len(block)) for b in range(a + 1, len(block)) if restated(block[a], block[b])]
    fast = _restated_pairs(block)
    assert all(a < b and restated(block[a], block[b]) for a, b in fast)
    assert components(len(block), fast) == components(len(block), every)


def test_a_slot_past_the_size_limit_and_a_keyless_block_get_no_restatements() -> None:
    """As before: beyond the block size limit, and without a key, cosine alone groups."""
    big = [view(i, "user.likes", "jazz", "open", MemoryKind.SEMANTIC) for i in range(301)]
    assert _restated_pairs(big) == []
    keyless = [
        view(i, "user.likes", "jazz", "open", MemoryKind.SEMANTIC).model_copy(update={"key": None}) for i in range(3)
    ]
    assert _restated_pairs(keyless) == []
    assert len(_restated_pairs(big[:300])) == 299
