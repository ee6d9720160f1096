"""The package type-checks under the strict mypy settings in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_strict_passes() -> None:
    mypy = Path(sys.executable).with_name("mypy")
    result = subprocess.run(
        [str(mypy), "memworks", "memworks_tools"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, f"mypy failed:\n{result.stdout}\n{result.stderr}"
