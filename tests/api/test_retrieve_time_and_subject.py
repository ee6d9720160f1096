"""Retrieve over HTTP, the remote client and the CLI: the question time (``asked_at``) and the
fields a hit carries beside the contract's (subject, event time, subject mismatch)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.api.api_helpers import bearer
from tests.cli.cli_helpers import run_here

CAKES = [
    {
        "episode_id": "c1",
        "user_id": "u1",
        "session_id": "a",
        "turn": 0,
        "role": "user",
        "source": "user",
        "content": "I baked a lemon cake for the neighbours today.",
        "occurred_at": "2024-05-12T10:00:00+00:00",
        "metadata": {"speaker": "Dana"},
    },
    {
        "episode_id": "c2",
        "user_id": "u1",
        "session_id": "b",
        "turn": 0,
        "role": "user",
        "source": "user",
        "content": "I baked a chocolate cake for the office today.",
        "occurred_at": "2024-09-03T10:00:00+00:00",
        "metadata": {"speaker": "Dana"},
    },
]


def test_asked_at_resolves_the_period_a_question_names(client: Any, make_key: Callable[..., str]) -> None:
    key = bearer(make_key("ta"))
    assert client.post("/v1/episodes", json=CAKES, headers=key).status_code == 202
    body = {"user_id": "u1", "query": "What cake did I bake last May?", "asked_at": "2024-12-01T00:00:00+00:00"}
    r = client.post("/v1/retrieve", json=body, headers=key)
    assert r.status_code == 200, r.text
    hit = r.json()["hits"][0]
    assert "lemon" in hit["value"] and hit["subject"] == "Dana" and hit["subject_mismatch"] is False
    assert hit["event_time"].startswith("2024-05-12") and r.json()["subject_mismatch"] is False
    bad = client.post("/v1/retrieve", json=body | {"asked_at": "last week"}, headers=key)
    assert bad.status_code == 422 and "asked_at" in bad.text


def test_the_remote_client_and_the_cli_pass_asked_at(
    server: str, make_key: Callable[..., str], mw: Any, tmp_path: Path
) -> None:
    from memworks.models.schemas import Scope
    from memworks.remote import RemoteMemworks

    with RemoteMemworks(server, make_key("ta")) as remote:
        remote.enqueue_episodes([e | {"tenant_id": "ta"} for e in CAKES])
        mw.drain()
        r = remote.retrieve(
            Scope(tenant_id="ta", user_id="u1"),
            "What cake did I bake in September 2024?",
            asked_at="2026-01-01T00:00:00+00:00",
        )  # an ISO string works as well
    assert "chocolate" in r.hits[0].text and r.hits[0].event_time is not None

    db = tmp_path / "cli.db"
    eps = tmp_path / "e.jsonl"
    eps.write_text("\n".join(json.dumps(e | {"tenant_id": "t1"}) for e in CAKES))
    assert run_here(["ingest", str(eps)], db).returncode == 0
    out = run_here(
        [
            "retrieve",
            "--tenant",
            "t1",
            "--user",
            "u1",
            "--asked-at",
            "2024-12-01T00:00:00+00:00",
            "--json",
            "What cake did I bake last May?",
        ],
        db,
    )
    assert out.returncode == 0, out.stderr
    assert "lemon" in json.loads(out.stdout)["hits"][0]["value"]
    bad = run_here(["retrieve", "--tenant", "t1", "--asked-at", "soon", "x"], db)
    assert bad.returncode == 2 and "asked" in bad.stderr
