"""The API's documentation pages, ``/docs`` (Swagger UI) and ``/redoc``, working offline.

FastAPI's own pages load their scripts from a CDN, so they stay blank on a machine without
internet access. Here the scripts come from the ``fastapi-offline`` package (Swagger UI 5 and
ReDoc 2 files, MIT) and are served by the API itself; nothing on the page asks another host.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

#: Where the pages' scripts, styles and icon are served.
ASSETS = "/docs/assets"
_FILES = Path(fastapi_offline.__file__).parent / "static"
#: The pages may load from this API only (the inline start-up script and data: images included).
_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; worker-src 'self' blob:"
)


def install_docs(app: FastAPI, *, docs_url: str = "/docs", redoc_url: str = "/redoc") -> None:
    """Serve Swagger UI at ``docs_url`` and ReDoc at ``redoc_url`` from local files.

    The app must be built with ``docs_url=None, redoc_url=None`` so FastAPI's CDN pages are off.
    """
    app.mount(ASSETS, StaticFiles(directory=_FILES), name="docs-assets")
    redirect = app.swagger_ui_oauth2_redirect_url or f"{docs_url}/oauth2-redirect"

    def _root(request: Request) -> str:
        return str(request.scope.get("root_path", "")).rstrip("/")  # behind a proxy that strips a prefix

    @app.get(docs_url, include_in_schema=False)
    def swagger_ui(request: Request) -> HTMLResponse:
        root = _root(request)
        page = get_swagger_ui_html(
            openapi_url=root + str(app.openapi_url),
            title=f"{app.title} - API docs",
            swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS}/favicon.png",
            oauth2_redirect_url=root + redirect,
            # Swagger UI would otherwise send the document to an online validator for a badge.
            swagger_ui_parameters={"validatorUrl": None},
        )
        page.headers["Content-Security-Policy"] = _CSP
        return page

    @app.get(redirect, include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get(redoc_url, include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        root = _root(request)
        page = get_redoc_html(
            openapi_url=root + str(app.openapi_url),
            title=f"{app.title} - API reference",
            redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS}/favicon.png",
            with_google_fonts=False,
        )
        page.headers["Content-Security-Policy"] = _CSP
        return page
