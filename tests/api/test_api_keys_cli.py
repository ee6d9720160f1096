"""``memworks keys`` and ``memworks api`` as an operator runs them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest


@pytest.fixture
def run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[Callable[..., Any]]:
    """``run([...])`` → (exit status, stdout, stderr) of ``memworks ...`` in this process."""
    from memworks.cli import main
    from memworks.config import get_settings

    monkeypatch.setenv("MEMWORKS_DATABASE_URL", f"sqlite:///{tmp_path / 'memworks.db'}")
    get_settings.cache_clear()

    def run(args: list[str]) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            code = main(args)
        except SystemExit as exc:
            code = int(exc.code or 0)
        out = capsys.readouterr()
        return code, out.out, out.err

    yield run
    get_settings.cache_clear()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_keys_create_serve_and_revoke(tmp_path: Path, run: Callable[..., Any]) -> None:
    db = tmp_path / "memworks.db"
    # Given a tenant key and an end-user key made on the command line (the secret shown once)
    code, out, err = run(["keys", "create", "--tenant", "acme", "--label", "agent", "--json"])
    assert code == 0, err
    key = json.loads(out)
    assert set(key) >= {"key_id", "key"} and key["key"].startswith("mw_") and key["tenant_id"] == "acme"
    user_key = json.loads(run(["keys", "create", "--tenant", "acme", "--user", "maya", "--json"])[1])
    assert user_key["user_id"] == "maya"
    listed = json.loads(run(["keys", "list", "--tenant", "acme", "--json"])[1])
    assert {k["key_id"] for k in listed} == {key["key_id"], user_key["key_id"]} and key["key"] not in json.dumps(listed)
    code, _, err = run(["keys", "create", "--tenant", "not a tenant"])
    assert code == 2 and "tenant_id" in err

    # When the API is served on that database
    port = free_port()
    env = dict(os.environ, MEMWORKS_DATABASE_URL=f"sqlite:///{db}", MEMWORKS_BROKER_URL="stub://")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memworks.cli", "api", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline and proc.poll() is None, "memworks api did not start"
            time.sleep(0.1)
        auth = {"Authorization": f"Bearer {key['key']}"}
        episode = {
            "episode_id": "e1",
            "user_id": "maya",
            "session_id": "s1",
            "turn": 1,
            "role": "user",
            "source": "user",
            "content": "I live in Lisbon.",
            "occurred_at": "2025-01-06T09:00:00+00:00",
        }
        assert httpx.post(f"{url}/v1/episodes", json=episode, headers=auth).status_code == 202
        # Then a write is visible to the next read (the embedded queue was drained before the answer)
        hits = httpx.post(
            f"{url}/v1/retrieve",
            json={"query": "Where do I live?", "k": 1},
            headers={"Authorization": f"Bearer {user_key['key']}"},
        ).json()["hits"]
        assert [h["value"] for h in hits] == ["Lisbon"]
        # ... and a revoked key is refused at once
        code, out, _ = run(["keys", "revoke", key["key_id"], "--json"])
        assert code == 0 and json.loads(out)["revoked_at"]
        assert httpx.get(f"{url}/v1/lessons", headers=auth).status_code == 401
        assert run(["keys", "revoke", "no-such-key"])[0] == 2
    finally:
        proc.terminate()
        proc.wait(timeout=30)
