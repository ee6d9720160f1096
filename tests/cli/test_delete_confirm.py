"""``memworks delete``: a whole user goes only with ``--yes``; a request that matches nothing
says so and exits 1, as its help documents."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.cli.cli_helpers import run_here as run
from tests.cli.test_cli import STORY, write_jsonl


def requests_stored(db: Path) -> int:
    with sqlite3.connect(db) as c:
        return int(c.execute("SELECT count(*) FROM deletion_request").fetchone()[0])


def test_a_whole_user_deletion_needs_yes(tmp_path: Path) -> None:
    # Given a user with memories,
    db = tmp_path / "m.db"
    assert run(["ingest", str(write_jsonl(tmp_path / "e.jsonl", STORY))], db).returncode == 0
    # When the delete names no key or record and no --yes, then it is refused as bad input,
    # naming --yes, and nothing is submitted (the user's memory is still there);
    refused = run(["delete", "--tenant", "t1", "--user", "u1", "--wait"], db)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "--yes" in refused.stderr and "u1" in refused.stderr
    assert requests_stored(db) == 0
    as_json = run(["delete", "--tenant", "t1", "--user", "u1", "--json"], db)
    assert as_json.returncode == 2 and json.loads(as_json.stdout)["error"]["field"] == "yes"
    assert "Berlin" in run(["memories", "--tenant", "t1", "--user", "u1", "--json"], db).stdout
    # a dry run changes nothing, so it needs no confirmation;
    assert run(["delete", "--tenant", "t1", "--user", "u1", "--dry-run"], db).returncode == 0
    assert requests_stored(db) == 0
    # with --yes it proceeds to completion.
    done = run(["delete", "--tenant", "t1", "--user", "u1", "--yes", "--wait", "--json"], db)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "complete"
    assert json.loads(run(["memories", "--tenant", "t1", "--user", "u1", "--json"], db).stdout) == []


def test_a_key_that_matches_nothing_ends_nothing_matched_with_exit_1_as_the_help_says(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    assert run(["ingest", str(write_jsonl(tmp_path / "e.jsonl", STORY))], db).returncode == 0
    # When a deletion names a key the user has no record of and waits for it,
    res = run(["delete", "--tenant", "t1", "--user", "u1", "--key", "user.no_such_key", "--wait", "--json"], db)
    # Then its status is nothing_matched and the exit status 1 (not done: nothing was erased),
    assert res.returncode == 1, res.stderr
    out = json.loads(res.stdout)
    assert out["status"] == "nothing_matched"
    manifest = json.loads(run(["manifest", out["request_id"], "--json"], db).stdout)
    assert manifest["status"] == "nothing_matched"
    assert {t["reason"] for t in manifest["targets"].values()} == {"nothing matched"}
    # and the user's memory is untouched.
    assert "Berlin" in run(["memories", "--tenant", "t1", "--user", "u1", "--json"], db).stdout
    # The command's help documents both.
    helped = " ".join(run(["delete", "--help"], db).stdout.split())
    assert "nothing_matched" in helped and "1 with --wait when the request failed, matched nothing" in helped
    assert "--yes" in helped
