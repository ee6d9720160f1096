"""Standing preferences reach the injected profile through the facade (embedded, both databases):
constraints and aversions lead it, and a question picks the line that bears on it when the cap
is too small for all of them."""

from __future__ import annotations

from typing import Any

import pytest

from memworks.errors import InvalidInput
from memworks.models.schemas import Scope
from tests.factories import episode

U = Scope(tenant_id="t1", user_id="u1")
TURNS = [
    "Hi! I'm planning a few trips this year.",
    "I'm allergic to peanuts.",
    "Can you write me a haiku about autumn?",
    "I live in Lisbon.",
    "I never wear leather, wool or silk.",
    "What's the capital of Australia?",
]


def _stated(mw: Any) -> dict[str, str]:
    """Memory id → the episode id of each current keyed record."""
    return {m.memory_id: m.evidence[0] for m in mw.memories(U) if m.key}


def test_constraints_and_aversions_lead_and_the_question_picks_under_a_tiny_cap(
    db_url: str, make_memworks: Any
) -> None:
    # Given a user who states an allergy and an aversion among unrelated turns
    mw = make_memworks(db_url)
    mw.enqueue_episodes([episode(n, text, when=f"2025-01-0{n}T09:00:00+00:00") for n, text in enumerate(TURNS, 1)])
    mw.drain()
    said = _stated(mw)

    # Then the profile shows the allergy (a constraint), then the aversion (a preference), then facts
    lines = mw.profile(U)["lines"]
    assert [(said[ln["memory_id"]], ln["tier"]) for ln in lines[:2]] == [
        ("t1-u1-2", "constraint"),
        ("t1-u1-5", "preference"),
    ]
    assert lines[0]["text"].startswith("- User is allergic to peanuts.")
    assert "t1-u1-4" in {said[ln["memory_id"]] for ln in lines[2:]}  # "lives in Lisbon": a fact, after them

    # When the cap leaves room for one line, a question picks the line that bears on it, with
    # no word in common (the same store read with a 30-token cap)
    tiny = make_memworks(db_url, profile_max_tokens=30)
    jacket = tiny.profile(U, query="Can you recommend a warm coat for the winter?")
    assert [said[ln["memory_id"]] for ln in jacket["lines"]] == ["t1-u1-5"]
    assert 0 < jacket["tokens"] <= 30 and jacket["query"] == "Can you recommend a warm coat for the winter?"
    snack = tiny.profile(U, query="Which snacks should I buy at the night market?")
    assert [said[ln["memory_id"]] for ln in snack["lines"]] == ["t1-u1-2"]


def test_a_later_statement_changes_the_stance_in_the_profile(sqlite_url: str, make_memworks: Any) -> None:
    # Given "I can't eat spicy food", When the user later says "I eat spicy food now",
    # Then the profile holds the new stance and history keeps the old one
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes([episode(1, "I can't eat spicy food.")])
    mw.drain()
    mw.enqueue_episodes([episode(2, "I eat spicy food now.", when="2025-02-01T09:00:00+00:00")])
    mw.drain()
    text = mw.profile(U)["text"]
    assert "User eats spicy food now." in text and "cannot eat spicy food" not in text
    chain = sorted(
        (m for m in mw.memories(U, include_history=True) if m.key == "user.pref.food.spicy_food"),
        key=lambda m: m.valid_from,
    )
    assert [(m.value, m.status.value) for m in chain] == [
        ("avoids spicy food", "superseded"),
        ("prefers spicy food", "active"),
    ]


@pytest.mark.parametrize("query", ["", "   ", "x" * 1001])
def test_a_bad_question_is_refused_naming_the_field(sqlite_url: str, make_memworks: Any, query: str) -> None:
    mw = make_memworks(sqlite_url)
    with pytest.raises(InvalidInput) as exc:
        mw.profile(U, query=query)
    assert exc.value.field == "query"


def test_a_read_with_include_profile_brings_the_constraint_that_bears_on_it(db_url: str, make_memworks: Any) -> None:
    # Given the same user, read with a cap that leaves room for one line
    mw = make_memworks(db_url)
    mw.enqueue_episodes([episode(n, text, when=f"2025-01-0{n}T09:00:00+00:00") for n, text in enumerate(TURNS, 1)])
    mw.drain()
    said = _stated(mw)
    tiny = make_memworks(db_url, profile_max_tokens=30)

    # When an advice question is read with include_profile
    res = tiny.retrieve(U, "Which snacks should I buy at the night market?", include_profile=True)

    # Then the result carries the allergy (no word in common), as profile(query=...) picks it
    assert res.profile is not None
    assert [(said[ln.memory_id], ln.tier) for ln in res.profile.lines] == [("t1-u1-2", "constraint")]
    assert 0 < res.profile.tokens <= 30 and "peanuts" in res.profile.text
    chosen = tiny.profile(U, query="Which snacks should I buy at the night market?")
    assert [ln["memory_id"] for ln in chosen["lines"]] == [ln.memory_id for ln in res.profile.lines]
    # and a read without it carries none; the full cap carries every line, constraints first
    assert tiny.retrieve(U, "Which snacks should I buy at the night market?").profile is None
    whole = mw.retrieve(U, "Which snacks should I buy at the night market?", include_profile=True).profile
    assert whole is not None and [ln.tier for ln in whole.lines][:2] == ["constraint", "preference"]


@pytest.mark.parametrize(
    ("scope", "flag"),
    [(Scope(tenant_id="t1"), True), (U, "yes")],
)
def test_include_profile_needs_a_user_and_a_flag(sqlite_url: str, make_memworks: Any, scope: Scope, flag: Any) -> None:
    mw = make_memworks(sqlite_url)
    with pytest.raises(InvalidInput) as exc:
        mw.retrieve(scope, "What should I cook tonight?", include_profile=flag)
    assert exc.value.field == "include_profile"


def test_a_held_profile_line_leaves_once_its_record_expires(sqlite_url: str, make_memworks: Any) -> None:
    """The lines a question chooses among are held per scope version; a record's expiry inside
    that version still takes its line out of the next read (no write, same version)."""
    from datetime import timedelta

    from sqlalchemy import update

    from memworks.models.tables import Memory
    from memworks.services.profiles import for_question
    from memworks.store.sql.db import session_scope

    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes([episode(n, text, when=f"2025-01-0{n}T09:00:00+00:00") for n, text in enumerate(TURNS, 1)])
    mw.drain()
    said = _stated(mw)
    allergy = next(mid for mid, ep in said.items() if ep == "t1-u1-2")
    ends = max(m.recorded_at for m in mw.memories(U)) + timedelta(days=30)
    with session_scope(mw.runtime.engine) as s:  # as if it had been written with a time to live
        s.execute(update(Memory).where(Memory.memory_id == allergy).values(expires_at=ends))
    ask = "Which snacks should I buy at the night market?"
    before = for_question(mw.runtime, U, ask, now=ends - timedelta(days=1))
    after = for_question(mw.runtime, U, ask, now=ends + timedelta(seconds=1))
    assert allergy in {ln.memory_id for ln in before.lines}
    assert allergy not in {ln.memory_id for ln in after.lines} and after.lines
