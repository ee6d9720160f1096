"""``memworks worker`` processes the harness starts, SIGKILLs mid-message and replaces."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

__all__ = ["Workers"]


class Workers:
    """``memworks worker`` process groups that can be SIGKILLed and replaced."""

    def __init__(self, env: dict[str, str], n: int, threads: int, log_dir: Path) -> None:
        self.env, self.threads, self.log_dir = env, threads, log_dir
        self.procs: list[subprocess.Popen[bytes]] = []
        self.started = 0
        for _ in range(n):
            self.procs.append(self._spawn())

    def _spawn(self) -> subprocess.Popen[bytes]:
        self.started += 1
        # The child keeps its own copy of the log file's descriptor: this process's closes here.
        with (self.log_dir / f"worker-{self.started}.log").open("wb") as log:
            return subprocess.Popen(
                [sys.executable, "-m", "memworks.cli", "worker", "--processes", "1", "--threads", str(self.threads)],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def kill_one(self, rng: random.Random) -> None:
        i = rng.randrange(len(self.procs))
        victim = self.procs[i]
        try:
            os.killpg(victim.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        victim.wait(timeout=30)
        self.procs[i] = self._spawn()

    def stop(self) -> None:
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
        for p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=30)
