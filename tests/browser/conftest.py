"""The browser tests' harness: the real API on a free loopback port (see ``harness`` for the rest)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest


@pytest.fixture
def serve_ui() -> Iterator[Callable[[Any], str]]:
    """``serve_ui(mw)`` → the base URL of the API over ``mw`` on a free loopback port; stopped after."""
    import uvicorn

    from memworks.api.app import create_app

    servers: list[tuple[Any, threading.Thread]] = []

    def serve(mw: Any) -> str:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(create_app(mw), host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        servers.append((server, thread))
        deadline = time.monotonic() + 20
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the API server did not start")
            time.sleep(0.05)
        return f"http://127.0.0.1:{port}"

    yield serve
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=10)
