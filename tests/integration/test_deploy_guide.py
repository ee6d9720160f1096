"""docs/deploy.md, walked as written where no container engine is needed.

The guide's steps run on the machine's PostgreSQL (a fresh database) and Redis (a database of
this test process's own), with the `memworks` commands the compose services run: the migration,
the first key, a worker and the API as processes of their own, an ingest and a read over HTTP,
then a pg_dump restored into a new database that `memworks doctor` passes and that answers the
same read. Every `memworks …` command the guide and the compose file show must exist.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "deploy.md"
COMPOSE = ROOT / "docker-compose.yml"
MEMWORKS = str(Path(sys.executable).parent / "memworks")


def _memworks_commands(text: str) -> list[list[str]]:
    """Every `memworks …` command in ``text``: in its bash blocks and its inline code, as words."""
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    lines = [ln for b in blocks for ln in b.splitlines()] + re.findall(r"`(memworks [^`]+)`", text)
    found = []
    for line in lines:
        for at in (m.start() for m in re.finditer(r"(?<![\w/.-])memworks (?=[a-z])", line)):
            command = re.split(r"[#<>|&;:]", line[at:])[0]
            words = shlex.split(command.replace('"', " ").replace("'", " "))
            found.append(words)
    return found


def _subcommand(words: list[str]) -> list[str]:
    """The command's path of subcommands ("memworks keys create"), without its options."""
    path = [words[0]]
    for w in words[1:]:
        if w.startswith("-") or not re.fullmatch(r"[a-z]+", w):
            break
        path.append(w)
    return path


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MEMWORKS, *args], env=env, capture_output=True, text=True, timeout=180)


def test_every_memworks_command_the_guide_and_compose_show_exists() -> None:
    guide = [w for w in _memworks_commands(GUIDE.read_text()) if w[1] in {"db", "keys", "doctor", "worker", "api"}]
    compose = yaml.safe_load(COMPOSE.read_text())
    services = [s["command"] for s in compose["services"].values() if s.get("command", [""])[0] == "memworks"]
    assert len(guide) >= 8 and len(services) >= 4
    for words in [*guide, *services]:
        path = _subcommand(words)
        res = subprocess.run([MEMWORKS, *path[1:], "--help"], capture_output=True, text=True, timeout=60)
        assert res.returncode == 0, (words, res.stderr)
        for option in (w.split("=")[0] for w in words if w.startswith("--")):
            assert option in res.stdout, (words, option)


def test_the_compose_file_takes_its_secrets_from_the_environment() -> None:
    text = COMPOSE.read_text()
    compose = yaml.safe_load(text)
    assert "memworks:memworks@" not in text and "POSTGRES_PASSWORD: memworks" not in text
    assert compose["services"]["postgres"]["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")
    assert "${POSTGRES_PASSWORD" in compose["x-memworks"]["environment"]["MEMWORKS_DATABASE_URL"]
    assert compose["services"]["api"]["ports"] == ["127.0.0.1:8000:8000"]  # TLS is the proxy's
    assert "POSTGRES_PASSWORD=" in (ROOT / ".env.example").read_text()
    assert ".env" in (ROOT / ".gitignore").read_text().split()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _libpq(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@pytest.fixture
def restored_url(pg_admin: Any, pg_url: str) -> Iterator[str]:
    """The name of a second database for the restore, dropped afterwards."""
    from sqlalchemy import text

    name = f"memworks_r_{uuid.uuid4().hex[:12]}"
    yield pg_url.rsplit("/", 1)[0] + "/" + name
    with pg_admin.connect() as c:
        c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def _start(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [MEMWORKS, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)


def _until(what: str, probe: Any, seconds: float = 90) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if (got := probe()) is not None:
                return got
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    pytest.fail(f"not within {seconds:.0f} s: {what}")


@pytest.mark.timeout(400)
def test_the_guide_walked_on_the_machines_services(
    pg_url: str, redis_url: str, restored_url: str, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "MEMWORKS_DATABASE_URL": pg_url,
        "MEMWORKS_BROKER_URL": redis_url,
        "MEMWORKS_CACHE_URL": redis_url,
        "MEMWORKS_QUEUE_NAMESPACE": f"deploy{uuid.uuid4().hex[:8]}",
    }
    # Before the migration: doctor names the problem, db current says so
    before = _run(env, "doctor")
    assert before.returncode != 0 and "memworks db upgrade" in before.stdout, before.stdout
    assert _run(env, "db", "current").returncode != 0

    # 2. Start: the one-shot migration, then the state it leaves
    up = _run(env, "db", "upgrade")
    assert up.returncode == 0 and "migrated from an empty database to revision" in up.stdout, up.stdout + up.stderr
    current = _run(env, "db", "current")
    assert current.returncode == 0 and "current" in current.stdout
    assert re.search(r"^\* \d{4} ", _run(env, "db", "history").stdout, re.M)

    # 3. The first tenant key
    made = _run(env, "keys", "create", "--tenant", "acme", "--label", "first key", "--json")
    assert made.returncode == 0, made.stderr
    key = json.loads(made.stdout)["key"]

    port = _free_port()
    worker = _start(env, "worker", "--processes", "1", "--threads", "2")
    api = _start(env, "api", "--port", str(port))
    try:
        base = f"http://127.0.0.1:{port}"
        health = _until("the API is healthy", lambda: httpx.get(f"{base}/healthz", timeout=5).json())
        assert health == {"status": "ok", "database": "ok", "schema": "current"}

        # 4. Try it: the guide's two calls
        auth = {"Authorization": f"Bearer {key}"}
        episode = {
            "episode_id": "e1",
            "user_id": "maya",
            "session_id": "s1",
            "turn": 1,
            "role": "user",
            "source": "user",
            "content": "I moved to Berlin two weeks ago.",
            "occurred_at": "2025-03-15T09:00:00+00:00",
        }
        assert httpx.post(f"{base}/v1/episodes", json=episode, headers=auth, timeout=30).status_code == 202

        def berlin() -> dict[str, Any] | None:
            body = {"user_id": "maya", "query": "Where do I live?"}
            got = httpx.post(f"{base}/v1/retrieve", json=body, headers=auth, timeout=30).json()
            return got if any("Berlin" in h["text"] for h in got.get("hits", [])) else None

        _until("the worker has turned the episode into memory", berlin)
    finally:
        _stop(api)
        _stop(worker)

    # 7. Backup and restore into a new database, which doctor passes and which answers the read
    dump = tmp_path / "memworks.dump"
    subprocess.run(["pg_dump", "-Fc", "-f", str(dump), _libpq(pg_url)], check=True, timeout=120)
    admin = _libpq(pg_url).rsplit("/", 1)[0] + "/postgres"
    name = restored_url.rsplit("/", 1)[1]
    subprocess.run(["psql", "-q", admin, "-c", f'CREATE DATABASE "{name}"'], check=True, timeout=60)
    subprocess.run(["pg_restore", "--no-owner", "-d", _libpq(restored_url), str(dump)], check=True, timeout=120)
    restored = {**env, "MEMWORKS_DATABASE_URL": restored_url}
    doctor = _run(restored, "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    read = _run(restored, "retrieve", "--tenant", "acme", "--user", "maya", "--json", "Where do I live?")
    assert read.returncode == 0 and "Berlin" in read.stdout, read.stdout + read.stderr
