"""Strict input through the HTTP API and the CLI: JSON must carry the documented types, numbers are
bounded in length and finite, metadata and deletion keys are bounded, and an end-user key lists only
the lessons that rest on its own user's outcomes.

Probes: ``turn: "1"``, ``success: "yes"``, ``occurred_at: 1700000000``, a 5,000-digit fraction,
``NaN``, metadata of 900 KB / 20,000 keys / 60 levels, a 100,000-character deletion key, and an
end-user key reading ``GET /v1/lessons`` for patterns mined from other users' outcomes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.api.api_helpers import bearer
from tests.api.test_lessons_security import lessons, outcome, post
from tests.cli.test_cli import run, write_jsonl

TIME = "2025-01-06T09:00:00+00:00"
LONG_FRACTION = "0." + "1234567890" * 500  # 5,002 characters
LONG_INTEGER = "1" + "0" * 5000


def _ep(**over: Any) -> dict[str, Any]:
    return {
        "episode_id": "e1",
        "user_id": "u1",
        "session_id": "s1",
        "turn": 1,
        "role": "user",
        "source": "user",
        "content": "I live in Lisbon.",
        "occurred_at": TIME,
        **over,
    }


def _outcome(**over: Any) -> dict[str, Any]:
    return {
        "outcome_id": "o1",
        "task_type": "triage",
        "features": ["refund"],
        "action_taken": "route_billing",
        "success": True,
        "occurred_at": TIME,
        **over,
    }


def _deep(levels: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for _ in range(levels - 1):
        out = {"a": out}
    return out


def _error(r: Any) -> dict[str, Any]:
    assert r.status_code == 422, (r.status_code, r.text[:300])
    return dict(r.json()["error"])


@pytest.fixture
def tenant(make_key: Callable[..., str]) -> dict[str, str]:
    return bearer(make_key("t1"))


# -- types are not coerced ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("route", "body", "field"),
    [
        ("/v1/episodes", _ep(turn="1"), "turn"),
        ("/v1/episodes", _ep(turn=1.0), "turn"),
        ("/v1/episodes", _ep(turn=True), "turn"),
        ("/v1/episodes", _ep(occurred_at=1700000000), "occurred_at"),
        ("/v1/episodes", _ep(occurred_at=1700000000.5), "occurred_at"),
        ("/v1/episodes", _ep(occurred_at="1700000000"), "occurred_at"),
        ("/v1/episodes", [_ep(), _ep(episode_id="e2", turn="2")], "[1].turn"),
        ("/v1/outcomes", _outcome(success="yes"), "success"),
        ("/v1/outcomes", _outcome(success=1), "success"),
        ("/v1/outcomes", _outcome(success="true"), "success"),
        ("/v1/outcomes", _outcome(occurred_at=1700000000), "occurred_at"),
    ],
    ids=lambda x: x if isinstance(x, str) and not x.startswith("/") else None,
)
def test_a_value_of_another_json_type_is_422_naming_the_field_and_writes_nothing(
    client: Any, tenant: dict[str, str], row_counts: Callable[[], dict[str, int]], route: str, body: Any, field: str
) -> None:
    """A string turn, a textual or numeric success, a numeric time: refused, never coerced."""
    before = row_counts()
    err = _error(client.post(route, json=body, headers=tenant))
    assert err["field"] == field and err["message"].startswith(f"{field}: ")
    assert row_counts() == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"user_id": "u1", "query": "where do I live?", "k": "5"}, "k"),
        ({"user_id": "u1", "query": "where do I live?", "as_of": 1700000000}, "as_of"),
        ({"user_id": "u1", "query": "where do I live?", "known_at": "1700000000"}, "known_at"),
    ],
)
def test_a_read_with_a_coerced_type_is_422_naming_the_field(
    client: Any, tenant: dict[str, str], body: dict[str, Any], field: str
) -> None:
    assert _error(client.post("/v1/retrieve", json=body, headers=tenant))["field"] == field


def test_the_documented_types_are_still_accepted(client: Any, tenant: dict[str, str]) -> None:
    """An integer turn, a boolean success, ISO 8601 times with an offset (``Z`` too), bounded metadata."""
    meta = {"speaker": "Dana", "score": 0.25, "n": 3, "tags": ["a", "b"], "nested": {"x": {"y": [1]}}}
    r = client.post("/v1/episodes", json=_ep(occurred_at="2025-01-06T09:00:00Z", metadata=meta), headers=tenant)
    assert r.status_code == 202, r.text
    assert client.post("/v1/outcomes", json=_outcome(success=False), headers=tenant).status_code == 202
    r = client.post("/v1/retrieve", json={"user_id": "u1", "query": "where?", "k": 3, "as_of": TIME}, headers=tenant)
    assert r.status_code == 200, r.text


# -- numbers: bounded text, finite ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("route", "raw", "field"),
    [
        ("/v1/episodes", json.dumps(_ep(metadata={"c": 1})).replace('"c": 1', f'"c": {LONG_FRACTION}'), "metadata"),
        ("/v1/episodes", json.dumps(_ep()).replace('"turn": 1', f'"turn": {LONG_INTEGER}'), "turn"),
        ("/v1/episodes", json.dumps(_ep(metadata={"c": 1})).replace('"c": 1', '"c": NaN'), "metadata"),
        ("/v1/episodes", json.dumps(_ep(metadata={"c": 1})).replace('"c": 1', '"c": -Infinity'), "metadata"),
        ("/v1/episodes", json.dumps(_ep(metadata={"c": 1})).replace('"c": 1', '"c": 1e999'), "metadata"),
        ("/v1/episodes", json.dumps(_ep()).replace('"turn": 1', f'"turn": {LONG_FRACTION}'), "turn"),
        ("/v1/outcomes", json.dumps(_outcome()).replace('"success": true', f'"success": {LONG_FRACTION}'), "success"),
        (
            "/v1/retrieve",
            json.dumps({"user_id": "u1", "query": "q", "k": 5}).replace('"k": 5', f'"k": {LONG_INTEGER}'),
            "k",
        ),
    ],
    ids=["fraction-in-metadata", "integer-turn", "nan", "-infinity", "overflow", "fraction-turn", "success", "k"],
)
def test_an_overlong_or_non_finite_number_is_422_naming_the_field(
    client: Any, tenant: dict[str, str], row_counts: Callable[[], dict[str, int]], route: str, raw: str, field: str
) -> None:
    """A 5,000-digit number or NaN/Infinity in the JSON text is refused where it stands."""
    before = row_counts()
    r = client.post(route, content=raw, headers={**tenant, "content-type": "application/json"})
    err = _error(r)
    assert err["field"] == field, err
    assert row_counts() == before


def test_the_error_says_why_a_number_is_refused(client: Any, tenant: dict[str, str]) -> None:
    raw = json.dumps(_ep(metadata={"c": 1})).replace('"c": 1', f'"c": {LONG_FRACTION}')
    err = _error(client.post("/v1/episodes", content=raw, headers={**tenant, "content-type": "application/json"}))
    assert "at most 40 characters" in err["message"]
    raw = json.dumps(_ep(metadata={"c": 1})).replace('"c": 1', '"c": NaN')
    err = _error(client.post("/v1/episodes", content=raw, headers={**tenant, "content-type": "application/json"}))
    assert "finite" in err["message"]


# -- metadata: bytes, keys, depth -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("metadata", "bound"),
    [
        ({"blob": "x" * 900_000}, "16384 bytes"),
        ({f"k{i}": i for i in range(20_000)}, "64 keys"),
        (_deep(60), "4 levels"),
        ({"a": {"b": {"c": {"d": {}}}}}, "4 levels"),
        ({"a": [[[["too deep"]]]]}, "4 levels"),
        ({f"k{i}": {f"j{j}": j for j in range(8)} for i in range(8)}, "64 keys"),  # 72 keys over two levels
    ],
    ids=["900KB", "20k-keys", "depth-60", "depth-5", "lists-count-as-levels", "keys-over-levels"],
)
def test_oversized_metadata_is_422_naming_metadata_and_its_limits(
    client: Any,
    tenant: dict[str, str],
    row_counts: Callable[[], dict[str, int]],
    metadata: dict[str, Any],
    bound: str,
) -> None:
    before = row_counts()
    err = _error(client.post("/v1/episodes", json=_ep(metadata=metadata), headers=tenant))
    assert err["field"] == "metadata"
    assert all(s in err["message"] for s in ("16384 bytes", "64 keys", "4 levels")), err["message"]
    assert bound in err["message"].split("(")[-1] or bound in err["message"]
    assert row_counts() == before


def test_metadata_at_its_limits_is_accepted(client: Any, tenant: dict[str, str]) -> None:
    at_limits = {f"k{i}": i for i in range(60)} | {"a": {"b": {"c": ["d"]}}}  # 63 keys, 4 levels
    r = client.post("/v1/episodes", json=_ep(metadata=at_limits), headers=tenant)
    assert r.status_code == 202, r.text


# -- deletion keys -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "keys",
    [["a" * 100_000], ["user." + "x" * 200], [f"user.k{i}" for i in range(101)], ["user.home city"]],
    ids=["100k-chars", "201-chars", "101-keys", "grammar"],
)
def test_a_deletion_key_out_of_bounds_is_422_naming_keys_and_opens_nothing(
    client: Any, tenant: dict[str, str], row_counts: Callable[[], dict[str, int]], keys: list[str]
) -> None:
    before = row_counts()
    err = _error(client.post("/v1/deletions", json={"user_id": "u1", "keys": keys}, headers=tenant))
    assert err["field"] == "keys"
    assert row_counts() == before


def test_a_deletion_key_of_200_characters_is_accepted(client: Any, tenant: dict[str, str]) -> None:
    key = "user." + "x" * 195
    r = client.post("/v1/deletions", json={"user_id": "u1", "keys": [key]}, headers=tenant)
    assert r.status_code == 202, r.text


# -- lessons: an end-user key sees only its own -------------------------------------------------


def test_an_end_user_key_lists_only_lessons_resting_on_its_own_outcomes(
    client: Any, make_key: Callable[..., str]
) -> None:
    """Given lessons mined from mallory's outcomes alone, from ana's alone, and from several users',
    When each lists lessons, Then the tenant key sees all three, mallory and ana each only their
    own, and a user with no outcomes none."""
    tenant = bearer(make_key("ta"))
    post(client, tenant, outcome(100, ["chargeback"], "route_fraud", "route_fraud"))  # the tenant's own action
    mallory, ana, bob = (bearer(make_key("ta", u)) for u in ("mallory", "ana", "bob"))
    post(client, mallory, [outcome(i, ["refund"], "route_billing", "route_fraud") for i in range(5)])
    post(client, ana, [outcome(10 + i, ["invoice"], "route_billing", "route_fraud") for i in range(5)])
    for i, who in enumerate([mallory, ana, mallory, ana, bob]):
        post(client, who, outcome(20 + i, ["login", "breach"], "route_tech", "route_fraud"))

    everyone = lessons(client, tenant)

    def about(word: str) -> list[dict[str, Any]]:
        return [x for x in everyone if any(f.startswith(word) for f in x["pattern"])]

    refund, invoice, shared = about("refund"), about("invoic"), about("breach")
    assert len(refund) == len(invoice) == len(shared) == 1, [x["pattern"] for x in everyone]
    assert lessons(client, mallory) == refund  # the same objects the tenant sees
    assert lessons(client, ana) == invoice
    assert lessons(client, bob) == []


def test_an_end_user_key_does_not_see_a_lesson_whose_report_cites_others(
    client: Any, mw: Any, make_key: Callable[..., str]
) -> None:
    """A lesson mined from mallory's outcomes whose report names another user's outcome (a
    held-out case it got wrong) is not listed for mallory: the report quotes that outcome."""
    from sqlmodel import select

    from memworks.models.tables import Lesson
    from memworks.store.sql.db import session_scope

    tenant = bearer(make_key("ta"))
    mallory = bearer(make_key("ta", "mallory"))
    post(client, tenant, outcome(100, ["chargeback"], "route_fraud", "route_fraud"))
    post(client, mallory, [outcome(i, ["refund"], "route_billing", "route_fraud") for i in range(5)])
    post(client, bearer(make_key("ta", "ana")), outcome(50, ["refund", "vip"], "route_billing", "route_vip"))
    assert [x["pattern"] for x in lessons(client, mallory)] == [["refund"]]
    with session_scope(mw.runtime.engine) as s:
        row = next(r for r in s.exec(select(Lesson)) if r.pattern_json == '["refund"]')
        row.report = f"pending: 1 of 1 held-out cases left wrong (outcome o50 wants route_vip); {row.report}"
        s.add(row)
    assert lessons(client, mallory) == []
    assert [x["pattern"] for x in lessons(client, tenant) if x["pattern"] == ["refund"]] == [["refund"]]


# -- the CLI reads .jsonl files the same way -----------------------------------------------------


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (json.dumps(dict(_ep(tenant_id="t1"), turn="1")), "turn"),
        (json.dumps(dict(_ep(tenant_id="t1"), occurred_at=1700000000)), "occurred_at"),
        (json.dumps(_ep(tenant_id="t1", metadata={"c": 1})).replace('"c": 1', f'"c": {LONG_FRACTION}'), "metadata"),
        (json.dumps(_ep(tenant_id="t1")).replace('"turn": 1', f'"turn": {LONG_INTEGER}'), "turn"),
        (json.dumps(_ep(tenant_id="t1", metadata=_deep(60))), "metadata"),
    ],
    ids=["string-turn", "numeric-time", "long-fraction", "long-integer", "deep-metadata"],
)
def test_the_cli_refuses_the_same_lines_with_exit_2_naming_the_field(tmp_path: Path, line: str, field: str) -> None:
    db = tmp_path / "m.db"
    res = run(["ingest", str(write_jsonl(tmp_path / "eps.jsonl", [line]))], db)
    assert res.returncode == 2, res.stderr
    assert f"field '{field}'" in res.stderr, res.stderr


def test_the_cli_refuses_a_textual_success_in_outcomes(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    res = run(["outcomes", str(write_jsonl(tmp_path / "o.jsonl", [_outcome(tenant_id="t1", success="yes")]))], db)
    assert res.returncode == 2 and "field 'success'" in res.stderr, res.stderr
