"""The pieces behind the API's rate limits, without the API: token buckets in this process and in
Redis (burst, debt, all-or-nothing, the bound a Redis answer gives), what each route and body
spends, and the per-tenant places with their queue."""

from __future__ import annotations

from typing import Any

import pytest


def test_buckets_refill_admit_a_large_batch_from_full_and_pay_all_or_nothing() -> None:
    from memworks.api.buckets import Draw, MemoryBuckets

    now = [0.0]
    b = MemoryBuckets(clock=lambda: now[0])
    key, tenant = Draw("k", 1, 60), Draw("t", 1, 120)
    assert [b.take([key, tenant]) for _ in range(60)] == [0.0] * 60
    assert b.take([key, tenant]) == pytest.approx(1.0)  # 1 a second
    assert b.take([tenant]) == 0.0  # the refused request spent nothing of the tenant's bucket
    now[0] = 2.0
    assert b.take([key]) == 0.0 and b.take([key]) == 0.0 and b.take([key]) > 0
    assert b.take([Draw("big", 100, 60)]) == 0.0  # larger than the bucket: admitted from full
    assert b.take([Draw("big", 1, 60)]) == pytest.approx(41.0)  # 40 of debt, then 1 to spend


@pytest.mark.parametrize("where", ["memory", "redis"])
def test_spending_pays_into_debt_and_the_next_take_waits_for_it(where: str, request: pytest.FixtureRequest) -> None:
    from memworks.api.buckets import Draw, MemoryBuckets, RedisBuckets

    if where == "redis":
        b: Any = RedisBuckets(request.getfixturevalue("redis_url"), namespace="t", fallback=MemoryBuckets())
    else:
        b = MemoryBuckets()
    # Given a bucket of 60 a minute, 1 taken, then 89 more spent although it held only 59
    assert b.take([Draw("w", 1, 60)]) == 0.0
    assert b.spend([Draw("w", 89, 60)]) is None
    # Then the next take waits for the 30 of debt and 1 to spend: about 31 s
    assert b.take([Draw("w", 1, 60)]) == pytest.approx(31.0, abs=0.5)


@pytest.mark.parametrize(
    ("method", "path", "budget"),
    [
        ("POST", "/v1/episodes", "writes"),
        ("POST", "/v1/outcomes", "writes"),
        ("PATCH", "/v1/memories/m1", "writes"),
        ("POST", "/v1/memories/m1/confirm", "writes"),
        ("POST", "/v1/consolidations", "writes"),
        ("POST", "/v1/deletions", "deletions"),
        ("DELETE", "/v1/memories/m1", "deletions"),
        ("GET", "/v1/deletions/r1", "reads"),
        ("POST", "/v1/retrieve", "reads"),
        ("GET", "/v1/memories", "reads"),
        ("GET", "/v1/profile", "reads"),
        ("POST", "/mcp", "mcp"),
        ("GET", "/healthz", None),
        ("GET", "/metrics", None),
        ("GET", "/ui", None),
    ],
)
def test_each_route_spends_from_one_budget(method: str, path: str, budget: str | None) -> None:
    from memworks.api.budgets import route_budget

    assert route_budget(method, path) == budget


def test_a_bodys_cost_counts_its_items() -> None:
    import json

    from memworks.api.budgets import item_count, mcp_charges

    assert item_count(json.dumps([{}] * 256).encode()) == 256
    assert item_count(b"{}") == 1 and item_count(b"not json") == 1 and item_count(b"[]") == 1

    def call(tool: str) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": tool}}

    assert mcp_charges(json.dumps(call("memory_add")).encode()) == {"writes": 1}
    assert mcp_charges(json.dumps(call("memory_forget")).encode()) == {"deletions": 1}
    assert mcp_charges(json.dumps(call("memory_search")).encode()) == {"reads": 1}
    assert mcp_charges(json.dumps([call("outcome_report"), call("memory_list")]).encode()) == {"writes": 1, "reads": 1}
    assert mcp_charges(b"[1, null]") == {"reads": 2} and mcp_charges(b"{") == {"reads": 1}


def test_tenant_places_are_handed_to_waiters_in_order_and_a_full_queue_or_a_long_wait_is_refused() -> None:
    import anyio

    from memworks.api.slots import TenantSlots

    async def scenario() -> None:
        slots, got = TenantSlots(wait_s=30), []

        async def wait_for_place(name: str) -> None:
            got.append((name, await slots.enter("t", 2, 2)))

        # Given a tenant's two places taken
        assert await slots.enter("t", 2, 2) and await slots.enter("t", 2, 2)
        assert await slots.enter("other", 2, 2)  # another tenant has places of its own
        async with anyio.create_task_group() as tg:
            # When two more come, Then they wait; a fifth finds the queue full
            tg.start_soon(wait_for_place, "third")
            tg.start_soon(wait_for_place, "fourth")
            await anyio.wait_all_tasks_blocked()
            assert slots.waiting("t") == 2 and slots.waiting() == 2
            assert not await slots.enter("t", 2, 2)
            # And each freed place goes to the first waiter
            slots.leave("t")
            await anyio.wait_all_tasks_blocked()
            assert got == [("third", True)]
            slots.leave("t")
        assert got == [("third", True), ("fourth", True)] and slots.running("t") == 2
        # And a wait that runs out is refused, leaving nothing behind
        slots.wait_s = 0.05
        assert not await slots.enter("t", 2, 2)
        assert slots.waiting() == 0 and slots.running("t") == 2
        # And a waiter cancelled (its client gone) leaves the queue
        with anyio.move_on_after(0.05):
            slots.wait_s = 30
            await slots.enter("t", 2, 2)
        assert slots.waiting() == 0
        # And 0 places means no limit
        assert all([await slots.enter("u", 0, 0) for _ in range(100)])

    anyio.run(scenario)


def test_a_bucket_known_empty_is_refused_without_asking_redis(redis_url: str) -> None:
    """A Redis bucket's last answer bounds it from above: a request that bound refuses is refused
    in this process, and one it may admit is asked of Redis."""
    import redis

    from memworks.api.buckets import Draw, RedisBuckets

    calls = []
    buckets = RedisBuckets(redis_url, namespace="t-known", fallback=None)  # type: ignore[arg-type]
    real = buckets._script

    def counted(**kw: Any) -> Any:
        calls.append(kw)
        return real(**kw)

    buckets._script = counted
    try:
        draw = [Draw("reads:key:k1", 1, 2)]
        # Given a bucket of 2 spent by two requests (both asked of Redis)
        assert buckets.known_wait(draw) == 0.0
        assert [buckets.take(draw), buckets.take(draw)] == [0.0, 0.0]
        assert len(calls) == 2
        # When a third comes, Then this process knows it must wait about 30 s (2 a minute)
        wait = buckets.known_wait(draw)
        assert 25 < wait <= 30
        # And a request on another bucket is not held by that knowledge
        assert buckets.known_wait([Draw("reads:key:k2", 1, 2)]) == 0.0
    finally:
        r = redis.Redis.from_url(redis_url)
        for k in r.keys("memworks:rate:t-known:*"):
            r.delete(k)
        buckets.close()


def test_a_bucket_holds_its_burst_and_refills_at_its_rate() -> None:
    """A bucket of 60 a minute holding 10 seconds of it: 10 at once, then one a second; a batch
    larger than the bucket is still admitted from a full one, and its debt is waited for."""
    from memworks.api.buckets import MemoryBuckets
    from memworks.api.budgets import Limits

    now = [0.0]
    b = MemoryBuckets(clock=lambda: now[0])
    limits = Limits({"reads": 60}, {"reads": 0}, concurrency=0, queue=0, burst_s=10.0)
    one = limits.draws({"reads": 1}, "k", "t")
    assert [b.take(one) for _ in range(10)] == [0.0] * 10
    assert b.take(one) == pytest.approx(1.0)
    now[0] = 3.0
    assert [b.take(one) for _ in range(3)] == [0.0] * 3 and b.take(one) > 0
    # A tiny budget still holds one request
    assert (
        Limits({"reads": 3}, {"reads": 0}, concurrency=0, queue=0, burst_s=10.0)
        .draws({"reads": 1}, "k", "t")[0]
        .capacity
        == 1.0
    )
    now[0] = 100.0
    assert b.take(limits.draws({"reads": 25}, "k", "t")) == 0.0  # larger than the bucket: from full
    assert b.take(one) == pytest.approx(16.0)  # 15 of debt, then 1
