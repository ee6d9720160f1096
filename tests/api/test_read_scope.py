"""A read over HTTP names its user or asks for the tenant's shared records by name; the Python
facades take a read's times as ISO 8601 strings too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memworks.errors import InvalidInput
from memworks.models.schemas import Scope
from memworks.remote import RemoteMemworks
from tests.api.api_helpers import bearer, story

U1 = Scope(tenant_id="ta", user_id="u1")


@pytest.fixture
def told(mw: Any) -> Any:
    mw.enqueue_episodes(story("ta"))
    mw.drain()
    return mw


def test_tenant_key_read_without_user_is_refused_naming_user_id(
    told: Any, client: Any, make_key: Callable[..., str]
) -> None:
    key = bearer(make_key("ta"))
    # When a tenant key forgets user_id, Then 422 naming it (not an empty answer that looks like lost memory)
    for r in (
        client.post("/v1/retrieve", json={"query": "Where do I live?"}, headers=key),
        client.get("/v1/memories", headers=key),
    ):
        assert r.status_code == 422, r.text
        assert r.json()["error"]["field"] == "user_id" and "scope=tenant" in r.json()["error"]["message"]
    # When it asks for the tenant's shared records by name, Then the read runs and shows no user's record
    shared = client.post("/v1/retrieve", json={"query": "Where do I live?", "scope": "tenant"}, headers=key)
    assert shared.status_code == 200 and "Berlin" not in shared.text
    listed = client.get("/v1/memories", params={"scope": "tenant"}, headers=key)
    assert listed.status_code == 200 and listed.json() == []
    # ... and naming the user still answers
    mine = client.post(
        "/v1/retrieve", json={"query": "Where do I live?", "user_id": "u1", "scope": "user"}, headers=key
    )
    assert mine.json()["hits"][0]["value"] == "Berlin"


def test_shared_scope_with_a_user_is_a_contradiction(told: Any, client: Any, make_key: Callable[..., str]) -> None:
    key = bearer(make_key("ta"))
    r = client.post("/v1/retrieve", json={"query": "x", "user_id": "u1", "scope": "tenant"}, headers=key)
    assert r.status_code == 422 and r.json()["error"]["field"] == "user_id"
    bad = client.get("/v1/memories", params={"scope": "everyone"}, headers=key)
    assert bad.status_code == 422 and "scope" in bad.text


def test_end_user_key_needs_no_user_id(told: Any, client: Any, make_key: Callable[..., str]) -> None:
    key = bearer(make_key("ta", "u1"))
    assert (
        client.post("/v1/retrieve", json={"query": "Where do I live?"}, headers=key).json()["hits"][0]["value"]
        == "Berlin"
    )
    assert client.get("/v1/memories", headers=key).json()
    # An end-user key may read the tenant's shared records, never another user's
    assert client.get("/v1/memories", params={"scope": "tenant"}, headers=key).json() == []


@pytest.mark.parametrize("when", ["2025-02-01T00:00:00Z", "2025-02-01T01:00:00+01:00"])
def test_python_read_times_as_iso_strings(told: Any, when: str) -> None:
    # Given the user lived in Lisbon until March, When asked as of an ISO string, Then Lisbon
    res = told.retrieve(U1, "Where do I live?", as_of=when)
    assert res.hits[0].value == "Lisbon"
    assert told.retrieve(U1, "Where do I live?", known_at="2030-01-01T00:00:00Z").hits[0].value == "Berlin"


@pytest.mark.parametrize(
    ("field", "value"), [("as_of", "2025-02-01T00:00:00"), ("known_at", "yesterday"), ("as_of", 1738368000)]
)
def test_python_read_time_without_offset_is_invalid_input(told: Any, field: str, value: Any) -> None:
    with pytest.raises(InvalidInput) as exc:
        told.retrieve(U1, "Where do I live?", **{field: value})
    assert exc.value.field == field


def test_remote_client_reads_times_as_strings_and_shared_scope(
    told: Any, server: str, make_key: Callable[..., str]
) -> None:
    with RemoteMemworks(server, make_key("ta")) as remote:
        assert remote.retrieve(U1, "Where do I live?", as_of="2025-02-01T00:00:00Z").hits[0].value == "Lisbon"
        with pytest.raises(InvalidInput) as exc:
            remote.retrieve(U1, "Where do I live?", as_of="2025-02-01T00:00:00")
        assert exc.value.field == "as_of"
        # A Scope without a user is the tenant's shared records, explicitly, in both facades
        shared = Scope(tenant_id="ta")
        assert remote.memories(shared) == told.memories(shared) == []
        assert remote.retrieve(shared, "Where do I live?").abstained
