"""The command line says what happened: an empty scope is not an abstention, an empty file is an
error, a bare date is read as midnight UTC (and says so), and a reader that stops early ends the
command quietly."""

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

pytestmark = pytest.mark.integration

STORY = [
    episode(1, "I live in Lisbon.", when="2025-01-06T09:00:00+00:00"),
    episode(2, "I moved to Berlin two weeks ago.", when="2025-03-15T09:00:00+00:00"),
]


def run(args: list[str], db: Path) -> subprocess.CompletedProcess[str]:
    """The command in this process (its arguments and output are the point, not its process)."""
    return run_here(args, db, MEMWORKS_EXTRACTOR="rules")


def run_process(args: list[str], db: Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    env = dict(
        os.environ, MEMWORKS_DATABASE_URL=f"sqlite:///{db}", MEMWORKS_BROKER_URL="stub://", MEMWORKS_EXTRACTOR="rules"
    )
    kwargs.setdefault("stdout", subprocess.PIPE)
    return subprocess.run(
        [sys.executable, "-m", "memworks.cli", *args],
        env=env,
        cwd=db.parent,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        **kwargs,
    )


def said(res: subprocess.CompletedProcess[str]) -> list[str]:
    """What the command told the user on stderr (in this process, log lines go there too)."""
    return [line for line in res.stderr.strip().splitlines() if not line.startswith("{")]


def ingest_story(tmp_path: Path) -> Path:
    db = tmp_path / "m.db"
    f = tmp_path / "story.jsonl"
    f.write_text("".join(json.dumps(e) + "\n" for e in STORY))
    assert run(["ingest", str(f)], db).returncode == 0
    return db


def test_retrieve_in_a_scope_with_no_memory_says_so_apart_from_an_abstention(tmp_path: Path) -> None:
    db = ingest_story(tmp_path)
    # Given a user nobody told anything about
    empty = run(["retrieve", "--tenant", "t1", "--user", "nobody", "--json", "Where do I live?"], db)
    assert empty.returncode == 0, empty.stderr
    out = json.loads(empty.stdout)
    assert out["empty_scope"] is True and out["abstained"] is True and out["hits"] == []
    text = run(["retrieve", "--tenant", "t1", "--user", "nobody", "Where do I live?"], db)
    assert text.returncode == 0 and "no memory stored for this tenant/user" in text.stdout

    # And a user with memory who is asked what nobody said: an abstention, not an empty scope
    unknown = run(["retrieve", "--tenant", "t1", "--user", "u1", "--json", "What is my blood type?"], db)
    out = json.loads(unknown.stdout)
    assert out["abstained"] is True and out["empty_scope"] is False
    said = run(["retrieve", "--tenant", "t1", "--user", "u1", "What is my blood type?"], db).stdout
    assert "no memory answers this (abstained)" in said and "no memory stored" not in said

    answered = json.loads(run(["retrieve", "--tenant", "t1", "--user", "u1", "--json", "Where do I live?"], db).stdout)
    assert answered["empty_scope"] is False and answered["hits"][0]["value"] == "Berlin"


@pytest.mark.parametrize("content", ["", "\n  \n"], ids=["empty", "blank-lines"])
def test_an_empty_ingest_file_is_bad_input_naming_the_file(tmp_path: Path, content: str) -> None:
    f = tmp_path / "export.jsonl"
    f.write_text(content)
    res = run(["ingest", str(f)], tmp_path / "m.db")
    assert res.returncode == 2
    assert f"{f}: the file is empty" in res.stderr and "Traceback" not in res.stderr
    as_json = json.loads(run(["ingest", str(f), "--json"], tmp_path / "m.db").stdout)
    assert as_json["error"]["field"] == "file"
    assert not (tmp_path / "m.db").exists()  # a rejected run writes nothing, not even the file


def test_a_file_of_bad_lines_writes_nothing_and_names_every_wrong_field(tmp_path: Path) -> None:
    f = tmp_path / "export.jsonl"
    f.write_text('{"episode_id": 3, "role": "robot"}\n')
    res = run(["ingest", str(f)], tmp_path / "m.db")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    for field in ("episode_id", "role", "tenant_id", "content", "occurred_at"):
        assert f"field '{field}'" in res.stderr, res.stderr
    assert not (tmp_path / "m.db").exists()


def test_a_bare_date_is_midnight_utc_said_once_on_stderr(tmp_path: Path) -> None:
    db = ingest_story(tmp_path)
    ask = ["retrieve", "--tenant", "t1", "--user", "u1", "--json", "Where do I live?"]
    bare = run([*ask, "--as-of", "2025-02-01"], db)
    assert bare.returncode == 0, bare.stderr
    assert said(bare) == ["memworks: reading 2025-02-01 as 2025-02-01T00:00:00+00:00 (midnight UTC)"]
    full = run([*ask, "--as-of", "2025-02-01T00:00:00+00:00"], db)
    assert said(full) == []
    before_move = json.loads(bare.stdout)
    assert before_move["hits"][0]["value"] == "Lisbon"
    assert [h["memory_id"] for h in before_move["hits"]] == [h["memory_id"] for h in json.loads(full.stdout)["hits"]]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("2025-02-30", "not a calendar date"), ("2025-02-01T00:00:00", "UTC offset"), ("Feb 1", "ISO 8601")],
)
def test_times_that_are_not_dates_or_aware_times_stay_bad_input(tmp_path: Path, value: str, expected: str) -> None:
    res = run(["retrieve", "--tenant", "t1", "--user", "u1", "--as-of", value, "x"], tmp_path / "m.db")
    assert res.returncode == 2 and expected in res.stderr


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path: Path) -> None:
    db = ingest_story(tmp_path)
    rid = json.loads(run(["delete", "--tenant", "t1", "--user", "u1", "--key", "user.pet", "--json"], db).stdout)[
        "request_id"
    ]
    # Given stdout a pipe whose reader is already gone (what `| head -1` leaves once it has its line)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        res = run_process(["manifest", rid, "--json"], db, stdout=write_end)
    finally:
        os.close(write_end)
    assert res.returncode == 0
    assert res.stderr == ""  # no BrokenPipeError traceback, no "Exception ignored" at exit
