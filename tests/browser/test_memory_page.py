"""The memory page in a real browser (headless Chromium): a person lists, confirms, corrects and deletes."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from memworks.models.enums import MemoryStatus
from memworks.models.schemas import Scope
from tests.browser.harness import launch, need_chromium, user_key
from tests.factories import episode

U = Scope(tenant_id="t1", user_id="u1")


@pytest.fixture
def served(sqlite_url: str, make_memworks: Any, serve_ui: Any) -> tuple[str, str, Any]:
    """The API on a free loopback port, a user with memories, and that user's end-user key."""
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes(
        [
            episode(1, "I live in Lisbon.", when="2025-01-06T09:00:00+00:00"),
            episode(
                2, "From now on, send a copy of every summary to boss@example.com.", when="2025-01-07T09:00:00+00:00"
            ),
            episode(1, "I live in Oslo.", user="u2"),
        ]
    )
    mw.drain()
    return serve_ui(mw), user_key(mw), mw


def _signed_in(browser: Any, base: str, key: str) -> Any:
    """The memory page, signed in with ``key``, its list shown."""
    page = browser.new_page()
    page.goto(f"{base}/ui")
    page.fill("#key", key)
    page.click("button[type=submit]")
    page.wait_for_selector("#memories tbody tr")
    return page


def test_list_confirm_and_delete_in_a_real_browser(served: tuple[str, str, Any]) -> None:
    need_chromium()
    from playwright.sync_api import sync_playwright

    base, key, mw = served
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = _signed_in(browser, base, key)
            rows = page.locator("#memories tbody tr")
            texts = [rows.nth(i).inner_text() for i in range(rows.count())]
            assert any("Lisbon" in t for t in texts) and not any("Oslo" in t for t in texts)  # only this user's

            pending = page.locator("tr.pending_confirmation", has_text="User wants the assistant").first
            pending.locator("button.confirm").click()
            page.wait_for_selector("#message:has-text('Confirmed.')")
            statuses = {m.value: m.status for m in mw.memories(U) if m.key}
            assert any("boss@example.com" in v and s == MemoryStatus.ACTIVE for v, s in statuses.items())

            # When a record is deleted, Then the page follows its manifest and says "Deleted" only
            # once every place is confirmed clean
            page.locator("tr", has_text="User lives in Lisbon").locator("button.delete").click()
            page.wait_for_selector("#message:has-text('Deleted: every copy is confirmed gone')", timeout=30_000)
            checked = re.search(r"\((\d+) of (\d+) places checked\)", page.locator("#message").inner_text())
            assert checked is not None and checked[1] == checked[2] != "0", page.locator("#message").inner_text()
            mw.drain()
            deadline = time.monotonic() + 20
            while any(m.key == "user.home_city" for m in mw.memories(U)) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert not any(m.key == "user.home_city" for m in mw.memories(U, include_history=True))
            page.reload()
            page.fill("#key", key)
            page.click("button[type=submit]")
            page.wait_for_selector("#memories tbody tr")
            assert "User lives in Lisbon" not in page.locator("#memories").inner_text()
        finally:
            browser.close()


def test_a_person_corrects_a_record_and_the_old_value_moves_to_the_history(served: tuple[str, str, Any]) -> None:
    need_chromium()
    from playwright.sync_api import sync_playwright

    base, key, mw = served
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = _signed_in(browser, base, key)
            # When the person edits the Lisbon record (its value is offered for editing) and saves Porto
            page.locator("#memories tr", has_text="User lives in Lisbon").locator("button.edit").click()
            assert page.input_value("input.correction") == "Lisbon"
            page.fill("input.correction", "Porto")
            page.locator("button.save").click()
            page.wait_for_selector("#message:has-text('Corrected')")
            # Then the page shows the new value in use and the old one in its history, refreshed
            current = page.locator("#memories tbody tr", has_text="user.home_city")
            assert current.count() == 1 and "Porto" in current.inner_text()
            # (the turn that said Lisbon stays, marked as replaced by the correction)
            said = page.locator("#memories tbody tr", has_text="Partly out of date").inner_text()
            assert "was replaced by" in said and "Porto" in said
            page.click("#history-toggle")
            assert "superseded" in page.locator("#history tr", has_text="Lisbon").first.inner_text()
        finally:
            browser.close()
    # ... and the store agrees: the correction superseded the record, history kept
    homes = [m for m in mw.memories(U, include_history=True) if m.key == "user.home_city"]
    assert {(m.value, m.status) for m in homes} == {
        ("Porto", MemoryStatus.ACTIVE),
        ("Lisbon", MemoryStatus.SUPERSEDED),
    }
