"""A scripted OpenAI-compatible chat-completions server on loopback, for LLM client tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

Scripted = tuple[int, dict[str, str], bytes]


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class ScriptedServer:
    """A loopback server that replays ``script`` in order and records each request."""

    base_url: str
    script: list[Scripted]
    requests: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def completion(content: str) -> bytes:
    return json.dumps(
        {"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
    ).encode()


def ok(content: str) -> Scripted:
    return (200, {"Content-Type": "application/json"}, completion(content))


Serve = Callable[[list[Scripted]], ScriptedServer]


@pytest.fixture
def serve() -> Iterator[Serve]:
    """Start a server per call; every server is shut down and closed at teardown."""
    running: list[tuple[ThreadingHTTPServer, threading.Thread]] = []

    def start(script: list[Scripted]) -> ScriptedServer:
        state = ScriptedServer(base_url="", script=list(script))

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                with state.lock:
                    state.requests.append(
                        Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(raw))
                    )
                    status, headers, body = state.script.pop(0) if state.script else (599, {}, b"script exhausted")
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # keep pytest output clean

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # A short poll interval keeps shutdown() (which waits for the next poll) fast.
        thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
        thread.start()
        running.append((server, thread))
        state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        return state

    yield start
    for server, thread in running:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
