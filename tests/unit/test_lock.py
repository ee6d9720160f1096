"""The install is the one tested: constraints.txt pins every package, the README's commands and
the image install from it, and the image holds the whole product (memworks_tools included)."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pins() -> dict[str, str]:
    lines = (ROOT / "constraints.txt").read_text().splitlines()
    pairs = [ln.split("==", 1) for ln in lines if ln.strip() and not ln.startswith("#")]
    assert all(len(p) == 2 for p in pairs), "every line of constraints.txt is name==version"
    return {re.sub(r"[-_.]+", "-", name).lower(): version for name, version in pairs}


def test_every_installed_package_is_the_pinned_version() -> None:
    pins = _pins()
    installed = {
        re.sub(r"[-_.]+", "-", d.metadata["Name"]).lower(): d.version
        for d in metadata.distributions()
        if d.metadata["Name"] and d.metadata["Name"].lower() not in {"memworks", "pip", "setuptools", "wheel"}
    }
    wrong = {n: (installed[n], v) for n, v in pins.items() if n in installed and installed[n] != v}
    assert not wrong, f"installed (version, pinned) differ from constraints.txt: {wrong}"
    # The test extra installs (nearly) every pin; an extra package of one's own is no error.
    assert len(pins.keys() & installed.keys()) >= 0.95 * len(pins)


def test_the_commands_and_the_image_install_from_the_lock() -> None:
    readme = (ROOT / "README.md").read_text()
    assert readme.count("pip install -c constraints.txt") + readme.count("pip install -q -c constraints.txt") >= 2
    assert "-c constraints.txt" in (ROOT / ".ci" / "run").read_text()
    docker = (ROOT / "Dockerfile").read_text()
    assert "constraints.txt" in docker and "-c constraints.txt" in docker
    assert "COPY memworks_tools" in docker and '".[eval]"' in docker
