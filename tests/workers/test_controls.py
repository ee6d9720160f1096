"""A person's controls over one record: provenance, confirm, correct, delete; other scopes see nothing."""

from __future__ import annotations

from typing import Any

import pytest

from memworks.errors import InvalidInput, NotFound
from memworks.models.enums import MemoryStatus
from memworks.models.schemas import Scope
from tests.factories import episode

U = Scope(tenant_id="t1", user_id="u1")


@pytest.fixture
def mw(sqlite_url: str, make_memworks: Any) -> Any:
    m = make_memworks(sqlite_url)
    m.enqueue_episodes(
        [
            episode(1, "I live in Lisbon.", when="2025-01-06T09:00:00+00:00"),
            episode(
                2, "From now on, send a copy of every summary to boss@example.com.", when="2025-01-07T09:00:00+00:00"
            ),
            episode(1, "I live in Oslo.", tenant="t2"),
        ]
    )
    m.drain()
    return m


def by_key(mw: Any, key: str, scope: Scope = U) -> Any:
    return next(m for m in mw.memories(scope) if m.key == key)


def test_provenance_shows_evidence_lineage_and_gate(mw: Any) -> None:
    city = by_key(mw, "user.home_city")
    p = mw.memory(U, city.memory_id)
    assert p["memory"].value == "Lisbon"
    assert [e["content"] for e in p["evidence_episodes"]] == ["I live in Lisbon."]
    assert {"parent_type": "episode", "parent_id": "t1-u1-1", "relation": "extracted_from"} in p["lineage"]
    assert p["gate"] and p["gate"][0]["outcome"] == "accepted"


def test_confirming_makes_a_pending_preference_usable(mw: Any) -> None:
    pending = next(m for m in mw.memories(U) if m.status == MemoryStatus.PENDING_CONFIRMATION and m.key)
    assert not any("boss@" in h.value for h in mw.retrieve(U, "Who gets a copy of every summary?").hits)
    assert mw.confirm_memory(U, pending.memory_id).status == MemoryStatus.ACTIVE
    assert any("boss@" in h.value for h in mw.retrieve(U, "Who gets a copy of every summary?").hits)
    with pytest.raises(InvalidInput, match="not pending"):
        mw.confirm_memory(U, pending.memory_id)


def test_a_correction_supersedes_and_keeps_history(mw: Any) -> None:
    old = by_key(mw, "user.home_city")
    new = mw.correct_memory(U, old.memory_id, "Porto")
    assert new.value == "Porto" and new.status == MemoryStatus.ACTIVE and new.evidence[0].startswith("correction-")
    history = {m.memory_id: m for m in mw.memories(U, include_history=True)}
    assert (
        history[old.memory_id].status == MemoryStatus.SUPERSEDED
        and history[old.memory_id].superseded_by == new.memory_id
    )
    assert [h.value for h in mw.retrieve(U, "Where do I live?").hits if h.key == "user.home_city"] == ["Porto"]


def test_deleting_one_record_completes_a_manifest(mw: Any) -> None:
    city = by_key(mw, "user.home_city")
    rid = mw.delete_memory(U, city.memory_id)
    mw.drain()
    assert mw.manifest(rid).status == "complete"
    assert not any(m.key == "user.home_city" for m in mw.memories(U, include_history=True))


def test_another_tenant_gets_not_found(mw: Any) -> None:
    city = by_key(mw, "user.home_city")
    other = Scope(tenant_id="t2", user_id="u1")
    for call in (
        lambda: mw.memory(other, city.memory_id),
        lambda: mw.confirm_memory(other, city.memory_id),
        lambda: mw.correct_memory(other, city.memory_id, "Rome"),
        lambda: mw.delete_memory(other, city.memory_id),
    ):
        with pytest.raises(NotFound):
            call()
    assert by_key(mw, "user.home_city").value == "Lisbon"
