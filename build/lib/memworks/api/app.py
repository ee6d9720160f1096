"""The HTTP API: the ``Memworks`` facade behind tenant-bound keys (OpenAPI at ``/docs``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from starlette.routing import Route

from memworks.api import routes_memory, routes_tenant, ui
from memworks.api.auth import get_mw
from memworks.api.docs import install_docs
from memworks.api.errors import install_error_handlers
from memworks.api.middleware import MAX_BODY_BYTES, BodyLimit, CatchAll, Metrics
from memworks.api.ratelimit import RateLimit
from memworks.client import Memworks
from memworks.mcp import MCP_PATH, McpEndpoint
from memworks.services.doctor import database_ok, require_current_schema, schema_word
from memworks.workers import QUEUES
from memworks.workers import metrics as worker_metrics
from memworks.workers.metrics import QueueDepth


def _version() -> str:
    try:
        return version("memworks")
    except PackageNotFoundError:
        return "0"


def create_app(mw: Memworks | None = None, *, max_body_bytes: int = MAX_BODY_BYTES) -> FastAPI:
    """The API over ``mw``; without one, a facade from ``MEMWORKS_*`` is built at startup.

    A facade passed in stays the caller's to close; one built here is closed at shutdown.
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        built = app.state.mw is None
        if built:
            app.state.mw = Memworks.from_settings()
        try:
            # Serving on a database not migrated to this code would fail request by request.
            require_current_schema(app.state.mw.runtime.engine)
            async with mcp.running():
                yield
        finally:
            if built:
                app.state.mw.close()
                app.state.mw = None

    app = FastAPI(
        title="memworks",
        version=_version(),
        summary="Governed, bitemporal memory for AI agents.",
        description="Every /v1 route needs `Authorization: Bearer <key>`. The key decides the tenant; an "
        'end-user key also decides the user. Errors are `{"error": {"code", "message", "field"}}`.',
        lifespan=lifespan,
        docs_url=None,  # served by install_docs from local files: FastAPI's pages load a CDN
        redoc_url=None,
    )
    install_docs(app)
    app.state.mw = mw
    # MCP over streamable HTTP at /mcp, behind the same keys as /v1 (an end-user key stays in its user).
    mcp = McpEndpoint(lambda: app.state.mw)
    app.router.routes.append(Route(MCP_PATH, mcp))
    registry = CollectorRegistry()
    app.state.metrics_registry = registry
    install_error_handlers(app)
    app.include_router(routes_memory.router)
    app.include_router(routes_tenant.router)
    app.include_router(ui.router)  # the memory page at /ui (no key needed to load it; its calls need one)

    @app.get("/healthz", tags=["ops"])
    def healthz(request: Request) -> JSONResponse:
        """Liveness, the database and its schema: 200 when it answers at the newest migration,
        503 when not (no key needed). ``schema`` is current, behind, missing or ahead (null
        when the database does not answer); anything but current needs `memworks db upgrade`
        (or, when ahead, the newer memworks that migrated it)."""
        engine = get_mw(request).runtime.engine
        reachable = database_ok(engine)
        schema = schema_word(engine) if reachable else None
        ok = reachable and schema == "current"
        body = {"status": "ok" if ok else "unavailable", "database": "ok" if reachable else "unreachable"}
        return JSONResponse({**body, "schema": schema}, status_code=200 if ok else 503)

    @app.get("/metrics", tags=["ops"], response_class=Response)
    def metrics(request: Request) -> Response:
        """Prometheus metrics: requests by route, method and status, latency; queue depth; and
        memworks' counters (gate verdicts, ops, manifests, lessons) of work done in this process."""
        depth = CollectorRegistry()
        depth.register(QueueDepth(get_mw(request).broker, QUEUES))
        body = b"".join(generate_latest(r) for r in (registry, depth, worker_metrics.REGISTRY))
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    # The last one added is the outermost: metrics see every answer, 413s, 429s and 500s included;
    # the rate limits see bodies already capped, and a failure in them is still a clean 500.
    app.add_middleware(RateLimit, get_mw=lambda: app.state.mw, registry=registry)
    app.add_middleware(CatchAll)
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    app.add_middleware(Metrics, registry=registry)
    return app
