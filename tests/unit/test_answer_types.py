"""The kind of answer a question asks for, and whether a text holds one of that kind (pure)."""

from __future__ import annotations

import pytest

from memworks.pipelines.retrieval.answer_types import answer_kind, holds_answer


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What is the name of my dentist?", "name"),
        ("What's the name of Nadia's cat?", "name"),
        ("What is my dog's name?", "name"),
        ("How much are we paying for the house?", "sum"),
        ("How much was I refunded for the tent?", "sum"),
        ("What's the rent on the flat?", "sum"),
        ("What minimum coverage percentage does CI enforce?", "percent"),
        ("Where do I live?", None),
        ("How much do I run each week?", None),
        ("Who is Tomasz engaged to?", None),
    ],
)
def test_the_kind_a_question_asks_for(question: str, kind: str | None) -> None:
    assert answer_kind(question) == kind


@pytest.mark.parametrize(
    ("kind", "text", "question", "holds"),
    [
        ("name", "We got a cat! A black rescue called Pepper.", "What's the name of Nadia's cat?", True),
        ("name", "my dentist is dr okafor", "What is the name of my dentist?", True),
        (
            "name",
            "oh can you note I've got the dentist thursday next week at 4:15.",
            "What is the name of my dentist?",
            False,
        ),
        ("name", "Nadia got a cat.", "What's the name of Nadia's cat?", False),  # the name asked about is no answer
        ("name", "So Nadia got a cat.", "What's the name of Nadia's cat?", False),
        ("name", "p95 is 40 ms now", "What is the name of the service?", False),
        ("sum", "return lookup RMA-5512: refund CAD 389.00 issued", "How much was I refunded?", True),
        ("sum", "we pay £1,150 a month", "How much is the rent?", True),
        ("sum", "offer accepted on a house!!! 3 bed terrace in knowle", "How much are we paying for the house?", False),
        ("percent", "error_rate: 4.2% (5m)", "What percentage?", True),
        ("percent", "coverage must stay high", "What percentage?", False),
    ],
)
def test_a_text_holds_an_answer_of_the_kind_or_not(kind: str, text: str, question: str, holds: bool) -> None:
    assert holds_answer(kind, text, question) is holds
