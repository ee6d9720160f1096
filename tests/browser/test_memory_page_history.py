"""The memory page shows each record's key and event time, and what was replaced as history."""

from __future__ import annotations

import socket
import threading
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.browser.test_memory_page import CHROMIUM, IN_CI
from tests.factories import episode


def test_superseded_lines_are_history_not_current(sqlite_url: str, make_memworks: Any) -> None:
    if CHROMIUM is None:
        if IN_CI:
            pytest.fail("chromium is not installed; CI needs it for the memory page test", pytrace=False)
        pytest.skip("chromium is not installed (apt-get install chromium)")
    import uvicorn
    from playwright.sync_api import sync_playwright

    from memworks.api.app import create_app
    from memworks.store.db import session_scope
    from memworks.store.keys import create_key

    mw = make_memworks(sqlite_url)
    for n, text, day in [
        (1, "I live in Lisbon.", "2025-01-06"),
        (2, "My sister's wedding is on June 14.", "2025-01-07"),
        (3, "I moved to Berlin.", "2025-03-01"),
    ]:
        mw.enqueue_episodes([episode(n, text, when=f"{day}T09:00:00+00:00")])
        mw.drain()
    with session_scope(mw.runtime.engine) as s:
        _, key = create_key(s, tenant_id="t1", user_id="u1", label="browser test", now=datetime.now(UTC))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(mw), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=flags)
            try:
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{port}/ui#key={key}")
                page.wait_for_selector("#history tbody tr")
                current = page.locator("#memories").inner_text()
                history = page.locator("#history").inner_text()
                assert "User lives in Berlin" in current and "user.home_city" in current
                assert "Lisbon" not in current  # neither the record nor the line that said it
                assert "User lives in Lisbon" in history and "I live in Lisbon." in history
                wedding = page.locator("#memories tr", has_text="user.sister.wedding").inner_text()
                assert "2025-06-14" in wedding  # the event time, beside the key
            finally:
                browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
