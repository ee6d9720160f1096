"""The `memworks` command as a user runs it: exit codes, messages naming the field, JSON shapes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.cli_helpers import run_here
from tests.factories import episode


def run(args: list[str], db: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MEMWORKS_DATABASE_URL=f"sqlite:///{db}", MEMWORKS_BROKER_URL="stub://")
    return subprocess.run(
        [sys.executable, "-m", "memworks.cli", *args], env=env, capture_output=True, text=True, timeout=120
    )


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
    res = run_here(["ingest", str(f)], db)
    assert res.returncode == 2, res.stderr
    assert expected in res.stderr
    listed = run_here(["memories", "--tenant", "t1", "--user", "u1", "--json"], db)
    assert listed.returncode == 0 and json.loads(listed.stdout) == []  # nothing ingested


def test_ingest_then_retrieve_and_memories_json_shapes(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    f = write_jsonl(tmp_path / "eps.jsonl", STORY)
    assert run_here(["ingest", str(f), "--json"], db).returncode == 0
    again = run_here(["ingest", str(f), "--json"], db)
    assert json.loads(again.stdout)["duplicates"] == 2

    res = run_here(["retrieve", "--tenant", "t1", "--user", "u1", "--json", "Where do I live?"], db)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["abstained"] is False
    hit = out["hits"][0]
    assert {
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
    } <= hit.keys()
    assert hit["value"] == "Berlin" and hit["evidence"] == ["t1-u1-2"]
    assert hit["valid_from"].endswith("+00:00")

    past = json.loads(
        run_here(
            [
                "retrieve",
                "--tenant",
                "t1",
                "--user",
                "u1",
                "--as-of",
                "2025-02-01T00:00:00+00:00",
                "--json",
                "Where do I live?",
            ],
            db,
        ).stdout
    )
    assert past["hits"][0]["value"] == "Lisbon"

    mems = json.loads(
        run_here(["memories", "--tenant", "t1", "--user", "u1", "--include-history", "--json"], db).stdout
    )
    keys = {
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
    assert mems and all(keys <= m.keys() for m in mems)
    assert [m["status"] for m in mems if m["key"] == "user.home_city"] == ["superseded", "active"]


def test_retrieve_abstains_and_other_tenant_sees_nothing(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    assert run_here(["ingest", str(write_jsonl(tmp_path / "e.jsonl", STORY))], db).returncode == 0
    unknown = json.loads(
        run_here(["retrieve", "--tenant", "t1", "--user", "u1", "--json", "What is my blood type?"], db).stdout
    )
    assert unknown["abstained"] is True and unknown["hits"] == []
    other = json.loads(
        run_here(["retrieve", "--tenant", "t2", "--user", "u1", "--json", "Where do I live?"], db).stdout
    )
    assert other["abstained"] is True


def test_retrieve_with_the_profile_for_the_question(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    said = [*STORY, episode(3, "I'm allergic to shellfish.", when="2025-03-16T09:00:00+00:00")]
    assert run_here(["ingest", str(write_jsonl(tmp_path / "e.jsonl", said))], db).returncode == 0
    ask = ["retrieve", "--tenant", "t1", "--user", "u1", "--profile", "Where should we eat tonight?"]
    shown = run_here(ask, db)
    assert shown.returncode == 0, shown.stderr
    assert "profile for this question" in shown.stdout and "shellfish" in shown.stdout
    data = json.loads(run_here([*ask, "--json"], db).stdout)
    assert data["profile"]["lines"][0]["tier"] == "constraint" and "shellfish" in data["profile"]["text"]
    assert json.loads(run_here(ask[:-2] + ["--json", ask[-1]], db).stdout)["profile"] is None
    wide = run_here(["retrieve", "--tenant", "t1", "--shared", "--profile", "Where should we eat tonight?"], db)
    assert wide.returncode == 2 and "include_profile" in wide.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["retrieve", "Where?"], "--tenant"),
        (["retrieve", "--tenant", "t1", "--as-of", "yesterday", "x"], "ISO 8601"),
        (["retrieve", "--tenant", "t1", "--as-of", "2025-01-01T00:00:00", "x"], "UTC offset"),
        (["retrieve", "--tenant", "t1", "--user", "u1", "-k", "0", "x"], "k must be between"),
        (["retrieve", "--tenant", "bad tenant!", "x"], "tenant_id"),
        (["ingest", "/nonexistent.jsonl"], "no such file"),
        (["bench", "ingest", "--workers", "0,2"], "--workers"),
        (["bench", "ingest", "--workers", "two"], "--workers"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(tmp_path: Path, args: list[str], expected: str) -> None:
    res = run_here(args, tmp_path / "m.db")
    assert res.returncode == 2
    assert expected in res.stderr


def test_demo_passes(tmp_path: Path) -> None:
    res = run_here(["demo"], tmp_path / "unused.db")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "all 14 checks passed" in res.stdout
    assert "user.phone" in res.stdout and "user.sister.wedding" in res.stdout  # open-vocabulary keys, shown
    assert max(len(line) for line in res.stdout.splitlines()) <= 120  # fits a terminal


def test_delete_wait_and_manifest_json(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    assert run(["ingest", str(write_jsonl(tmp_path / "e.jsonl", STORY))], db).returncode == 0
    dry = run(["delete", "--tenant", "t1", "--user", "u1", "--key", "user.home_city", "--dry-run", "--json"], db)
    assert dry.returncode == 0, dry.stderr
    assert {r["value"] for r in json.loads(dry.stdout)["records"] if r["key"] == "user.home_city"} == {
        "Lisbon",
        "Berlin",
    }
    res = run(["delete", "--tenant", "t1", "--user", "u1", "--yes", "--wait", "--json"], db)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["status"] == "complete" and set(out) >= {"request_id", "status"}
    man = json.loads(run(["manifest", out["request_id"], "--json"], db).stdout)
    assert man["request_id"] == out["request_id"] and man["status"] == "complete"
    for name in (
        "primary_store",
        "transcripts",
        "lexical_index",
        "vector_index",
        "cache",
        "derived",
        "audit_log",
        "dead_letters",
    ):
        t = man["targets"][name]
        assert (
            t["state"] == "CLOSED" and t["remaining"] == 0 and t["attempts"] >= 1 and t["checked_at"].endswith("+00:00")
        )
        assert "checked" in t["detail"]
    assert json.loads(run(["retrieve", "--tenant", "t1", "--user", "u1", "--json", "Where do I live?"], db).stdout)[
        "abstained"
    ]


def test_delete_bad_input_and_unknown_manifest(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    bad = run(["delete", "--tenant", "t1", "--user", "u1", "--key", "Home City!"], db)
    assert bad.returncode == 2 and "keys" in bad.stderr
    missing = run(["manifest", "0" * 32], db)
    assert missing.returncode == 2 and "no deletion request" in missing.stderr


def test_outcomes_lessons_recommend_propose_rollback(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    T = "2025-01-01T00:00:{:02d}+00:00"

    def o(i: int, feats: Any, taken: str, right: str) -> dict[str, Any]:
        return {
            "outcome_id": f"o{i}",
            "tenant_id": "t1",
            "task_id": f"c{i}",
            "task_type": "triage",
            "features": feats,
            "action_taken": taken,
            "verified_action": None if taken == right else right,
            "success": taken == right,
            "occurred_at": T.format(i),
        }

    first = [o(0, ["login", "breach"], "route_tech", "escalate_security")]
    later = [o(i, "Possible breach after a strange login", "route_tech", "escalate_security") for i in range(1, 4)]
    later += [o(i, ["login", "password"], "route_tech", "route_tech") for i in range(4, 7)]
    assert run_here(["outcomes", str(write_jsonl(tmp_path / "a.jsonl", first))], db).returncode == 0
    res = run_here(["outcomes", str(write_jsonl(tmp_path / "b.jsonl", later)), "--json"], db)
    assert res.returncode == 0 and json.loads(res.stdout)["accepted"] == 6

    lessons = json.loads(run_here(["lessons", "--tenant", "t1", "--json"], db).stdout)
    assert {"lesson_id", "task_type", "pattern", "action", "status", "version", "report"} <= lessons[0].keys()
    active = [l for l in lessons if l["status"] == "active"]
    assert [l["pattern"] for l in active] == [["breach"]] and active[0]["report"].startswith("held-out 3/3 fixed")

    rec = json.loads(
        run_here(
            ["recommend", "--tenant", "t1", "--task-type", "triage", "--features", "login,breach", "--json"], db
        ).stdout
    )
    assert rec == {
        "action": "escalate_security",
        "lesson_id": active[0]["lesson_id"],
        "guidance": active[0]["guidance"],
    }
    none = json.loads(
        run_here(["recommend", "--tenant", "t1", "--task-type", "triage", "--features", "pricing", "--json"], db).stdout
    )
    assert none == {"action": None, "lesson_id": None, "guidance": None}

    prop = run_here(
        [
            "lessons",
            "propose",
            "--tenant",
            "t1",
            "--task-type",
            "triage",
            "--pattern",
            "login",
            "--action",
            "escalate_security",
            "--json",
        ],
        db,
    )
    assert prop.returncode == 0 and json.loads(prop.stdout)["status"] == "blocked"
    rb = run_here(["lessons", "rollback", active[0]["lesson_id"], "--tenant", "t1", "--json"], db)
    assert json.loads(rb.stdout)["status"] == "rolled_back"
    rec = json.loads(
        run_here(
            ["recommend", "--tenant", "t1", "--task-type", "triage", "--features", "login,breach", "--json"], db
        ).stdout
    )
    assert rec["action"] is None
    bad = run_here(["outcomes", str(write_jsonl(tmp_path / "c.jsonl", [dict(later[0], success="perhaps")]))], db)
    assert bad.returncode == 2 and ":1: field 'success'" in bad.stderr


def test_eval_lessons_writes_report_and_plot(tmp_path: Path) -> None:
    res = run_here(["eval", "lessons", "--json", "--out", str(tmp_path / "out")], tmp_path / "unused.db")
    assert res.returncode == 0, res.stderr[-2000:]
    report = json.loads(res.stdout)
    assert set(report["lessons"]) == {"keywords", "free_text", "noisy"}
    assert report["lessons"]["keywords"]["accuracy"] == [0.5, 0.6667, 0.8333, 1.0, 1.0]
    for r in report["lessons"].values():
        assert r["max_promotions_per_episode"] <= 1 and r["harmful_promotions"] == [] and r["gate"]["blocked"]
    assert (tmp_path / "out" / "lessons_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((tmp_path / "out" / "lessons.json").read_text())["lessons"]["keywords"]["accuracy"]


def test_consolidate_and_profile_json(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    eps = STORY + [
        episode(3, "I prefer aisle seats.", when="2025-03-16T09:00:00+00:00"),
        episode(4, "I love sushi.", when="2025-03-17T09:00:00+00:00"),
    ]
    assert run_here(["ingest", str(write_jsonl(tmp_path / "e.jsonl", eps))], db).returncode == 0
    res = run_here(["consolidate", "--tenant", "t1", "--json"], db)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert (
        out["status"] == "done"
        and {"expired", "evicted", "groups", "merged", "blocked_merges", "summaries", "profile_tokens", "repairs"}
        <= out["counts"].keys()
    )
    prof = json.loads(run_here(["profile", "--tenant", "t1", "--user", "u1", "--json"], db).stdout)
    assert 0 < prof["tokens"] <= 300 and "Berlin" in prof["text"] and "Lisbon" not in prof["text"]
    assert all(len(line["memory_id"]) == 32 for line in prof["lines"])


def test_scheduler_starts_and_lists_its_jobs(tmp_path: Path) -> None:
    import signal
    import time

    env = dict(os.environ, MEMWORKS_DATABASE_URL=f"sqlite:///{tmp_path / 'm.db'}", MEMWORKS_BROKER_URL="stub://")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memworks.cli", "scheduler"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("scheduler running:") and "consolidate-nightly" in line and "resume-deletions" in line
    finally:
        proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 20
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()
