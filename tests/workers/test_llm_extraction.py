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
GOOD = {"operations": [{"op": "assert", "kind": "semantic", "key": "user.home_city", "value": "Lisbon",
                        "text": "User lives in Lisbon.", "confidence": 0.9, "valid_from": None, "plan": False,
                        "outward_action": False}]}  # fmt: skip
HALF_BAD = {"operations": [GOOD["operations"][0] | {"key": "user.employer", "value": "Acme", "text": "User works at Acme."},
                           GOOD["operations"][0] | {"confidence": 7}]}  # fmt: skip


def test_llm_operations_are_gated_and_malformed_replies_are_never_half_applied(
    sqlite_url: str, make_memworks: Any, serve: Serve
) -> None:
    # Given a model that answers the first turn well and the second with one good and one bad
    # operation, when both turns are processed, then the first lands, nothing of the second's
    # reply lands (its transcript still does), and the rejection is recorded with its reason.
    server = serve([ok(json.dumps(GOOD)), ok(json.dumps(HALF_BAD))])
    mw = make_memworks(sqlite_url, extractor="llm", llm_base_url=server.base_url, llm_model="m")
    mw.enqueue_episodes([episode(1, "I live in Lisbon."), episode(2, "I work at Acme.", when="2025-01-07T09:00:00+00:00")])
    mw.drain()
    rows = mw.memories(SCOPE)
    assert [(m.key, m.value) for m in rows if m.key] == [("user.home_city", "Lisbon")]
    assert any(m.value == "I work at Acme." for m in rows)  # the transcript is evidence all the same
    with Session(mw.runtime.engine) as s:
        rejected = s.scalars(select(RejectedInput).where(RejectedInput.kind == "extraction")).all()
        decisions = s.scalars(select(GateDecision).where(GateDecision.extractor == "llm")).all()
    assert len(rejected) == 1 and "operations[1].confidence" in rejected[0].reason and rejected[0].reference == "t1-u1-2"
    assert [d.key for d in decisions] == ["user.home_city"]
    assert len(server.requests) == 2 and server.requests[0].body["model"] == "m"
