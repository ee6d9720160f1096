"""``memworks worker`` runs at a lower OS priority (``MEMWORKS_WORKER_NICE``, 19 by default), so
background work yields the CPU to an API on the same host."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def niceness_after(nice: int) -> int:
    """The niceness of a fresh interpreter after ``lower_priority(nice)`` (irreversible: not this one's)."""
    code = (
        "import os; from memworks.cli.memory import lower_priority; "
        f"lower_priority({nice}); print(os.getpriority(os.PRIO_PROCESS, 0))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return int(out.stdout.strip())


def test_the_worker_lowers_its_priority_to_at_least_the_setting_and_never_raises_it() -> None:
    start = os.getpriority(os.PRIO_PROCESS, 0)
    # Given a process at the test's niceness, When it asks for 10, Then it runs at 10 or more
    assert niceness_after(10) == max(start, 10)
    # And asking for 0 (off), or for less than it has, leaves it as it was
    assert niceness_after(0) == start


def test_the_option_defaults_to_the_setting_and_is_bounded() -> None:
    from memworks.cli import build_parser
    from memworks.config import Settings

    parser = build_parser()
    assert parser.parse_args(["worker"]).nice is None  # None: MEMWORKS_WORKER_NICE decides
    assert parser.parse_args(["worker", "--nice", "0"]).nice == 0
    assert Settings().worker_nice == 19
    with pytest.raises(SystemExit):
        parser.parse_args(["worker", "--nice", "20"])
