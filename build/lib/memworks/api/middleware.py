"""ASGI middleware: request metrics, the body size limit, and the last-resort 500 (rate limits: ``ratelimit``)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memworks.logging import exception_fields, get_logger

log = get_logger("memworks.api")

#: Largest request body accepted (bytes); a bigger one is refused before it is parsed.
MAX_BODY_BYTES = 1_000_000


async def send_json(send: Send, status: int, body: dict[str, Any], headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    """Answer with ``body`` as JSON (and any extra ``headers``) from a middleware."""
    raw = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(raw)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": raw})


def error_body(code: str, message: str, field: str | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "field": field}}


class Metrics:
    """Counts requests by route template, method and status in the app's own registry."""

    def __init__(self, app: ASGIApp, registry: CollectorRegistry) -> None:
        self.app = app
        self.requests = Counter(
            "memworks_http_requests",
            "HTTP requests by route, method and status",
            ["route", "method", "status"],
            registry=registry,
        )
        self.latency = Histogram(
            "memworks_http_request_duration_seconds",
            "HTTP request latency by route",
            ["route", "method"],
            registry=registry,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500
        started = time.perf_counter()

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            # The route template, not the raw path: ids must not become label values.
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            self.requests.labels(route, scope["method"], str(status)).inc()
            self.latency.labels(route, scope["method"]).observe(time.perf_counter() - started)


class BodyLimit:
    """Refuses a body over ``max_bytes`` with 413 before any of it is parsed.

    A declared ``Content-Length`` over the limit is refused without reading; a chunked body is
    read up to the limit and refused as soon as it passes it.
    """

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_big = error_body("too_large", f"the request body must be at most {self.max_bytes} bytes", "body")
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None:
            if not declared.isdigit():
                await send_json(
                    send, 400, error_body("bad_request", "Content-Length is not a number", "Content-Length")
                )
                return
            if int(declared) > self.max_bytes:
                await send_json(send, 413, too_big)
                return
            # The server reads no more than the declared length: the body streams on unread, so
            # the rate limits further in can refuse it before anyone reads it.
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        pending: Message | None = None
        while True:
            message = await receive()
            if message["type"] != "http.request":
                pending = message  # a disconnect: hand it on as it is
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await send_json(send, 413, too_big)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                if pending is not None:
                    return pending
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class CatchAll:
    """The last resort: an unexpected exception becomes a logged 500 without a stack trace.

    Starlette's own server-error handler re-raises after answering; this one does not, so a
    test client or fuzzer sees exactly what a real client would.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def track(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, track)
        except Exception as exc:  # noqa: BLE001 - middleware: any failure becomes a clean 500
            # The route template, not the raw path (ids), and the exception without its message.
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            log.error("api.unhandled", method=scope.get("method"), route=route, **exception_fields(exc))
            if not started:
                await send_json(send, 500, error_body("internal", "internal error; it has been logged"))
