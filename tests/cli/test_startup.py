"""A command loads what it uses: the parser loads no service, model or SciPy, and a command that
reads the database loads no model (start-up is measured in `memworks bench`, never timed here)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("memworks.services.deps", "scipy", "onnxruntime", "spacy", "tokenizers")


def _loaded_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint('LOADED:', *(m for m in {HEAVY!r} if m in sys.modules))"
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    last = [ln for ln in res.stdout.splitlines() if ln.startswith("LOADED:")][-1]
    return set(last.split()[1:])


def test_building_the_parser_loads_no_service_or_model() -> None:
    assert _loaded_after("from memworks.cli import build_parser\nbuild_parser()") == set()


def test_a_database_command_loads_no_model_or_scipy(tmp_path: object) -> None:
    code = (
        "import os\n"
        f"os.chdir({str(tmp_path)!r})\n"
        "from memworks.cli import main\n"
        "main(['keys', 'list', '--tenant', 'nobody'])"
    )
    assert _loaded_after(code) <= {"memworks.services.deps"}
