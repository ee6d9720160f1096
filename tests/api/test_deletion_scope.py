"""Erasing a whole user over HTTP takes an explicit ``"scope": "user"``: an empty or truncated
body never erases everything by default."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.api.api_helpers import bearer, story


def test_a_whole_user_deletion_without_scope_is_422_and_erases_nothing(
    client: Any, mw: Any, make_key: Callable[..., str], row_counts: Callable[[], dict[str, int]]
) -> None:
    key = bearer(make_key("ta"))
    assert client.post("/v1/episodes", json=story("ta", with_tenant=False), headers=key).status_code == 202
    mw.drain()
    before = row_counts()
    # When the body names the user but neither keys nor records, and no scope
    r = client.post("/v1/deletions", json={"user_id": "u1"}, headers=key)
    # Then it is refused naming scope, and nothing was opened or erased
    assert r.status_code == 422 and r.json()["error"]["field"] == "scope", r.text
    assert "scope" in r.json()["error"]["message"]
    assert row_counts() == before
    # A wrong scope word is refused as well
    assert client.post("/v1/deletions", json={"user_id": "u1", "scope": "all"}, headers=key).status_code == 422
    # With the scope said, the whole user goes
    ok = client.post("/v1/deletions", json={"user_id": "u1", "scope": "user"}, headers=key)
    assert ok.status_code == 202, ok.text
    mw.drain()
    assert client.get("/v1/memories", params={"user_id": "u1"}, headers=key).json() == []


def test_naming_keys_needs_no_scope(client: Any, mw: Any, make_key: Callable[..., str]) -> None:
    key = bearer(make_key("ta"))
    client.post("/v1/episodes", json=story("ta", with_tenant=False), headers=key)
    mw.drain()
    r = client.post("/v1/deletions", json={"user_id": "u1", "keys": ["user.home_city"]}, headers=key)
    assert r.status_code == 202, r.text


def test_the_profile_takes_a_question_and_refuses_a_blank_one(
    client: Any, mw: Any, make_key: Callable[..., str]
) -> None:
    """``GET /v1/profile?query=…`` answers the profile chosen for the question; a blank one is 422 naming it."""
    key = bearer(make_key("ta"))
    client.post("/v1/episodes", json=story("ta", with_tenant=False), headers=key)
    mw.drain()
    ok = client.get("/v1/profile", params={"user_id": "u1", "query": "Where should I eat?"}, headers=key)
    assert ok.status_code == 200 and "tokens" in ok.json(), ok.text
    bad = client.get("/v1/profile", params={"user_id": "u1", "query": "   "}, headers=key)
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "query", bad.text
