"""The compose file validates, and describes the deployment the README promises."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[2]


def _config(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("docker-compose") or str(Path(sys.executable).parent / "docker-compose")
    return subprocess.run(
        [exe, "-f", str(ROOT / "docker-compose.yml"), "config", "--quiet"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=ROOT / "docs",  # no .env of a developer's own is read
    )


def test_compose_file_validates() -> None:
    env = {k: v for k, v in os.environ.items() if k != "POSTGRES_PASSWORD"}
    res = _config({**env, "POSTGRES_PASSWORD": "a-secret-from-the-environment"})
    assert res.returncode == 0, res.stderr
    # Without the secret, compose refuses and says which variable to set.
    refused = _config(env)
    assert refused.returncode != 0 and "POSTGRES_PASSWORD" in refused.stderr


def test_compose_services_match_the_scaling_story() -> None:
    spec = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = spec["services"]
    assert {"redis", "postgres", "migrate", "api", "worker", "scheduler"} <= services.keys()
    assert "--appendonly" in services["redis"]["command"]
    for name in ("api", "worker", "scheduler"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["scheduler"]["deploy"]["replicas"] == 1
    assert "deletion" in services["deletion-worker"]["command"]
