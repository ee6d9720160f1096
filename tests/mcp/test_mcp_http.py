"""``memworks mcp --http`` (and /mcp in the API app), driven by the MCP SDK's streamable HTTP client."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.mcp.mcp_helpers import call, http_session, remember_and_forget


def test_an_agent_over_http_remembers_a_change_ignores_an_injection_and_forgets(
    mcp_http: str, make_key: Callable[..., str]
) -> None:
    """The same story as over stdio, through a server subprocess on a loopback port and an
    end-user key."""

    async def story() -> None:
        async with http_session(mcp_http, make_key("t1", "u1")) as s:
            await remember_and_forget(s)

    asyncio.run(story())


def test_requests_without_a_live_key_are_refused(mcp_http: str, make_key: Callable[..., str]) -> None:
    """No key, an unknown key, or an end-user key naming another user: 401, 401, 403, before any tool runs."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert httpx.post(mcp_http, json=body).status_code == 401
    assert httpx.post(mcp_http, json=body, headers={"Authorization": "Bearer mw_unknown"}).status_code == 401
    refused = httpx.post(
        mcp_http, json=body, headers={"Authorization": f"Bearer {make_key('t1', 'u1')}", "X-Memworks-User": "u2"}
    )
    assert refused.status_code == 403 and refused.json()["error"]["field"] == "X-Memworks-User"


@pytest.fixture
def api_server(make_memworks: Any, store_url: str) -> Iterator[str]:
    """The HTTP API app (with /mcp) on a real uvicorn server in this process."""
    import uvicorn

    from memworks.api import create_app

    app = create_app(make_memworks(store_url))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the API server did not start"
        time.sleep(0.01)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    srv.should_exit = True
    thread.join(15)
    sock.close()


def test_the_api_app_serves_mcp_at_slash_mcp_with_its_keys(api_server: str, make_key: Callable[..., str]) -> None:
    """/mcp in the API app takes the API's keys: what an agent adds over MCP, the REST API returns."""
    key = make_key("t1", "u1")

    async def story() -> None:
        async with http_session(api_server + "/mcp", key) as s:
            await call(s, "memory_add", content="I moved to Lisbon", relays_user=True)

    asyncio.run(story())
    hits = httpx.post(
        api_server + "/v1/retrieve", json={"query": "Where do I live?"}, headers={"Authorization": f"Bearer {key}"}
    ).json()["hits"]
    assert hits[0]["value"] == "Lisbon"
    assert httpx.post(api_server + "/mcp", json={}).status_code == 401
