"""Through the facade: a verified tool's later result about an object supersedes the earlier one."""

from __future__ import annotations

from typing import Any

from memworks.models.enums import MemoryStatus
from memworks.models.schemas import Scope
from memworks.store import turns
from memworks.store.sql.db import session_scope
from tests.factories import episode

A = Scope(tenant_id="t1", user_id="u1")


def _tool(n: int, content: str, when: str) -> dict[str, Any]:
    return episode(n, content, when=when, role="tool", source="verified_tool")


def test_the_latest_tool_result_is_the_present_one_and_history_keeps_the_rest(
    sqlite_url: str, make_memworks: Any
) -> None:
    """Given an order's status reported by a tool, then a user turn naming the order, then a
    later lookup with a new status, when the store is read: the present read finds the latest
    result and neither the old record nor the old transcript, the user's turn did not end
    anything, and a read as of before the change still finds the old result."""
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes(
        [
            _tool(1, "order_lookup 88213: status=awaiting stock; item=blue kettle", "2026-06-01T10:00:00+00:00"),
            episode(2, "Any news on order 88213? It is taking ages.", when="2026-06-02T10:00:00+00:00"),
            _tool(3, "order_track 88213: status=handed to carrier; carrier=SEUR", "2026-06-05T10:00:00+00:00"),
        ]
    )
    mw.drain()

    keyed = [m for m in mw.memories(A, include_history=True) if m.key == "tool.88213"]
    old = next(m for m in keyed if "awaiting stock" in m.value)
    new = next(m for m in keyed if "handed to carrier" in m.value)
    assert len(keyed) == 2, [m.value for m in keyed]
    assert old.status is MemoryStatus.SUPERSEDED and old.superseded_by == new.memory_id
    assert new.status is MemoryStatus.ACTIVE and new.valid_to is None

    present = mw.retrieve(A, "What's the status of order 88213?", asked_at="2026-06-06T10:00:00+00:00")
    texts = [h.value for h in present.hits]
    assert any("handed to carrier" in t for t in texts), texts
    assert not any("awaiting stock" in t for t in texts), texts  # record and transcript both gone
    # The user's own turn naming the order is still there; it superseded nothing.
    assert any(m.value.startswith("Any news on order 88213") for m in mw.memories(A))

    before = mw.retrieve(A, "What's the status of order 88213?", as_of="2026-06-03T00:00:00+00:00")
    assert any("awaiting stock" in h.value for h in before.hits), [h.value for h in before.hits]
    assert not any("handed to carrier" in h.value for h in before.hits)


def test_what_the_later_result_does_not_restate_still_holds_in_its_text(sqlite_url: str, make_memworks: Any) -> None:
    """Given a booking created with its hotel's name, then modified by a result that names only
    the new dates, the present record is the modification and its text still names the hotel
    (its value stays the result verbatim), so a question about the hotel reads the current one."""
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes(
        [
            _tool(
                1,
                "booking_create RB-4410: Hotel Alfama Azul, Lisbon, check-in 2026-07-01; status=pending",
                "2026-06-01T10:00:00+00:00",
            ),
            _tool(2, "booking_modify RB-4410: check-in 2026-07-03; status=confirmed", "2026-06-05T10:00:00+00:00"),
        ]
    )
    mw.drain()
    current = [m for m in mw.memories(A) if m.key == "tool.rb-4410"]
    assert len(current) == 1 and current[0].value.startswith("booking_modify RB-4410")
    assert "Hotel Alfama Azul" in current[0].text and "2026-07-01" not in current[0].text
    hits = mw.retrieve(A, "Which hotel is my Lisbon booking at?", asked_at="2026-06-06T10:00:00+00:00").hits
    assert hits and hits[0].key == "tool.rb-4410" and "status=confirmed" in hits[0].value


def test_a_ticket_told_as_name_value_lines_is_one_slot_and_its_old_result_leaves_present_reads(
    sqlite_url: str, make_memworks: Any
) -> None:
    """Given a fault ticket reported as ``name=value`` lines, opened and later resolved, the two
    results are one slot: the present read holds no word of the open result (record or
    transcript), the resolved record still says what kind of fault it was, and history keeps
    the open one."""
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes(
        [
            _tool(1, "ticket=FT-20931\nstatus=open\ncategory=broadband_fault", "2026-06-01T10:00:00+00:00"),
            _tool(2, "ticket=FT-20931\nstatus=resolved\nresolution=socket replaced", "2026-06-05T10:00:00+00:00"),
        ]
    )
    mw.drain()
    keyed = [m for m in mw.memories(A, include_history=True) if m.key == "tool.ft-20931"]
    assert sorted(m.status for m in keyed) == sorted([MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED])
    current = next(m for m in keyed if m.status is MemoryStatus.ACTIVE)
    assert "status=resolved" in current.value and "category=broadband_fault" in current.text
    # The open result's transcript is history: present reads leave it out whatever they ask.
    with session_scope(mw.runtime.engine, write=False) as s:
        outdated = turns.load(s, A, (0, 0)).outdated
    transcripts = {m.memory_id: m.value for m in mw.memories(A, include_history=True) if m.key is None}
    assert [transcripts[t] for t in outdated if t in transcripts] == [
        "ticket=FT-20931\nstatus=open\ncategory=broadband_fault"
    ]
    for question in ("What's the status of my broadband fault ticket?", "Is ticket FT-20931 still open?"):
        hits = mw.retrieve(A, question, asked_at="2026-06-06T10:00:00+00:00").hits
        assert not any("status=open" in h.text for h in hits), [h.text for h in hits]


def test_a_tool_results_slot_is_deleted_by_its_key(sqlite_url: str, make_memworks: Any) -> None:
    """Given an order's results filed under ``tool.hb-771`` (a hyphenated id), when a deletion
    names that key, it is accepted and completes, and no record of the order is left."""
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes(
        [
            _tool(1, "booking_create HB-771: status=pending payment; hotel=Casa Azul", "2026-06-01T10:00:00+00:00"),
            _tool(2, "booking_lookup HB-771: status=confirmed", "2026-06-02T10:00:00+00:00"),
        ]
    )
    mw.drain()
    assert any(m.key == "tool.hb-771" for m in mw.memories(A))

    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1", "keys": ["tool.hb-771"]})
    mw.drain()

    assert mw.manifest(rid).status == "complete"
    assert not any(m.key == "tool.hb-771" for m in mw.memories(A, include_history=True))
