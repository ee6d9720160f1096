"""Read-side stages that move a candidate out of the top (pure): a keyed fact that only says back
what the question names, a tool result's transcript beside its own record, a fact about someone
other than the person asked about, and a statement that something stopped, for a question about
what holds now."""

from __future__ import annotations

import numpy as np
import pytest

from memworks.pipelines.retrieval.facts import below_copied_turns, below_others, below_others_facts
from memworks.pipelines.retrieval.non_answers import (
    asks_anew,
    asks_for_thing,
    below_echoes,
    below_endings,
    echoes,
    tells_end,
)
from memworks.pipelines.retrieval.ranker import Question


def _order(score: np.ndarray) -> list[int]:
    return sorted(range(len(score)), key=lambda i: -score[i])


@pytest.mark.parametrize(
    ("question", "anew"),
    [
        ("What is Dev's baby daughter called?", True),
        ("Where is the house Priya and Ben are buying?", True),
        ("Which car do they drive?", True),
        ("Which of them hates cilantro?", False),
        ("Who hates cilantro?", False),
        ("When is Leila's wedding?", False),
        ("Is Siv in Oslo?", False),
    ],
)
def test_asks_anew_is_a_question_of_what_which_or_where(question: str, anew: bool) -> None:
    assert asks_anew(question) is anew


@pytest.mark.parametrize(
    ("question", "value", "echo"),
    [
        ("What is Dev's baby daughter called?", "Dev", True),
        ("Where is the house Priya and Ben are buying?", "avoids priya", True),
        ("What's my cat called?", "cat", True),
        ("What's my cat called?", "Miso", False),
        ("Where does Dev teach?", "Hollins Park Academy", False),
    ],
)
def test_echoes_is_a_value_made_of_the_questions_words(question: str, value: str, echo: bool) -> None:
    assert echoes(question, value) is echo


def test_a_fact_echoing_the_question_leaves_the_top_for_one_asking_anew_only() -> None:
    score = np.array([0.9, 0.5, 0.4, 0.3])
    values = ["Dev", "me and my partner Leah had our first baby, a little girl, Anaya", "Leah", "Anaya"]
    facts = np.array([True, False, True, True])
    summary = [False] * 4
    asked = below_echoes(score, "What is Dev's baby daughter called?", values, facts, summary)
    assert _order(asked)[:3] == [1, 2, 3]
    # "Who is Dev?" asks for a person: the fact about whom it is stays first.
    assert _order(below_echoes(score, "Who is Dev?", values, facts, summary))[0] == 0


def test_a_tool_results_transcript_leaves_the_top_beside_its_record_of_the_same_words() -> None:
    result = "$ pnpm vitest run\n Tests  251 passed (251)"
    texts = [result, "$ pnpm   vitest run\n Tests  251 passed (251)", "$ npx jest\nTests: 3 failed", "ported to vitest"]
    score = np.array([0.9, 0.5, 0.4, 0.3])
    source = np.array([1, -1, -1, -1])  # the record was read from the transcript at position 1
    out = below_copied_turns(score, source, [result, "", "", ""], texts, [False] * 4)
    assert _order(out)[:3] == [0, 2, 3]
    # A fact holding only part of its turn leaves the turn where it was.
    kept = below_copied_turns(score, source, ["vitest", "", "", ""], texts, [False] * 4)
    assert _order(kept) == [0, 1, 2, 3]


def test_a_fact_about_another_person_leaves_the_top_of_a_question_naming_someone() -> None:
    keys = ["person.lars.job_title", None, "user.job_title", None]
    subjects = ["Lars", "Lars", None, None]
    score = np.array([0.9, 0.5, 0.4, 0.3])
    # "What does Ngozi do for work?", Ngozi the user: Lars's job leaves the top, his turn stays.
    out = below_others_facts(score, keys, subjects, None, [False] * 4)
    assert _order(out) == [1, 2, 3, 0]
    # "What does Lars do for work?": his own fact answers.
    assert _order(below_others_facts(score, keys, subjects, "Lars", [False] * 4)) == [0, 1, 2, 3]
    # A tool's result is never judged by whom it lists.
    tool = below_others_facts(score, ["tool.ej-k7q2m", None, None, None], subjects, None, [False] * 4)
    assert _order(tool) == [0, 1, 2, 3]


def test_for_the_user_named_another_speaker_s_words_leave_the_top() -> None:
    # "What does Ngozi do for work?" in Ngozi's store: Lars's question, then her news, a tool's
    # result and a turn of no known speaker.
    score = np.array([0.9, 0.5, 0.4, 0.3, 0.2])
    who = ["Lars", "user", "tool", None, "Lars"]
    none = [None] * 5
    out = below_others(score, none, who, None, [False] * 5)
    assert _order(out) == [1, 2, 3, 0, 4]
    # Of a question naming Lars, two named people speak of each other unnamed: nothing moves.
    assert _order(below_others(score, none, who, "Lars", [False] * 5)) == [0, 1, 2, 3, 4]


def test_a_question_names_the_user_when_their_own_name_was_read_as_my() -> None:
    asked = Question("What do I do for work?", None, False, None, "other", asked="What does Ngozi do for work?")
    assert asked.names_user
    assert not Question("What do I do for work?", None, False, None, "other", asked="What do I do for work?").names_user
    assert not Question("What do I do for work?", None, False, None, "other").names_user


@pytest.mark.parametrize(
    ("sentence", "whole", "ended"),
    [
        ("I've stopped playing netball, my knee can't take it any more.", "", True),
        ("Cancelled the PureGym membership.", "", True),
        ("I've given up on low-carb.", "", True),
        ("last day at brightwell is fri 8 may, gonna take the weekend to sleep", "", True),
        ("handed my notice in at brightwater this morning", "", True),
        ("Tomás quit restaurants for good.", "Tomás quit restaurants for good. He runs a food truck now.", False),
        ("Also we ended up going with the Niro!", "", False),
        ("Switched banks, everything's with Revolut now.", "", False),
        ("I might quit the gym.", "", False),
        ("I swim at the Portobello baths.", "", False),
    ],
)
def test_tells_end_is_an_ending_with_nothing_in_its_place(sentence: str, whole: str, ended: bool) -> None:
    assert tells_end(sentence, whole) is ended


def test_an_ending_leaves_the_top_of_a_question_asking_for_a_thing_not_of_a_yes_or_no() -> None:
    texts = ["I've stopped playing netball.", "Swimming instead now, the baths are close.", "I'm a vet.", "Hi."]
    score = np.array([0.9, 0.5, 0.4, 0.3])
    spans_at = np.full(4, -1)
    facts = np.zeros(4, dtype=np.bool_)
    assert asks_for_thing("What exercise do I do?") and not asks_for_thing("Do I still play netball?")
    out = below_endings(score, "What exercise do I do?", texts, spans_at, facts, [False] * 4)
    assert _order(out)[:3] == [1, 2, 3]
    kept = below_endings(score, "Do I still play netball?", texts, spans_at, facts, [False] * 4)
    assert _order(kept)[0] == 0
