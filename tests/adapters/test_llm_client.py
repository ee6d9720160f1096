"""ChatCompletionsClient against a real HTTP server on loopback (scripted responses)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from memworks.adapters.llm import (
    SYSTEM_MESSAGE,
    ChatCompletionsClient,
    LLMRequestError,
    LLMUnavailable,
)
from memworks.models.drafts import Candidate, Turn
from memworks.models.enums import CandidateOp, MemoryKind, Role, Source
from memworks.pipelines.extraction.base import ExtractionRejected
from memworks.pipelines.extraction.llm import LLMExtractor

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


def _completion(content: str) -> bytes:
    return json.dumps(
        {"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
    ).encode()


def _ok(content: str) -> Scripted:
    return (200, {"Content-Type": "application/json"}, _completion(content))


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
                        Recorded(self.path, {k.lower(): v for k, v in self.headers.items()},
                                 json.loads(raw))
                    )
                    status, headers, body = (
                        state.script.pop(0) if state.script else (599, {}, b"script exhausted")
                    )
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


@pytest.fixture
def sleeps() -> list[float]:
    return []


def _client(server: ScriptedServer, sleeps: list[float], **kwargs: Any) -> ChatCompletionsClient:
    return ChatCompletionsClient(
        server.base_url, "test-model", backoff_base_s=0.01, sleep=sleeps.append, **kwargs
    )


def test_success_returns_content_and_sends_the_request(serve: Serve, sleeps: list[float]) -> None:
    server = serve([_ok('{"operations": []}')])
    with _client(server, sleeps, api_key="sk-test") as client:
        assert client("the prompt") == '{"operations": []}'
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.body == {
        "model": "test-model",
        "messages": [
            {"role": "system", "content": SYSTEM_MESSAGE},
            {"role": "user", "content": "the prompt"},
        ],
        "temperature": 0,
        "response_format": {"type": "json_object"},
    }
    assert sleeps == []


def test_no_api_key_sends_no_authorization(serve: Serve, sleeps: list[float]) -> None:
    server = serve([_ok("{}")])
    with _client(server, sleeps) as client:
        client("p")
    assert "authorization" not in server.requests[0].headers


def test_429_with_retry_after_then_success(serve: Serve, sleeps: list[float]) -> None:
    server = serve([(429, {"Retry-After": "0.05"}, b"slow down"), _ok("done")])
    with _client(server, sleeps) as client:
        assert client("p") == "done"
    assert len(server.requests) == 2
    assert sleeps == [0.05]  # the server's hint, not the 0.01 s exponential step


def test_retry_after_beyond_cap_gives_up_at_once(serve: Serve, sleeps: list[float]) -> None:
    server = serve([(429, {"Retry-After": "120"}, b""), _ok("never")])
    with _client(server, sleeps, max_backoff_s=1.0) as client:
        with pytest.raises(LLMUnavailable) as info:
            client("p")
    assert info.value.retry_after_s == 120.0
    assert len(server.requests) == 1 and sleeps == []


def test_three_500s_raise_unavailable(serve: Serve, sleeps: list[float]) -> None:
    server = serve([(500, {}, b"boom")] * 3 + [_ok("too late")])
    with _client(server, sleeps) as client:
        with pytest.raises(LLMUnavailable, match="failed after 3 attempts: HTTP 500"):
            client("p")
    assert len(server.requests) == 3
    assert sleeps == [0.01, 0.02]  # exponential, and no sleep after the last attempt


def test_400_raises_request_error_without_retry(serve: Serve, sleeps: list[float]) -> None:
    server = serve([(400, {}, b'{"error": "bad model"}'), _ok("unused")])
    with _client(server, sleeps) as client:
        with pytest.raises(LLMRequestError, match="HTTP 400") as info:
            client("p")
    assert info.value.status_code == 400
    assert len(server.requests) == 1 and sleeps == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"<html>not json</html>", "response body is not JSON"),
        (b'{"id": "x"}', "response body lacks 'choices'"),
        (b'{"choices": []}', r"response body.choices has no element \[0\]"),
        (b'{"choices": [{"text": "hi"}]}', r"response body.choices\[0\] lacks 'message'"),
        (b'{"choices": [{"message": {"role": "assistant"}}]}',
         r"response body.choices\[0\].message lacks 'content'"),
        (b'{"choices": [{"message": {"content": null}}]}',
         r"response body.choices\[0\].message.content is NoneType, not a string"),
    ],
)
def test_malformed_200_raises_request_error(
    serve: Serve, sleeps: list[float], body: bytes, expected: str
) -> None:
    server = serve([(200, {"Content-Type": "application/json"}, body)])
    with _client(server, sleeps) as client:
        with pytest.raises(LLMRequestError, match=expected):
            client("p")
    assert len(server.requests) == 1


def test_connection_refused_raises_unavailable(sleeps: list[float]) -> None:
    # Bind then close: the port is free and nothing listens on it.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = ChatCompletionsClient(
        f"http://127.0.0.1:{port}", "m", max_attempts=2, backoff_base_s=0.01, sleep=sleeps.append
    )
    with client, pytest.raises(LLMUnavailable) as info:
        client("p")
    assert "failed after 2 attempts: ConnectError" in str(info.value)
    assert info.value.retry_after_s is None
    assert sleeps == [0.01]


def test_invalid_max_attempts() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        ChatCompletionsClient("http://127.0.0.1:1", "m", max_attempts=0)


def test_custom_transport_is_used(sleeps: list[float]) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, json={"choices": [{"message": {"content": "mocked"}}]})

    with ChatCompletionsClient(
        "http://llm.invalid/v1/", "m", transport=httpx.MockTransport(handler)
    ) as client:
        assert client("p") == "mocked"
    assert seen == ["http://llm.invalid/v1/chat/completions"]


TURN = Turn(
    episode_id="ep-7",
    role=Role.USER,
    source=Source.USER,
    content="I work at Acme as a data engineer.",
    occurred_at=datetime(2025, 1, 5, 12, 0, tzinfo=UTC),
)


def test_end_to_end_extractor_over_http(serve: Serve, sleeps: list[float]) -> None:
    reply = {
        "operations": [
            {"op": "assert", "kind": "semantic", "key": "user.employer", "value": "Acme",
             "text": "User works at Acme.", "confidence": 0.95, "valid_from": None,
             "plan": False, "outward_action": False},
            {"op": "assert", "kind": "semantic", "key": "user.job_title", "value": "data engineer",
             "text": "User is a data engineer.", "confidence": 0.9,
             "valid_from": "2025-01-01T00:00:00Z", "plan": False, "outward_action": False},
        ]
    }
    server = serve([(503, {}, b"warming up"), _ok(json.dumps(reply))])
    with _client(server, sleeps) as client:
        candidates = LLMExtractor(client)(TURN)
    common: dict[str, Any] = {"evidence": ("ep-7",), "source": Source.USER, "extractor": "llm"}
    assert candidates == [
        Candidate(op=CandidateOp.ASSERT, kind=MemoryKind.SEMANTIC, key="user.employer",
                  value="Acme", text="User works at Acme.", confidence=0.95, **common),
        Candidate(key="user.job_title", value="data engineer", text="User is a data engineer.",
                  confidence=0.9, valid_from=datetime(2025, 1, 1, tzinfo=UTC), **common),
    ]
    assert len(server.requests) == 2
    prompt = server.requests[-1].body["messages"][1]["content"]
    assert json.dumps(TURN.content) in prompt


def test_end_to_end_broken_json_is_rejected(serve: Serve, sleeps: list[float]) -> None:
    server = serve([_ok('{"operations": [{"op": "assert", ')])
    with _client(server, sleeps) as client:
        with pytest.raises(ExtractionRejected, match="^not JSON: "):
            LLMExtractor(client)(TURN)
    assert len(server.requests) == 1
