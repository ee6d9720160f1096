"""Reads that answer conversations: the right turn first, dates understood, someone else's words
flagged, and an abstention when nothing answers (real store, real embedder, learned ranker)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlmodel import col

from memworks.errors import InvalidInput
from memworks.models.schemas import DeletionRequestIn, Scope
from memworks.models.tables import Memory, VectorEntry
from memworks.store.sql.db import session_scope

U = Scope(tenant_id="t1", user_id="u1")
CHAT = Scope(tenant_id="t1", user_id="chat")
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def turn(
    n: int, content: str, *, user: str = "u1", speaker: str | None = None, session: str = "s1", when: datetime = T0
) -> dict[str, Any]:
    e: dict[str, Any] = {
        "episode_id": f"{user}-{session}-{n}",
        "tenant_id": "t1",
        "user_id": user,
        "session_id": session,
        "turn": n,
        "role": "user",
        "source": "user",
        "content": f"{speaker}: {content}" if speaker else content,
        "occurred_at": (when + timedelta(minutes=n)).isoformat(),
    }
    if speaker:
        e["metadata"] = {"speaker": speaker}
    return e


PROFILE = [
    "Hi! My name is Dana.",
    "My cat is called Miso.",
    "My sister Ines lives in Porto.",
    "I work at Acme as a nurse.",
    "I love hiking on weekends.",
]


def test_after_the_cat_is_erased_its_name_is_not_answered(sqlite_url: str, make_memworks: Any) -> None:
    # Given a user who told of their name, cat, sister and job,
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes([turn(i, c) for i, c in enumerate(PROFILE)])
    mw.drain()
    assert "Miso" in " ".join(h.text for h in mw.retrieve(U, "What is my cat's name?").hits[:2])
    # when the cat is deleted,
    rid = mw.submit_deletion(DeletionRequestIn(tenant_id="t1", user_id="u1", keys=["user.pet.cat"], requested_by="t"))
    mw.drain()
    assert mw.manifest(rid).status == "complete"
    # then the question abstains instead of offering the user's name or sister,
    r = mw.retrieve(U, "What is my cat's name?")
    assert r.abstained and r.hits == []
    # and the questions the store can answer still are.
    for q, expect in (
        ("What is my name?", "Dana"),
        ("Which of my siblings have I told you about?", "Ines"),
        ("What's my job?", "Nurse"),
    ):
        r = mw.retrieve(U, q)
        assert not r.abstained and expect in r.hits[0].text, (q, r.hits[:2])


def test_a_hit_carries_its_speaker_and_resolved_event_date(sqlite_url: str, make_memworks: Any) -> None:
    mw = make_memworks(sqlite_url)
    said = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    mw.enqueue_episodes(
        [
            turn(0, "Hey Mel! Good to see you again.", user="chat", speaker="Caroline", when=said),
            turn(
                1,
                "I went to an LGBTQ support group yesterday and it was so powerful.",
                user="chat",
                speaker="Caroline",
                when=said,
            ),
            turn(2, "Wow, that sounds really meaningful for you, Caroline!", user="chat", speaker="Melanie", when=said),
        ]
    )
    mw.drain()
    r = mw.retrieve(CHAT, "When did Caroline go to the LGBTQ support group?", k=3)
    # The turn (or the fact read from it) comes first, about Caroline, dated the day before it was said,
    top = r.hits[0]
    assert "support group" in top.text and top.subject == "Caroline" and not top.subject_mismatch
    assert top.event_time is not None and top.event_time.date() == datetime(2023, 5, 7).date()
    # and the turn itself carries its speaker and the date its words name.
    said_turn = next(h for h in r.hits if "yesterday" in h.text)
    assert said_turn.event_time is not None and said_turn.event_time.date() == datetime(2023, 5, 7).date()
    with session_scope(mw.runtime.engine, write=False) as s:
        row = s.scalar(select(Memory).where(col(Memory.memory_id) == said_turn.memory_id))
        assert row is not None and row.subject == "Caroline" and row.event_at is not None


def test_a_turn_naming_several_times_is_dated_by_the_part_that_answers(sqlite_url: str, make_memworks: Any) -> None:
    # Given one turn that tells of two events and their dates,
    mw = make_memworks(sqlite_url)
    said = datetime(2025, 5, 12, 10, 0, tzinfo=UTC)
    text = "I'll write the deploy job today. Heads up that I'm on parental leave from Monday 26 May, two weeks."
    mw.enqueue_episodes([turn(1, text, when=said)])
    mw.drain()
    # the record keeps the first time its words name,
    (record,) = [m for m in mw.memories(U) if m.value == text]
    assert record.event_at is not None and record.event_at.date() == said.date()
    # and a question about the leave reads the turn dated by the leave.
    hit = next(h for h in mw.retrieve(U, "When am I on parental leave?", k=3).hits if h.memory_id == record.memory_id)
    assert hit.event_at is not None and hit.event_at.date() == datetime(2025, 5, 26).date()
    assert hit.event_time == hit.event_at


def test_a_thing_asked_for_by_a_name_never_said_is_not_answered(sqlite_url: str, make_memworks: Any) -> None:
    # Given a project's context: its runtime and where it deploys,
    mw = make_memworks(sqlite_url)
    lines = [
        "The service runs on Python version 3.12 and deploys to Fly.io, region ams.",
        "Production runs two machines and the database is Postgres, version 16.",
    ]
    mw.enqueue_episodes([turn(i, c) for i, c in enumerate(lines)])
    mw.drain()
    # a question naming a thing never said is not answered however near its topic,
    assert mw.retrieve(U, "Which Redis version does production run?").abstained
    # and one naming what was said is.
    r = mw.retrieve(U, "Which Postgres version is the database on?")
    assert not r.abstained and "Postgres, version 16" in r.hits[0].text


def test_a_question_about_one_person_answered_only_by_anothers_words_is_not_answered(
    sqlite_url: str, make_memworks: Any
) -> None:
    # Given Melanie telling of her charity race and Caroline cheering,
    mw = make_memworks(sqlite_url)
    said = datetime(2023, 5, 25, 10, 0, tzinfo=UTC)
    lines = [
        ("Melanie", "Hey Caroline! I ran a charity race for mental health last Saturday."),
        ("Caroline", "Thanks for telling me! How are the kids doing these days?"),
        ("Melanie", "The race made me realize that self-care is really important. I'm carving out me-time."),
        ("Caroline", "I went to a pottery class yesterday and made a small bowl."),
        ("Melanie", "That bowl sounds lovely, you have real talent!"),
    ]
    mw.enqueue_episodes([turn(i, t, user="chat", speaker=s, when=said) for i, (s, t) in enumerate(lines)])
    mw.drain()
    # when asked what Caroline realized after her race, the only evidence is Melanie's: flagged;
    r = mw.retrieve(CHAT, "What did Caroline realize after her charity race?", k=5)
    assert r.abstained or (r.subject_mismatch and all(h.subject_mismatch for h in r.hits)), r.hits
    # asked about Melanie, her own words answer, first.
    r = mw.retrieve(CHAT, "What did Melanie realize after her charity race?", k=5)
    assert not r.abstained and not r.subject_mismatch
    assert "self-care" in " ".join(h.text for h in r.hits[:2]) and r.hits[0].subject == "Melanie"


def test_a_named_period_resolves_against_asked_at(sqlite_url: str, make_memworks: Any) -> None:
    # Given the same kind of event in two different months,
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes(
        [
            turn(
                0,
                "I baked a lemon cake for the neighbours today.",
                when=datetime(2024, 5, 12, 10, tzinfo=UTC),
                session="a",
            ),
            turn(
                0,
                "I baked a chocolate cake for the office today.",
                when=datetime(2024, 9, 3, 10, tzinfo=UTC),
                session="b",
            ),
        ]
    )
    mw.drain()
    # when asked about "last May" in December, the May cake comes first; asked in a later year,
    # "in May 2024" still means that May.
    asked = datetime(2024, 12, 1, tzinfo=UTC)
    r = mw.retrieve(U, "What cake did I bake last May?", asked_at=asked)
    assert "lemon" in r.hits[0].text
    r = mw.retrieve(U, "What cake did I bake in September 2024?", asked_at=datetime(2026, 1, 1, tzinfo=UTC))
    assert "chocolate" in r.hits[0].text
    with pytest.raises(InvalidInput, match="asked_at"):
        mw.retrieve(U, "What cake?", asked_at=datetime(2024, 12, 1))


def test_long_records_keep_sentence_vectors_that_go_with_their_row(sqlite_url: str, make_memworks: Any) -> None:
    mw = make_memworks(sqlite_url)
    long = "I spent the weekend in Porto with my sister. We ate grilled sardines by the river. The weather was great."
    mw.enqueue_episodes([turn(0, long), turn(1, "Short note.")])
    mw.drain()
    with session_scope(mw.runtime.engine, write=False) as s:
        rows = {
            t: sp
            for t, sp in s.execute(
                select(col(Memory.text), col(VectorEntry.spans)).join(
                    VectorEntry, col(VectorEntry.memory_id) == col(Memory.memory_id)
                )
            )
        }
    assert rows[long] is not None and len(rows[long]) == 3 * 384 * 4
    assert rows["Short note."] is None
    r = mw.retrieve(U, "What did we eat by the river?")
    assert r.hits and r.hits[0].text == long


@pytest.mark.parametrize("ranker", ["learned", "fusion"])
def test_every_ranker_setting_answers_and_abstains(sqlite_url: str, make_memworks: Any, ranker: str) -> None:
    mw = make_memworks(sqlite_url, retrieve_ranker=ranker)
    mw.enqueue_episodes([turn(i, c) for i, c in enumerate(PROFILE)])
    mw.drain()
    assert "Porto" in " ".join(h.text for h in mw.retrieve(U, "Where does my sister live?").hits[:2])
    assert mw.retrieve(U, "What is my blood type?").abstained


def test_a_turn_whose_home_a_move_replaced_leaves_the_present_answer_about_home(
    sqlite_url: str, make_memworks: Any
) -> None:
    # Given an introduction that says two things, one of which (the home) later changes,
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes([turn(0, "Hi! I'm Rosa, I live in Valencia.", session="a", when=T0)])
    mw.drain()
    mw.enqueue_episodes([turn(0, "We're finally in Bilbao!", session="b", when=T0 + timedelta(days=40))])
    mw.drain()
    later = T0 + timedelta(days=41)
    # then a present question about home reads the new city, and the introduction is out of the top 3
    hits = mw.retrieve(U, "Where do I live?", asked_at=later).hits
    assert "Bilbao" in hits[0].value
    assert not any("Valencia" in h.value for h in hits[:3])
    # while what else it said still answers its own question, and the past still reads it
    assert any("Rosa" in h.value for h in mw.retrieve(U, "What's my name?", asked_at=later).hits[:2])
    before = mw.retrieve(U, "Where did I live?", as_of=T0 + timedelta(days=10)).hits
    assert any("Valencia" in h.value for h in before[:3])


def test_a_question_about_an_order_number_nothing_holds_is_not_answered(sqlite_url: str, make_memworks: Any) -> None:
    # Given a support conversation with tool results about one order,
    mw = make_memworks(sqlite_url)
    tool = dict(turn(1, "order_lookup 55120: status=shipped; carrier=DHL"), role="tool", source="verified_tool")
    mw.enqueue_episodes([turn(0, "Where is my order 55120? It's a desk lamp."), tool])
    mw.drain()
    # then its order is answered, and another order number nobody mentioned is not
    assert any("55120" in h.value for h in mw.retrieve(U, "What's the status of order 55120?").hits[:2])
    assert mw.retrieve(U, "What's the status of order 61877?").abstained


def test_a_relative_named_by_the_name_the_store_knows_is_the_relative_asked_about(
    sqlite_url: str, make_memworks: Any
) -> None:
    # "Ines" is the user's sister (a keyed record says so); a later turn names her alone.
    mw = make_memworks(sqlite_url)
    said = [
        "My sister Ines is a vet in Porto.",
        "I'm learning to bake sourdough.",
        "We adopted a cat called Miso.",
        "Ines got a job at a clinic in Copenhagen and moved there in May.",
        "My favourite film is Paddington 2.",
    ]
    mw.enqueue_episodes([turn(i, c, when=T0 + timedelta(days=30 * i)) for i, c in enumerate(said)])
    mw.drain()
    for q in ("Where does my sister live?", "Where does my sister work?"):
        top = [h.text for h in mw.retrieve(U, q, k=3).hits]
        assert said[3] in top, (q, top)


def test_a_relatives_news_said_by_name_is_the_present_answer(sqlite_url: str, make_memworks: Any) -> None:
    # The later turn names the brother only by his name: asked of him by that name, it answers
    # "Where does my brother live?" as well as the earlier turn saying "brother" does, and is later.
    mw = make_memworks(sqlite_url)
    said = [
        "My brother Tomasz is moving to Gdansk, he got a job at the shipyard.",
        "I live in Warsaw, near the old town.",
        "We adopted a cat called Miso.",
        "Tomasz changed jobs again and moved to Krakow, he's working for a bank.",
        "My favourite film is Paddington 2.",
    ]
    mw.enqueue_episodes([turn(i, c, when=T0 + timedelta(days=30 * i)) for i, c in enumerate(said)])
    mw.drain()
    top = [h.text for h in mw.retrieve(U, "Where does my brother live?", k=3).hits]
    assert top[0] == said[3], top


def test_a_user_speaking_under_their_own_name_is_the_user(sqlite_url: str, make_memworks: Any) -> None:
    # Given a store of dev.patel whose turns name their speaker, Dev or his partner Leah,
    mw = make_memworks(sqlite_url)
    lines = [
        ("Dev", "I teach maths at Hollins Park."),
        ("Leah", "I live in Leeds."),
        ("Dev", "I cycle to school most days."),
    ]
    mw.enqueue_episodes([turn(i, c, user="dev.patel", speaker=who) for i, (who, c) in enumerate(lines)])
    mw.drain()
    scope = Scope(tenant_id="t1", user_id="dev.patel")
    # Dev's statements are the user's, and Leah's hers,
    keys = {m.key for m in mw.memories(scope) if m.key}
    assert any(k.startswith("user.") for k in keys) and not any(k.startswith("person.dev.") for k in keys)
    assert any(k.startswith("person.leah.") for k in keys)
    # a question calling the user by name is answered from what he said,
    top = mw.retrieve(scope, "What does Dev teach?", k=3).hits[0]
    assert "maths" in top.text and top.subject == "user"
    # and a question asking who did something finds him among the people talking.
    assert "cycle" in mw.retrieve(scope, "Who cycles to school?", k=3).hits[0].text


def test_a_store_named_after_two_people_keeps_each_speaker_their_own(sqlite_url: str, make_memworks: Any) -> None:
    mw = make_memworks(sqlite_url)
    lines = [("Tom", "I just adopted a greyhound called Biscuit."), ("Ayo", "I started pottery classes.")]
    mw.enqueue_episodes([turn(i, c, user="tom-ayo", speaker=who) for i, (who, c) in enumerate(lines)])
    mw.drain()
    keys = {m.key for m in mw.memories(Scope(tenant_id="t1", user_id="tom-ayo")) if m.key}
    # "tom-ayo" names no one user: Tom's dog is Tom's, not the store user's.
    assert any(k.startswith("person.tom.") for k in keys) and not any(k.startswith("user.") for k in keys)
