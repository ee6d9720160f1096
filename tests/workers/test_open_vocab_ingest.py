"""Open-vocabulary memory through the real facade: a temporary SQLite store, the default extractor.

Every durable fact a user states becomes a keyed record; a change supersedes it with history; an
ending closes valid time; a restatement in other words reinforces; a forget request erases the
slot it names (or waits, visible, when it names nothing stored); present reads never show what
was superseded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest

from memworks.models.enums import MemoryStatus
from memworks.models.schemas import MemoryOut, Scope

S = Scope(tenant_id="t1", user_id="u1")


def ep(n: int, when: str, content: str, **meta: str) -> dict[str, Any]:
    return {
        "episode_id": f"u1-{n}",
        "tenant_id": "t1",
        "user_id": "u1",
        "session_id": f"s{n // 5}",
        "turn": n,
        "role": "user",
        "source": "user",
        "content": content,
        "occurred_at": f"{when}T09:00:00+00:00",
        "metadata": dict(meta),
    }


def at(day: str) -> datetime:
    return datetime.fromisoformat(f"{day}T00:00:00+00:00")


@dataclass(frozen=True)
class Change:
    key: str
    old: str
    new: str
    question: str


@dataclass(frozen=True)
class Scenario:
    """A user's story: facts, changes, one ending, one restatement and one re-dated event."""

    turns: list[dict[str, Any]]
    #: key → value of every durable fact that must be current at the end.
    current: dict[str, str]
    #: question → key whose current record must be the present top hit.
    questions: dict[str, str]
    changes: list[Change]
    #: (key, value, question, a day inside its valid time) of the fact the user ended.
    ended: tuple[str, str, str, str]
    #: (key, episode ids of every mention).
    restated: tuple[str, list[str]]
    #: (key, old event day, new event day).
    redated: tuple[str, str, str]
    #: an open key to delete, and (question, key) pairs that must keep answering afterwards.
    delete: str
    still: dict[str, str]


CELLO = Scenario(
    turns=[
        ep(1, "2025-01-06", "I live in Madrid."),
        ep(2, "2025-01-10", "I use an Android phone."),
        ep(3, "2025-01-12", "My sister's wedding is on June 14."),
        ep(4, "2025-01-15", "I started learning the cello last month."),
        ep(5, "2025-01-20", "I work at Acme."),
        ep(6, "2025-01-25", "I drive a Toyota Corolla."),
        ep(7, "2025-02-01", "These days my favourite author is Ursula K. Le Guin."),
        ep(8, "2025-02-06", "I moved to Valencia."),
        ep(9, "2025-02-10", "I'm training for a marathon."),
        ep(10, "2025-02-12", "I speak Portuguese."),
        ep(11, "2025-03-01", "I switched to an iPhone."),
        ep(12, "2025-03-05", "My sister moved her wedding to September."),
        ep(13, "2025-03-06", "I moved to Porto last week."),
        ep(14, "2025-03-10", "Lately my favourite author is N. K. Jemisin."),
        ep(15, "2025-03-14", "I'm still learning the cello, it's going well."),
        ep(16, "2025-04-01", "I quit Acme."),
    ],
    current={
        "user.phone": "iPhone",
        "user.sister.wedding": "in September 2025",
        "user.instrument.learning": "cello",
        "user.car": "Toyota Corolla",
        "user.favorite.author": "N. K. Jemisin",
        "user.race.training": "marathon",
        "user.language.speaking": "Portuguese",
        "user.home_city": "Porto",
    },
    questions={
        "What phone do I use?": "user.phone",
        "When is my sister's wedding?": "user.sister.wedding",
        "Which instrument am I learning?": "user.instrument.learning",
        "What car do I drive?": "user.car",
        "Who is my favourite author?": "user.favorite.author",
        "Where do I live?": "user.home_city",
        "What am I training for?": "user.race.training",
    },
    changes=[
        Change("user.phone", "Android phone", "iPhone", "What phone do I use?"),
        Change("user.favorite.author", "Ursula K. Le Guin", "N. K. Jemisin", "Who is my favourite author?"),
        Change("user.sister.wedding", "on 14 June 2025", "in September 2025", "When is my sister's wedding?"),
        Change("user.home_city", "Valencia", "Porto", "Where do I live?"),
        Change("user.home_city", "Madrid", "Valencia", "Where do I live?"),
    ],
    ended=("user.employer", "Acme", "Where did I work?", "2025-03-01"),
    restated=("user.instrument.learning", ["u1-4", "u1-15"]),
    redated=("user.sister.wedding", "2025-06-14", "2025-09-01"),
    delete="user.phone",
    still={
        "What car do I drive?": "user.car",
        "Which instrument am I learning?": "user.instrument.learning",
        "Who is my favourite author?": "user.favorite.author",
    },
)

#: The same kind of story in other words and other slots.
TENNIS = Scenario(
    turns=[
        ep(1, "2024-05-02", "I live in Lyon."),
        ep(2, "2024-05-04", "My favourite band these days is Radiohead."),
        ep(3, "2024-05-06", "I play tennis on weekends."),
        ep(4, "2024-05-08", "My brother's wedding is on August 10."),
        ep(5, "2024-05-09", "I drive a Honda Civic."),
        ep(6, "2024-05-11", "I work at Initech."),
        ep(7, "2024-05-13", "My birthday is May 3rd."),
        ep(8, "2024-05-20", "I speak Italian."),
        ep(9, "2024-06-01", "Lately my favourite band is Portishead."),
        ep(10, "2024-06-03", "I moved to Nantes."),
        ep(11, "2024-06-05", "My brother moved his wedding to October."),
        ep(12, "2024-06-07", "I sold my Civic and bought a Tesla."),
        ep(13, "2024-06-09", "I still play tennis every weekend."),
        ep(14, "2024-06-20", "I left Initech."),
    ],
    current={
        "user.favorite.band": "Portishead",
        "user.sport.playing": "tennis",
        "user.brother.wedding": "in October 2024",
        "user.car": "Tesla",
        "user.birthday": "May 3rd",
        "user.language.speaking": "Italian",
        "user.home_city": "Nantes",
    },
    questions={
        "What is my favourite band?": "user.favorite.band",
        "When is my brother's wedding?": "user.brother.wedding",
        "What car do I drive?": "user.car",
        "When is my birthday?": "user.birthday",
        "Where do I live?": "user.home_city",
        "Which sport do I play?": "user.sport.playing",
    },
    changes=[
        Change("user.favorite.band", "Radiohead", "Portishead", "What is my favourite band?"),
        Change("user.car", "Honda Civic", "Tesla", "What car do I drive?"),
        Change("user.brother.wedding", "on 10 August 2024", "in October 2024", "When is my brother's wedding?"),
        Change("user.home_city", "Lyon", "Nantes", "Where do I live?"),
    ],
    ended=("user.employer", "Initech", "Where did I work?", "2024-06-01"),
    restated=("user.sport.playing", ["u1-3", "u1-13"]),
    redated=("user.brother.wedding", "2024-08-10", "2024-10-01"),
    delete="user.car",
    still={
        "What is my favourite band?": "user.favorite.band",
        "When is my birthday?": "user.birthday",
        "Which sport do I play?": "user.sport.playing",
    },
)


def told(make_memworks: Any, url: str, scenario: Scenario) -> Any:
    """The story told one turn at a time, each processed before the next (as a live agent)."""
    mw = make_memworks(url)
    for turn in scenario.turns:
        mw.enqueue_episodes([turn])
        mw.drain()
    return mw


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def records(mw: Any, key: str) -> list[MemoryOut]:
    return [m for m in mw.memories(S, include_history=True) if m.key == key]


def current(mw: Any, key: str) -> list[MemoryOut]:
    return [m for m in records(mw, key) if m.status is MemoryStatus.ACTIVE and m.valid_to is None]


@pytest.mark.parametrize("scenario", [CELLO, TENNIS], ids=["cello", "tennis"])
def test_every_durable_fact_is_a_keyed_record_and_changes_keep_history(
    sqlite_url: str, make_memworks: Any, scenario: Scenario
) -> None:
    mw = told(make_memworks, sqlite_url, scenario)
    # Each durable fact is one current keyed record.
    for key, value in scenario.current.items():
        assert [m.value for m in current(mw, key)] == [value], (key, [(m.value, m.status) for m in records(mw, key)])
    # Each change supersedes: the old record is closed where the new begins and points at it.
    for ch in scenario.changes:
        old = next(m for m in records(mw, ch.key) if m.value == ch.old)
        new = next(m for m in records(mw, ch.key) if m.value == ch.new)
        assert old.status is MemoryStatus.SUPERSEDED and old.superseded_by == new.memory_id, ch
        assert old.valid_to == new.valid_from and old.stale, ch
        assert new.stale is (scenario.current.get(ch.key) != ch.new), ch  # current unless changed again
    # The re-dated event carries its event time, old and new.
    key, old_day, new_day = scenario.redated
    assert {m.event_at for m in records(mw, key)} == {at(old_day), at(new_day)}
    assert [m.event_at for m in current(mw, key)] == [at(new_day)]
    # The restated fact is one record with the evidence of every mention.
    key, mentions = scenario.restated
    assert [m.evidence for m in records(mw, key)] == [mentions]


@pytest.mark.parametrize("scenario", [CELLO, TENNIS], ids=["cello", "tennis"])
def test_present_reads_answer_with_the_current_record_and_never_a_superseded_statement(
    sqlite_url: str, make_memworks: Any, scenario: Scenario
) -> None:
    mw = told(make_memworks, sqlite_url, scenario)
    for question, key in scenario.questions.items():
        hits = mw.retrieve(S, question).hits
        assert hits and hits[0].key == key and hits[0].value == scenario.current[key], (question, hits[:3])
        assert all(h.status is MemoryStatus.ACTIVE and not h.stale for h in hits[:3]), (question, hits[:3])
    for ch in scenario.changes:
        # A hit that names the old value and not the new one states what was superseded
        # ("I sold my Civic and bought a Tesla" names both: it is the current statement).
        old_only, new_words = words(ch.old) - words(ch.new) - {"on", "in"}, words(ch.new)
        top3 = mw.retrieve(S, ch.question).hits[:3]
        stale = [h.text for h in top3 if words(h.text) & old_only and not words(h.text) & new_words]
        assert old_only and not stale, (ch, [(h.key, h.text) for h in top3])


@pytest.mark.parametrize("scenario", [CELLO, TENNIS], ids=["cello", "tennis"])
def test_an_ending_closes_valid_time_and_as_of_still_answers(
    sqlite_url: str, make_memworks: Any, scenario: Scenario
) -> None:
    mw = told(make_memworks, sqlite_url, scenario)
    key, value, question, before = scenario.ended
    (row,) = records(mw, key)
    assert (row.value, row.status, row.superseded_by) == (value, MemoryStatus.SUPERSEDED, None)
    assert row.valid_to is not None and row.stale
    assert not any(h.key == key for h in mw.retrieve(S, question).hits)  # not current any more
    past = mw.retrieve(S, question, as_of=at(before)).hits
    assert any(h.key == key and h.value == value for h in past), past
    # Nothing was erased: no deletion request, the evidence episode still answers in history.
    assert all(m.evidence for m in records(mw, key))


@pytest.mark.parametrize("scenario", [CELLO, TENNIS], ids=["cello", "tennis"])
def test_deleting_one_open_key_removes_its_history_and_transcripts(
    sqlite_url: str, make_memworks: Any, scenario: Scenario
) -> None:
    mw = told(make_memworks, sqlite_url, scenario)
    gone = records(mw, scenario.delete)
    words = {m.value.split()[-1] for m in gone}
    assert len(gone) >= 2  # the slot has history
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1", "keys": [scenario.delete]})
    mw.drain()
    assert mw.manifest(rid).status == "complete"
    left = mw.memories(S, include_history=True)
    assert not [m for m in left if m.key == scenario.delete]
    assert not [m.text for m in left if any(w.lower() in m.text.lower() for w in words)]  # transcripts too
    for question, key in scenario.still.items():
        hits = mw.retrieve(S, question).hits
        assert hits and hits[0].key == key and hits[0].value == scenario.current[key], question


def test_forget_requests_erase_a_matching_slot_or_wait_visibly(sqlite_url: str, make_memworks: Any) -> None:
    """ "Forget about the cello" erases the cello slot with a manifest; "forget my boat", which
    matches nothing stored, is a pending request the user can see, never an active transcript."""
    mw = make_memworks(sqlite_url)
    for turn in [
        ep(1, "2025-01-15", "I started learning the cello last month."),
        ep(2, "2025-01-20", "I drive a Volvo."),
        ep(3, "2025-02-01", "Forget about the cello."),
        ep(4, "2025-02-02", "Please forget what you know about my boat."),
    ]:
        mw.enqueue_episodes([turn])
        mw.drain()
    rows = mw.memories(S, include_history=True)
    assert not [m for m in rows if "cello" in m.text.lower()]
    assert [m.value for m in rows if m.key == "user.car"] == ["Volvo"]
    (pending,) = [m for m in mw.memories(S) if m.key == "user.forget_request"]
    assert pending.status is MemoryStatus.PENDING_CONFIRMATION and pending.value == "their boat"
    for q in ("What do you know about my boat?", "forget boat", "Which instrument am I learning?"):
        assert all("forget" not in h.text.lower() and "cello" not in h.text.lower() for h in mw.retrieve(S, q).hits), q


def test_a_named_speaker_gets_records_of_their_own(sqlite_url: str, make_memworks: Any) -> None:
    """In a conversation of several named people (LoCoMo's metadata), first person is the speaker."""
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes(
        [
            ep(1, "2023-05-08", "Caroline: I started learning the piano last month.", speaker="Caroline"),
            ep(2, "2023-05-08", "Melanie: I use an Android phone.", speaker="Melanie"),
        ]
    )
    mw.drain()
    keys = {m.key: (m.value, m.text.split()[0]) for m in mw.memories(S) if m.key}
    assert keys == {
        "person.caroline.instrument.learning": ("piano", "Caroline"),
        "person.melanie.phone": ("Android phone", "Melanie"),
    }


def test_madrid_valencia_porto_present_top_three_holds_no_superseded_statement(
    sqlite_url: str, make_memworks: Any
) -> None:
    mw = make_memworks(sqlite_url)
    for turn in [
        ep(1, "2025-01-06", "I live in Madrid."),
        ep(2, "2025-02-06", "I moved to Valencia."),
        ep(3, "2025-03-06", "I moved to Porto last week."),
    ]:
        mw.enqueue_episodes([turn])
        mw.drain()
    hits = mw.retrieve(S, "Where do I live?").hits
    assert hits[0].value == "Porto"
    assert not [h.text for h in hits[:3] if "Madrid" in h.text or "Valencia" in h.text]
    # History still sees both, records and transcripts alike, each pointing at its successor.
    past = mw.retrieve(S, "Where do I live?", as_of=at("2025-01-20")).hits
    assert past[0].value == "Madrid" and past[0].stale and past[0].superseded_by
    transcripts = {m.value: m for m in mw.memories(S, include_history=True) if m.key is None}
    assert transcripts["I live in Madrid."].status is MemoryStatus.SUPERSEDED and transcripts["I live in Madrid."].stale
    assert transcripts["I moved to Porto last week."].status is MemoryStatus.ACTIVE


def test_consolidation_merges_restatements_across_wording_inside_a_slot(sqlite_url: str, make_memworks: Any) -> None:
    """Given "dark mode in my code editor" and later "dark mode in the code editor" (two records
    of one slot, other words) beside "a light theme in my terminal", when the nightly
    consolidation runs, then the restatements are one record holding the evidence of every
    mention, the merged one points at it, and the neighbouring fact stays its own record.

    Claims off: with them, the restatement is absorbed when it is said (see test_claims_ingest);
    this is the nightly merge of what reached the store apart."""
    mw = make_memworks(sqlite_url, claims=False)
    for n, text in enumerate(
        [
            "I like dark mode in my code editor.",
            "I like a light theme in my terminal.",
            "I really like dark mode in the code editor.",
        ],
        start=1,
    ):
        mw.enqueue_episodes([ep(n, f"2025-0{n}-01", text)])
        mw.drain()
    assert len(current(mw, "user.likes")) == 3
    run = mw.consolidate("t1")
    mw.drain()
    assert run["counts"]["merged"] == 1
    (dark, light) = sorted(current(mw, "user.likes"), key=lambda m: "light" in m.value)
    assert "dark mode in" in dark.value and light.value == "a light theme in their terminal"
    assert sorted(dark.evidence) == ["u1-1", "u1-3"]
    (merged,) = [m for m in records(mw, "user.likes") if m.stale]
    assert merged.superseded_by == dark.memory_id and "dark mode in" in merged.value
    profile = mw.profile(S)["text"]
    assert f"User likes {dark.value}." in profile and " my " not in profile


BAD_INPUT = {
    "other language": "Je joue du violoncelle depuis trois ans et j'habite à Lyon avec mes deux chats.",
    "code only": "```python\ndef f(x):\n    return {'a': [x, x]}\n```",
    "long paste": "I play the cello. " + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 180,
    "emoji only": "🎻🎻🔥🔥😂👍",
}


def test_bad_input_crashes_nothing_keys_nothing_and_leaves_a_gate_reason(sqlite_url: str, make_memworks: Any) -> None:
    """Other languages, code, a 10k-character paste and emoji: processed without error, no open
    record from any of them, and each refusal audited with its reason; a list still reads."""
    from sqlalchemy import select
    from sqlmodel import Session

    from memworks.models.tables import GateDecision

    mw = make_memworks(sqlite_url)
    turns = [ep(n, "2025-02-01", text) for n, text in enumerate(BAD_INPUT.values(), start=1)]
    turns.append(ep(9, "2025-02-02", "Some facts:\n- I drive a Volvo.\n- I speak Italian."))
    mw.enqueue_episodes(turns)
    mw.drain()
    keyed = {m.key: m.value for m in mw.memories(S) if m.key}
    assert keyed == {"user.car": "Volvo", "user.language.speaking": "Italian"}
    with Session(mw.runtime.engine) as s:
        reasons = {
            d.episode_id: d.reason
            for d in s.scalars(select(GateDecision).where(GateDecision.extractor == "open"))
            if d.outcome.value == "rejected"
        }
    assert reasons == {
        "u1-1": "not read by the open extractor: not English",
        "u1-2": "not read by the open extractor: no words: emoji, symbols or code only",
        "u1-3": "not read by the open extractor: longer than 2000 characters: pasted material, not a statement",
        "u1-4": "not read by the open extractor: no words: emoji, symbols or code only",
    }
