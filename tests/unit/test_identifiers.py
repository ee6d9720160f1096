"""A question naming an order, ticket or booking number that nothing stored holds."""

from __future__ import annotations

import pytest

from memworks.pipelines.retrieval.identifiers import holding_ids, keyed_by_ids, unheard_ids, unheard_names
from memworks.pipelines.text.terms import terms


@pytest.mark.parametrize(
    ("question", "said", "unheard"),
    [
        ("What's the status of order 40117?", "order_lookup 88213: status=delivered", ["40117"]),
        ("What's the status of order 88213?", "order_lookup 88213: status=delivered", []),
        ("Is ticket INC-3340 closed yet?", "ticket_lookup INC-2210: status=open", ["INC-3340"]),
        ("Is booking RX-908 paid?", "booking RX-908: status=paid", []),
        ("What did I do in 2019?", "I moved to Oslo.", []),  # a year is a time, not an identifier
        ("Did I pay EUR 312?", "paid EUR 318", []),  # an amount, not an identifier
        ("Is my 7:30 alarm set?", "Alarm set.", []),
    ],
)
def test_an_identifier_no_record_holds_is_unheard(question: str, said: str, unheard: list[str]) -> None:
    unseen = set(terms(question)) - set(terms(said))
    assert unheard_ids(question, unseen) == unheard


def test_the_records_holding_the_named_identifier_are_the_ones_about_it() -> None:
    texts = [
        "appointment book ticket TCK-60442: status=booked",
        "ticket update TCK-51877: status=closed",
        "order 518770 shipped",
    ]
    assert holding_ids("Is ticket TCK-51877 still open?", texts) == [False, True, False]
    assert holding_ids("Is my ticket still open?", texts) == []
    assert holding_ids("What happened in 2026?", texts) == []  # a year is no identifier


def test_the_record_filed_under_the_named_identifier_is_its_own() -> None:
    keys = ["tool.mv-2207", "tool.apt-6090", None, "tool.6090"]
    assert keyed_by_ids("When is appointment APT-6090?", keys) == [False, True, False, True]
    assert keyed_by_ids("When is my appointment?", keys) == []


@pytest.mark.parametrize(
    ("question", "said", "people", "unheard"),
    [
        # the thing asked for is named by a name nothing holds
        ("Which Kubernetes namespace does prod run in?", "fly deploy: release v27 created", [], ["Kubernetes"]),
        ("Which Node.js version does the dashboard build with?", "python --version: 3.12", [], ["Node.js"]),
        ("What is the Wi-Fi password on her router?", "The router is a Hub 5.", [], ["Wi-Fi"]),
        # ... and said: no name unheard
        ("Which Redis version do we use?", "We cache in Redis 7.2.", [], []),
        # a name that begins a word said ("httpx"), a person known by name, a time
        ("Which HTTP client do we use?", "everything goes through httpx", [], []),
        ("Which hospital does Lars work at?", "I'm a sound engineer.", ["Lars"], []),
        ("Which Tuesday is the demo?", "The demo is next week.", [], []),
        # a name outside the thing asked for: advice about somewhere new
        ("What should I try in Bangkok?", "I can't eat spicy food.", [], []),
        ("What food should I pack for Lisbon?", "I can't eat spicy food.", [], []),
    ],
)
def test_a_name_of_the_thing_asked_for_that_no_record_holds_is_unheard(
    question: str, said: str, people: list[str], unheard: list[str]
) -> None:
    unseen = set(terms(question)) - set(terms(said))
    assert unheard_names(question, unseen, people, [said], terms) == unheard
