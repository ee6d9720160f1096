"""The time of the part of a record that answers a question, when its words name several."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memworks.pipelines.retrieval.timerange import answer_time


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "question", "said", "expected"),
    [
        # a sentence of its own
        (
            "cool, i'll write the deploy job today. heads up that i'm on parental leave from monday 26 may, two weeks",
            "When does Jonas go on parental leave?",
            day(2025, 5, 12),
            day(2025, 5, 26),
        ),
        # a clause of its own, the event after whose it is
        (
            "investor demo of the new api is tuesday the 20th, and launch is locked for monday 2 june",
            "When does walkies-api launch?",
            day(2025, 5, 8),
            day(2025, 6, 2),
        ),
        (
            "investor demo of the new api is tuesday the 20th, and launch is locked for monday 2 june",
            "When is the investor demo?",
            day(2025, 5, 8),
            day(2025, 5, 20),
        ),
        (
            "Laura's away till Saturday, Ren had a meltdown over his project, the volcano, which is due Friday the 6th",
            "When is Ren's volcano project due?",
            day(2026, 1, 22),
            day(2026, 2, 6),
        ),
        # a title's stop ends no sentence, and a pronoun of the question tells nothing
        (
            "She had her last session yesterday. Next is the follow-up with her surgeon, Dr. Feldman, on April 8.",
            "When is Kenji's mom seeing her surgeon again?",
            day(2026, 2, 26),
            day(2026, 4, 8),
        ),
    ],
)
def test_the_time_told_beside_the_question_words(text: str, question: str, said: datetime, expected: datetime) -> None:
    assert answer_time(text, question, said) == expected


def test_none_when_one_time_or_none_beside_the_question() -> None:
    said = day(2025, 5, 12)
    assert answer_time("I'm on parental leave from monday 26 may.", "When is the leave?", said) is None
    two = "We fly out on March 3. The hotel is booked till the 11th."
    assert answer_time(two, "When is the dentist?", said) is None
