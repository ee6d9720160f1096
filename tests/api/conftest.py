"""Fixtures for the HTTP API: an embedded facade on a SQLite file, the app, keys, a real server."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.api.api_helpers import table_counts


@pytest.fixture
def mw(sqlite_url: str, make_memworks: Any) -> Any:
    """The API's facade; its buckets hold a minute of each budget, so the tests of other things
    may send a burst (the limits themselves: tests/api/test_rate_limits.py)."""
    return make_memworks(sqlite_url, rate_burst_s=60.0, rate_refusal_delay_s=0.0)


@pytest.fixture
def app(mw: Any) -> Any:
    from memworks.api import create_app

    return create_app(mw)


@pytest.fixture
def client(app: Any) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    with TestClient(app) as c:
        yield c


@pytest.fixture
def make_key(mw: Any) -> Callable[..., str]:
    """``make_key("t1")`` → a tenant key's secret; ``make_key("t1", "u1")`` → an end-user key's."""
    from memworks.store.keys import create_key
    from memworks.store.sql.db import session_scope

    def make(tenant: str, user: str | None = None) -> str:
        with session_scope(mw.runtime.engine) as s:
            return create_key(s, tenant_id=tenant, user_id=user, label="test", now=datetime.now(UTC))[1]

    return make


@pytest.fixture
def row_counts(mw: Any) -> Callable[[], dict[str, int]]:
    """Rows per table right now: a rejected request must leave every count as it was."""
    return lambda: table_counts(mw)


@pytest.fixture
def server(app: Any) -> Iterator[str]:
    """The app on a real uvicorn server at 127.0.0.1 on a free port; stopped after the test."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the API server did not start")
        time.sleep(0.01)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)
    sock.close()
