"""``memworks mcp --http`` applies the HTTP API's rate limits and body cap to its own door."""

from __future__ import annotations

from collections.abc import Callable

import pytest


@pytest.fixture
def server_env(server_env: dict[str, str]) -> dict[str, str]:
    """The server's environment with a budget of two reads a minute per key, both at once."""
    return {**server_env, "MEMWORKS_RATE_READS_PER_MIN": "2", "MEMWORKS_RATE_BURST_S": "60"}


def test_the_standalone_mcp_server_limits_each_key(mcp_http: str, make_key: Callable[..., str]) -> None:
    import httpx

    key, other = make_key("t1", "u1"), make_key("t1", "u2")
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}

    def post(secret: str, body: object = listing) -> httpx.Response:
        headers = {"Authorization": f"Bearer {secret}", "Accept": "application/json, text/event-stream"}
        return httpx.post(mcp_http, json=body, headers=headers, timeout=30)

    # Given a key that made its two calls
    assert [post(key).status_code for _ in range(2)] == [200, 200]
    # When it calls again, Then 429 with Retry-After in the API's error shape
    refused = post(key)
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == "rate_limited" and int(refused.headers["retry-after"]) >= 1
    # And another key is served
    assert post(other).status_code == 200
    # And a body over the API's size limit is refused before it is read
    assert post(other, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "pad": "x" * 1_100_000}).status_code == 413
