"""`memworks doctor` and the refusal of an unmigrated database, on the machine's PostgreSQL and Redis.

The doctor reads and never repairs; every other command that works on the configured database
refuses one whose schema is not this code's, in one line naming `memworks db upgrade`.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memworks.cli import main
from memworks.config import Settings, get_settings
from tests.factories import episode

pytestmark = pytest.mark.integration


@pytest.fixture
def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Iterator[Any]:
    """Run `memworks ARGS` in this process with MEMWORKS_* set; returns (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)  # no stray .env is read

    def run(args: list[str], **env: str) -> tuple[int, str, str]:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        get_settings.cache_clear()
        code = main(args)
        got = capsys.readouterr()
        return code, got.out, got.err

    yield run
    get_settings.cache_clear()


def run_process(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memworks.cli", *args],
        env={**os.environ, "MEMWORKS_EXTRACTOR": "rules", **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=90,
    )


def lines_of(out: str) -> dict[str, str]:
    """The doctor's lines by check name ("ok      database: …" → {"database": "ok      database: …"})."""
    return {line[8:].split(":", 1)[0]: line for line in out.splitlines() if ":" in line}


def test_a_healthy_embedded_install_passes_without_touching_the_network(
    run_cli: Any, sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a migrated SQLite store on the embedded defaults
    assert run_cli(["db", "upgrade"], MEMWORKS_DATABASE_URL=sqlite_url, MEMWORKS_BROKER_URL="stub://")[0] == 0

    # When the doctor runs with every outgoing connection refused
    def no_network(self: socket.socket, address: Any) -> None:
        raise OSError(f"network used: {address}")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    code, out, _ = run_cli(["doctor"])

    # Then every check passes, one line each, the models loaded from local files alone
    assert code == 0, out
    checks = lines_of(out)
    for name in ("database", "broker", "cache", "embedding model", "parser model", "dead letters"):
        assert checks[name].startswith("ok "), out
    assert "stuck episodes" in checks and "failed deletions" in checks
    assert "embedded in-process queue" in checks["broker"]
    assert out.rstrip().endswith("healthy")


def test_an_empty_sqlite_file_fails_naming_db_upgrade_and_stays_empty(run_cli: Any, tmp_path: Path) -> None:
    # Given an empty SQLite file (as `touch` leaves it)
    db = tmp_path / "empty.db"
    db.touch()
    code, out, _ = run_cli(["doctor"], MEMWORKS_DATABASE_URL=f"sqlite:///{db}", MEMWORKS_BROKER_URL="stub://")
    # Then the database line is a problem naming the fix, the checks needing tables are skipped
    assert code == 1
    checks = lines_of(out)
    assert checks["database"].startswith("PROBLEM") and "run `memworks db upgrade`" in checks["database"]
    assert checks["stuck episodes"].startswith("skipped")
    with closing(sqlite3.connect(db)) as conn:  # the doctor migrated nothing
        assert conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall() == []


def test_a_missing_sqlite_file_is_reported_not_created(run_cli: Any, tmp_path: Path) -> None:
    db = tmp_path / "nowhere.db"
    code, out, _ = run_cli(["doctor"], MEMWORKS_DATABASE_URL=f"sqlite:///{db}", MEMWORKS_BROKER_URL="stub://")
    assert code == 1 and "no database file" in lines_of(out)["database"]
    assert not db.exists()
    # db current and db history read the state too, and leave no file behind either
    code, out, _ = run_cli(["db", "current"], MEMWORKS_DATABASE_URL=f"sqlite:///{db}")
    assert code == 1 and "missing" in out and "memworks db upgrade" in out
    code, out, _ = run_cli(["db", "history"], MEMWORKS_DATABASE_URL=f"sqlite:///{db}")
    assert code == 0 and "0001" in out and "*" not in out
    assert not db.exists()


def test_a_fresh_postgresql_database_fails_then_passes_after_db_upgrade(
    run_cli: Any, pg_url: str, redis_url: str
) -> None:
    env = {"MEMWORKS_DATABASE_URL": pg_url, "MEMWORKS_BROKER_URL": redis_url, "MEMWORKS_EXTRACTOR": "rules"}
    code, out, _ = run_cli(["doctor"], **env)
    assert code == 1
    assert "no memworks schema" in out and "run `memworks db upgrade`" in lines_of(out)["database"]
    assert lines_of(out)["broker"].startswith("ok ") and "Redis answers" in lines_of(out)["broker"]

    code, out, _ = run_cli(["db", "upgrade"])
    assert code == 0 and "migrated from an empty database to revision" in out, out
    code, out, _ = run_cli(["db", "upgrade"])
    assert code == 0 and "is current" in out and "nothing to migrate" in out, out
    code, out, _ = run_cli(["doctor", "--json"])
    report = json.loads(out)
    assert code == 0 and report["healthy"] is True, out
    assert {c["name"]: c["verdict"] for c in report["checks"]} == {
        "database": "ok",
        "broker": "ok",
        "cache": "ok",
        "embedding model": "ok",
        "dead letters": "ok",
        "stuck episodes": "ok",
        "failed deletions": "ok",
    }


def test_a_database_behind_the_newest_migration_names_db_upgrade(run_cli: Any, pg_url: str) -> None:
    from memworks.store.sql.db import upgrade

    upgrade(pg_url, "0009")
    code, out, _ = run_cli(["doctor"], MEMWORKS_DATABASE_URL=pg_url, MEMWORKS_BROKER_URL="stub://")
    assert code == 1
    assert "at migration 0009, behind" in out and "run `memworks db upgrade`" in lines_of(out)["database"]


def test_work_left_behind_is_each_a_problem_with_its_fix(run_cli: Any, pg_url: str, redis_url: str) -> None:
    import redis

    from memworks.client import Memworks
    from memworks.models.tables import DeletionRequest
    from memworks.store.sql.db import session_scope, upgrade

    # Given an episode queued with no worker running, a dead letter and a failed deletion
    upgrade(pg_url)
    with Memworks(Settings(database_url=pg_url, broker_url=redis_url, extractor="rules")) as mw:
        mw.enqueue_episodes([episode(1, "I live in Lisbon.")])
        with session_scope(mw.runtime.engine) as s:
            s.add(
                DeletionRequest(
                    request_id="req-failed", tenant_id="t1", user_id="u1", status="failed", created_at=datetime.now(UTC)
                )
            )
    client = redis.Redis.from_url(redis_url)
    client.hset("dramatiq:extraction.XQ.msgs", "dead-1", json.dumps({"actor_name": "extract_memories", "args": [[1]]}))
    client.close()

    # When the doctor calls anything received at all ago stuck
    env = {"MEMWORKS_DATABASE_URL": pg_url, "MEMWORKS_BROKER_URL": redis_url, "MEMWORKS_EXTRACTOR": "rules"}
    code, out, _ = run_cli(["doctor", "--stuck-after", "0"], **env)

    # Then each is one problem line naming what to run
    assert code == 1
    checks = lines_of(out)
    assert checks["database"].startswith("ok ")
    assert "1 message failed" in checks["dead letters"] and "memworks dead-letters retry" in checks["dead letters"]
    assert "1 episode received" in checks["stuck episodes"] and "memworks sweep" in checks["stuck episodes"]
    assert "req-failed" in checks["failed deletions"] and "memworks deletions resume" in checks["failed deletions"]
    assert out.rstrip().endswith("3 problems found")


def test_an_unreachable_cache_redis_is_a_problem(run_cli: Any, sqlite_url: str, closed_port: int) -> None:
    assert run_cli(["db", "upgrade"], MEMWORKS_DATABASE_URL=sqlite_url, MEMWORKS_BROKER_URL="stub://")[0] == 0
    code, out, _ = run_cli(["doctor"], MEMWORKS_CACHE_URL=f"redis://127.0.0.1:{closed_port}/0")
    assert code == 1
    assert lines_of(out)["cache"].startswith("PROBLEM") and "MEMWORKS_CACHE_URL" in lines_of(out)["cache"]


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- commands refuse an unmigrated database ----------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["memories", "--tenant", "t1", "--user", "u1"],
        ["keys", "create", "--tenant", "t1"],
        ["worker", "--processes", "1"],
        ["api", "--port", "{port}"],
        ["scheduler"],
    ],
    ids=["memories", "keys-create", "worker", "api", "scheduler"],
)
def test_commands_refuse_an_unmigrated_database_in_one_line(
    args: list[str], pg_url: str, redis_url: str, tmp_path: Path, closed_port: int
) -> None:
    # Were the API to start serving, it would hold the process until the timeout: the test fails then too.
    args = [a.replace("{port}", str(closed_port)) for a in args]
    res = run_process(args, tmp_path, MEMWORKS_DATABASE_URL=pg_url, MEMWORKS_BROKER_URL=redis_url)
    assert res.returncode == 1, res.stdout + res.stderr
    err = res.stderr.strip().splitlines()
    assert len(err) == 1, res.stderr
    assert "no memworks schema" in err[0] and "run `memworks db upgrade`" in err[0]
    assert "Traceback" not in res.stderr and "sqlalchemy" not in res.stderr.lower()


def test_the_api_refuses_to_start_on_an_unmigrated_database(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from fastapi.testclient import TestClient

    from memworks.api import create_app
    from memworks.errors import MemworksError

    monkeypatch.setenv("MEMWORKS_DATABASE_URL", pg_url)
    monkeypatch.setenv("MEMWORKS_BROKER_URL", "stub://")
    get_settings.cache_clear()
    try:
        with pytest.raises(MemworksError, match="run `memworks db upgrade`"), TestClient(create_app()):
            pass
    finally:
        get_settings.cache_clear()


def test_healthz_reports_the_schema_state(pg_url: str) -> None:
    from fastapi.testclient import TestClient

    from memworks.api import create_app
    from memworks.client import Memworks
    from memworks.store.sql.db import upgrade

    with Memworks(Settings(database_url=pg_url, broker_url="stub://")) as mw:
        client = TestClient(create_app(mw))  # no lifespan: it would refuse this database

        def health() -> tuple[int, dict[str, Any]]:
            r = client.get("/healthz")
            return r.status_code, r.json()

        assert health() == (503, {"status": "unavailable", "database": "ok", "schema": "missing"})
        upgrade(pg_url, "0009")
        assert health() == (503, {"status": "unavailable", "database": "ok", "schema": "behind"})
        upgrade(pg_url)
        assert health() == (200, {"status": "ok", "database": "ok", "schema": "current"})
