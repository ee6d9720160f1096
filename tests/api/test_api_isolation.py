"""1,000 probes at tenant B with tenant A's keys: ids, queries, cursors, cache-colliding reads.

Both tenants have a user ``u1`` and are asked the very same questions (so a read cache keyed
carelessly would collide); B's facts differ from A's, so any leak shows up as B's text or ids.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest

from memworks.models.schemas import Scope
from tests.api.api_helpers import QUESTIONS, STORY_A, STORY_B, bearer, story

PROBES = 1000
B_VALUES = ["Oslo", "Rex", "Bergen", "Initech", "welder", "chief@example.org", "tb-u1-"]


@pytest.fixture
def mw(sqlite_url: str, make_memworks: Any) -> Any:
    """The API's facade without deletion and read budgets: the probes send about 170 deletion
    requests and a thousand reads per key in seconds, which it would refuse with 429
    (tests/api/test_rate_limits.py)."""
    limits_off = (
        "rate_deletions_per_min",
        "rate_tenant_deletions_per_min",
        "rate_reads_per_min",
        "rate_tenant_reads_per_min",
    )
    return make_memworks(sqlite_url, **dict.fromkeys(limits_off, 0))


def test_a_thousand_cross_tenant_probes_see_nothing_of_b(
    client: Any, mw: Any, make_key: Callable[..., str], row_counts: Callable[[], dict[str, int]]
) -> None:
    # Given tenants A and B with the same user id and similar stories
    mw.enqueue_episodes(story("ta", lines=STORY_A) + story("tb", lines=STORY_B))
    mw.drain()
    b_key = bearer(make_key("tb"))
    a_keys = [bearer(make_key("ta")), bearer(make_key("ta", "u1"))]
    b_scope = Scope(tenant_id="tb", user_id="u1")
    b_ids = [m.memory_id for m in mw.memories(b_scope, include_history=True)]
    b_rid = mw.submit_deletion({"tenant_id": "tb", "user_id": "u1", "keys": ["user.job_title"]})
    mw.drain()
    b_ids += [m.memory_id for m in mw.memories(b_scope, include_history=True) if m.memory_id not in b_ids]
    # ... and B has asked every question first (warming the read cache) and paged its listing
    reads = [
        {"user_id": "u1", "query": q, **extra}
        for q in QUESTIONS
        for extra in ({}, {"k": 1}, {"as_of": "2025-02-01T00:00:00+00:00"}, {"known_at": "2030-01-01T00:00:00+00:00"})
    ]
    for body in reads:
        assert client.post("/v1/retrieve", json=body, headers=b_key).status_code == 200
    b_cursors = []
    for limit in (1, 2, 3, 5):
        page = client.get(
            "/v1/memories", params={"limit": limit, "user_id": "u1", "include_history": "true"}, headers=b_key
        )
        b_cursors.append(page.headers["x-next-cursor"])
    mw.drain()  # B's own reads' attention is recorded now, not during A's probes (it is batched by age)
    b_snapshot = mw.memories(b_scope, include_history=True)
    counts = row_counts()
    secrets = set(b_ids) | {b_rid} | set(B_VALUES)

    probes: list[tuple[str, str, Any, Any, set[int]]] = []
    for mid in b_ids:
        probes += [
            ("GET", f"/v1/memories/{mid}", None, None, {404}),
            ("PATCH", f"/v1/memories/{mid}", None, {"value": "Lisbon"}, {404}),
            ("POST", f"/v1/memories/{mid}/confirm", None, None, {404}),
            ("DELETE", f"/v1/memories/{mid}", None, None, {404}),
            ("POST", "/v1/deletions", None, {"user_id": "u1", "memory_ids": [mid]}, {404}),
            ("GET", f"/v1/memories/{mid}", {"user_id": "u1", "tenant_id": "ta"}, None, {404}),
        ]
    probes += [("GET", f"/v1/deletions/{b_rid}", None, None, {404})]
    probes += [("POST", "/v1/retrieve", None, body, {200}) for body in reads]
    probes += [
        ("GET", "/v1/memories", {"user_id": "u1", "cursor": c, "limit": n, "include_history": h}, None, {200})
        for c in b_cursors
        for n in (1, 3, 500)
        for h in ("true", "false")
    ]
    probes += [
        ("GET", "/v1/memories", {"tenant_id": "tb", "user_id": "u1"}, None, {403}),
        ("POST", "/v1/retrieve", None, {**reads[0], "tenant_id": "tb"}, {403}),
        ("GET", "/v1/profile", {"user_id": "u1"}, None, {200}),
        ("GET", "/v1/lessons", None, None, {200}),
        ("POST", "/v1/recommend", None, {"task_type": "triage", "features": ["Oslo"]}, {200}),
    ]

    # When A's keys send 1,000 of them
    seen: dict[int, int] = {}
    for n, ((method, path, params, body, expected), key) in enumerate(
        zip(itertools.cycle(probes), itertools.cycle(a_keys))
    ):
        if n == PROBES:
            break
        r = client.request(method, path, params=params, json=body, headers=key)
        # Then every answer is a refusal or A's own data, with nothing of B in it
        assert r.status_code in expected, (method, path, params, body, r.status_code, r.text)
        asked = f"{path} {params} {json.dumps(body)}"  # a 404 may echo the id it was asked for
        leaked = [s for s in secrets if s in r.text and s not in asked]
        assert not leaked, (method, path, params, body, leaked)
        seen[r.status_code] = seen.get(r.status_code, 0) + 1
    assert sum(seen.values()) == PROBES and set(seen) == {200, 403, 404}
    # ... and B's records were neither changed nor touched (not even their retrieval clocks)
    assert mw.memories(b_scope, include_history=True) == b_snapshot
    # A's own reads may record their attention, and its job its run (batched by age: whether a batch
    # closes during the probes depends on the machine's speed); nothing else may be written.
    attention = {"attention_batch", "job_run"}
    assert {t: n for t, n in row_counts().items() if t not in attention} == {
        t: n for t, n in counts.items() if t not in attention
    }
