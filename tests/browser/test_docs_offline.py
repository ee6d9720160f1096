"""The API's /docs and /redoc in a real browser (headless Chromium) with no outside host reachable."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


@pytest.fixture
def served(sqlite_url: str, make_memworks: Any) -> Iterator[str]:
    """The API on a free loopback port."""
    import uvicorn

    from memworks.api.app import create_app

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app(make_memworks(sqlite_url)), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def _browser(p: Any) -> Any:
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-sync",
        "--disable-background-networking",
        "--disable-component-update",
    ]
    return p.chromium.launch(executable_path=CHROMIUM, args=flags)


def _outside_blocked(page: Any) -> list[str]:
    """Every request the page makes is recorded; any to a non-loopback host is refused."""
    outside: list[str] = []

    def handle(route: Any) -> None:
        url = route.request.url
        host = urlsplit(url).hostname or ""
        if url.startswith(("http://", "https://", "ws://", "wss://")) and host not in LOOPBACK:
            outside.append(url)
            route.abort()
        else:
            route.continue_()

    page.route("**/*", handle)
    return outside


def _need_chromium() -> None:
    if CHROMIUM is None:
        if IN_CI:
            pytest.fail("chromium is not installed; CI needs it for the offline docs test", pytrace=False)
        pytest.skip("chromium is not installed (apt-get install chromium)")


def test_docs_render_every_operation_with_no_outside_request(served: str) -> None:
    _need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = _browser(p)
        try:
            page = browser.new_page()
            outside = _outside_blocked(page)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            # When a person opens /docs on a machine with no internet access
            page.goto(f"{served}/docs")
            page.wait_for_selector(".opblock-summary-path", timeout=30_000)
            # Then Swagger UI lists the API's operations, loaded from the API alone
            paths = set(page.locator(".opblock-summary-path").all_inner_texts())
            assert {"/v1/retrieve", "/v1/episodes", "/v1/memories"} <= {t.replace("\u200b", "") for t in paths}
            assert page.locator(".opblock").count() >= 15
            assert "memworks" in page.locator(".info .title").inner_text()
            assert outside == [] and errors == []
        finally:
            browser.close()


def test_redoc_renders_with_no_outside_request(served: str) -> None:
    _need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = _browser(p)
        try:
            page = browser.new_page()
            outside = _outside_blocked(page)
            page.goto(f"{served}/redoc")
            page.wait_for_selector("h1:has-text('memworks')", timeout=30_000)
            assert "/v1/retrieve" in page.content()
            assert outside == []
        finally:
            browser.close()
