"""`memworks ARGS` run inside the test process: the exit status, stdout and stderr a user sees.

A new interpreter spends seconds importing the models before it reads its first argument, so
tests of arguments, messages and output formats call the command's ``main`` here. Tests about
the process itself (startup, signals, log set-up, a real server, a worker) still start one.
"""

from __future__ import annotations

import io
import os
import subprocess
from collections.abc import Sequence
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

#: Settings a test's own environment must not lend to the command (a subprocess run drops them too).
UNSET = ("MEMWORKS_LOG_LEVEL", "MEMWORKS_LOG_FORMAT")


def run_here(args: Sequence[str], db: Path | str, **env: str | None) -> subprocess.CompletedProcess[str]:
    """``memworks ARGS`` on the SQLite file ``db`` (or the URL ``db``) with the in-process broker,
    as :func:`subprocess.run` would report it; ``env`` adds or overrides variables (None unsets one)."""
    from memworks.cli import main
    from memworks.config import get_settings
    from memworks.logging import configure_logging

    # Logging is configured once per process and the first call wins: configure it as the suite
    # has it, or the command's quieter level would last for every later test of this process.
    configure_logging()
    url = db if isinstance(db, str) else f"sqlite:///{db}"
    values = {"MEMWORKS_DATABASE_URL": url, "MEMWORKS_BROKER_URL": "stub://", **env}
    out, err = io.StringIO(), io.StringIO()
    with mock.patch.dict(os.environ):
        for name in UNSET:
            os.environ.pop(name, None)
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        get_settings.cache_clear()  # the settings are read from this environment, as at startup
        try:
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    code = main(list(args))
                except SystemExit as exc:  # argparse's errors exit, as they do in a process
                    code = exc.code if isinstance(exc.code, int) else 1
        finally:
            get_settings.cache_clear()
    return subprocess.CompletedProcess(["memworks", *args], code, out.getvalue(), err.getvalue())
