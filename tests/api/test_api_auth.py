"""Keys decide who is asking: the tenant from the key, an end-user key bound to its user."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memworks.models.schemas import Scope
from tests.api.api_helpers import STORY_B, bearer, story


@pytest.fixture
def two_tenants(client: Any, mw: Any) -> Any:
    """Tenants ``ta`` and ``tb`` each with a user ``u1`` (and ``ta`` with a second user ``u2``)."""
    mw.enqueue_episodes(story("ta") + story("tb", lines=STORY_B) + story("ta", "u2", lines=STORY_B[:2]))
    mw.drain()
    return client


def ids_of(mw: Any, tenant: str, user: str = "u1") -> list[str]:
    return [m.memory_id for m in mw.memories(Scope(tenant_id=tenant, user_id=user), include_history=True)]


@pytest.mark.parametrize("header", [None, "Bearer", "Bearer nope", "Bearer mw_unknown", "Basic dXNlcjpwYXNz", "mw_x"])
def test_missing_or_bad_keys_get_401(client: Any, header: str | None) -> None:
    r = client.get("/v1/memories", headers={"Authorization": header} if header else {})
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    assert r.json()["error"]["code"] == "unauthorized" and r.json()["error"]["field"] == "Authorization"


def test_a_revoked_key_gets_401_at_once(client: Any, make_key: Callable[..., str], mw: Any) -> None:
    from memworks.store.keys import authenticate, hash_secret, revoke
    from memworks.store.sql.db import session_scope

    secret = make_key("ta")
    assert client.get("/v1/lessons", headers=bearer(secret)).status_code == 200
    with session_scope(mw.runtime.engine) as s:
        row = authenticate(s, secret)
        assert row is not None and row.secret_hash == hash_secret(secret) and secret not in row.model_dump_json()
        revoke(s, key_id=row.key_id)
    assert client.get("/v1/lessons", headers=bearer(secret)).status_code == 401


def test_the_tenant_comes_from_the_key(two_tenants: Any, make_key: Callable[..., str], mw: Any) -> None:
    a = bearer(make_key("ta"))
    listed = {
        m["memory_id"]
        for m in two_tenants.get("/v1/memories", params={"user_id": "u1", "include_history": "true"}, headers=a).json()
    }
    assert listed == set(ids_of(mw, "ta")) and not listed & set(ids_of(mw, "tb"))
    hits = two_tenants.post("/v1/retrieve", json={"user_id": "u1", "query": "Where do I live?"}, headers=a).json()[
        "hits"
    ]
    assert hits and all(h["memory_id"] in listed for h in hits)


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("post", "/v1/episodes", story("tb")[0], "tenant_id"),
        ("post", "/v1/episodes", [story("ta")[0], story("tb")[1]], "[1].tenant_id"),
        (
            "post",
            "/v1/outcomes",
            {
                "outcome_id": "o1",
                "tenant_id": "tb",
                "task_type": "t",
                "features": ["a"],
                "action_taken": "x",
                "success": True,
                "occurred_at": "2025-01-01T00:00:00+00:00",
            },
            "tenant_id",
        ),
        ("post", "/v1/retrieve", {"tenant_id": "tb", "user_id": "u1", "query": "Where do I live?"}, "tenant_id"),
        ("post", "/v1/deletions", {"tenant_id": "tb", "user_id": "u1"}, "tenant_id"),
        ("post", "/v1/recommend", {"tenant_id": "tb", "task_type": "t", "features": ["a"]}, "tenant_id"),
        ("post", "/v1/consolidations", {"tenant_id": "tb"}, "tenant_id"),
        ("get", "/v1/memories?tenant_id=tb&user_id=u1", None, "tenant_id"),
        ("get", "/v1/lessons?tenant_id=tb", None, "tenant_id"),
        ("get", "/v1/profile?tenant_id=tb&user_id=u1", None, "tenant_id"),
    ],
)
def test_naming_another_tenant_is_forbidden_and_writes_nothing(
    client: Any,
    make_key: Callable[..., str],
    row_counts: Callable[[], dict[str, int]],
    method: str,
    path: str,
    body: Any,
    field: str,
) -> None:
    a = bearer(make_key("ta"))
    before = row_counts()
    r = client.request(method.upper(), path, json=body, headers=a)
    assert r.status_code == 403 and r.json()["error"] == {
        "code": "forbidden_tenant",
        "field": field,
        "message": r.json()["error"]["message"],
    }
    assert "tb" not in r.json()["error"]["message"]
    assert row_counts() == before


def test_another_tenants_ids_are_not_found(
    two_tenants: Any, make_key: Callable[..., str], mw: Any, row_counts: Callable[[], dict[str, int]]
) -> None:
    a = bearer(make_key("ta"))
    rid = mw.submit_deletion({"tenant_id": "tb", "user_id": "u1", "keys": ["user.employer"]})
    mw.drain()
    before = row_counts()
    for mid in ids_of(mw, "tb"):
        for method, path, body in (
            ("GET", f"/v1/memories/{mid}", None),
            ("PATCH", f"/v1/memories/{mid}", {"value": "x"}),
            ("POST", f"/v1/memories/{mid}/confirm", None),
            ("DELETE", f"/v1/memories/{mid}", None),
            ("POST", "/v1/deletions", {"user_id": "u1", "memory_ids": [mid]}),
        ):
            r = two_tenants.request(method, path, json=body, headers=a)
            assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", (method, path, r.text)
    r = two_tenants.get(f"/v1/deletions/{rid}", headers=a)
    assert r.status_code == 404 and r.json()["error"]["message"] == f"no deletion request {rid!r}"
    assert (
        two_tenants.get("/v1/deletions/no-such-id", headers=a).json()["error"]["message"]
        == "no deletion request 'no-such-id'"
    )
    assert row_counts() == before


def test_an_end_user_key_is_bound_to_its_user(
    two_tenants: Any, make_key: Callable[..., str], mw: Any, row_counts: Callable[[], dict[str, int]]
) -> None:
    u1 = bearer(make_key("ta", "u1"))
    own = two_tenants.get("/v1/memories", params={"include_history": "true"}, headers=u1).json()
    assert {m["memory_id"] for m in own} == set(ids_of(mw, "ta", "u1"))
    assert two_tenants.get("/v1/memories", params={"user_id": "u1"}, headers=u1).status_code == 200
    before = row_counts()
    for method, path, body in (
        ("GET", "/v1/memories?user_id=u2", None),
        ("GET", "/v1/profile?user_id=u2", None),
        ("POST", "/v1/retrieve", {"user_id": "u2", "query": "Where do I live?"}),
        ("POST", "/v1/episodes", story("ta", "u2")[0]),
        ("POST", "/v1/episodes", [{**story("ta")[0], "episode_id": "fresh"}, story("ta", "u2")[0]]),
        ("POST", "/v1/deletions", {"user_id": "u2", "scope": "user"}),
    ):
        r = two_tenants.request(method, path, json=body, headers=u1)
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden_user", (path, r.text)
        assert r.json()["error"]["field"].endswith("user_id")
    other = ids_of(mw, "ta", "u2")[0]
    assert two_tenants.get(f"/v1/memories/{other}", headers=u1).status_code == 404
    assert two_tenants.delete(f"/v1/memories/{other}", headers=u1).status_code == 404
    assert two_tenants.post("/v1/consolidations", headers=u1).status_code == 403
    assert row_counts() == before
    rid = mw.submit_deletion({"tenant_id": "ta", "user_id": "u2", "keys": ["user.home_city"]})
    mw.drain()
    assert two_tenants.get(f"/v1/deletions/{rid}", headers=u1).status_code == 404
    # The user's own writes work without naming anyone: the key supplies tenant and user.
    mine = {k: v for k, v in story("ta")[0].items() if k not in ("tenant_id", "user_id")}
    r = two_tenants.post(
        "/v1/episodes",
        json={**mine, "episode_id": "own-1", "content": "I live in Porto.", "occurred_at": "2025-06-01T09:00:00+00:00"},
        headers=u1,
    )
    assert r.status_code == 202 and r.json()["accepted"] == ["own-1"]
    hits = two_tenants.post("/v1/retrieve", json={"query": "Where do I live?", "k": 1}, headers=u1).json()["hits"]
    assert [h["value"] for h in hits] == ["Porto"]


def test_a_tenant_wide_record_is_readable_but_not_changeable_with_a_user_key(
    client: Any, make_key: Callable[..., str], mw: Any
) -> None:
    from memworks.models.tables import Memory
    from memworks.store.sql.db import session_scope

    mw.enqueue_episodes(story("ta"))
    mw.drain()
    with session_scope(mw.runtime.engine) as s:  # make one record tenant-wide
        row = s.get(Memory, ids_of(mw, "ta")[0])
        assert row is not None
        row.user_id = None
        s.add(row)
        mid = row.memory_id
    u1 = bearer(make_key("ta", "u1"))
    assert client.get(f"/v1/memories/{mid}", headers=u1).status_code == 200
    for r in (
        client.patch(f"/v1/memories/{mid}", json={"value": "x"}, headers=u1),
        client.post(f"/v1/memories/{mid}/confirm", headers=u1),
    ):
        assert r.status_code == 403 and r.json()["error"]["field"] == "memory_id"
    assert client.delete(f"/v1/memories/{mid}", headers=u1).status_code == 422
