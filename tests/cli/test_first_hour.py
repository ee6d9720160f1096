"""What a new user meets in the first hour with the `memworks` command: a read that names no user
is refused, an unreachable database or Redis is one line, stuck episodes are re-sent, every bad
line of a file is reported, and the terminal shows answers rather than log lines."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.cli_helpers import run_here
from tests.factories import episode

STORY = [
    episode(1, "I live in Lisbon.", when="2025-01-06T09:00:00+00:00"),
    episode(2, "I work at Acme as a welder.", when="2025-01-07T09:00:00+00:00"),
]


def run(args: list[str], db: Path | str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    url = db if isinstance(db, str) else f"sqlite:///{db}"
    full = {**os.environ, "MEMWORKS_DATABASE_URL": url, "MEMWORKS_BROKER_URL": "stub://", **env}
    for name in ("MEMWORKS_LOG_LEVEL", "MEMWORKS_LOG_FORMAT"):
        if name not in env:
            full.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "memworks.cli", *args], env=full, capture_output=True, text=True, timeout=timeout
    )


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def memories(db: Path) -> list[dict[str, Any]]:
    res = run_here(["memories", "--tenant", "t1", "--user", "u1", "--json"], db)
    assert res.returncode == 0, res.stderr
    return list(json.loads(res.stdout))


# -- a read names its user, or asks for the shared records ------------------------------------


@pytest.mark.parametrize("command", [["retrieve", "Where do I live?"], ["memories"]])
def test_a_read_without_user_is_refused_unless_shared_is_asked_for(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "m.db"
    assert run_here(["ingest", str(write_jsonl(tmp_path / "e.jsonl", STORY))], db).returncode == 0
    # When the user is forgotten, Then exit 2 naming user_id and both ways to say what is meant
    res = run_here([command[0], "--tenant", "t1", *command[1:]], db)
    assert res.returncode == 2 and res.stdout == ""
    assert "user_id" in res.stderr and "--user" in res.stderr and "--shared" in res.stderr
    # When the tenant's shared records are asked for by name, Then the read runs (and shows no user's record)
    shared = run_here([command[0], "--tenant", "t1", "--shared", "--json", *command[1:]], db)
    assert shared.returncode == 0, shared.stderr
    assert "Lisbon" not in shared.stdout
    # ... and the user's read still answers
    mine = run_here([command[0], "--tenant", "t1", "--user", "u1", "--json", *command[1:]], db)
    assert mine.returncode == 0 and "Lisbon" in mine.stdout
    # --user and --shared together contradict each other
    both = run_here([command[0], "--tenant", "t1", "--user", "u1", "--shared", *command[1:]], db)
    assert both.returncode == 2 and "--shared" in both.stderr


# -- a database or Redis that does not answer: one line, exit 1 --------------------------------


def _one_line_failure(res: subprocess.CompletedProcess[str], where: str) -> None:
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 1, res.stderr
    assert 1 <= len(lines) <= 3, res.stderr
    assert where in res.stderr and "Traceback" not in res.stderr
    assert "secret" not in res.stderr + res.stdout


@pytest.mark.parametrize(
    "command",
    [
        ["retrieve", "--tenant", "t1", "--user", "u1", "Where?"],
        ["memories", "--tenant", "t1", "--user", "u1"],
        ["ingest", "FILE"],
        ["db", "upgrade"],
        ["worker", "--processes", "1"],
        ["api", "--port", "1"],
        ["scheduler"],
    ],
    ids=lambda c: c[0],
)
def test_an_unreachable_database_is_one_line(tmp_path: Path, command: list[str]) -> None:
    port = closed_port()
    args = [str(write_jsonl(tmp_path / "e.jsonl", STORY)) if a == "FILE" else a for a in command]
    # The worker only serves a Redis queue: point it at a closed one too (the database is checked first).
    extra = {"MEMWORKS_BROKER_URL": f"redis://127.0.0.1:{closed_port()}/0"} if command[0] == "worker" else {}
    res = run(args, f"postgresql+psycopg://u:secret@127.0.0.1:{port}/x", timeout=60, **extra)
    _one_line_failure(res, f"127.0.0.1:{port}")
    assert "MEMWORKS_DATABASE_URL" in res.stderr and "u:***@" in res.stderr


def test_an_unopenable_sqlite_file_is_one_line(tmp_path: Path) -> None:
    res = run(["memories", "--tenant", "t1", "--user", "u1"], f"sqlite:///{tmp_path}/no/such/dir/m.db")
    _one_line_failure(res, "no/such/dir")


@pytest.mark.parametrize(
    "command",
    [["worker", "--processes", "1"], ["api", "--port", "1"]],
    ids=lambda c: c[0],
)
def test_an_unreachable_redis_is_one_line(tmp_path: Path, command: list[str]) -> None:
    port = closed_port()
    res = run(command, tmp_path / "m.db", timeout=60, MEMWORKS_BROKER_URL=f"redis://:secret@127.0.0.1:{port}/0")
    _one_line_failure(res, f"127.0.0.1:{port}")
    assert "MEMWORKS_BROKER_URL" in res.stderr


def test_a_read_goes_on_without_the_caches_redis_and_warns_once(tmp_path: Path) -> None:
    # The read cache defaults to the broker's Redis: a read needs neither, so it answers from
    # the in-process cache and says so in one warning.
    port = closed_port()
    res = run(
        ["retrieve", "--tenant", "t1", "--user", "u1", "Where?"],
        tmp_path / "m.db",
        timeout=60,
        MEMWORKS_BROKER_URL=f"redis://:secret@127.0.0.1:{port}/0",
    )
    assert res.returncode == 0, res.stderr
    warnings = [line for line in res.stderr.splitlines() if "cache.redis_unreachable" in line]
    assert len(warnings) == 1 and "in-process" in warnings[0] and "secret" not in res.stderr


def test_a_bad_setting_is_one_line_naming_it(tmp_path: Path) -> None:
    res = run(["memories", "--tenant", "t1", "--user", "u1"], tmp_path / "m.db", MEMWORKS_LOG_LEVEL="loud")
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1
    assert "MEMWORKS_LOG_LEVEL" in res.stderr


# -- episodes stuck by an outage are sent again ---------------------------------------------


def _stuck(tmp_path: Path) -> tuple[Path, Path]:
    """Episodes stored while the broker was down: the ingest failed after storing them."""
    db, f = tmp_path / "m.db", write_jsonl(tmp_path / "e.jsonl", STORY)
    res = run(["ingest", str(f)], db, MEMWORKS_BROKER_URL=f"redis://127.0.0.1:{closed_port()}/0")
    _one_line_failure(res, "127.0.0.1:")
    assert "run the same command again" in res.stderr
    assert memories(db) == []  # stored, never processed
    return db, f


def test_ingest_again_resends_stored_but_unprocessed_episodes(tmp_path: Path) -> None:
    db, f = _stuck(tmp_path)
    # When the same file is ingested again (the broker back), Then both are sent again and it says so
    res = run_here(["ingest", str(f)], db)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "0 episodes queued, 2 already known, 2 re-sent (stored but not yet processed)"
    assert any(m["value"] == "Lisbon" for m in memories(db))
    # ... and a third time there is nothing left to re-send
    again = run_here(["ingest", str(f), "--json"], db)
    assert json.loads(again.stdout) == {"file": str(f), "accepted": 0, "duplicates": 2, "resent": 0}


def test_scheduler_start_resends_stuck_episodes(tmp_path: Path) -> None:
    db, _ = _stuck(tmp_path)
    env = dict(os.environ, MEMWORKS_DATABASE_URL=f"sqlite:///{db}", MEMWORKS_BROKER_URL="stub://")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memworks.cli", "scheduler", "--resend-older-than", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("scheduler running:")  # printed once the re-sent work is done
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()
    assert any(m["value"] == "Lisbon" for m in memories(db))


def test_worker_start_resends_stuck_episodes(tmp_path: Path, redis_url: str) -> None:
    db, _ = _stuck(tmp_path)
    env = dict(os.environ, MEMWORKS_DATABASE_URL=f"sqlite:///{db}", MEMWORKS_BROKER_URL=redis_url)
    log = (tmp_path / "worker.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memworks.cli",
            "worker",
            "--processes",
            "1",
            "--threads",
            "1",
            "--resend-older-than",
            "0",
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        while not any(m["value"] == "Lisbon" for m in memories(db)):
            assert proc.poll() is None, (tmp_path / "worker.log").read_text()
            assert time.monotonic() < deadline, "the worker did not re-send the stuck episodes"
            time.sleep(0.5)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        log.close()


# -- every bad line of a file, with its number and field --------------------------------------


def test_ingest_reports_every_bad_line_and_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    rows: list[Any] = [
        STORY[0],
        "{not json",
        dict(STORY[1], occurred_at="2025-01-07 09:00"),
        "",
        dict(episode(3, "x"), source="gossip"),
        episode(4, "I have a cat."),
        "[1]",
    ]
    f = write_jsonl(tmp_path / "e.jsonl", rows)
    res = run_here(["ingest", str(f)], db)
    assert res.returncode == 2
    for where in (":2: not valid JSON", ":3: field 'occurred_at'", ":5: field 'source'", ":7: each line must be"):
        assert where in res.stderr, res.stderr
    assert "4 bad lines, nothing stored" in res.stderr
    # With --json the errors are JSON too
    out = run_here(["ingest", str(f), "--json"], db)
    assert out.returncode == 2
    error = json.loads(out.stdout)["error"]
    assert error["code"] == "invalid_input" and error["bad_lines"] == 4
    assert [(e["line"], e["field"]) for e in error["errors"]] == [
        (2, "line"),
        (3, "occurred_at"),
        (5, "source"),
        (7, "line"),
    ]
    assert memories(db) == []


def test_ingest_lists_the_first_fifty_bad_lines(tmp_path: Path) -> None:
    f = write_jsonl(tmp_path / "e.jsonl", [dict(episode(n, "hi"), role="robot") for n in range(1, 61)])
    out = run_here(["ingest", str(f), "--json"], tmp_path / "m.db")
    error = json.loads(out.stdout)["error"]
    assert out.returncode == 2 and error["bad_lines"] == 60
    assert [e["line"] for e in error["errors"]] == list(range(1, 51))
    assert "... and 10 more" in out.stderr


# -- logs: answers on the terminal, log lines when asked for ----------------------------------


def test_demo_prints_no_log_lines_by_default(tmp_path: Path) -> None:
    res = run(["demo"], tmp_path / "unused.db")
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""


def test_log_level_and_format_are_settings(tmp_path: Path) -> None:
    f = write_jsonl(tmp_path / "e.jsonl", STORY)
    quiet = run(["ingest", str(f)], tmp_path / "a.db")
    assert quiet.returncode == 0 and quiet.stderr == ""
    # stderr is no terminal here: JSON lines by default ...
    loud = run(["ingest", str(f)], tmp_path / "b.db", MEMWORKS_LOG_LEVEL="INFO")
    events = [json.loads(line) for line in loud.stderr.splitlines()]
    assert any(e["event"] == "extraction.done" and e["level"] == "info" for e in events)
    # ... and console lines when forced
    console = run(["ingest", str(f)], tmp_path / "c.db", MEMWORKS_LOG_LEVEL="info", MEMWORKS_LOG_FORMAT="console")
    assert "extraction.done" in console.stderr and not console.stderr.lstrip().startswith("{")


@pytest.mark.parametrize(
    ("level", "fmt", "tty", "expected"),
    [
        (None, "auto", True, (logging.WARNING, True)),
        (None, "auto", False, (logging.WARNING, False)),
        ("debug", "json", True, (logging.DEBUG, False)),
        ("error", "console", False, (logging.ERROR, True)),
    ],
)
def test_log_options(level: str | None, fmt: str, tty: bool, expected: tuple[int, bool]) -> None:
    from memworks.config import Settings
    from memworks.logging import log_options

    settings = Settings(log_level=level, log_format=fmt)
    assert log_options(settings, logging.WARNING, tty=tty) == expected
