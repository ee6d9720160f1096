"""MEMWORKS_EXTRACTOR=llm end to end: a real HTTP model server on loopback behind the queue."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from memworks.models.schemas import Scope
from memworks.models.tables import GateDecision, RejectedInput
from tests.factories import episode
from tests.llm_server import Serve, ok

SCOPE = Scope(tenant_id="t1", user_id="u1")
GOOD = {
    "operations": [
        {
            "op": "assert",
            "kind": "semantic",
            "key": "user.home_city",
            "value": "Lisbon",
            "text": "User lives in Lisbon.",
            "confidence": 0.9,
            "valid_from": None,
            "plan": False,
            "outward_action": False,
        }
    ]
}
HALF_BAD = {
    "operations": [
        GOOD["operations"][0] | {"key": "user.employer", "value": "Acme", "text": "User works at Acme."},
        GOOD["operations"][0] | {"confidence": 7},
    ]
}


def test_llm_operations_are_gated_and_malformed_replies_are_never_half_applied(
    sqlite_url: str, make_memworks: Any, serve: Serve
) -> None:
    # Given a model that answers the first turn well and the second with one good and one bad
    # operation, when both turns are processed, then the first lands, nothing of the second's
    # reply lands (its transcript still does), and the rejection is recorded with its reason.
    # The bad reply is asked for again once (with its reason), and refused the second time too.
    server = serve([ok(json.dumps(GOOD)), ok(json.dumps(HALF_BAD)), ok(json.dumps(HALF_BAD))])
    mw = make_memworks(sqlite_url, extractor="llm", llm_base_url=server.base_url, llm_model="m")
    mw.enqueue_episodes([episode(1, "I live in Lisbon.")])
    mw.drain()
    mw.enqueue_episodes([episode(2, "I work at Acme.", when="2025-01-07T09:00:00+00:00")])
    mw.drain()
    rows = mw.memories(SCOPE)
    assert [(m.key, m.value) for m in rows if m.key] == [("user.home_city", "Lisbon")]
    assert any(m.value == "I work at Acme." for m in rows)  # the transcript is evidence all the same
    with Session(mw.runtime.engine) as s:
        rejected = s.scalars(select(RejectedInput).where(RejectedInput.kind == "extraction")).all()
        decisions = s.scalars(select(GateDecision).where(GateDecision.extractor == "llm")).all()
    assert (
        len(rejected) == 1 and "operations[1].confidence" in rejected[0].reason and rejected[0].reference == "t1-u1-2"
    )
    assert "(after 2 replies)" in rejected[0].reason
    assert [d.key for d in decisions] == ["user.home_city"]
    assert len(server.requests) == 3 and server.requests[0].body["model"] == "m"
    # The reply is held to the schema, and the second turn's prompt shows the stored slot.
    assert server.requests[0].body["response_format"]["type"] == "json_schema"
    second = server.requests[1].body["messages"][-1]["content"]
    assert '{"key": "user.home_city", "value": "Lisbon"}' in second
    assert "Your previous reply was refused" in server.requests[2].body["messages"][-1]["content"]


def _op(op: str, key: str, value: str, text: str) -> dict[str, Any]:
    return {"op": op, "kind": "semantic", "key": key, "value": value, "text": text, "confidence": 0.9}


def test_llm_update_and_delete_of_a_stored_slot_supersede_and_end_with_history(
    sqlite_url: str, make_memworks: Any, serve: Serve
) -> None:
    """Mem0-style operations from a real HTTP model server land through the same slot
    resolution as the open extractor: an update supersedes, a delete ends valid time (history
    kept, as_of still answers), a malformed reply retried successfully lands whole."""
    from datetime import UTC, datetime

    replies = [
        {"operations": [_op("add", "user.phone", "Android phone", "User uses an Android phone.")]},
        "this is not JSON",
        {"operations": [_op("update", "user.phone", "iPhone", "User uses an iPhone.")]},
        {"operations": [_op("delete", "user.phone", "", "User no longer has a phone.")]},
    ]
    server = serve([ok(r if isinstance(r, str) else json.dumps(r)) for r in replies])
    mw = make_memworks(sqlite_url, extractor="llm", llm_base_url=server.base_url, llm_model="m")
    for n, (text, day) in enumerate(
        [
            ("I use an Android phone.", "01-10"),
            ("I switched to an iPhone.", "03-01"),
            ("I gave my phone away.", "04-01"),
        ],
        start=1,
    ):
        mw.enqueue_episodes([episode(n, text, when=f"2025-{day}T09:00:00+00:00")])
        mw.drain()
    phone = {m.value: m for m in mw.memories(SCOPE, include_history=True) if m.key == "user.phone"}
    assert set(phone) == {"Android phone", "iPhone"}
    assert phone["Android phone"].superseded_by == phone["iPhone"].memory_id
    assert phone["iPhone"].valid_to == datetime(2025, 4, 1, 9, tzinfo=UTC) and phone["iPhone"].superseded_by is None
    past = mw.retrieve(SCOPE, "What phone do I use?", as_of=datetime(2025, 3, 15, tzinfo=UTC)).hits
    assert past and past[0].key == "user.phone" and past[0].value == "iPhone"
    assert not any(h.key == "user.phone" for h in mw.retrieve(SCOPE, "What phone do I use?").hits)
    assert len(server.requests) == 4
