"""The code is formatted and linted by ruff, as configured in pyproject.toml."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PATHS = ["memworks", "memworks_tools", "tests"]


def _ruff() -> str:
    return shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")


def test_code_is_formatted() -> None:
    res = subprocess.run([_ruff(), "format", "--check", *PATHS], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


def test_code_passes_the_linter() -> None:
    res = subprocess.run([_ruff(), "check", *PATHS], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
