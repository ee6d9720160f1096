"""Inside someone's application memworks is a library: it logs through ``logging`` and prints
nothing the application did not ask for (no JSON lines, no warnings about actors' results)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

APP = """
import logging, sys
from memworks.client import Memworks
from memworks.models.schemas import Scope

with Memworks.from_settings() as mw:
    mw.enqueue_episodes([{"tenant_id": "t", "user_id": "u", "session_id": "s", "turn": 1, "episode_id": "e1",
                          "role": "user", "source": "user", "content": "I live in Lisbon.",
                          "occurred_at": "2025-01-01T00:00:00Z"}])
    mw.drain()
    print(mw.retrieve(Scope(tenant_id="t", user_id="u"), "Where do I live?").hits[0].text)
    if sys.argv[1:] == ["verbose"]:  # the application asks for memworks' info lines
        logging.basicConfig(level=logging.INFO, stream=sys.stderr)
        mw.enqueue_episodes([{"tenant_id": "t", "user_id": "u", "session_id": "s", "turn": 2, "episode_id": "e2",
                              "role": "user", "source": "user", "content": "I work at Contoso.",
                              "occurred_at": "2025-01-02T00:00:00Z"}])
        mw.drain()
"""


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMWORKS_DATABASE_URL": f"sqlite:///{tmp_path}/m.db", "MEMWORKS_BROKER_URL": "stub://"}
    env.pop("MEMWORKS_LOG_LEVEL", None)
    return subprocess.run(
        [sys.executable, "-c", APP, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300
    )


def test_an_application_using_the_library_sees_only_its_own_output(tmp_path: Path) -> None:
    res = _run(tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "User lives in Lisbon.\n"
    assert res.stderr == ""


def test_an_application_that_configures_logging_gets_memworks_lines(tmp_path: Path) -> None:
    res = _run(tmp_path, "verbose")
    assert res.returncode == 0, res.stderr
    assert '"event": "extraction.done"' in res.stderr and '"event": "job.done"' in res.stderr
