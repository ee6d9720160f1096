"""HTTP client for any OpenAI-compatible ``POST /chat/completions`` endpoint.

Implements :class:`~memworks.pipelines.extraction.base.Completer`. Failures come in two kinds,
and callers handle them differently:

* :class:`LLMUnavailable` is transient (429, 5xx, network). It is raised after the in-process
  retries are used up so that the queue worker can re-deliver the message later.
* :class:`LLMRequestError` is permanent (other 4xx, a 200 without content). Retrying the same
  request would fail the same way.

``tenacity`` is not installed and no dependency may be added, so the retry is a short
explicit loop.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import httpx
import structlog

from memworks.errors import MemworksError

#: The system message fixes the output channel; the extractor's prompt carries the contract.
SYSTEM_MESSAGE = "You are a precise information extractor. Reply with JSON only."

_log = structlog.get_logger(__name__)


class LLMUnavailable(MemworksError):
    """The endpoint could not be reached or kept failing; retry the work later.

    ``retry_after_s`` is the server's last ``Retry-After`` hint in seconds, if it sent one.
    """

    def __init__(self, message: str, *, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class LLMRequestError(MemworksError):
    """The endpoint rejected the request or answered with an unusable body; do not retry."""

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


def _retry_after(response: httpx.Response) -> float | None:
    """A numeric ``Retry-After`` in seconds. HTTP-date and garbage values are ignored."""
    raw = response.headers.get("retry-after")
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def _snippet(response: httpx.Response, limit: int = 200) -> str:
    """The start of a body for error messages. Kept short because bodies can echo prompts."""
    text = response.text
    return text[:limit] + ("…" if len(text) > limit else "")


def _content(payload: Any) -> str:
    """``choices[0].message.content`` of a decoded body, or LLMRequestError naming the gap."""
    path = "body"
    node: Any = payload
    for step in ("choices", 0, "message", "content"):
        if isinstance(step, int):
            if not isinstance(node, list) or len(node) <= step:
                raise LLMRequestError(f"response {path} has no element [{step}]", status_code=200)
            path += f"[{step}]"
        else:
            if not isinstance(node, dict) or step not in node:
                raise LLMRequestError(f"response {path} lacks '{step}'", status_code=200)
            path += f".{step}"
        node = node[step]
    if not isinstance(node, str):
        # A null content (refusal, tool call) is as unusable as a missing one.
        raise LLMRequestError(f"response {path} is {type(node).__name__}, not a string", status_code=200)
    return node


class ChatCompletionsClient:
    """A :class:`Completer` backed by an OpenAI-compatible chat completions API.

    Makes up to ``max_attempts`` requests. Between attempts it sleeps
    ``backoff_base_s * 2**n``, or the server's ``Retry-After`` when given, capped at
    ``max_backoff_s``. A ``Retry-After`` above the cap ends the loop at once with
    :class:`LLMUnavailable`. The queue waits better than a worker thread that blocks.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        max_attempts: int = 3,
        transport: httpx.BaseTransport | None = None,
        *,
        backoff_base_s: float = 0.5,
        max_backoff_s: float = 5.0,
        sleep: Callable[[float], None] = time.sleep,
        json_schema: dict[str, Any] | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.model = model
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.max_attempts = max_attempts
        self.backoff_base_s = backoff_base_s
        self.max_backoff_s = max_backoff_s
        self._sleep = sleep
        # With a schema the server is asked to hold its reply to it (OpenAI's structured
        # outputs, llama.cpp's and vLLM's grammars); the reply is validated again all the same.
        self.response_format: dict[str, Any] = (
            {"type": "json_schema", "json_schema": {"name": "reply", "schema": json_schema}}
            if json_schema is not None
            else {"type": "json_object"}
        )
        headers = {"Accept": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        # One client per instance, so connections are pooled across calls.
        self._client = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout_s), transport=transport)

    def __call__(self, prompt: str) -> str:
        """Send ``prompt`` as the user message and return the assistant's content."""
        payload = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": SYSTEM_MESSAGE},
                {"role": "user", "content": prompt},
            ],
            "temperature": 0,
            "response_format": self.response_format,
        }
        last_problem = "no attempt made"
        retry_after: float | None = None
        for attempt in range(1, self.max_attempts + 1):
            try:
                response = self._client.post(self.url, json=payload)
            except httpx.TransportError as exc:  # connect/read errors and timeouts
                last_problem, retry_after = f"{type(exc).__name__}: {exc}", None
            else:
                status = response.status_code
                if status == 429 or status >= 500:
                    last_problem, retry_after = f"HTTP {status}", _retry_after(response)
                elif status >= 400:
                    raise LLMRequestError(f"HTTP {status} from {self.url}: {_snippet(response)}", status_code=status)
                elif status != 200:
                    raise LLMRequestError(f"unexpected HTTP {status}", status_code=status)
                else:
                    try:
                        body = response.json()
                    except ValueError as exc:
                        raise LLMRequestError("response body is not JSON", status_code=200) from exc
                    return _content(body)

            if attempt == self.max_attempts:
                break
            delay = self.backoff_base_s * 2 ** (attempt - 1)
            if retry_after is not None:
                delay = retry_after  # the server knows its own load better than our schedule
            if delay > self.max_backoff_s:
                if retry_after is not None:
                    # The server asked for a longer wait than this worker will block for.
                    raise LLMUnavailable(
                        f"{last_problem}; Retry-After {retry_after:g}s exceeds the {self.max_backoff_s:g}s cap",
                        retry_after_s=retry_after,
                    )
                delay = self.max_backoff_s
            _log.warning("llm_retry", url=self.url, attempt=attempt, problem=last_problem, delay_s=delay)
            self._sleep(delay)

        raise LLMUnavailable(
            f"{self.url} failed after {self.max_attempts} attempts: {last_problem}",
            retry_after_s=retry_after,
        )

    def close(self) -> None:
        """Release pooled connections."""
        self._client.close()

    def __enter__(self) -> ChatCompletionsClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
