"""What one episode may cost: the text its extractor reads and the candidates it keeps; and how a
batch is cut into messages by count and by text."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from memworks.config import Settings
from memworks.models.drafts import Candidate, Turn
from memworks.models.enums import GateOutcome, Role, Source
from memworks.pipelines.extraction.rules import RulesExtractor
from memworks.pipelines.ingest import (
    MAX_CANDIDATES,
    MAX_CHARS_READ,
    EpisodeCaps,
    bounded_turn,
    equal_parts,
    judge_episode,
    weighted_parts,
)

NOW = datetime(2025, 1, 6, 9, tzinfo=UTC)
#: The probe's episode: 90 KB of "I like teaN." (once 5,695 records and 111 s of worker time).
TEA = " ".join(f"I like tea{i}." for i in range(5_695))


def turn(content: str) -> Turn:
    return Turn(episode_id="e1", role=Role.USER, source=Source.USER, content=content, occurred_at=NOW)


class Recording:
    """An extractor that returns what the rules do and remembers the text it was given."""

    name = "rules"

    def __init__(self) -> None:
        self.read: list[str] = []
        self.context: list[str] = []
        self.rules = RulesExtractor()

    def __call__(self, t: Turn, *, context: Sequence[Turn] = ()) -> list[Candidate]:
        self.read.append(t.content)
        self.context += [c.content for c in context]
        return self.rules(t)


def test_the_tea_episode_keeps_at_most_the_cap_and_audits_the_rest_once() -> None:
    # Given the 90 KB "I like tea0. I like tea1. ..." episode, when it is judged with the default
    # caps, then the extractor reads at most 8,000 characters, at most 32 candidates are judged,
    # one rejected decision stands for the rest, and the transcript keeps the whole text.
    assert len(TEA) > 90_000
    ex = Recording()
    j = judge_episode(turn(TEA), extractor=ex)
    assert [len(r) <= MAX_CHARS_READ for r in ex.read] == [True]
    transcript, *facts = j.judged
    assert transcript.candidate.extractor == "transcript" and transcript.candidate.text == TEA
    kept, overflow = facts[:-1], facts[-1]
    assert len(kept) == MAX_CANDIDATES and all(k.verdict.accepted for k in kept)
    assert overflow.verdict.outcome is GateOutcome.REJECTED and not overflow.candidate.text
    assert overflow.verdict.reason.startswith("over the per-episode candidate cap: ")
    dropped = int(overflow.verdict.reason.split(": ")[1].split()[0])
    assert dropped == len(RulesExtractor()(bounded_turn(turn(TEA), MAX_CHARS_READ))) - MAX_CANDIDATES > 0
    assert len(j.accepted()) == 1 + MAX_CANDIDATES


@pytest.mark.parametrize(
    "content",
    [
        "I live in Lisbon and my dog is called Pixel.",
        "I work at Initech as a nurse. I love sushi. My sister is called Ana.",
        "Hi! " * 400 + "I moved to Berlin two weeks ago.",  # 1.6 KB, under the cap
    ],
)
def test_an_ordinary_episode_is_judged_as_without_caps(content: str) -> None:
    unbounded = EpisodeCaps(max_chars=100_000, max_candidates=10_000)
    capped = judge_episode(turn(content), extractor=RulesExtractor())
    free = judge_episode(turn(content), extractor=RulesExtractor(), caps=unbounded)
    assert [(x.candidate, x.verdict) for x in capped.judged] == [(x.candidate, x.verdict) for x in free.judged]
    assert not any(x.verdict.reason.startswith("over the per-episode") for x in capped.judged)


def test_context_turns_are_read_within_the_cap_too() -> None:
    ex = Recording()
    judge_episode(turn("I live in Lisbon."), extractor=ex, context=[turn(TEA)], caps=EpisodeCaps(max_chars=3_000))
    assert ex.context and all(len(c) <= 3_000 for c in ex.context)


def test_a_long_text_is_cut_after_its_last_whole_sentence() -> None:
    text = "First sentence here. Second one is longer than that. Third one never fits at all."
    assert bounded_turn(turn(text), 60).content == "First sentence here. Second one is longer than that."
    assert bounded_turn(turn(text), len(text)).content == text
    words = "word " * 40  # no sentence end: cut at a space, never inside a word
    assert bounded_turn(turn(words), 23).content == "word word word word"
    assert bounded_turn(turn("x" * 50), 20).content == "x" * 20


def test_caps_below_one_are_refused() -> None:
    with pytest.raises(ValueError):
        EpisodeCaps(max_chars=0)
    with pytest.raises(ValueError):
        EpisodeCaps(max_candidates=0)


def test_the_settings_defaults_are_the_pipelines() -> None:
    s = Settings()
    assert (s.episode_max_chars, s.episode_max_candidates) == (MAX_CHARS_READ, MAX_CANDIDATES)


def test_weighted_parts_cut_as_equal_parts_until_the_budget_binds() -> None:
    for n in (0, 1, 7, 255, 256, 257, 300, 700):
        ids = list(range(n))
        assert weighted_parts(ids, [100] * n, most=256, budget=10**9) == equal_parts(ids, 256)
    ids = list(range(100))
    parts = weighted_parts(ids, [8_000] * 100, most=256, budget=200_000)
    assert [len(p) for p in parts] == [25, 25, 25, 25]
    assert [i for p in parts for i in p] == ids
    # One heavier than the budget travels alone; the order is kept.
    assert weighted_parts([1, 2, 3, 4], [5, 500, 5, 5], most=256, budget=100) == [[1], [2], [3, 4]]
