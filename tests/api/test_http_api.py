"""The HTTP API route by route: happy paths, the JSON shapes of DESIGN §8, errors naming the field."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memworks.models.schemas import Scope
from tests.api.api_helpers import QUESTIONS, bearer, story

ISO_OFFSET = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$")
HIT_FIELDS = {
    "memory_id",
    "kind",
    "key",
    "value",
    "source",
    "status",
    "valid_from",
    "valid_to",
    "recorded_at",
    "evidence",
    "score",
}
MEMORY_FIELDS = {
    "memory_id",
    "kind",
    "key",
    "value",
    "status",
    "source",
    "trusted",
    "confidence",
    "valid_from",
    "valid_to",
    "recorded_at",
    "retracted_at",
    "expires_at",
    "superseded_by",
    "evidence",
}
T0 = datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture
def key(make_key: Callable[..., str]) -> dict[str, str]:
    return bearer(make_key("ta"))


@pytest.fixture
def told(client: Any, key: dict[str, str]) -> Any:
    """Tenant ``ta``'s user ``u1`` has told the story (through the API, tenant from the key)."""
    r = client.post("/v1/episodes", json=story("ta", with_tenant=False), headers=key)
    assert r.status_code == 202, r.text
    return client


def memories(client: Any, key: dict[str, str], **params: Any) -> list[dict[str, Any]]:
    r = client.get("/v1/memories", params={"user_id": "u1", **params}, headers=key)
    assert r.status_code == 200, r.text
    return list(r.json())


def by_key(client: Any, key: dict[str, str], name: str) -> dict[str, Any]:
    return next(m for m in memories(client, key) if m["key"] == name)


def assert_times_have_offsets(obj: Any, names: set[str]) -> None:
    for n in names:
        if obj.get(n) is not None:
            assert ISO_OFFSET.match(obj[n]), (n, obj[n])


# -- episodes, retrieval, listing -----------------------------------------------------------


def test_episodes_take_the_tenant_from_the_key_and_are_idempotent(client: Any, key: dict[str, str], mw: Any) -> None:
    # Given a tenant key; When the story is posted without tenant_id, then again with it
    first = client.post("/v1/episodes", json=story("ta", with_tenant=False), headers=key)
    again = client.post("/v1/episodes", json=story("ta"), headers=key)
    one = client.post("/v1/episodes", json=story("ta")[0], headers=key)
    # Then it is stored in the key's tenant once; repeats are reported as duplicates
    assert first.status_code == 202 and first.json() == {
        "accepted": [f"ta-u1-{n}" for n in range(1, 6)],
        "duplicates": [],
    }
    assert again.status_code == 202 and again.json()["accepted"] == [] and len(again.json()["duplicates"]) == 5
    assert one.json() == {"accepted": [], "duplicates": ["ta-u1-1"]}
    assert {m.value for m in mw.memories(Scope(tenant_id="ta", user_id="u1"))} >= {"Berlin", "Pixel"}


def test_retrieve_returns_the_design_shape_with_offsets(told: Any, key: dict[str, str]) -> None:
    r = told.post("/v1/retrieve", json={"user_id": "u1", "query": "Where do I live?"}, headers=key)
    assert r.status_code == 200
    body = r.json()
    assert set(body) >= {"abstained", "hits"} and body["abstained"] is False
    hit = body["hits"][0]
    assert set(hit) >= HIT_FIELDS and hit["value"] == "Berlin" and hit["evidence"] == ["ta-u1-3"]
    assert_times_have_offsets(hit, {"valid_from", "valid_to", "recorded_at"})
    before = told.post(
        "/v1/retrieve",
        json={"user_id": "u1", "query": "Where do I live?", "k": 1, "as_of": "2025-02-01T00:00:00+00:00"},
        headers=key,
    ).json()
    assert [h["value"] for h in before["hits"]] == ["Lisbon"]
    known = told.post(
        "/v1/retrieve",
        json={"user_id": "u1", "query": "Where do I live?", "known_at": (T0 - timedelta(days=1)).isoformat()},
        headers=key,
    ).json()
    assert known["abstained"] is True and known["hits"] == []


def test_memories_lists_every_clock_and_history_on_request(told: Any, key: dict[str, str]) -> None:
    rows = memories(told, key)
    assert rows and all(set(m) >= MEMORY_FIELDS for m in rows)
    for m in rows:
        assert_times_have_offsets(m, {"valid_from", "valid_to", "recorded_at", "retracted_at", "expires_at"})
    history = memories(told, key, include_history="true")
    lisbon = next(m for m in history if m["value"] == "Lisbon")
    assert lisbon["status"] == "superseded" and lisbon["superseded_by"] and lisbon not in rows


def test_memories_paginate_with_an_opaque_cursor(told: Any, key: dict[str, str]) -> None:
    everything = memories(told, key, include_history="true")
    pages, cursor = [], None
    while True:
        params = {"user_id": "u1", "include_history": "true", "limit": 2, **({"cursor": cursor} if cursor else {})}
        r = told.get("/v1/memories", params=params, headers=key)
        assert r.status_code == 200 and len(r.json()) <= 2
        pages.append(r.json())
        if not (cursor := r.headers.get("x-next-cursor")):
            break
    assert [m for p in pages for m in p] == everything and len(pages) == -(-len(everything) // 2)
    for params, field in (({"limit": 0}, "limit"), ({"limit": 501}, "limit"), ({"cursor": "not-a-cursor"}, "cursor")):
        bad = told.get("/v1/memories", params={"user_id": "u1", **params}, headers=key)
        assert bad.status_code == 422 and bad.json()["error"]["field"] == field


def test_a_page_resumes_after_its_record_when_that_record_left_the_listing(told: Any, key: dict[str, str]) -> None:
    # Given a first page that ends on the employer record
    ids = [m["memory_id"] for m in memories(told, key)]
    end = ids.index(by_key(told, key, "user.employer")["memory_id"]) + 1
    first = told.get("/v1/memories", params={"user_id": "u1", "limit": end}, headers=key)
    assert first.json()[-1]["key"] == "user.employer"
    # When that record is corrected (so it leaves the present listing)
    fixed = told.patch(f"/v1/memories/{ids[end - 1]}", json={"user_id": "u1", "value": "Zorg"}, headers=key).json()
    # Then the next page starts where it was: nothing skipped, nothing repeated
    nxt = told.get(
        "/v1/memories", params={"user_id": "u1", "cursor": first.headers["x-next-cursor"]}, headers=key
    ).json()
    assert [m["memory_id"] for m in nxt if m["memory_id"] != fixed["memory_id"]] == ids[end:]


# -- a person's controls --------------------------------------------------------------------


def test_provenance_confirm_correct_and_delete(told: Any, key: dict[str, str]) -> None:
    city = by_key(told, key, "user.home_city")
    prov = told.get(f"/v1/memories/{city['memory_id']}", headers=key).json()
    assert set(prov) >= {"memory", "evidence_episodes", "lineage", "gate"}
    assert prov["memory"]["value"] == "Berlin" and prov["evidence_episodes"][0]["episode_id"] == "ta-u1-3"
    assert prov["gate"][0]["outcome"] == "accepted"

    pending = next(m for m in memories(told, key) if m["status"] == "pending_confirmation" and m["key"])
    ok = told.post(f"/v1/memories/{pending['memory_id']}/confirm", headers=key)
    assert ok.status_code == 200 and ok.json()["status"] == "active"
    again = told.post(f"/v1/memories/{pending['memory_id']}/confirm", json={"user_id": "u1"}, headers=key)
    assert again.status_code == 422 and again.json()["error"]["field"] == "status"

    fixed = told.patch(f"/v1/memories/{city['memory_id']}", json={"value": "Hamburg"}, headers=key)
    assert fixed.status_code == 200 and fixed.json()["value"] == "Hamburg" and fixed.json()["status"] == "active"
    hits = told.post("/v1/retrieve", json={"user_id": "u1", "query": "Where do I live?", "k": 1}, headers=key).json()
    assert [h["value"] for h in hits["hits"]] == ["Hamburg"]
    old = next(m for m in memories(told, key, include_history="true") if m["memory_id"] == city["memory_id"])
    assert old["superseded_by"] == fixed.json()["memory_id"]

    gone = told.delete(f"/v1/memories/{fixed.json()['memory_id']}", headers=key)
    assert gone.status_code == 202 and set(gone.json()) == {"request_id", "status"}
    assert gone.json()["status"] == "complete"  # embedded: settled before the answer
    assert not any(m["key"] == "user.home_city" for m in memories(told, key, include_history="true"))


def test_deletion_request_and_its_manifest(told: Any, key: dict[str, str]) -> None:
    job = by_key(told, key, "user.employer")
    r = told.post("/v1/deletions", json={"user_id": "u1", "keys": ["user.employer"]}, headers=key)
    assert r.status_code == 202 and set(r.json()) == {"request_id", "status"}
    m = told.get(f"/v1/deletions/{r.json()['request_id']}", headers=key)
    assert m.status_code == 200
    body = m.json()
    assert set(body) >= {"request_id", "status", "targets", "decisions"} and body["status"] == "complete"
    for t in body["targets"].values():
        assert set(t) >= {"state", "remaining", "attempts", "checked_at", "detail"} and t["state"] == "CLOSED"
        assert_times_have_offsets(t, {"checked_at"})
    assert body["tenant_id"] == "ta" and body["keys"] == ["user.employer"]
    assert not any(x["memory_id"] == job["memory_id"] for x in memories(told, key, include_history="true"))
    by_id = told.post(
        "/v1/deletions",
        json={
            "user_id": "u1",
            "memory_ids": [by_key(told, key, "user.pet.dog")["memory_id"]],
            "requested_by": "support ticket 7",
        },
        headers=key,
    )
    assert by_id.status_code == 202 and by_id.json()["status"] == "complete"
    bad = told.post("/v1/deletions", json={"user_id": "u1", "keys": ["Not A Key"]}, headers=key)
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "keys"
    no_user = told.post("/v1/deletions", json={"keys": []}, headers=key)
    assert no_user.status_code == 422 and no_user.json()["error"]["field"] == "user_id"


# -- lessons, profile, consolidation ----------------------------------------------------------


def outcome(i: int, features: list[str], taken: str, right: str) -> dict[str, Any]:
    ok = taken == right
    return {
        "outcome_id": f"o{i}",
        "user_id": "u1",
        "task_id": f"case{i}",
        "task_type": "triage",
        "features": features,
        "action_taken": taken,
        "verified_action": None if ok else right,
        "success": ok,
        "occurred_at": (T0 + timedelta(minutes=i)).isoformat(),
    }


def test_outcomes_lessons_and_recommend(client: Any, key: dict[str, str]) -> None:
    first = client.post(
        "/v1/outcomes", json=outcome(0, ["login", "breach"], "route_tech", "escalate_security"), headers=key
    )
    assert first.status_code == 202 and first.json() == {"accepted": ["o0"], "duplicates": []}
    batch = [outcome(10 + i, ["login", "breach"], "route_tech", "escalate_security") for i in range(3)]
    batch += [outcome(20 + i, ["login", "password"], "route_tech", "route_tech") for i in range(3)]
    assert client.post("/v1/outcomes", json=batch, headers=key).status_code == 202
    lessons = client.get("/v1/lessons", params={"task_type": "triage"}, headers=key).json()
    assert lessons and all(
        set(x) >= {"lesson_id", "task_type", "pattern", "action", "status", "version", "report"} for x in lessons
    )
    active = [x for x in lessons if x["status"] == "active"]
    assert active and active[0]["action"] == "escalate_security"
    rec = client.post(
        "/v1/recommend", json={"task_type": "triage", "features": ["breach", "login"]}, headers=key
    ).json()
    assert rec == {"action": "escalate_security", "lesson_id": active[0]["lesson_id"], "guidance": rec["guidance"]}
    none = client.post("/v1/recommend", json={"task_type": "triage", "features": "printer jam"}, headers=key).json()
    assert none == {"action": None, "lesson_id": None, "guidance": None}


def test_profile_and_consolidation(told: Any, key: dict[str, str], make_key: Callable[..., str]) -> None:
    run = told.post("/v1/consolidations", headers=key)
    assert (
        run.status_code == 202
        and run.json()["tenant_id"] == "ta"
        and run.json()["status"] in ("done", "ok", "complete")
    )
    prof = told.get("/v1/profile", params={"user_id": "u1"}, headers=key)
    assert prof.status_code == 200 and set(prof.json()) >= {"tenant_id", "user_id", "text", "tokens", "lines"}
    assert "Berlin" in prof.json()["text"]
    assert told.get("/v1/profile", headers=key).json()["error"]["field"] == "user_id"
    user_key = bearer(make_key("ta", "u1"))
    assert told.get("/v1/profile", headers=user_key).json()["user_id"] == "u1"
    denied = told.post("/v1/consolidations", json={}, headers=user_key)
    assert denied.status_code == 403 and denied.json()["error"]["field"] == "Authorization"


def test_retrieve_with_include_profile(told: Any, key: dict[str, str]) -> None:
    """``POST /v1/retrieve`` with ``include_profile`` carries the user's profile for the question;
    without it ``profile`` is null; tenant-wide or not a boolean: 422 naming the field."""
    body = {"user_id": "u1", "query": "Where should we go for dinner?"}
    plain = told.post("/v1/retrieve", json=body, headers=key).json()
    assert plain["profile"] is None
    r = told.post("/v1/retrieve", json=body | {"include_profile": True}, headers=key)
    assert r.status_code == 200, r.text
    profile = r.json()["profile"]
    assert "Berlin" in profile["text"] and profile["tokens"] > 0
    assert {ln["tier"] for ln in profile["lines"]} <= {"constraint", "preference", "fact"}
    tenant_wide = {"query": body["query"], "scope": "tenant", "include_profile": True}
    wide = told.post("/v1/retrieve", json=tenant_wide, headers=key)
    assert wide.status_code == 422 and wide.json()["error"]["field"] == "include_profile", wide.text
    bad = told.post("/v1/retrieve", json=body | {"include_profile": "yes"}, headers=key)
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "include_profile", bad.text


# -- operations ---------------------------------------------------------------------------------


def test_health_metrics_and_docs(client: Any, key: dict[str, str], mw: Any) -> None:
    from memworks.api import create_app

    assert client.get("/healthz").json() == {"status": "ok", "database": "ok", "schema": "current"}
    client.get("/v1/memories", params={"user_id": "u1"}, headers=key)
    client.get("/v1/memories")
    text = client.get("/metrics").text
    assert 'memworks_http_requests_total{method="GET",route="/v1/memories",status="200"} 1.0' in text
    assert 'memworks_http_requests_total{method="GET",route="/v1/memories",status="401"} 1.0' in text
    assert client.get("/docs").status_code == 200
    spec = client.get("/openapi.json").json()
    assert "HTTPBearer" in spec["components"]["securitySchemes"]
    create_app(mw)  # a second app in the same process has a registry of its own: no clash


def metric(text: str, name: str, **labels: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    return sum(
        s.value
        for f in text_string_to_metric_families(text)
        for s in f.samples
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())
    )


def test_metrics_count_what_the_work_did_and_the_queue_depth(client: Any, key: dict[str, str], mw: Any) -> None:
    # Given the counters before; When a story with small talk is told and a user deleted
    before = client.get("/metrics").text
    lines = [
        ("I live in Lisbon.", "2025-01-06T09:00:00+00:00"),
        ("thanks so much!", "2025-01-07T09:00:00+00:00"),
        ("I moved to Berlin two weeks ago.", "2025-03-15T09:00:00+00:00"),
    ]
    assert client.post("/v1/episodes", json=story("ta", lines=lines, with_tenant=False), headers=key).status_code == 202
    mw.drain()
    assert client.post("/v1/deletions", json={"user_id": "u1", "scope": "user"}, headers=key).status_code == 202
    mw.drain()
    after = client.get("/metrics").text

    def delta(name: str, **labels: str) -> float:
        return metric(after, name, **labels) - metric(before, name, **labels)

    # Then the gate's verdicts, the ops and the manifests are counted, and the queues are empty
    assert delta("memworks_gate_decisions_total", outcome="rejected", reason="small talk") == 1
    assert delta("memworks_gate_decisions_total", outcome="accepted") >= 3
    assert delta("memworks_memory_ops_total", op="add") >= 3 and delta("memworks_memory_ops_total", op="update") >= 1
    assert (
        delta("memworks_manifests_total", status="opened") == 1 == delta("memworks_manifests_total", status="complete")
    )
    assert {q: metric(after, "memworks_queue_depth", queue=q) for q in ("extraction", "maintenance", "deletion")} == {
        "extraction": 0,
        "maintenance": 0,
        "deletion": 0,
    }
    assert 'memworks_queue_depth{queue="deletion"}' in after


def test_health_says_when_the_database_is_unreachable(client: Any, monkeypatch: Any, tmp_path: Any) -> None:
    from sqlalchemy import create_engine

    import memworks.api.app
    from memworks.store.keys import database_ok

    assert database_ok(create_engine(f"sqlite:///{tmp_path}/no/such/dir/x.db")) is False
    monkeypatch.setattr(memworks.api.app, "database_ok", lambda engine: False)
    r = client.get("/healthz")
    assert r.status_code == 503 and r.json() == {"status": "unavailable", "database": "unreachable", "schema": None}


# -- errors ---------------------------------------------------------------------------------------

BAD_REQUESTS = [
    ("post", "/v1/episodes", {**story("ta")[0], "content": ""}, "content"),
    ("post", "/v1/episodes", {**story("ta")[0], "occurred_at": "2025-01-06T09:00:00"}, "occurred_at"),
    ("post", "/v1/episodes", {**story("ta")[0], "role": "boss"}, "role"),
    ("post", "/v1/episodes", {**story("ta")[0], "colour": "red"}, "colour"),
    ("post", "/v1/episodes", [story("ta")[0], {**story("ta")[1], "turn": -1}], "[1].turn"),
    ("post", "/v1/episodes", [], "body"),
    ("post", "/v1/episodes", "hello", "body"),
    ("post", "/v1/episodes", {k: v for k, v in story("ta")[0].items() if k != "user_id"}, "user_id"),
    ("post", "/v1/retrieve", {"user_id": "u1", "query": "   "}, "query"),
    ("post", "/v1/retrieve", {"user_id": "u1", "query": "x", "k": 0}, "k"),
    ("post", "/v1/retrieve", {"user_id": "bad user", "query": "x"}, "user_id"),
    ("post", "/v1/retrieve", {"user_id": "u1", "query": "x", "as_of": "yesterday"}, "as_of"),
    ("post", "/v1/outcomes", {**outcome(1, ["a"], "x", "x"), "features": "  "}, "features"),
    ("post", "/v1/recommend", {"task_type": "bad type!", "features": []}, "task_type"),
    ("patch", "/v1/memories/abc", {"value": ""}, "value"),
    ("get", "/v1/memories?user_id=u1&include_history=maybe", None, "include_history"),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "field"), BAD_REQUESTS, ids=[f"{m} {p} {f}" for m, p, _, f in BAD_REQUESTS]
)
def test_bad_input_names_the_field_and_writes_nothing(
    client: Any,
    key: dict[str, str],
    row_counts: Callable[[], dict[str, int]],
    method: str,
    path: str,
    body: Any,
    field: str,
) -> None:
    before = row_counts()
    r = client.request(method.upper(), path, json=body, headers=key)
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert err["code"] == "invalid_input" and err["field"] == field and err["message"]
    assert row_counts() == before


def test_a_conflicting_batch_writes_nothing(
    told: Any, key: dict[str, str], row_counts: Callable[[], dict[str, int]]
) -> None:
    before = row_counts()
    batch = [{**story("ta")[0], "episode_id": "new-1"}, {**story("ta")[1], "content": "My dog is called Bolt."}]
    r = told.post("/v1/episodes", json=batch, headers=key)
    assert r.status_code == 409 and r.json()["error"]["code"] == "conflict"
    assert row_counts() == before


def test_bad_json_and_a_huge_body(told: Any, key: dict[str, str], row_counts: Callable[[], dict[str, int]]) -> None:
    before = row_counts()
    bad = told.post("/v1/episodes", content=b'{"episode_id": ', headers={**key, "content-type": "application/json"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "body"
    huge = [{**story("ta")[0], "episode_id": f"big-{i}", "content": "x" * 50_000} for i in range(25)]
    r = told.post("/v1/episodes", json=huge, headers=key)
    assert r.status_code == 413 and r.json()["error"] == {
        "code": "too_large",
        "field": "body",
        "message": "the request body must be at most 1000000 bytes",
    }
    assert row_counts() == before


def test_a_streamed_body_over_the_limit_is_refused_as_it_arrives(
    told: Any, key: dict[str, str], row_counts: Callable[[], dict[str, int]]
) -> None:
    before = row_counts()
    chunks = iter([b'[{"content": "' + b"x" * 600_000, b"x" * 600_000 + b'"}]'])  # no Content-Length: chunked
    r = told.post("/v1/episodes", content=chunks, headers={**key, "content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["field"] == "body"
    assert row_counts() == before


def test_an_unexpected_failure_is_a_clean_500(client: Any, key: dict[str, str], mw: Any, monkeypatch: Any) -> None:
    from structlog.testing import capture_logs

    def boom(*a: Any, **k: Any) -> Any:
        raise RuntimeError("secret internals at /srv/db")

    monkeypatch.setattr(mw, "retrieve", boom)
    with capture_logs() as logs:
        r = client.post("/v1/retrieve", json={"user_id": "u1", "query": QUESTIONS[0]}, headers=key)
    # Logged by type and place; the message (which may quote data) never reaches the log.
    assert [e["event"] for e in logs] == ["api.unhandled"] and logs[0]["error"] == "RuntimeError" and logs[0]["at"]
    assert "secret internals" not in str(logs)
    assert r.status_code == 500 and r.json() == {
        "error": {"code": "internal", "message": "internal error; it has been logged", "field": None}
    }
    assert "secret" not in r.text and "Traceback" not in r.text


def test_unknown_routes_and_methods_answer_in_the_error_shape(client: Any, key: dict[str, str]) -> None:
    assert client.get("/v1/nowhere", headers=key).json()["error"]["code"] == "not_found"
    r = client.put("/v1/retrieve", headers=key)
    assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"
