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


def _calls(path: Path, name: str) -> list[int]:
    import ast

    tree = ast.parse(path.read_text())
    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and (
            (isinstance(n.func, ast.Name) and n.func.id == name)
            or (isinstance(n.func, ast.Attribute) and n.func.attr == name)
        )
    ]


def test_transactions_are_opened_in_services_only() -> None:
    """A use case is written in ``memworks.services``: no other layer of the runtime opens a
    transaction (``session_scope``); the store's functions take the session they work in."""
    services = ROOT / "memworks" / "services"
    opened = {
        f"{p.relative_to(ROOT)}:{line}"
        for p in (ROOT / "memworks").rglob("*.py")
        if services not in p.parents
        for line in _calls(p, "session_scope")
    }
    assert not opened, f"transactions opened outside memworks.services: {sorted(opened)}"


#: Modules (``__init__`` included) one folder may hold side by side before it needs subpackages.
MAX_MODULES_PER_FOLDER = 15


def test_no_folder_holds_more_modules_than_a_reader_can_scan() -> None:
    """Families of modules are subpackages (``pipelines/extraction/open_vocab/``, ...), not prefixes."""
    crowded = {
        str(d.relative_to(ROOT)): n
        for pkg in ("memworks", "memworks_tools")
        for d in [ROOT / pkg, *(ROOT / pkg).rglob("*")]
        if d.is_dir() and "migrations" not in d.parts and (n := len(list(d.glob("*.py")))) > MAX_MODULES_PER_FOLDER
    }
    assert not crowded, f"folders with more than {MAX_MODULES_PER_FOLDER} modules: {crowded}"


#: Lines an actor's body may have (after its docstring): it carries a message to a service.
MAX_ACTOR_LINES = 20


def test_every_actor_is_a_thin_carrier_of_its_message() -> None:
    """An actor validates nothing it need not, times and records nothing (the job-run middleware
    does), and calls its service: at most :data:`MAX_ACTOR_LINES` lines of body."""
    import ast
    import inspect
    import textwrap

    import memworks.workers  # noqa: F401  (declares every actor)
    from memworks.workers.broker import _actors

    long = {}
    for actor in _actors:
        fn = ast.parse(textwrap.dedent(inspect.getsource(actor.fn))).body[0]
        assert isinstance(fn, ast.FunctionDef)
        body = fn.body[1:] if ast.get_docstring(fn) else fn.body
        lines = (body[-1].end_lineno or 0) - body[0].lineno + 1
        if lines > MAX_ACTOR_LINES:
            long[actor.actor_name] = lines
    assert len(_actors) >= 12 and not long, f"actors over {MAX_ACTOR_LINES} lines: {long}"
