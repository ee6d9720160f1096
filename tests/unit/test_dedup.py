"""Near-duplicate groups: blocked by key, graph components, every member verified."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus, Source
from memworks.pipelines.consolidation import MergeGroup, contradicts, find_duplicate_groups

NOW = datetime(2025, 6, 1, tzinfo=UTC)


def mem(mid: str, value: str = "aisle seat", **kw: Any) -> MemoryView:
    base: dict[str, Any] = dict(
        memory_id=mid,
        kind=MemoryKind.SEMANTIC,
        key="pref.seat",
        value=value,
        text=f"User prefers {value}.",
        source=Source.USER,
        confidence=0.8,
        trusted=True,
        status=MemoryStatus.ACTIVE,
        valid_from=NOW - timedelta(days=10),
        recorded_at=NOW - timedelta(days=10),
        evidence=(f"e-{mid}",),
    )
    base.update(kw)
    return MemoryView(**base)


def vec(angle_deg: float) -> npt.NDArray[np.float32]:
    """A unit vector in the plane; cosine between two is cos(difference of angles)."""
    a = np.deg2rad(angle_deg)
    return np.array([np.cos(a), np.sin(a), 0.0], dtype=np.float32)


SAME = vec(0)
CLOSE = vec(10)  # cos 10° ≈ 0.985
FAR = vec(60)  # cos 60° = 0.5


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("prefers aisle seats", "prefers aisle seat", False),
        ("Aisle seat", "aisle seat", False),
        ("Lisbon", "Lisbon, Portugal", False),
        ("dark mode in the editor", "light mode in the terminal", True),
        ("dark mode", "light mode", True),
        ("aisle seat", "window seat", True),
        ("likes coffee", "dislikes coffee", True),
        ("always tea", "never tea", True),
        ("morning meetings", "evening meetings", True),
        ("eats meat", "does not eat meat", True),
        ("drinks coffee", "doesn't drink coffee", True),
        ("drinks coffee", "doesn\u2019t drink coffee", True),
        ("does not drink coffee", "doesn't drink coffee", False),
        ("has 3 kids", "has 4 kids", True),
        ("Lisbon", "Berlin", True),
        ("", "", False),
    ],
)
def test_contradicts(a: str, b: str, expected: bool) -> None:
    assert contradicts(a, b) is expected
    assert contradicts(b, a) is expected


def test_merges_near_duplicates_and_unions_evidence() -> None:
    records = [mem("b", "aisle seats", confidence=0.7, evidence=("e2", "e1")), mem("a", "aisle seat", evidence=("e1",))]
    groups = find_duplicate_groups(records, {"a": SAME, "b": CLOSE})
    assert groups == [MergeGroup(representative="a", merged=("b",), evidence=("e1", "e2"), confidence=0.8, blocked=())]


@pytest.mark.parametrize(
    ("records", "rep"),
    [
        ([mem("a", confidence=0.7), mem("b", confidence=0.9)], "b"),  # highest confidence
        ([mem("a", evidence=("x",)), mem("b", evidence=("y", "z"))], "b"),  # then most evidence
        ([mem("a", valid_from=NOW), mem("b", valid_from=NOW - timedelta(days=50))], "b"),  # then oldest valid_from
        ([mem("b"), mem("a")], "a"),  # then memory_id
    ],
)
def test_representative_choice(records: list[MemoryView], rep: str) -> None:
    (g,) = find_duplicate_groups(records, {"a": SAME, "b": SAME})
    assert g.representative == rep and g.merged == (({"a", "b"} - {rep}).pop(),)


@pytest.mark.parametrize(
    ("other", "vector"),
    [
        (mem("b", key="pref.meal"), SAME),  # different key: never a candidate
        (mem("b", trusted=False), SAME),
        (mem("b", status=MemoryStatus.PENDING_CONFIRMATION), SAME),
        (mem("b", status=MemoryStatus.SUPERSEDED), SAME),
        (mem("b", retracted_at=NOW), SAME),
        (mem("b", kind=MemoryKind.EPISODIC), SAME),
        (mem("b", extractor="transcript"), SAME),
        (mem("b"), FAR),  # below threshold
    ],
)
def test_not_candidates(other: MemoryView, vector: npt.NDArray[np.float32]) -> None:
    assert find_duplicate_groups([mem("a"), other], {"a": SAME, "b": vector}) == []


def test_record_without_vector_is_skipped() -> None:
    assert find_duplicate_groups([mem("a"), mem("b")], {"a": SAME}) == []


def test_none_keys_block_together() -> None:
    records = [mem("a", key=None), mem("b", key=None), mem("c")]
    (g,) = find_duplicate_groups(records, {"a": SAME, "b": SAME, "c": SAME})
    assert (g.representative, g.merged) == ("a", ("b",))


def test_contradicting_member_is_blocked_not_merged() -> None:
    records = [mem("a", "aisle seat", confidence=0.9), mem("b", "window seat"), mem("c", "aisle seats")]
    (g,) = find_duplicate_groups(records, {"a": SAME, "b": SAME, "c": SAME})
    assert g.merged == ("c",)
    assert g.blocked == (("b", "contradicts representative"),)
    assert g.evidence == ("e-a", "e-c")


def test_chained_member_far_from_representative_is_blocked() -> None:
    # a~b (cos 0.985), b~c (cos 0.985) but a vs c = cos 20° ≈ 0.94 < 0.95.
    records = [mem("a", confidence=0.9), mem("b"), mem("c")]
    (g,) = find_duplicate_groups(records, {"a": vec(0), "b": vec(10), "c": vec(20)}, threshold=0.95)
    assert g.representative == "a" and g.merged == ("b",)
    assert [m for m, _ in g.blocked] == ["c"] and g.blocked[0][1].startswith("similarity 0.940")


def test_all_blocked_group_is_still_reported() -> None:
    (g,) = find_duplicate_groups([mem("a", "dark mode"), mem("b", "light mode")], {"a": SAME, "b": SAME})
    assert g.merged == () and [m for m, _ in g.blocked] == ["b"] and g.evidence == ("e-a",)


def test_text_compared_when_values_are_empty() -> None:
    records = [mem("a", "", text="User likes jazz."), mem("b", "", text="User dislikes jazz.")]
    (g,) = find_duplicate_groups(records, {"a": SAME, "b": SAME})
    assert g.merged == ()


def test_vectors_are_renormalised_and_zero_matches_nothing() -> None:
    records = [mem("a"), mem("b"), mem("c")]
    groups = find_duplicate_groups(records, {"a": SAME * 7, "b": SAME * 0.1, "c": np.zeros(3, dtype=np.float32)})
    assert [(g.representative, g.merged) for g in groups] == [("a", ("b",))]


def test_deterministic_across_input_order_and_several_blocks() -> None:
    records = [mem(f"{k}{i}", key=k) for k in ("x", "y") for i in range(3)]
    vectors = {r.memory_id: SAME for r in records}
    forward = find_duplicate_groups(records, vectors)
    assert forward == find_duplicate_groups(records[::-1], vectors)
    assert [(g.representative, g.merged) for g in forward] == [("x0", ("x1", "x2")), ("y0", ("y1", "y2"))]


def test_two_separate_components_in_one_block() -> None:
    records = [mem("a"), mem("b"), mem("c"), mem("d")]
    vectors = {"a": vec(0), "b": vec(5), "c": vec(90), "d": vec(95)}
    groups = find_duplicate_groups(records, vectors)
    assert [(g.representative, g.merged) for g in groups] == [("a", ("b",)), ("c", ("d",))]


def test_restatements_in_other_words_inside_an_open_slot_merge_whatever_their_vectors() -> None:
    """Given two records of one open slot whose values differ only in filler ("my" / "the"),
    far apart as vectors, when grouped, then they merge (evidence union); a neighbouring value
    ("light mode in the terminal") and one that says more stay apart."""
    key = "user.likes"
    records = [
        mem("a", "dark mode in their code editor", key=key, extractor="open", evidence=("e1",)),
        mem("b", "dark mode in the code editor", key=key, extractor="open", evidence=("e2",)),
        mem("c", "light mode in the terminal", key=key, extractor="open"),
        mem("d", "dark mode in the code editor and terminal", key=key, extractor="open"),
    ]
    groups = find_duplicate_groups(records, {"a": vec(0), "b": vec(40), "c": vec(80), "d": vec(120)})
    assert [(g.representative, g.merged, g.evidence) for g in groups] == [("a", ("b",), ("e1", "e2"))]
    # The same pair from the rules extractor merges in a slot that collects values, and is
    # left to the vectors in a fixed single-valued slot.
    rules = [r.model_copy(update={"extractor": "rules"}) for r in records[:2]]
    assert [g.merged for g in find_duplicate_groups(rules, {"a": vec(0), "b": vec(40)})] == [("b",)]
    fixed = [r.model_copy(update={"key": "user.pref.seat"}) for r in rules]
    assert find_duplicate_groups(fixed, {"a": vec(0), "b": vec(40)}) == []
