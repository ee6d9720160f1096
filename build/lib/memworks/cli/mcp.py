"""The ``memworks mcp`` command: memory as MCP tools, over stdio (one scope) or streamable HTTP (keys)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from memworks.cli.common import EXIT_OK
from memworks.errors import InvalidInput

#: The environment variable a stdio server reads its API key from when no --tenant is given.
KEY_ENV = "MEMWORKS_API_KEY"


def register(sub: Any) -> None:
    m = sub.add_parser(
        "mcp",
        help="serve memory as MCP tools: over stdio bound to one scope, or over streamable HTTP with API keys",
        description=f"Over stdio (the default) every tool call acts for --tenant/--user, or for the API key in "
        f"{KEY_ENV}. With --http each request is bound by its 'Authorization: Bearer <key>' header, as in the "
        f"HTTP API; the endpoint is /mcp.",
    )
    m.add_argument("--tenant", help="stdio: the tenant every call acts for")
    m.add_argument("--user", help="stdio: the user every call acts for (with a tenant key: the user it acts for)")
    m.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    m.add_argument("--host", default="127.0.0.1", help="--http: the address to bind")
    m.add_argument("--port", type=int, default=8765, help="--http: the port to bind")
    m.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    from memworks.logging import configure_logging

    configure_logging()
    if args.http:
        if args.tenant or args.user:
            raise InvalidInput(
                "--tenant/--user bind a stdio server; over --http each request's key decides",
                field="tenant" if args.tenant else "user",
            )
        return _serve_http(args.host, args.port)
    return _serve_stdio(args.tenant, args.user)


def _serve_http(host: str, port: int) -> int:
    import uvicorn

    from memworks.api.middleware import BodyLimit
    from memworks.api.ratelimit import RateLimit
    from memworks.mcp import standalone_app

    app = standalone_app(host)
    # The HTTP API's body cap and rate limits, as on the API's own /mcp.
    app.add_middleware(RateLimit, get_mw=lambda: app.state.mw)
    app.add_middleware(BodyLimit)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return EXIT_OK


def _serve_stdio(tenant: str | None, user: str | None) -> int:
    from memworks.client import Memworks
    from memworks.mcp import build_server, fixed_binding, key_binding

    secret = os.environ.get(KEY_ENV, "").strip()
    if not tenant and not secret:
        raise InvalidInput(f"give --tenant (and --user), or set {KEY_ENV} to an API key", field="tenant")
    with Memworks.from_settings() as mw:
        # Resolved once, before serving: a stdio server acts for one scope for its whole life.
        binding = fixed_binding(tenant, user) if tenant else key_binding(mw, secret, user_id=user)
        build_server(lambda: mw, lambda: binding).run("stdio")
    return EXIT_OK
