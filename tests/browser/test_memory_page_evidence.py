"""The memory page shows what each record rests on (when it was said, how it began), and history on request."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memworks.models.schemas import Scope
from tests.browser.harness import launch, need_chromium, user_key
from tests.factories import episode

U = Scope(tenant_id="t1", user_id="u1")
MARKUP = '<img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script>'
STORY = [
    (1, "I live in Madrid and I work at Acme.", "2025-01-06"),
    (2, f"My dog is called Pixel {MARKUP}", "2025-01-08"),
    (3, "My phone number is 555-0100 and my favourite colour is green.", "2025-01-09"),
    (4, "I moved to Porto.", "2025-03-01"),
]


def _told(mw: Any) -> None:
    """u1 tells the story, then has the phone number forgotten (its episode's words are erased);
    u2 of the same tenant lives elsewhere."""
    for n, text, day in STORY:
        mw.enqueue_episodes([episode(n, text, when=f"{day}T09:00:00+00:00")])
        mw.drain()
    mw.enqueue_episodes([episode(1, "I live in Oslo and I work at Initech.", user="u2")])
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1", "keys": ["user.phone_number"]})
    mw.drain()
    # A target verified too early is purged again after a delay, which drain can return before.
    deadline = time.monotonic() + 30
    while mw.manifest(rid).status != "complete":
        assert time.monotonic() < deadline, mw.manifest(rid)
        mw.drain()
        time.sleep(0.1)


def test_each_record_shows_its_evidence_and_history_on_request(
    sqlite_url: str, make_memworks: Any, serve_ui: Callable[[Any], str], tmp_path: Path
) -> None:
    """Given a user who moved from Madrid to Porto, When they open the page,
    Then every current record shows its key, kind, since when it holds, and its evidence (the
    episode's time and how it began); the Madrid record is not among them, and appears under
    history once the toggle is pressed; an episode's markup is shown as text and never runs; an
    erased episode shows its time and no words; another user's memories never appear."""
    need_chromium()
    from playwright.sync_api import sync_playwright

    mw = make_memworks(sqlite_url)
    _told(mw)
    ids = {m.text: m.memory_id for m in mw.memories(U, include_history=True)}
    key = user_key(mw)
    base = serve_ui(mw)
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            dialogs: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(f"{base}/ui#key={key}")
            page.wait_for_selector("#memories tbody tr")

            def line(text: str, table: str = "#memories") -> Any:
                return page.locator(f'{table} tr[data-memory-id="{ids[text]}"]')

            # Each record: key, kind, since, and its evidence's time and snippet
            porto = line("User lives in Porto.")
            text = porto.inner_text()
            for part in ("user.home_city", "semantic", "since 2025-03-01", "2025-03-01 09:00 UTC", "you said"):
                assert part in text, part
            assert porto.locator(".snippet").inner_text() == "I moved to Porto."
            acme = line("User works at Acme.")
            assert "2025-01-06 09:00 UTC" in acme.inner_text()
            assert acme.locator(".snippet").inner_text() == "I live in Madrid and I work at Acme."

            # The replaced city is not current; the line that said it names what replaced it
            assert line("User lives in Madrid.").count() == 0
            said = line("I live in Madrid and I work at Acme.")
            assert "Partly out of date" in said.inner_text() and "User lives in Porto." in said.inner_text()

            # Markup in an episode is text on the page, never an element, never run
            dog = line("User has a dog named Pixel.")
            assert MARKUP in dog.locator(".snippet").inner_text()
            assert page.locator("table img, table script").count() == 0
            assert page.evaluate("() => window.__pwned === undefined")

            # An erased episode keeps its time, not its words
            colour = line("User's favorite colour is green.")
            assert "2025-01-09 09:00 UTC" in colour.inner_text() and "its words were erased" in colour.inner_text()
            assert colour.locator(".snippet").count() == 0
            assert "555-0100" not in page.content() and "Oslo" not in page.content()

            # History is shown on request only
            toggle = page.locator("#history-toggle")
            assert page.locator("#history-section").is_hidden() and toggle.get_attribute("aria-expanded") == "false"
            assert toggle.inner_text().startswith("Show history")
            toggle.click()
            old = line("User lives in Madrid.", "#history")
            old.wait_for(state="visible")
            assert toggle.get_attribute("aria-expanded") == "true" and toggle.inner_text().startswith("Hide history")
            for part in ("User lives in Madrid.", "from 2025-01-06\nuntil 2025-03-01", "by: User lives in Porto."):
                assert part in old.inner_text(), part
            assert old.locator(".snippet").inner_text() == "I live in Madrid and I work at Acme."

            # It reads at a laptop's width: nothing runs off the side
            assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
            shot = tmp_path / "memory_page.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

            toggle.click()
            assert page.locator("#history-section").is_hidden()
            assert errors == [] and dialogs == []
        finally:
            browser.close()
