"""Imports flow one way and pipelines stay pure (the import-linter contracts in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts_are_kept() -> None:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    res = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "0 broken" in res.stdout


def _modules() -> list[Path]:
    return sorted(p for pkg in ("memworks", "memworks_tools") for p in (ROOT / pkg).rglob("*.py"))


def test_no_import_circle_between_modules() -> None:
    """No two modules import each other, directly or through others (function-level imports too).

    A package's ``__init__`` re-exporting its own modules is not a circle of design, so edges into
    a package from its own submodules are left out.
    """
    import grimp

    graph = grimp.build_graph("memworks", "memworks_tools")
    modules = sorted(graph.modules)

    def imports(m: str) -> set[str]:
        return {t for t in graph.find_modules_directly_imported_by(m) if not m.startswith(t + ".")}

    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in imports(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for m in modules:
        if m not in index:
            visit(m)
    assert circles == []
