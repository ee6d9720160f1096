"""Property-based fuzzing of the OpenAPI schema (schemathesis): never a 5xx, and a rejected
request (4xx) leaves every table's row count as it was.

Bounded: a few examples per operation, positive and negative, so the file runs in seconds.
Hypothesis drives each operation's strategy directly (``schemathesis.pytest.from_fixture`` does
not run under this pytest), one test per operation.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from tests.api.api_helpers import STORY_B, bearer, story, table_counts

#: Examples per operation and generation mode.
EXAMPLES = 12


def _operations() -> list[str]:
    from memworks.api import create_app

    spec = create_app().openapi()  # the schema alone: no facade is built for it
    return [f"{m.upper()} {p}" for p, ops in spec["paths"].items() for m in ops]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def fuzz_db(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One database per kind for the whole module (each refuses different text and numbers:
    NUL bytes, INTEGER range), so the examples, not the set-up, take the time."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'memworks.db'}"
        return
    from sqlalchemy import text

    from memworks.store.sql.db import get_engine, upgrade

    admin = request.getfixturevalue("pg_admin")
    name = f"memworks_fuzz_{uuid.uuid4().hex[:12]}"
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    url = admin.url.set(database=name).render_as_string(hide_password=False)
    upgrade(url)
    yield url
    get_engine(url).dispose()
    get_engine.cache_clear()
    with admin.connect() as c:
        c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="module")
def fuzzed(fuzz_db: str) -> Iterator[tuple[Any, Any, dict[str, str]]]:
    """The app over an embedded facade with two tenants' stories, its schema, and a tenant key."""
    from memworks.api import create_app
    from memworks.client import Memworks
    from memworks.config import Settings
    from memworks.store.keys import create_key
    from memworks.store.sql.db import session_scope

    with Memworks(Settings(database_url=fuzz_db, broker_url="stub://", max_retries=0)) as mw:
        mw.enqueue_episodes(story("ta") + story("tb", lines=STORY_B))
        mw.drain()
        with session_scope(mw.runtime.engine) as s:
            _, secret = create_key(s, tenant_id="ta", now=datetime.now(UTC))
        app = create_app(mw)
        yield mw, schemathesis.openapi.from_asgi("/openapi.json", app), bearer(secret)


def _plausible(body: Any) -> None:
    """Nudge generated episodes and outcomes past the two rules a schema cannot state (a tenant
    key must name the user; times between 1900 and 2200), so positive cases reach the write path."""
    for item in body if isinstance(body, list) else [body]:
        if not isinstance(item, dict):
            continue
        if item.get("user_id") is None and "episode_id" in item:
            item["user_id"] = "u1"
        when = item.get("occurred_at")
        if isinstance(when, str) and not ("1900" <= when[:4] <= "2199"):
            item["occurred_at"] = "2025-01-06T09:00:00+00:00"


@pytest.mark.parametrize("label", _operations())
def test_fuzzed_requests_never_fail_the_server_and_rejections_write_nothing(
    label: str, fuzzed: tuple[Any, Any, dict[str, str]]
) -> None:
    mw, schema, auth = fuzzed
    method, path = label.split(" ", 1)
    operation = schema[path][method]
    seen: dict[str, set[int]] = {}

    def probe_with(mode: GenerationMode) -> None:
        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def probe(case: Any) -> None:
            if mode is GenerationMode.POSITIVE and path in ("/v1/episodes", "/v1/outcomes"):
                _plausible(case.body)
            before = table_counts(mw)
            response = case.call(headers={**(case.headers or {}), **auth})
            status = response.status_code
            seen.setdefault(mode.value, set()).add(status)
            assert status < 500, (label, mode.value, case.body, case.query, case.path_parameters, response.text)
            if 400 <= status < 500:
                assert table_counts(mw) == before, (label, status, case.body, response.text)
                assert response.json()["error"]["message"]

        try:
            probe()
        except Unsatisfiable:
            assert mode is GenerationMode.NEGATIVE, label  # nothing to get wrong: no parameters, no body

    probe_with(GenerationMode.POSITIVE)
    probe_with(GenerationMode.NEGATIVE)
    assert seen.get("positive"), label


#: Times at and past the ends of the calendar (an offset carries two of them past it), and just
#: outside the supported years: every time field must refuse them naming itself, never a 5xx.
_OUT_OF_RANGE_TIMES = [
    "0001-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00",
    "0001-01-01T00:00:00+00:00",
    "9999-12-31T23:59:59+00:00",
    "1899-12-31T23:59:59+00:00",
    "2201-01-01T00:00:00+00:00",
]


def test_out_of_range_times_and_deep_cursors_are_422_naming_the_field(fuzzed: tuple[Any, Any, dict[str, str]]) -> None:
    import base64

    from fastapi.testclient import TestClient

    from memworks.api import create_app

    mw, _, auth = fuzzed
    episode = {
        "episode_id": "range-1",
        "user_id": "u1",
        "session_id": "s1",
        "turn": 1,
        "role": "user",
        "source": "user",
        "content": "I live in Lisbon.",
    }
    outcome = {
        "outcome_id": "range-1",
        "task_type": "triage",
        "features": ["login"],
        "action_taken": "a",
        "success": True,
    }
    cursors = [b"[" * 1400, b'{"id":"x","after":' + b"[" * 1400, b"{" * 1400]
    with TestClient(create_app(mw)) as client:
        before = table_counts(mw)
        for when in _OUT_OF_RANGE_TIMES:
            for field in ("as_of", "known_at"):
                r = client.post("/v1/retrieve", json={"user_id": "u1", "query": "where?", field: when}, headers=auth)
                assert r.status_code == 422 and r.json()["error"]["field"] == field, (field, when, r.text)
            for route, body in (("/v1/episodes", episode), ("/v1/outcomes", outcome)):
                r = client.post(route, json={**body, "occurred_at": when}, headers=auth)
                assert r.status_code == 422 and r.json()["error"]["field"] == "occurred_at", (route, when, r.text)
        for raw in cursors:
            cursor = base64.urlsafe_b64encode(raw).decode().rstrip("=")[:2000]
            r = client.get("/v1/memories", params={"user_id": "u1", "cursor": cursor}, headers=auth)
            assert r.status_code == 422 and r.json()["error"]["field"] == "cursor", r.text
        assert table_counts(mw) == before


#: Text crafted to make a backtracking pattern run for minutes (the gate's old small-talk and
#: outward-preference patterns, the extractor's clause and tail patterns), up to the 100 KB an
#: episode may hold.
CRAFTED = [
    "hi" + " " * 26 + "xyz",
    "send every " * 200,
    "hi " * 33_000,
    "i prefer a" + " a over" * 14_000,
    "from now on " * 8_000 + "!",
    "a" + " " * 99_000 + "xyz",
]
#: Seconds another tenant's read may take while the crafted episodes are processed.
READ_BUDGET_S = 5.0


def test_crafted_text_does_not_stall_another_tenants_read(server: str, make_key: Any) -> None:
    """An end user's crafted episodes are processed in linear time, so a read by another
    tenant, sent while they are being processed, answers within a fixed budget."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    victim, attacker = bearer(make_key("tb")), bearer(make_key("ta", "mallory"))
    told = httpx.post(f"{server}/v1/episodes", json=story("tb", with_tenant=False), headers=victim, timeout=60)
    assert told.status_code == 202, told.text
    crafted = [
        {
            "episode_id": f"crafted-{i}",
            "session_id": "s1",
            "turn": i,
            "role": "user",
            "source": "user",
            "content": text,
            "occurred_at": "2025-01-06T09:00:00+00:00",
        }
        for i, text in enumerate(CRAFTED)
    ]

    def post_crafted() -> tuple[Any, float]:
        answer = httpx.post(f"{server}/v1/episodes", json=crafted, headers=attacker, timeout=120)
        return answer, time.monotonic()

    with ThreadPoolExecutor(1) as pool:
        # Given the crafted episodes posted with an end-user key of tenant "ta" (the answer comes
        # once they are processed)
        posted = pool.submit(post_crafted)
        time.sleep(0.3)
        # When tenant "tb" reads meanwhile
        started = time.monotonic()
        read = httpx.post(
            f"{server}/v1/retrieve",
            json={"user_id": "u1", "query": "Where do I live?"},
            headers=victim,
            timeout=READ_BUDGET_S * 4,
        )
        waited = time.monotonic() - started
        answer, processed_at = posted.result()
    # Then the read answers, within the budget, with tb's own memory
    assert started < processed_at, "the crafted episodes were processed before the read: the test proves nothing"
    assert read.status_code == 200, read.text
    assert "Berlin" in [h["value"] for h in read.json()["hits"]]
    assert waited < READ_BUDGET_S, f"another tenant's read waited {waited:.1f} s"
    assert answer.status_code == 202, answer.text
