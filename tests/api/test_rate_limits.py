"""Rate limits of the HTTP API: per key and per tenant, for the bytes of write bodies (refused
before the body is read), writes (counted by episode), deletions and reads; 429 with Retry-After
and the usual error body; a per-tenant cap on requests in progress; budgets shared through Redis,
and kept in-process when Redis is down."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.api.api_helpers import bearer, story

#: Every budget off; a test turns on the ones it checks.
OFF = {
    "rate_writes_per_min": 0,
    "rate_deletions_per_min": 0,
    "rate_reads_per_min": 0,
    "rate_tenant_writes_per_min": 0,
    "rate_tenant_deletions_per_min": 0,
    "rate_tenant_reads_per_min": 0,
    "rate_write_bytes_per_min": 0,
    "rate_tenant_write_bytes_per_min": 0,
    "rate_tenant_concurrency": 0,
    "rate_tenant_queue": 0,
    "rate_burst_s": 60.0,  # a minute's worth: the figures below count on it
    "rate_refusal_delay_s": 0.0,
}


@pytest.fixture
def mw(request: pytest.FixtureRequest, sqlite_url: str, make_memworks: Any) -> Any:
    """The API fixtures' facade, with the limits a test names (``indirect`` parameter) and the rest off."""
    return make_memworks(sqlite_url, **{**OFF, **getattr(request, "param", {})})


def limits(**settings: int) -> pytest.MarkDecorator:
    """Run the test with these limits (every other one off)."""
    return pytest.mark.parametrize("mw", [settings], indirect=True, ids=[",".join(settings)])


def new_key(mw: Any, tenant: str, user: str | None = None) -> dict[str, str]:
    from memworks.store.keys import create_key
    from memworks.store.sql.db import session_scope

    with session_scope(mw.runtime.engine) as s:
        return bearer(create_key(s, tenant_id=tenant, user_id=user, label="test", now=datetime.now(UTC))[1])


def assert_limited(r: Any, unit: str = "") -> int:
    """A 429 in the API's error shape with a whole, positive Retry-After; returns it."""
    assert r.status_code == 429, r.text
    assert r.json() == {"error": {"code": "rate_limited", "message": r.json()["error"]["message"], "field": None}}
    assert "a minute" in r.json()["error"]["message"] and unit in r.json()["error"]["message"]
    retry = r.headers["retry-after"]
    assert retry.isdigit() and int(retry) >= 1, retry
    return int(retry)


@limits(rate_reads_per_min=3)
def test_reads_over_a_keys_budget_are_429_and_other_keys_and_tenants_are_unaffected(client: Any, mw: Any) -> None:
    alice, bob, other = new_key(mw, "ta", "alice"), new_key(mw, "ta", "bob"), new_key(mw, "tb", "alice")
    # Given a key that spent its 3 reads (retrieve, memories, profile all count)
    assert client.post("/v1/retrieve", json={"query": "Where do I live?"}, headers=alice).status_code == 200
    assert client.get("/v1/memories", headers=alice).status_code == 200
    assert client.get("/v1/profile", headers=alice).status_code == 200
    # When it reads once more, Then 429, Retry-After within the time one read takes to refill
    assert assert_limited(client.get("/v1/profile", headers=alice)) <= 20
    assert_limited(client.post("/v1/retrieve", json={"query": "Where do I live?"}, headers=alice))
    # And another key of the tenant, and a key of another tenant, still read
    assert client.get("/v1/profile", headers=bob).status_code == 200
    assert client.get("/v1/profile", headers=other).status_code == 200
    # And pages that need no key are not limited
    assert client.get("/healthz").status_code == 200


@limits(rate_tenant_reads_per_min=4)
def test_the_keys_of_a_tenant_share_its_budget(client: Any, mw: Any) -> None:
    a, b, other = new_key(mw, "ta"), new_key(mw, "ta", "u1"), new_key(mw, "tb")
    for key in (a, a, b, b):
        assert client.get("/v1/lessons", headers=key).status_code == 200
    assert_limited(client.get("/v1/lessons", headers=a))
    assert_limited(client.get("/v1/lessons", headers=b))
    assert client.get("/v1/lessons", headers=other).status_code == 200


@limits(rate_writes_per_min=5)
def test_writes_spend_one_per_episode_or_outcome_and_a_refused_batch_writes_nothing(
    client: Any, mw: Any, row_counts: Callable[[], dict[str, int]]
) -> None:
    key, fresh = new_key(mw, "ta", "u1"), new_key(mw, "ta", "u2")
    # Given a batch of 5 episodes: one request, five writes
    assert client.post("/v1/episodes", json=story("ta", with_tenant=False), headers=key).status_code == 202
    before = row_counts()
    # When one more episode, or one outcome, is sent with that key
    one = {**story("ta", with_tenant=False)[0], "episode_id": "one-more"}
    outcome = {"outcome_id": "o1", "task_type": "triage", "features": ["x"], "action_taken": "a", "success": True}
    # Then both are refused, and nothing was written
    assert_limited(client.post("/v1/episodes", json=one, headers=key))
    assert_limited(client.post("/v1/outcomes", json=outcome, headers=key))
    assert row_counts() == before
    # And a batch larger than the whole budget is taken from a full one, leaving a debt to refill
    seven = [{**e, "episode_id": f"big-{i}"} for i, e in enumerate(story("ta", "u2", with_tenant=False) * 2)][:7]
    sent_at = time.monotonic()
    assert client.post("/v1/episodes", json=seven, headers=fresh).status_code == 202
    retry = assert_limited(client.post("/v1/episodes", json={**one, "user_id": "u2"}, headers=fresh))
    # 2 tokens of debt and 1 to spend at 5 a minute: 36 s, less what refilled meanwhile (no debt: 12 s)
    assert retry >= 36 - (time.monotonic() - sent_at) - 1


@limits(rate_write_bytes_per_min=3000, rate_tenant_write_bytes_per_min=5000)
def test_write_bodies_spend_their_bytes_per_key_and_per_tenant(
    client: Any, mw: Any, row_counts: Callable[[], dict[str, int]]
) -> None:
    key, same_tenant, other = new_key(mw, "ta", "u1"), new_key(mw, "ta", "u2"), new_key(mw, "tb", "u1")
    # Given a key that sent 2,000 bytes of episodes (one episode: well within every count budget)
    pad = "I like tea. " * 150
    one = {**story("ta", with_tenant=False)[0], "content": pad}
    assert client.post("/v1/episodes", json=one, headers=key).status_code == 202
    before = row_counts()
    # When it sends another such body, over its 3,000 bytes a minute, Then 429 naming bytes; nothing written
    again = {**one, "episode_id": "again"}
    retry = assert_limited(client.post("/v1/episodes", json=again, headers=key), "bytes")
    assert 10 <= retry <= 40  # ~1,000 bytes short at 50 bytes a second
    assert row_counts() == before
    # And a body-less write of the same key (a consolidation) still passes: it costs no bytes
    assert client.post("/v1/consolidations", json={}, headers=key).status_code != 429
    # And another key of the tenant spends from the tenant's 5,000: one body passes, the next not
    mine = {**one, "user_id": "u2", "episode_id": "u2-1"}
    assert client.post("/v1/episodes", json=mine, headers=same_tenant).status_code == 202
    assert_limited(client.post("/v1/episodes", json={**mine, "episode_id": "u2-2"}, headers=same_tenant), "bytes")
    # And another tenant is unaffected
    theirs = {**one, "episode_id": "tb-1"}
    assert client.post("/v1/episodes", json=theirs, headers=other).status_code == 202


@limits(rate_write_bytes_per_min=1000)
def test_a_chunked_body_is_charged_by_its_length(client: Any, mw: Any) -> None:
    import json

    key = new_key(mw, "ta", "u1")
    body = json.dumps({**story("ta", with_tenant=False)[0], "content": "I like tea. " * 100}).encode()

    def chunked(raw: bytes) -> Iterator[bytes]:  # no Content-Length: sent in chunks
        yield from (raw[i : i + 500] for i in range(0, len(raw), 500))

    headers = {**key, "Content-Type": "application/json"}
    # Given a chunked body larger than the whole budget: admitted from a full bucket, leaving debt
    assert client.post("/v1/episodes", content=chunked(body), headers=headers).status_code == 202
    # Then the next write waits for that debt, however small it is
    small = {**story("ta", with_tenant=False)[1]}
    assert assert_limited(client.post("/v1/episodes", json=small, headers=key), "bytes") >= 10


@limits(rate_write_bytes_per_min=1000, rate_writes_per_min=10)
def test_an_over_budget_write_is_refused_before_its_body_is_read(mw: Any) -> None:
    import anyio

    from memworks.api.ratelimit import RateLimit

    key = new_key(mw, "ta", "u1")
    reached, read = [], []

    async def route(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])

    async def receive() -> dict[str, Any]:
        read.append(True)
        return {"type": "http.request", "body": b"[]", "more_body": False}

    async def request(length: int) -> list[MutableMapping[str, Any]]:
        sent: list[MutableMapping[str, Any]] = []

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)

        headers = [(b"authorization", key["Authorization"].encode()), (b"content-length", str(length).encode())]
        scope = {"type": "http", "method": "POST", "path": "/v1/episodes", "headers": headers}
        await limiter(scope, receive, send)
        return sent

    limiter = RateLimit(route, get_mw=lambda: mw)
    # Given a key that declared (and so spent) its 1,000 bytes
    anyio.run(request, 1000)
    assert reached == ["/v1/episodes"] and len(read) == 1  # admitted: the batch was read to count it
    # When it declares a body of 600 bytes more, Then 429 and the body is never read
    refused = anyio.run(request, 600)
    assert refused[0]["status"] == 429
    assert 30 <= int(dict(refused[0]["headers"])[b"retry-after"]) <= 36  # 600 bytes at 1,000 a minute
    assert reached == ["/v1/episodes"] and len(read) == 1


@limits(rate_deletions_per_min=2)
def test_deletion_requests_have_a_budget_of_their_own(client: Any, mw: Any) -> None:
    key = new_key(mw, "ta", "u1")
    # Given two deletion requests (refused or not, each is spent)
    assert client.delete("/v1/memories/nope", headers=key).status_code == 404
    assert client.post("/v1/deletions", json={"keys": ["user.home_city"]}, headers=key).status_code == 202
    # When a third comes, of either kind, Then it is refused
    assert_limited(client.delete("/v1/memories/nope", headers=key))
    assert_limited(client.post("/v1/deletions", json={}, headers=key))
    # And reads and writes are not charged to it
    assert client.get("/v1/memories", headers=key).status_code == 200
    assert client.post("/v1/episodes", json=story("ta", with_tenant=False)[:1], headers=key).status_code == 202


@limits(rate_reads_per_min=120)
def test_a_spent_budget_refills(client: Any, mw: Any) -> None:
    key = new_key(mw, "ta", "u1")
    # Given a key that read until it was refused (120 a minute: one more every half second)
    for _ in range(1000):
        refused = client.get("/v1/lessons", headers=key)
        if refused.status_code != 200:
            break
    retry = assert_limited(refused)
    assert retry == 1
    # When it waits the time Retry-After names, Then it reads again
    time.sleep(retry)
    assert client.get("/v1/lessons", headers=key).status_code == 200


@limits(rate_deletions_per_min=1, rate_reads_per_min=3)
def test_the_mcp_endpoint_spends_from_the_same_budgets(client: Any, mw: Any) -> None:
    key = new_key(mw, "ta", "u1")
    forget = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_forget", "arguments": {}}}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    headers = {**key, "Accept": "application/json, text/event-stream"}
    # Given the key's one deletion spent over REST
    assert client.delete("/v1/memories/nope", headers=key).status_code == 404
    # When MCP asks to forget, Then it is refused like a deletion
    assert_limited(client.post("/mcp", json=forget, headers=headers))
    # And MCP's other calls are reads: three pass, the fourth is refused
    for _ in range(3):
        assert client.post("/mcp", json=listing, headers=headers).status_code != 429
    assert_limited(client.post("/mcp", json=listing, headers=headers))


class HeldReads:
    """Tenant "heavy"'s retrieves held in progress until released (other tenants' pass straight through)."""

    def __init__(self, mw: Any, server: str) -> None:
        self.release, self.entered, self.server = threading.Event(), threading.Semaphore(0), server
        real = mw.retrieve

        def held(scope: Any, *args: Any, **kw: Any) -> Any:
            if scope.tenant_id == "heavy":
                self.entered.release()
                self.release.wait(30)
            return real(scope, *args, **kw)

        mw.retrieve = held

    def ask(self, key: dict[str, str]) -> Any:
        import httpx

        return httpx.post(f"{self.server}/v1/retrieve", json={"query": "Where do I live?"}, headers=key, timeout=60)

    def waiting(self) -> float:
        import httpx

        lines = httpx.get(f"{self.server}/metrics").text.splitlines()
        return float(next(ln.split()[-1] for ln in lines if ln.startswith("memworks_http_requests_waiting ")))


@limits(rate_tenant_concurrency=2)
def test_a_tenant_may_have_only_so_many_requests_in_progress(server: str, mw: Any) -> None:
    heavy, heavy_too, light = new_key(mw, "heavy", "u1"), new_key(mw, "heavy", "u2"), new_key(mw, "light", "u1")
    held = HeldReads(mw, server)
    with ThreadPoolExecutor(2) as pool:
        try:
            # Given two of tenant "heavy"'s reads in progress
            running = [pool.submit(held.ask, heavy), pool.submit(held.ask, heavy_too)]
            assert held.entered.acquire(timeout=30) and held.entered.acquire(timeout=30)
            # When a third comes (from either of its keys), with no queue, Then it is refused, retry in a second
            refused = held.ask(heavy)
            assert refused.status_code == 429 and refused.headers["retry-after"] == "1", refused.text
            assert refused.json()["error"]["code"] == "rate_limited"
            # And another tenant's read is served meanwhile
            assert held.ask(light).status_code == 200
        finally:
            held.release.set()
        assert [r.result().status_code for r in running] == [200, 200]
    # Then, once they are done, the tenant is served again
    assert held.ask(heavy).status_code == 200


@limits(rate_tenant_concurrency=2, rate_tenant_queue=1)
def test_a_request_over_the_places_waits_for_one_behind_a_bounded_queue(server: str, mw: Any) -> None:
    heavy, light = new_key(mw, "heavy", "u1"), new_key(mw, "light", "u1")
    held = HeldReads(mw, server)
    with ThreadPoolExecutor(3) as pool:
        try:
            # Given two of tenant "heavy"'s reads in progress, and a third waiting for a place
            running = [pool.submit(held.ask, heavy) for _ in range(2)]
            assert held.entered.acquire(timeout=30) and held.entered.acquire(timeout=30)
            queued = pool.submit(held.ask, heavy)
            deadline = time.monotonic() + 30
            while held.waiting() < 1 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert held.waiting() == 1
            # When a fourth comes, Then the queue is full: it is refused at once
            fourth = held.ask(heavy)
            assert fourth.status_code == 429, fourth.text
            # And another tenant is served meanwhile
            assert held.ask(light).status_code == 200
        finally:
            held.release.set()
        # Then the waiting read runs once a place is free, and all three are answered
        assert [r.result().status_code for r in [*running, queued]] == [200, 200, 200]
    assert held.waiting() == 0


@pytest.fixture
def two_processes(sqlite_url: str, make_memworks: Any, redis_url: str) -> Iterator[tuple[Any, Any, Any]]:
    """Two API apps (as two processes behind a load balancer) over one store and one Redis."""
    from fastapi.testclient import TestClient

    from memworks.api import create_app

    settings = {**OFF, "rate_reads_per_min": 3, "cache_url": redis_url}
    one, two = make_memworks(sqlite_url, **settings), make_memworks(sqlite_url, **settings)
    with TestClient(create_app(one)) as c1, TestClient(create_app(two)) as c2:
        yield one, c1, c2


def test_api_processes_share_their_budgets_through_redis(two_processes: tuple[Any, Any, Any], redis_url: str) -> None:
    import redis

    mw, first, second = two_processes
    key = new_key(mw, "ta", "u1")
    assert first.get("/v1/lessons", headers=key).status_code == 200
    assert second.get("/v1/lessons", headers=key).status_code == 200
    assert first.get("/v1/lessons", headers=key).status_code == 200
    assert_limited(second.get("/v1/lessons", headers=key))
    assert_limited(first.get("/v1/lessons", headers=key))
    assert redis.Redis.from_url(redis_url).keys("memworks:rate:*")


def test_when_redis_is_down_the_limits_hold_in_process(sqlite_url: str, make_memworks: Any) -> None:
    from fastapi.testclient import TestClient
    from structlog.testing import capture_logs

    from memworks.api import create_app

    # Given an API whose Redis does not answer (nothing listens on port 1)
    mw = make_memworks(sqlite_url, **{**OFF, "rate_reads_per_min": 2, "cache_url": "redis://127.0.0.1:1/0"})
    key = new_key(mw, "ta", "u1")
    with TestClient(create_app(mw)) as client, capture_logs() as logs:
        # Then requests are served, and limited, from this process's buckets
        assert [client.get("/v1/lessons", headers=key).status_code for _ in range(2)] == [200, 200]
        assert_limited(client.get("/v1/lessons", headers=key))
    assert any(e["event"] == "ratelimit.redis_unavailable" for e in logs)


def test_the_default_limits_are_finite_and_generous() -> None:
    from memworks.config import Settings

    s = Settings()
    per_key = (s.rate_writes_per_min, s.rate_deletions_per_min, s.rate_reads_per_min)
    per_tenant = (s.rate_tenant_writes_per_min, s.rate_tenant_deletions_per_min, s.rate_tenant_reads_per_min)
    assert per_key == (600, 60, 1200)
    assert per_tenant == tuple(10 * n for n in per_key)
    # A few MB of write bodies a minute per tenant, a quarter of it per key; one largest body fits a key's
    assert 0 < s.rate_write_bytes_per_min <= s.rate_tenant_write_bytes_per_min <= 10_000_000
    from memworks.api.middleware import MAX_BODY_BYTES

    assert s.rate_write_bytes_per_min >= MAX_BODY_BYTES
    assert 0 < s.rate_tenant_concurrency <= 16 and 0 < s.rate_tenant_queue <= 64


@limits(rate_reads_per_min=14)
def test_a_long_query_spends_from_the_read_budget_by_its_length(client: Any, mw: Any) -> None:
    """What a read costs grows with its query: a 1,000-character question spends seven units."""
    from memworks.api.budgets import READ_UNIT_BYTES, read_units

    long_key, short_key = new_key(mw, "ta", "u1"), new_key(mw, "ta", "u2")
    long_query = {"query": ("which tea do I like best " * 40)[:1000]}
    # Given a budget of 14 units a minute: two long questions spend it
    assert read_units(len('{"query": ""}') + 1000) == 7
    assert [client.post("/v1/retrieve", json=long_query, headers=long_key).status_code for _ in range(2)] == [200, 200]
    assert_limited(client.post("/v1/retrieve", json=long_query, headers=long_key), unit=str(READ_UNIT_BYTES))
    # While short questions spend one unit each: fourteen pass
    short = {"query": "Where do I live?"}
    assert [client.post("/v1/retrieve", json=short, headers=short_key).status_code for _ in range(14)] == [200] * 14
    assert_limited(client.post("/v1/retrieve", json=short, headers=short_key))
    # And a question in the query string is charged the same way
    assert read_units(0) == 1 and read_units(READ_UNIT_BYTES) == 1 and read_units(READ_UNIT_BYTES + 1) == 2


@limits(rate_reads_per_min=1, rate_refusal_delay_s=0.4)
def test_a_refusal_is_sent_after_the_refusal_delay_and_holds_no_thread(client: Any, mw: Any) -> None:
    """A client that asks again at once after a 429 waits ``rate_refusal_delay_s`` for the next
    one; meanwhile another tenant's request is answered at once (the wait is the event loop's)."""
    key, other = new_key(mw, "ta", "u1"), new_key(mw, "tb", "u1")
    assert client.get("/v1/lessons", headers=key).status_code == 200
    with ThreadPoolExecutor(max_workers=2) as pool:
        t0 = time.monotonic()
        refused = pool.submit(client.get, "/v1/lessons", headers=key)
        time.sleep(0.05)
        served = client.get("/v1/lessons", headers=other)
        served_after = time.monotonic() - t0
        assert_limited(refused.result(timeout=30))
        refused_after = time.monotonic() - t0
    assert served.status_code == 200
    assert refused_after >= 0.4
    assert served_after < refused_after
