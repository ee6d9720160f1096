"""The tooling commands say which extra to install when its libraries are missing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys
sys.modules["matplotlib"] = None  # as if the eval extra were not installed
from memworks.cli import main
sys.exit(main(["eval", "lessons", "--out", sys.argv[1]]))
"""


def test_eval_without_the_extra_names_it(tmp_path: Path) -> None:
    # Given an install without matplotlib, When `memworks eval lessons` runs (the quickest
    # evaluation that plots: it reaches the missing import in seconds),
    # Then it exits 1 with one line naming the eval extra, not a traceback
    env = {"MEMWORKS_DATABASE_URL": f"sqlite:///{tmp_path / 'm.db'}", "PATH": "/usr/bin:/bin"}
    res = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "out")], capture_output=True, text=True, env=env, timeout=120
    )
    assert res.returncode == 1, res.stderr
    assert "memworks[eval]" in res.stderr
    assert "Traceback" not in res.stderr
