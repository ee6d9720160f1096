"""Forget requests said in conversation erase, through the real facade, every record about the
topic (keyed claims and the turns' transcripts, matched by meaning) and nothing else; the request
turn is never an active record."""

from __future__ import annotations

from typing import Any

from memworks.models.enums import MemoryStatus
from memworks.models.schemas import Scope
from tests.factories import day_episode, said_in_turn

S = Scope(tenant_id="t1", user_id="u1")
ep = day_episode


def test_requests_in_own_words_erase_what_they_are_about_and_keep_the_rest(sqlite_url: str, make_memworks: Any) -> None:
    """Given statements about a boss (named once, then by name), a back surgery, an e-mail
    address that later changed, and unrelated facts; when the user asks in their own words to
    forget each, then no record holds the forgotten words, the new address and the unrelated
    facts stay, and no request turn is an active record."""
    mw = make_memworks(sqlite_url)
    said = [
        ep(1, "2025-03-01", "My boss, Tom, keeps scheduling meetings at 6pm."),
        ep(2, "2025-03-02", "Tom wants the quarterly report by Friday, ugh."),
        ep(3, "2025-03-03", "I had surgery on my lower back in March."),
        ep(4, "2025-03-04", "You can reach me at dana.k@example.org any time."),
        ep(5, "2025-03-05", "I take the train to work every morning."),
        ep(6, "2025-03-06", "I'm allergic to penicillin."),
        ep(7, "2025-04-01", "New email: dana@newmail.net, the old one is closing."),
    ]
    requests = [
        ep(8, "2025-04-02", "Forget what I told you about my boss, please."),
        ep(9, "2025-04-03", "And my old email, delete that one too."),
        ep(10, "2025-04-04", "Also forget that I had back surgery."),
    ]
    said_in_turn(mw, [*said, *requests])
    rows = mw.memories(S, include_history=True)
    texts = " ".join(f"{m.value} {m.text}" for m in rows).lower()
    for gone in ("tom", "example.org", "surgery"):
        assert gone not in texts, gone
    for kept in ("dana@newmail.net", "train to work", "penicillin"):
        assert kept in texts, kept
    request_ids = {r["episode_id"] for r in requests}
    assert not [m for m in rows if m.status is MemoryStatus.ACTIVE and request_ids & set(m.evidence)]
    assert not [m for m in rows if m.key == "user.forget_request"]  # each matched something
    hits = mw.retrieve(S, "What's my email address?").hits
    assert hits and "newmail" in hits[0].text


def test_a_request_matching_nothing_waits_visibly(sqlite_url: str, make_memworks: Any) -> None:
    """Given nothing about a salary, when the user asks to forget it, then nothing is erased and
    the request is a pending record naming what it looked for."""
    mw = make_memworks(sqlite_url)
    said_in_turn(
        mw,
        [
            ep(1, "2025-03-01", "I'm allergic to penicillin."),
            ep(2, "2025-03-02", "Please forget what I told you about my salary."),
        ],
    )
    rows = mw.memories(S, include_history=True)
    assert any("penicillin" in m.text for m in rows)
    (pending,) = [m for m in rows if m.key == "user.forget_request"]
    assert pending.status is MemoryStatus.PENDING_CONFIRMATION and pending.value == "their salary"


def test_forget_what_my_favourite_book_is_erases_the_book(db_url: str, make_memworks: Any) -> None:
    # It once deleted a key made of the request's words (user.favorite.book_is) and left the book.
    mw = make_memworks(db_url)
    mw.enqueue_episodes([ep(1, "2026-01-01", "My favourite book is Dune."), ep(2, "2026-01-01", "I live in Oslo.")])
    mw.drain()
    mw.enqueue_episodes([ep(3, "2026-01-02", "Forget what my favourite book is.")])
    mw.drain()
    rows = mw.memories(S, include_history=True)
    assert not [m for m in rows if "dune" in f"{m.value} {m.text}".casefold()]
    assert not any(m.key and m.key.startswith("user.favorite.book_") for m in rows)
    assert all("dune" not in h.text.casefold() for h in mw.retrieve(S, "What is my favourite book?").hits)
    assert any(m.key == "user.home_city" and m.value == "Oslo" for m in rows)  # the rest stays


def _event(n: int, day: str, event_id: str, title: str, where: str) -> dict[str, Any]:
    """A verified calendar tool's report of the event it made."""
    body = (
        f'{{"ok": true, "action": "create", "calendar": "Family", "event_id": "{event_id}", "title": "{title}", '
        f'"location": "{where}", "start": "{day}T16:30:00-08:00", "end": "{day}T17:15:00-08:00", '
        '"rrule": "FREQ=WEEKLY;BYDAY=TU"}'
    )
    return ep(n, day, body) | {"role": "tool", "source": "verified_tool"}


def _holding(mw: Any, words: str) -> list[Any]:
    """Records holding ``words``, the request's own turn (history, never a statement) aside."""
    rows = mw.memories(S, include_history=True)
    return [m for m in rows if words in f"{m.value} {m.text}".casefold() and "u1-3" not in m.evidence]


def _two_events_then(mw: Any, request: str) -> None:
    """A swim lesson and a recruiter's call on the calendar, then the user's ``request`` (turn 3)."""
    said_in_turn(
        mw,
        [
            _event(1, "2026-01-08", "evt_8f21c", "Ren - swim lesson", "Queen Anne Pool"),
            _event(2, "2026-01-22", "evt_91d0a", "Call - Northwind Robotics recruiter", "Zoom"),
            ep(3, "2026-02-08", request),
        ],
    )


def test_deleting_the_calendar_entry_erases_the_one_the_turn_speaks_of(sqlite_url: str, make_memworks: Any) -> None:
    """Given two calendar events a tool made (a swim lesson, a recruiter call), when the user asks
    to forget the recruiter thing and to delete "the calendar entry" too, then the recruiter's
    event goes and the swim lesson stays: "the calendar entry" names one entry, the one the same
    turn speaks of, not every entry of the calendar."""
    mw = make_memworks(sqlite_url)
    _two_events_then(mw, "Forget the recruiter thing, it's not for me. Delete the calendar entry too.")
    assert not _holding(mw, "recruiter")
    assert _holding(mw, "swim lesson")
    assert not [m for m in mw.memories(S) if m.key == "user.forget_request"]  # it meant the recruiter's


def test_the_calendar_entry_alone_among_several_waits_for_the_user(sqlite_url: str, make_memworks: Any) -> None:
    """Given two calendar events, when the user asks only to delete "the calendar entry", then
    neither is erased (which one is not said) and the request waits, pending, for the user."""
    mw = make_memworks(sqlite_url)
    _two_events_then(mw, "Please delete the calendar entry.")
    assert _holding(mw, "swim lesson") and _holding(mw, "recruiter")
    (pending,) = [m for m in mw.memories(S, include_history=True) if m.key == "user.forget_request"]
    assert pending.status is MemoryStatus.PENDING_CONFIRMATION


def test_the_booking_among_two_named_by_key_waits_for_the_user(sqlite_url: str, make_memworks: Any) -> None:
    """Given two hotel bookings a tool made, when the user asks to delete "the booking", then
    neither is erased, though both slots' values name a booking: which one is not said."""
    mw = make_memworks(sqlite_url)
    said_in_turn(
        mw,
        [
            ep(1, "2026-01-08", "booking_create HB-771: status=confirmed; hotel=Casa Lisboa, Lisbon")
            | {"role": "tool", "source": "verified_tool"},
            ep(2, "2026-01-09", "booking_create HB-772: status=confirmed; hotel=Porto Rio, Porto")
            | {"role": "tool", "source": "verified_tool"},
            ep(3, "2026-02-08", "Please delete the booking."),
        ],
    )
    keys = {m.key for m in mw.memories(S)}
    assert {"tool.hb-771", "tool.hb-772", "user.forget_request"} <= keys


def test_what_i_said_last_week_is_looked_for_among_last_weeks_statements(sqlite_url: str, make_memworks: Any) -> None:
    """Given a therapy appointment told eight days before and a Thursday curry night told a month
    before, when the user asks to delete "what I said last week about where I go on Thursdays",
    then the appointment is erased and the curry night, told in another week, stays: the few
    words of the topic point at one statement of the week the user names."""
    mw = make_memworks(sqlite_url)
    said_in_turn(
        mw,
        [
            ep(1, "2025-05-02", "Thursday curry night is at Noor's place from now on, bring rice."),
            ep(2, "2025-05-24", "Noor's new job starts in June, she's thrilled."),
            ep(3, "2025-05-25", "fyi I've started therapy with Dr Okafor, Thursdays at 5, so count me out for a while"),
            ep(4, "2025-06-02", "Can you delete what I said last week about where I go on Thursdays?"),
        ],
    )
    rows = mw.memories(S, include_history=True)
    assert not [m for m in rows if "okafor" in f"{m.value} {m.text}".casefold()]
    assert any("curry night" in m.text for m in rows) and any("new job" in m.text for m in rows)
    assert not [m for m in rows if m.key == "user.forget_request"]
