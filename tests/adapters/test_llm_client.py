"""ChatCompletionsClient against a real HTTP server on loopback (scripted responses)."""

from __future__ import annotations

import json
import socket
from datetime import UTC, datetime
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
from tests.llm_server import ScriptedServer, Serve
from tests.llm_server import ok as _ok


@pytest.fixture
def sleeps() -> list[float]:
    return []


def _client(server: ScriptedServer, sleeps: list[float], **kwargs: Any) -> ChatCompletionsClient:
    return ChatCompletionsClient(server.base_url, "test-model", backoff_base_s=0.01, sleep=sleeps.append, **kwargs)


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
        (b'{"choices": [{"message": {"role": "assistant"}}]}', r"response body.choices\[0\].message lacks 'content'"),
        (
            b'{"choices": [{"message": {"content": null}}]}',
            r"response body.choices\[0\].message.content is NoneType, not a string",
        ),
    ],
)
def test_malformed_200_raises_request_error(serve: Serve, sleeps: list[float], body: bytes, expected: str) -> None:
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

    with ChatCompletionsClient("http://llm.invalid/v1/", "m", transport=httpx.MockTransport(handler)) as client:
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
            {
                "op": "assert",
                "kind": "semantic",
                "key": "user.employer",
                "value": "Acme",
                "text": "User works at Acme.",
                "confidence": 0.95,
                "valid_from": None,
                "plan": False,
                "outward_action": False,
            },
            {
                "op": "assert",
                "kind": "semantic",
                "key": "user.job_title",
                "value": "data engineer",
                "text": "User is a data engineer.",
                "confidence": 0.9,
                "valid_from": "2025-01-01T00:00:00Z",
                "plan": False,
                "outward_action": False,
            },
        ]
    }
    server = serve([(503, {}, b"warming up"), _ok(json.dumps(reply))])
    with _client(server, sleeps) as client:
        candidates = LLMExtractor(client)(TURN)
    common: dict[str, Any] = {"evidence": ("ep-7",), "source": Source.USER, "extractor": "llm"}
    assert candidates == [
        Candidate(
            op=CandidateOp.ASSERT,
            kind=MemoryKind.SEMANTIC,
            key="user.employer",
            value="Acme",
            text="User works at Acme.",
            confidence=0.95,
            **common,
        ),
        Candidate(
            key="user.job_title",
            value="data engineer",
            text="User is a data engineer.",
            confidence=0.9,
            valid_from=datetime(2025, 1, 1, tzinfo=UTC),
            **common,
        ),
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
