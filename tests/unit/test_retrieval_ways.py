"""Questions of the way someone gets somewhere, and the statements that answer them (pure)."""

from __future__ import annotations

import numpy as np
import pytest

from memworks.pipelines.retrieval import ways


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("How do I get to work?", True),
        ("How does Keiko get to the office?", True),
        ("How do I commute?", True),
        ("How did I get to school before the move?", True),
        ("How do I get rid of mould?", False),
        ("How do I get better at chess?", False),
        ("Where do I work?", False),
    ],
)
def test_asks_way_reads_a_question_of_getting_somewhere(question: str, asks: bool) -> None:
    assert ways.asks_way(question) is asks


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("I take the Northern line into work, about 25 minutes.", True),
        ("My commute is a fifteen-minute bike ride along the river.", True),
        ("I cycle to school most days.", True),
        ("I get the 86 bus into town.", True),
        ("parking at the hospital is a joke so I'm cycling in now", True),
        ("Driving in the rain is awful.", False),
        ("We have a border collie who needs walking twice a day.", False),
        ("I walk the dog every morning.", False),
        ("I work as an actuary at Aviva in the City.", False),
    ],
)
def test_says_way_reads_a_mode_or_a_verb_of_travelling_somewhere(text: str, says: bool) -> None:
    assert ways.says_way(text) is says


def test_the_ways_that_are_like_the_question_rank_above_the_rest_in_their_own_order() -> None:
    # Given "I work as an actuary" scored first, then two ways of getting there, one hardly like
    # the question at all
    texts = [
        "I work as an actuary at Aviva in the City.",
        "I take the Northern line into work.",
        "I cycle to work in summer.",
        "I drove to the coast last year.",
    ]
    score = np.array([0.09, 0.03, 0.02, 0.05])
    sims = np.array([0.25, 0.23, 0.20, 0.02])
    way = ways.answering_ways(sims, texts)
    assert way.tolist() == [False, True, True, False]
    order = np.argsort(-ways.ways_first(score, way)).tolist()
    assert order == [1, 2, 0, 3]
    # ... and nothing moves without one
    assert ways.ways_first(score, np.zeros(4, dtype=np.bool_)).tolist() == score.tolist()


def test_a_question_of_a_past_way_is_not_a_present_one() -> None:
    assert ways.asked_before("How did I get to work before the move?")
    assert not ways.asked_before("How do I get to work?")
