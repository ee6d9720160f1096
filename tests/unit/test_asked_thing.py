"""The thing a "which"/"what" question asks for."""

from __future__ import annotations

import pytest

from memworks.pipelines.retrieval.asked_thing import asked_thing


@pytest.mark.parametrize(
    ("question", "thing"),
    [
        ("Which terminal does the flight leave from?", "terminal"),
        ("What's the minimum test coverage CI enforces?", "coverage"),  # a clause after the thing
        ("Which bank issued the card Kofi's refund was paid to?", "bank"),  # a verb in the past
        ("which AWS region is the staging environment in?", "region"),
        ("What was the name of the engineer who replaced the router?", "engineer"),  # a form: what follows "of"
        ("What kind of room did we ask for?", "room"),
        ("What colour is Sam's new bike?", "colour"),
        # no thing: a time, a result, a question without one
        ("What time does the flight leave?", None),
        ("What was the result of the last pytest run?", None),
        ("What state was the double-charge refund in?", None),  # a state: what any record says of it
        ("what should we cook when Eli's eating with us?", None),
        ("Where do I live?", None),
    ],
)
def test_the_thing_a_question_asks_for(question: str, thing: str | None) -> None:
    assert asked_thing(question) == thing


@pytest.mark.parametrize(
    ("question", "name"),
    [
        # the whole name is what the records are measured against: "systems" alone means nothing
        ("Which operating systems does the tool support?", "operating systems"),
        ("What CI system does the project run on?", "ci system"),
        ("which AWS region is the staging environment in?", "aws region"),
        ("What's the minimum test coverage CI enforces?", "minimum test coverage"),
        ("What was the name of the engineer who replaced the router?", "engineer"),
        ("What time does the flight leave?", None),
    ],
)
def test_the_name_of_the_thing_ends_in_its_head(question: str, name: str | None) -> None:
    from memworks.pipelines.retrieval.asked_thing import thing_name

    assert thing_name(question) == name
    assert (name.split()[-1] if name else None) == asked_thing(question)
