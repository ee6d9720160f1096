"""What the open extractor leaves out as too vague to remember, and times a sentence shares."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memworks.adapters.nlp import SpacyParser
from memworks.models.drafts import Turn
from memworks.models.enums import Role, Source
from memworks.pipelines.extraction.open_vocab.extractor import OpenVocabularyExtractor
from memworks.pipelines.extraction.rules import RulesExtractor

NOW = datetime(2023, 6, 13, 9, 0, tzinfo=UTC)  # a Tuesday


@pytest.fixture(scope="module")
def extract() -> OpenVocabularyExtractor:
    return OpenVocabularyExtractor(SpacyParser(), rules=RulesExtractor())


def _texts(extract: OpenVocabularyExtractor, content: str, speaker: str | None = None) -> list[str]:
    turn = Turn(episode_id="e1", role=Role.USER, source=Source.USER, content=content, occurred_at=NOW, speaker=speaker)
    return [c.text for c in extract(turn) if c.key]


@pytest.mark.parametrize(
    "content",
    [
        "I'm currently reading a book that I really enjoy.",
        "I'm a huge fan of this genre!",
        "I met some amazing people there.",
        "We raised awareness and funds at the event for the cause.",
        "I'm playing this awesome fantasy RPG and it's been a blast!",
        "Wow, where did you take this picture? I love the dark sky and green scenery.",
        # the thing's kind in its own slot ("Priya's car is car"), its name in the next sentence
        "And we bought a car! It's lovely.",
    ],
)
def test_statements_that_name_nothing_in_particular_become_no_record(
    extract: OpenVocabularyExtractor, content: str
) -> None:
    """A book, a genre, some people, the event: a record of these alone could not be used later."""
    assert _texts(extract, content) == []


@pytest.mark.parametrize(
    ("content", "wanted"),
    [
        ("I'm reading Dune by Frank Herbert.", "Dune"),
        ("I went to a place in London in 2020.", "London"),
        ("I started learning the violin.", "violin"),
    ],
)
def test_named_or_dated_things_stay(extract: OpenVocabularyExtractor, content: str, wanted: str) -> None:
    """A title, a place or a date says which thing is meant, so the record stays."""
    assert any(wanted in t for t in _texts(extract, content))


def test_a_name_listed_with_the_speaker_is_not_the_relative_s_name(extract: OpenVocabularyExtractor) -> None:
    """ "My girlfriend, Toby and I are going camping": three people, not a girlfriend named Toby."""
    assert not any("named Toby" in t for t in _texts(extract, "My girlfriend, Toby and I are going camping."))


def test_a_past_time_the_sentence_names_dates_its_other_past_clauses(extract: OpenVocabularyExtractor) -> None:
    """The time said once in a sentence dates every past event in it that says none of its own."""
    texts = _texts(extract, "Last Sunday was awesome - my friends and I took a rock climbing class!", "Andrew")
    assert any("climbing class" in t and "11 June 2023" in t for t in texts), texts
    texts = _texts(extract, "Last Friday we took a road trip - we went to a beautiful national park.", "Audrey")
    assert any("national park" in t and "9 June 2023" in t for t in texts), texts


def _keys(extract: OpenVocabularyExtractor, content: str) -> list[tuple[str, str]]:
    turn = Turn(episode_id="e1", role=Role.USER, source=Source.USER, content=content, occurred_at=NOW)
    return [(c.key, c.value) for c in extract(turn) if c.key]


@pytest.mark.parametrize(
    ("content", "key"),
    [
        # a condition on telling, not on the fact told
        ("My laptop is a ThinkPad X1, if that matters.", "user.laptop"),
        ("My phone is an old Galaxy S10, if you need it for the form.", "user.phone"),
        # a brand before a model's name says what the model is
        ("I drive a Kia Niro these days.", "user.car"),
        ("I have a Samsung Galaxy S23.", "user.phone"),
        # taking a thing up begins it
        ("I've taken up the oboe, with a teacher on Mondays.", "user.instrument.playing"),
        ("I took up badminton last spring.", "user.sport.playing"),
    ],
)
def test_a_hedged_or_branded_thing_is_still_the_users(extract: OpenVocabularyExtractor, content: str, key: str) -> None:
    assert key in [k for k, _ in _keys(extract, content)]


@pytest.mark.parametrize(
    "content",
    [
        "I'd drive a Kia Niro if it were cheaper.",  # a real condition
        "I use an Android phone if it's the cheaper one.",
        "I volunteer at a dog shelter.",  # a modifier's category is not the thing's
        "I took up the offer.",
    ],
)
def test_a_real_condition_or_a_modifier_keys_nothing(extract: OpenVocabularyExtractor, content: str) -> None:
    assert [k for k, _ in _keys(extract, content) if k in ("user.car", "user.phone", "user.pets")] == []


def test_a_description_after_the_thing_is_not_its_value(extract: OpenVocabularyExtractor) -> None:
    assert ("user.instrument.playing", "oboe") in _keys(extract, "I've taken up the oboe, lessons on Mondays.")


@pytest.mark.parametrize(
    "content",
    [
        "I've taken up tennis, lessons on Sundays.",
        "I've taken up the piano, lessons twice a week.",
        "I've taken up the harp, classes every Friday.",
    ],
)
def test_words_apart_in_the_sentence_stay_apart_in_the_record(extract: OpenVocabularyExtractor, content: str) -> None:
    # A comma left out between two kept words must not glue them ("oboelessons").
    words = content.replace(",", "").rstrip(".").split()
    glued = {a + b for a, b in zip(words, words[1:], strict=False)}
    texts = _texts(extract, content)
    assert texts and not glued.intersection(w.strip(".,") for t in texts for w in t.split())
