"""The image carries the tooling: demo, eval, bench and chaos run inside it."""

from __future__ import annotations

import shlex
from pathlib import Path

DOCKERFILE = Path(__file__).resolve().parents[2] / "Dockerfile"


def instructions() -> list[tuple[str, list[str]]]:
    """(instruction, its words) for each line of the Dockerfile, comments and blanks left out."""
    out = []
    for line in DOCKERFILE.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            word, _, rest = line.strip().partition(" ")
            out.append((word.upper(), shlex.split(rest)))
    return out


def test_memworks_tools_is_copied_before_the_package_is_installed_with_its_extra() -> None:
    steps = instructions()
    copies = [i for i, (word, args) in enumerate(steps) if word == "COPY" and args[0] == "memworks_tools"]
    installs = [i for i, (word, args) in enumerate(steps) if word == "RUN" and args[:2] == ["pip", "install"]]
    assert copies, "the Dockerfile never copies memworks_tools"
    assert installs, "the Dockerfile never runs pip install"
    assert copies[0] < installs[0], "memworks_tools must be in place when the package is installed"
    assert steps[copies[0]][1][1].rstrip("/") in ("./memworks_tools", "memworks_tools", "/app/memworks_tools")
    # eval, bench and chaos import the eval extra's libraries
    assert any(arg.startswith(".[") and "eval" in arg for arg in steps[installs[0]][1])
