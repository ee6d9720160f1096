"""The kind of answer a question asks for, and whether a text holds one of that kind (pure)."""

from __future__ import annotations

import numpy as np
import pytest

from memworks.pipelines.retrieval.answer_types import answer_kind, holds_answer, kind_first


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
        ("What's her email address?", "email"),
        ("Which email address is the account registered under?", "email"),
        ("What did the email from school say?", None),
        ("What's Hanne's mobile number?", "phone"),
        ("What's my Vodafone account number?", "number"),
        ("What's the courier tracking number for the TV box?", "number"),
        ("How many numbers did I call?", None),
        ("What salary is Femi on at Deliveroo?", "sum"),
        ("what salary did Brightwell offer Noor?", "sum"),
        ("What salary band is the role?", "sum"),
        ("What's the minimum supported Rust version?", "version"),
        ("Which version of fastapi is installed?", "version"),
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
        # A number counts when named as the question names it, or called a number.
        ("number", '{"tool": "line_test", "account": "NW-4471902"}', "What's Hanne's account number?", True),
        ("number", "My TAP Miles&Go number is 482913775.", "What's my TAP frequent flyer number?", True),
        (
            "number",
            'order.track("NH-802331")\n{"order_id": "NH-802331", "status": "delivered"}',
            "What's the courier tracking number for the TV box delivery?",
            False,
        ),
        ("number", "event_id: evt-20250915-1102", "What's Peggy's room number at the care home?", False),
        ("version", "MSRV is 1.80 now, bump the toolchain file", "What's the minimum supported Rust version?", True),
        ("version", "schema at v15 after the migration", "What version is the ledger schema at?", True),
        ("version", "the database is Postgres, version 16.", "Which Postgres version is it on?", True),
        ("version", "we're on Postgres 16 now", "Which Postgres version is the database on?", True),
        ("version", "we're on Postgres now", "Which Postgres version is the database on?", False),
        ("version", "pinned fastapi 0 for now", "Which version of fastapi is installed?", True),
        ("version", "Which 3 of them pass?", "Which version is it on?", False),  # "Which" is no thing
        ("version", "and update the README: supported platforms are linux and macos", "Which Rust version?", False),
    ],
)
def test_a_text_holds_an_answer_of_the_kind_or_not(kind: str, text: str, question: str, holds: bool) -> None:
    assert holds_answer(kind, text, question) is holds


@pytest.mark.parametrize(
    ("kind", "text", "holds"),
    [
        ("email", '{"customer id": "C-220391", "email": "mirela.dobre@posteo.ro"}', True),
        ("email", "From 1 March my address is Calea Manastur 112, Cluj-Napoca.", False),
        ("phone", "new number is 07700 900412", True),
        ("phone", "+40 755 630 112", True),
        ("phone", "call me after 6", False),
        ("number", "account=NW-4471902 channel=sms", True),
        ("number", "my account is with Vodafone", False),
    ],
)
def test_a_text_holds_a_written_form(kind: str, text: str, holds: bool) -> None:
    assert holds_answer(kind, text, "What is it?") is holds


def test_records_holding_the_form_asked_for_come_first_among_the_best() -> None:
    texts = [
        "Heads-up: I'm moving. From 1 March my address is Calea Manastur 112.",  # close, holds no email
        '{"customer id": "C-220391", "email": "mirela.dobre@posteo.ro"}',  # holds one
        "old note: write to m.dobre@example.org",  # holds one but is far below the best
    ]
    score = np.array([0.5, 0.27, 0.01])
    source = np.full(3, -1)
    out = kind_first(score, "email", "What's her email address?", texts, source)
    assert list(np.argsort(-out, kind="stable")) == [1, 0, 2]
    # A kind with no precise written form (a name) leaves the order alone.
    assert list(kind_first(score, "name", "What's her name?", texts, source)) == list(score)
