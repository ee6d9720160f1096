"""The MCP server over streamable HTTP, behind the same Bearer keys as the HTTP API.

Each HTTP request is authenticated here and its binding put in a context variable for the
length of the request. The SDK serves every request statelessly inside that request (no
session outlives it), so each tool call and resource read sees the binding of the key that sent
it, and a second key on the same connection never inherits the first one's scope.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

import anyio.to_thread
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from memworks.client import Memworks
from memworks.errors import InvalidInput
from memworks.mcp.binding import USER_HEADER, Binding, Forbidden, Unauthenticated, key_binding
from memworks.mcp.server import build_server

#: Where the MCP endpoint answers, in the API app and in ``memworks mcp --http``.
MCP_PATH = "/mcp"
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_BINDING: ContextVar[Binding | None] = ContextVar("memworks_mcp_binding", default=None)


def request_binding() -> Binding:
    """The binding of the HTTP request being served (set by :class:`McpEndpoint`)."""
    b = _BINDING.get()
    if b is None:
        raise InvalidInput("this request carries no API key: send 'Authorization: Bearer <key>'", field="Authorization")
    return b


async def _answer(
    send: Send, status: int, code: str, message: str, field: str | None, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    raw = json.dumps({"error": {"code": code, "message": message, "field": field}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": raw})


class McpEndpoint:
    """An ASGI app serving MCP at one path; mount it with ``Route(MCP_PATH, endpoint)``.

    Args:
        get_mw: the facade to serve (read on each call, so an app may build it at startup).
        host: the address the server binds, when known. On loopback the SDK's DNS-rebinding
            checks stay on; elsewhere (behind a load balancer, inside the API app) they are off,
            since every request must carry a key a rebinding page cannot have.
    """

    def __init__(self, get_mw: Callable[[], Memworks], *, host: str | None = None) -> None:
        self._get_mw = get_mw
        self._host = host
        self.server = build_server(get_mw, request_binding)
        self._manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve while inside (enter it in the app's lifespan); a new session manager each time."""
        loopback = self._host in _LOOPBACK
        security = None if loopback else TransportSecuritySettings(enable_dns_rebinding_protection=False)
        self.server.streamable_http_app(
            stateless_http=True, json_response=True, transport_security=security, host=self._host or "0.0.0.0"
        )
        manager = self.server.session_manager
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        manager = self._manager
        if scope["type"] != "http" or manager is None:
            await _answer(send, 503, "unavailable", "the MCP endpoint is not running", None)
            return
        headers = Headers(scope=scope)
        scheme, _, secret = headers.get("authorization", "").partition(" ")
        challenge = [(b"www-authenticate", b"Bearer")]
        if scheme.lower() != "bearer" or not secret.strip():
            await _answer(
                send,
                401,
                "unauthorized",
                "send an API key as 'Authorization: Bearer <key>'",
                "Authorization",
                challenge,
            )
            return
        try:
            binding = await anyio.to_thread.run_sync(
                lambda: key_binding(self._get_mw(), secret.strip(), user_id=headers.get(USER_HEADER))
            )
        except Unauthenticated as exc:
            await _answer(send, 401, "unauthorized", str(exc), exc.field, challenge)
            return
        except Forbidden as exc:
            await _answer(send, 403, "forbidden_user", str(exc), exc.field)
            return
        except InvalidInput as exc:
            await _answer(send, 422, "invalid_input", str(exc), exc.field)
            return
        token = _BINDING.set(binding)
        try:
            await manager.handle_request(scope, receive, send)
        finally:
            _BINDING.reset(token)


def standalone_app(host: str, make_mw: Callable[[], Memworks] = Memworks.from_settings) -> Starlette:
    """``memworks mcp --http``: the MCP endpoint alone, with a facade built at startup
    (``app.state.mw`` while it serves, ``None`` before and after)."""

    def get_mw() -> Memworks:
        mw = app.state.mw
        assert isinstance(mw, Memworks), "the facade is built at startup"
        return mw

    endpoint = McpEndpoint(get_mw, host=host)

    @asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        app.state.mw = make_mw()
        try:
            async with endpoint.running():
                yield
        finally:
            app.state.mw.close()
            app.state.mw = None

    app = Starlette(routes=[Route(MCP_PATH, endpoint)], lifespan=lifespan)
    app.state.mw = None
    return app
