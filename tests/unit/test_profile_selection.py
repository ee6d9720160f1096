"""The profile's order (constraints, preferences, facts) and the lines chosen for a question
when they do not all fit (similarities passed in, as the service computes them)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus, Source
from memworks.pipelines.consolidation import (
    CONSTRAINT,
    FACT,
    HEADER,
    PREFERENCE,
    TIER_PRIORITY,
    ProfileLine,
    build_profile,
    choose_lines,
    profile_lines,
    select_profile,
    tier_of,
)

NOW = datetime(2025, 6, 1, tzinfo=UTC)


def words(text: str) -> int:
    return len(text.split())


def mem(
    mid: str, key: str | None, text: str, *, value: str = "v", kind: MemoryKind = MemoryKind.SEMANTIC
) -> MemoryView:
    base: dict[str, Any] = dict(
        memory_id=mid,
        kind=kind,
        key=key,
        value=value,
        text=text,
        source=Source.USER,
        confidence=0.9,
        trusted=True,
        status=MemoryStatus.ACTIVE,
        valid_from=NOW - timedelta(days=10),
        recorded_at=NOW - timedelta(days=10),
    )
    return MemoryView(**base)


@pytest.mark.parametrize(
    ("key", "text", "kind", "tier"),
    [
        ("user.allergy", "User is allergic to peanuts.", MemoryKind.SEMANTIC, CONSTRAINT),
        ("user.diet", "User is vegan.", MemoryKind.SEMANTIC, CONSTRAINT),
        ("user.condition.celiac_disease", "User has celiac disease.", MemoryKind.SEMANTIC, CONSTRAINT),
        ("person.caroline.allergy", "Caroline is allergic to cats.", MemoryKind.SEMANTIC, CONSTRAINT),
        ("user.pref.travel.heights", "User avoids heights due to a phobia.", MemoryKind.SEMANTIC, CONSTRAINT),
        ("user.pref.food.spicy_food", "User cannot eat spicy food.", MemoryKind.SEMANTIC, CONSTRAINT),
        ("user.pref.media.horror_film", "User dislikes horror films.", MemoryKind.SEMANTIC, PREFERENCE),
        ("user.likes", "User likes jazz.", MemoryKind.SEMANTIC, PREFERENCE),
        ("user.pref.answer_format", "User prefers bullet points.", MemoryKind.PROCEDURAL, PREFERENCE),
        (None, "Answer briefly.", MemoryKind.PROCEDURAL, PREFERENCE),
        ("user.home_city", "User lives in Lisbon.", MemoryKind.SEMANTIC, FACT),
        ("user.sister.wedding", "User's sister's wedding is on 14 June.", MemoryKind.SEMANTIC, FACT),
        (None, "User ran a marathon.", MemoryKind.SEMANTIC, FACT),
    ],
)
def test_tier_of_a_record(key: str | None, text: str, kind: MemoryKind, tier: int) -> None:
    # Given a record, Then its tier follows its key family, and health or safety words in a
    # preference make it a constraint
    assert tier_of(mem("m", key, text, kind=kind)) == tier


RECORDS = [
    mem("fact-city", "user.home_city", "User lives in Lisbon."),
    mem("pref-horror", "user.pref.media.horror_film", "User dislikes horror films."),
    mem("cons-peanut", "user.allergy", "User is allergic to peanuts."),
    mem("proc-bullets", "user.pref.answer_format", "User prefers bullet points.", kind=MemoryKind.PROCEDURAL),
    mem("fact-dog", "user.pets", "User has a dog named Rex."),
    mem("cons-wool", "user.pref.clothing.wool", "User never wears wool because of an allergy."),
]


def test_constraints_lead_then_preferences_then_facts() -> None:
    p = build_profile(RECORDS, count_tokens=words, now=NOW)
    assert [ln.memory_id for ln in p.lines] == [
        "cons-peanut",
        "cons-wool",
        "proc-bullets",
        "pref-horror",
        "fact-city",
        "fact-dog",
    ]
    assert [ln.tier for ln in p.lines] == [CONSTRAINT, CONSTRAINT, PREFERENCE, PREFERENCE, FACT, FACT]


def test_a_small_cap_keeps_the_constraints_first() -> None:
    # Header (6 words) + the two constraint lines (7 + 11 words) = 24
    p = build_profile(RECORDS, count_tokens=words, max_tokens=24, now=NOW)
    assert [ln.memory_id for ln in p.lines] == ["cons-peanut", "cons-wool"]


def sims(**by_id: float) -> list[float]:
    lines = profile_lines(RECORDS, now=NOW)
    return [by_id.get(ln.memory_id, 0.0) for ln in lines]


def test_when_all_lines_fit_the_question_changes_nothing() -> None:
    lines = profile_lines(RECORDS, now=NOW)
    p = select_profile(lines, sims(**{"fact-dog": 0.9}), count_tokens=words, max_tokens=300)
    assert p == build_profile(RECORDS, count_tokens=words, max_tokens=300, now=NOW)


def test_lines_that_bear_on_the_question_are_chosen_and_keep_the_profile_order() -> None:
    # Given room for two lines beyond the header, When the question is most like the dog and the
    # horror films, Then those two are shown, in the profile's order (preference before fact)
    lines = profile_lines(RECORDS, now=NOW)
    cap = 6 + 7 + 8  # header + "- User dislikes horror films. [m:..]" + "- User has a dog named Rex. [m:..]"
    p = select_profile(lines, sims(**{"fact-dog": 0.6, "pref-horror": 0.5}), count_tokens=words, max_tokens=cap)
    assert [ln.memory_id for ln in p.lines] == ["pref-horror", "fact-dog"]
    assert p.tokens == words(p.text) <= cap


def test_a_constraint_is_kept_over_a_slightly_more_similar_preference() -> None:
    # The peanut allergy (a constraint, 0.40) wins over the horror films (a preference, 0.45):
    # the constraint's priority (0.15) is larger than the preference's (0.05) by more than 0.05
    lines = profile_lines(RECORDS, now=NOW)
    assert TIER_PRIORITY[CONSTRAINT] - TIER_PRIORITY[PREFERENCE] > 0.05
    p = select_profile(lines, sims(**{"cons-peanut": 0.40, "pref-horror": 0.45}), count_tokens=words, max_tokens=13)
    assert [ln.memory_id for ln in p.lines] == ["cons-peanut"]
    # ... but not over a preference that bears on the question far more
    p = select_profile(lines, sims(**{"cons-peanut": 0.05, "pref-horror": 0.45}), count_tokens=words, max_tokens=13)
    assert [ln.memory_id for ln in p.lines] == ["pref-horror"]


def test_the_cap_is_hard_for_a_chosen_profile() -> None:
    lines = profile_lines(RECORDS, now=NOW)
    for cap in range(0, 60, 3):
        p = select_profile(lines, sims(**{"cons-wool": 0.9, "fact-city": 0.8}), count_tokens=len, max_tokens=cap)
        assert p.tokens == (len(p.text) if p.lines else 0) <= cap


def test_one_similarity_per_line_is_required() -> None:
    with pytest.raises(ValueError, match="similarities"):
        select_profile(profile_lines(RECORDS, now=NOW), [0.1], count_tokens=words, max_tokens=20)


@pytest.mark.parametrize("seed", range(5))
def test_choosing_stops_early_and_equals_taking_every_line_best_first(seed: int) -> None:
    # Given many lines of several sizes, When the read chooses among them with their sizes, Then
    # the block equals the greedy pass over the whole ranking that skips what does not fit (the
    # early stop only leaves out lines that could not fit)
    import random

    rng = random.Random(seed)
    lines = [
        ProfileLine(f"m{i}", "- " + " ".join(["w"] * rng.randint(1, 9)) + f" [m:{i}]", rng.choice([0, 1, 2]))
        for i in range(300)
    ]
    sim = [rng.random() for _ in lines]
    sizes = [words(ln.text) for ln in lines]
    got = choose_lines(lines, sim, sizes, count_tokens=words, max_tokens=60)
    ranked = sorted(range(len(lines)), key=lambda i: (-(sim[i] + TIER_PRIORITY[lines[i].tier]), i))
    budget, keep = 60 - words(HEADER), set()
    for i in ranked:
        if sizes[i] <= budget:
            keep.add(i)
            budget -= sizes[i]
    assert [ln.memory_id for ln in got.lines] == [lines[i].memory_id for i in sorted(keep)]
    assert got.tokens == words(got.text) <= 60
