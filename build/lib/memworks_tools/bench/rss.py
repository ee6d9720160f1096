"""Peak RSS of a benchmark, from ``/proc`` (Linux): for this process the kernel's own
high-water mark (``VmHWM``, reset at the start of a benchmark through ``/proc/self/clear_refs``),
for worker processes a sampler thread that reads ``VmRSS`` of every process in their trees
every 100 ms."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable

#: Sampling period of the RSS sampler (s).
RSS_PERIOD_S = 0.1


def _status_kb(pid: int | str, field_name: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith(field_name + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _parents() -> dict[int, int]:
    """pid → parent pid of every process (from ``/proc/<pid>/stat``)."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: the fields follow the last ")".
        rest = stat[stat.rfind(")") + 2 :].split()
        if len(rest) > 1:
            out[int(name)] = int(rest[1])
    return out


def process_tree(roots: Iterable[int]) -> list[int]:
    """``roots`` and every process descending from them."""
    parents = _parents()
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    seen: list[int] = []
    stack = [r for r in roots if r in parents]
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.append(pid)
        stack.extend(children.get(pid, []))
    return seen


class PeakRss:
    """Peak resident memory of this process, or of the process trees of ``roots`` (MB).

    For this process the kernel's high-water mark is reset on start and read on stop; for
    other processes a thread samples every :data:`RSS_PERIOD_S`, so a peak shorter than that
    may be missed. ``peak_mb`` is the largest single process; ``peak_sum_mb`` the largest sum.
    """

    def __init__(self, roots: Callable[[], Iterable[int]] | None = None) -> None:
        self._roots = roots
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.peak_kb = 0
        self.peak_sum_kb = 0
        self.processes = 0

    def __enter__(self) -> PeakRss:
        if self._roots is None:
            try:  # "5" resets VmHWM to the current RSS (Linux ≥ 4.0)
                with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
                    f.write("5")
            except OSError:
                pass
        self._thread = threading.Thread(target=self._run, name="bench-rss", daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        pids = process_tree(self._roots()) if self._roots else [os.getpid()]
        sizes = [_status_kb(p, "VmRSS") for p in pids]
        if sizes:
            self.peak_kb = max(self.peak_kb, *sizes)
            self.peak_sum_kb = max(self.peak_sum_kb, sum(sizes))
            self.processes = max(self.processes, len(pids))

    def _run(self) -> None:
        while not self._stop.wait(RSS_PERIOD_S):
            self._sample()

    def __exit__(self, *exc: object) -> None:
        self._sample()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._roots is None:
            self.peak_kb = max(self.peak_kb, _status_kb("self", "VmHWM"))
            self.peak_sum_kb = max(self.peak_sum_kb, self.peak_kb)

    @property
    def peak_mb(self) -> float:
        return round(self.peak_kb / 1024, 1)

    @property
    def peak_sum_mb(self) -> float:
        return round(self.peak_sum_kb / 1024, 1)
