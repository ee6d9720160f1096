"""The memory page shows each record's key and event time, and what was replaced as history."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.browser.harness import launch, need_chromium, user_key
from tests.factories import episode


def test_superseded_lines_are_history_not_current(
    sqlite_url: str, make_memworks: Any, serve_ui: Callable[[Any], str]
) -> None:
    """A replaced city and the line that said it are history (shown on request), never current;
    a dated event shows its event time beside its key."""
    need_chromium()
    from playwright.sync_api import sync_playwright

    mw = make_memworks(sqlite_url)
    for n, text, day in [
        (1, "I live in Lisbon.", "2025-01-06"),
        (2, "My sister's wedding is on June 14.", "2025-01-07"),
        (3, "I moved to Berlin.", "2025-03-01"),
    ]:
        mw.enqueue_episodes([episode(n, text, when=f"{day}T09:00:00+00:00")])
        mw.drain()
    key = user_key(mw)
    base = serve_ui(mw)
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page()
            page.goto(f"{base}/ui#key={key}")
            page.wait_for_selector("#memories tbody tr")
            current = page.locator("#memories").inner_text()
            assert "User lives in Berlin" in current and "user.home_city" in current
            assert "Lisbon" not in current  # neither the record nor the line that said it
            assert page.locator("#history-section").is_hidden()  # history is shown on request
            page.click("#history-toggle")
            page.wait_for_selector("#history tbody tr")
            history = page.locator("#history").inner_text()
            assert "User lives in Lisbon" in history and "I live in Lisbon." in history
            wedding = page.locator("#memories tr", has_text="user.sister.wedding").inner_text()
            assert "2025-06-14" in wedding  # the event time, beside the key
        finally:
            browser.close()
