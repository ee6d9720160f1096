"""The `memworks` command as a user runs it: exit codes, messages naming the field, JSON shapes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.factories import episode


def run(args: list[str], db: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MEMWORKS_DATABASE_URL=f"sqlite:///{db}", MEMWORKS_BROKER_URL="stub://")
    return subprocess.run([sys.executable, "-m", "memworks.cli", *args], env=env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


STORY = [
    episode(1, "I live in Lisbon.", when="2025-01-06T09:00:00+00:00"),
    episode(2, "I moved to Berlin two weeks ago.", when="2025-03-15T09:00:00+00:00"),
]


@pytest.mark.parametrize(
    ("bad_line", "expected"),
    [
        ("{not json", ":2: not valid JSON"),
        (json.dumps(dict(STORY[1], occurred_at="2025-03-15 09:00")), ":2: field 'occurred_at'"),
        (json.dumps({k: v for k, v in STORY[1].items() if k != "tenant_id"}), ":2: field 'tenant_id'"),
        (json.dumps(dict(STORY[1], source="gossip")), ":2: field 'source'"),
        ("[1, 2]", ":2: each line must be a JSON object"),
    ],
)
def test_ingest_rejects_the_whole_file_naming_line_and_field(tmp_path: Path, bad_line: str, expected: str) -> None:
    db = tmp_path / "m.db"
    f = write_jsonl(tmp_path / "eps.jsonl", [STORY[0], bad_line])
    res = run(["ingest", str(f)], db)
    assert res.returncode == 2, res.stderr
    assert expected in res.stderr
    listed = run(["memories", "--tenant", "t1", "--user", "u1", "--json"], db)
    assert listed.returncode == 0 and json.loads(listed.stdout) == []  # nothing ingested


def test_ingest_then_retrieve_and_memories_json_shapes(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    f = write_jsonl(tmp_path / "eps.jsonl", STORY)
    assert run(["ingest", str(f), "--json"], db).returncode == 0
    again = run(["ingest", str(f), "--json"], db)
    assert json.loads(again.stdout)["duplicates"] == 2

    res = run(["retrieve", "--tenant", "t1", "--user", "u1", "--json", "Where do I live?"], db)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["abstained"] is False
    hit = out["hits"][0]
    assert {"memory_id", "kind", "key", "value", "source", "status", "valid_from", "valid_to", "recorded_at",
            "evidence", "score"} <= hit.keys()  # fmt: skip
    assert hit["value"] == "Berlin" and hit["evidence"] == ["t1-u1-2"]
    assert hit["valid_from"].endswith("+00:00")

    past = json.loads(run(["retrieve", "--tenant", "t1", "--user", "u1", "--as-of", "2025-02-01T00:00:00+00:00", "--json",
                           "Where do I live?"], db).stdout)  # fmt: skip
    assert past["hits"][0]["value"] == "Lisbon"

    mems = json.loads(run(["memories", "--tenant", "t1", "--user", "u1", "--include-history", "--json"], db).stdout)
    keys = {"memory_id", "kind", "key", "value", "status", "source", "trusted", "confidence", "valid_from", "valid_to",
            "recorded_at", "retracted_at", "expires_at", "superseded_by", "evidence"}  # fmt: skip
    assert mems and all(keys <= m.keys() for m in mems)
    assert [m["status"] for m in mems if m["key"] == "user.home_city"] == ["superseded", "active"]


def test_retrieve_abstains_and_other_tenant_sees_nothing(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    assert run(["ingest", str(write_jsonl(tmp_path / "e.jsonl", STORY))], db).returncode == 0
    unknown = json.loads(run(["retrieve", "--tenant", "t1", "--user", "u1", "--json", "What is my blood type?"], db).stdout)
    assert unknown == {"abstained": True, "hits": []}
    other = json.loads(run(["retrieve", "--tenant", "t2", "--user", "u1", "--json", "Where do I live?"], db).stdout)
    assert other["abstained"] is True


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["retrieve", "Where?"], "--tenant"),
        (["retrieve", "--tenant", "t1", "--as-of", "yesterday", "x"], "ISO 8601"),
        (["retrieve", "--tenant", "t1", "--as-of", "2025-01-01T00:00:00", "x"], "UTC offset"),
        (["retrieve", "--tenant", "t1", "-k", "0", "x"], "k must be between"),
        (["retrieve", "--tenant", "bad tenant!", "x"], "tenant_id"),
        (["ingest", "/nonexistent.jsonl"], "no such file"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(tmp_path: Path, args: list[str], expected: str) -> None:
    res = run(args, tmp_path / "m.db")
    assert res.returncode == 2
    assert expected in res.stderr


def test_demo_passes(tmp_path: Path) -> None:
    res = run(["demo"], tmp_path / "unused.db")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "all 11 checks passed" in res.stdout


def test_delete_wait_and_manifest_json(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    assert run(["ingest", str(write_jsonl(tmp_path / "e.jsonl", STORY))], db).returncode == 0
    dry = run(["delete", "--tenant", "t1", "--user", "u1", "--key", "user.home_city", "--dry-run", "--json"], db)
    assert dry.returncode == 0, dry.stderr
    assert {r["value"] for r in json.loads(dry.stdout)["records"] if r["key"] == "user.home_city"} == {"Lisbon", "Berlin"}
    res = run(["delete", "--tenant", "t1", "--user", "u1", "--wait", "--json"], db)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["status"] == "complete" and set(out) >= {"request_id", "status"}
    man = json.loads(run(["manifest", out["request_id"], "--json"], db).stdout)
    assert man["request_id"] == out["request_id"] and man["status"] == "complete"
    for name in ("primary_store", "transcripts", "lexical_index", "vector_index", "cache", "derived", "audit_log",
                 "dead_letters"):  # fmt: skip
        t = man["targets"][name]
        assert t["state"] == "CLOSED" and t["remaining"] == 0 and t["attempts"] >= 1 and t["checked_at"].endswith("+00:00")
        assert "checked" in t["detail"]
    assert json.loads(run(["retrieve", "--tenant", "t1", "--user", "u1", "--json", "Where do I live?"], db).stdout)["abstained"]


def test_delete_bad_input_and_unknown_manifest(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    bad = run(["delete", "--tenant", "t1", "--user", "u1", "--key", "Home City!"], db)
    assert bad.returncode == 2 and "keys" in bad.stderr
    missing = run(["manifest", "0" * 32], db)
    assert missing.returncode == 2 and "no deletion request" in missing.stderr
