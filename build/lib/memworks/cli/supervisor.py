"""``memworks worker``'s process tree: dramatiq's command line, started again when a worker dies.

dramatiq's command line stops every worker process and exits as soon as one of them exits
unexpectedly (an out-of-memory kill, a SIGKILL): left alone, one lost process would stop the
host's whole worker. ``memworks worker`` execs this module instead of dramatiq's, in a fresh
interpreter: the children fork from it before the broker, the actors or any connection exist, as
under dramatiq's own command line. It runs dramatiq's ``main`` in a loop. When a run ends because
a worker process died (dramatiq has then stopped the others, letting them finish their messages),
it logs ``worker.process_died``, waits (a delay that grows while the runs stay short), logs
``worker.restarted`` and starts every process again; the broker delivers the dead process's
messages again (at least once: every actor is idempotent). A stop signal (SIGTERM, SIGINT), a
clean exit, or an exit no restart can mend (arguments or modules that do not load) ends the loop
with dramatiq's exit status.

Signals keep dramatiq's meaning: the pid of ``memworks worker`` stays the one that receives them,
dramatiq's own handlers forward them to its processes, and SIGHUP (reload) execs this module
again. ``python -m memworks.cli.supervisor ARGS`` takes dramatiq's arguments.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import sys
import time
from collections.abc import Sequence
from types import FrameType

#: Signals that ask the worker to stop (SIGHUP reloads: dramatiq execs ``sys.argv`` again).
STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
#: dramatiq's exit statuses no restart can mend: bad arguments or a module that does not
#: import (2), a pid file held by a running process (4).
NO_RESTART = frozenset({2, 4})
#: Wait before the first restart (s); it doubles after each run shorter than :data:`HEALTHY_RUN_S`.
RESTART_DELAY_S = 1.0
#: The longest wait between restarts (s).
MAX_RESTART_DELAY_S = 60.0
#: A run at least this long (s) was healthy: the next restart waits :data:`RESTART_DELAY_S` again.
HEALTHY_RUN_S = 60.0


def next_delay(delay: float, ran_s: float) -> float:
    """The wait before the restart after next: back to the first after a healthy run, else doubled."""
    return RESTART_DELAY_S if ran_s >= HEALTHY_RUN_S else min(delay * 2, MAX_RESTART_DELAY_S)


def supervise(argv: Sequence[str]) -> int:
    """Run dramatiq's command line with ``argv`` until it is stopped; restart it when a worker dies.

    Returns:
        dramatiq's exit status of its last run.
    """
    from dramatiq.cli import main as dramatiq_main
    from dramatiq.cli import make_argument_parser

    from memworks.logging import configure_logging, get_logger

    configure_logging(logging.INFO)
    log = get_logger("memworks.worker")
    args = make_argument_parser().parse_args(list(argv))  # type: ignore[no-untyped-call]
    # dramatiq's reload (SIGHUP) execs sys.argv: make that this supervisor with the same arguments.
    sys.argv = [sys.executable, "-m", __name__, *argv]
    # Every signal with a Python handler writes its number here, whichever handler is current
    # (dramatiq installs its own during a run): after a run, this says whether one asked to stop.
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    # Worker processes fork from this one: their own signals (the SIGTERM that stops them) must
    # not reach this pipe as if this process were asked to stop.
    os.register_at_fork(after_in_child=lambda: _forget_pipe(wake_r, wake_w))
    delay, run = RESTART_DELAY_S, 1
    while True:
        started = time.monotonic()
        code = int(dramatiq_main(args) or 0)  # type: ignore[no-untyped-call]
        # Between runs, no stale dramatiq handler may signal the pids of processes already gone.
        for sig in STOP_SIGNALS:
            signal.signal(sig, _note_stop)
        if code == 0 or code in NO_RESTART or _stop_requested(wake_r):
            return code
        log.warning("worker.process_died", exit_status=code, run=run, restart_in_s=delay)
        if _wait_for_stop(wake_r, delay):
            return code
        run += 1
        log.warning("worker.restarted", run=run)
        delay = next_delay(delay, time.monotonic() - started)


def _forget_pipe(*fds: int) -> None:
    signal.set_wakeup_fd(-1)
    for fd in fds:
        os.close(fd)


def _note_stop(signum: int, frame: FrameType | None) -> None:
    """Between runs a stop signal is only noted (its number reaches the wake-up pipe)."""


def _stop_requested(fd: int) -> bool:
    try:
        data = os.read(fd, 4096)
    except BlockingIOError:
        return False
    return any(b in {int(s) for s in STOP_SIGNALS} for b in data)


def _wait_for_stop(fd: int, seconds: float) -> bool:
    """Wait ``seconds``; True as soon as a stop signal arrives."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if ready and _stop_requested(fd):
            return True
    return False


if __name__ == "__main__":
    sys.exit(supervise(sys.argv[1:]))
