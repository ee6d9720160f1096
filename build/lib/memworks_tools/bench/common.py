"""What every benchmark shares: options, timing, percentiles, peak RSS, progress, plots, the machine.

Peak RSS lives in :mod:`memworks_tools.bench.rss` (re-exported here).
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from memworks_tools.bench.rss import PeakRss as PeakRss
from memworks_tools.bench.rss import process_tree as process_tree

T = TypeVar("T")

#: Default PostgreSQL server the benchmarks create scratch databases on.
PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
#: Default Redis for the distributed ingest run when no private redis-server can be started.
REDIS_URL = "redis://127.0.0.1:6379/0"


@dataclass
class Options:
    """How a benchmark run is sized and where it reports."""

    out: Path
    quick: bool = False
    #: Progress bars and per-step lines (on stderr); off for ``--json`` and in tests.
    progress: bool = True
    pg_url: str = PG_URL
    redis_url: str = REDIS_URL
    #: Record a py-spy profile of each benchmark (all threads and worker subprocesses).
    profile: bool = False
    #: Sizes that override the defaults, per benchmark (tests use tiny ones).
    sizes: dict[str, Any] = field(default_factory=dict)
    say: Callable[[str], None] = field(default=lambda m: print(m, file=sys.stderr, flush=True))

    def size(self, name: str, full: T, quick: T) -> T:
        """The size ``name``: an override if given, else the quick or the full default."""
        if name in self.sizes:
            return self.sizes[name]  # type: ignore[no-any-return]
        return quick if self.quick else full


# -- timing and statistics ------------------------------------------------------------------


@contextmanager
def stopwatch() -> Iterator[list[float]]:
    """``with stopwatch() as t: ...`` then ``t[0]`` holds the elapsed seconds."""
    box = [0.0]
    t0 = time.perf_counter()
    try:
        yield box
    finally:
        box[0] = time.perf_counter() - t0


def percentiles(values_ms: Sequence[float]) -> dict[str, float]:
    """p50/p95/p99, mean and max of latencies (ms), rounded to 0.01 ms."""
    if not values_ms:
        return {"p50": 0.0, "p95": 0.0, "p99": 0.0, "mean": 0.0, "max": 0.0, "n": 0}
    a = np.asarray(values_ms, dtype=np.float64)
    p50, p95, p99 = np.percentile(a, [50, 95, 99])
    return {
        "p50": round(float(p50), 2),
        "p95": round(float(p95), 2),
        "p99": round(float(p99), 2),
        "mean": round(float(a.mean()), 2),
        "max": round(float(a.max()), 2),
        "n": int(a.size),
    }


def fit_exponent(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The slope of ``log y`` against ``log x`` (1 linear, 2 quadratic); NaN with fewer than 2 points."""
    pts = [(x, y) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0]
    if len(pts) < 2:
        return float("nan")
    lx, ly = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    slope = np.polyfit(lx, ly, 1)[0]
    return round(float(slope), 3)


def ratio(a: float, b: float) -> float:
    return round(a / b, 3) if b > 0 else float("nan")


# -- progress, tables, files ----------------------------------------------------------------


def progress(items: Iterable[T], *, total: int | None, desc: str, enabled: bool) -> Iterator[T]:
    """A tqdm bar on stderr when ``enabled`` (tqdm comes with huggingface_hub, a dependency of tokenizers)."""
    if not enabled:
        yield from items
        return
    from tqdm import tqdm  # type: ignore[import-untyped,unused-ignore]

    yield from tqdm(items, total=total, desc=desc, file=sys.stderr, leave=False, dynamic_ncols=True)


def finite(data: Any) -> Any:
    """``data`` with NaN and infinities as None, so the JSON is strict (``NaN`` is not JSON)."""
    if isinstance(data, float):
        return data if np.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [finite(v) for v in data]
    return data


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(finite(data), indent=2, default=str, allow_nan=False))
    return path


def plot(path: Path, draw: Callable[[Any], None], *, title: str, size: tuple[float, float] = (7, 4)) -> Path:
    """One PNG from ``draw(axes)``, rendered with matplotlib's Agg backend (no display)."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=size)
    draw(ax)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# -- the machine ----------------------------------------------------------------------------


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def postgres_version(pg_url: str) -> str | None:
    """The server's version string, or None when it is not reachable."""
    from sqlalchemy import create_engine, text

    engine = create_engine(pg_url, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as c:
            return str(c.execute(text("SHOW server_version")).scalar())
    except Exception:  # noqa: BLE001 - any failure means "not reachable"; the report says None
        return None
    finally:
        engine.dispose()


def machine(pg_url: str) -> dict[str, Any]:
    """CPU count and model, RAM, Python, SQLite and PostgreSQL versions."""
    return {
        "cpus": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "ram_gb": round(_status_meminfo("MemTotal") / 1024 / 1024, 1),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "postgres": postgres_version(pg_url),
        "platform": platform.platform(),
    }


def _status_meminfo(name: str) -> int:
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith(name + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


# -- profiling ------------------------------------------------------------------------------


def _py_spy() -> str | None:
    beside = Path(sys.executable).with_name("py-spy")
    return str(beside) if beside.exists() else shutil.which("py-spy")


@contextmanager
def profiled(opts: Options, name: str) -> Iterator[dict[str, Any]]:
    """Record this process (all threads, and its subprocesses) with py-spy while the block runs.

    Yields a dict that receives ``{"raw": path, "top_self": [...], "top_total": [...]}`` after the
    block; empty when profiling is off or py-spy is missing (the benchmark runs either way).
    """
    result: dict[str, Any] = {}
    exe = _py_spy() if opts.profile else None
    if exe is None:
        if opts.profile:
            opts.say("profile: py-spy not found (pip install py-spy); running unprofiled")
        yield result
        return
    raw = opts.out / f"{name}.pyspy.txt"
    raw.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [
            exe,
            "record",
            "--pid",
            str(os.getpid()),
            "--subprocesses",
            "--rate",
            "50",
            "--format",
            "raw",
            "--output",
            str(raw),
            "--nonblocking",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(0.5)  # attach before the work starts
    try:
        yield result
    finally:
        proc.send_signal(signal.SIGINT)  # py-spy writes its output on SIGINT
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
        if raw.exists():
            result.update(summarise_profile(raw))


#: Frames that only wait (idle threads, the sampler itself), left out of the top lists.
_IDLE = (
    "wait (threading.py",
    "select (",
    "_wait_for_tstate_lock",
    "sleep (",
    "bench-rss",
    "poll (",
    "_run (memworks_tools/bench/common.py",
    "get (queue.py",
    "accept (",
    "recv_into (",
)


def _function(frame: str) -> str:
    """``"f (path/x.py:12)"`` → ``"f (path/x.py)"``: samples of one function add up across its lines."""
    m = re.match(r"^(.*) \((.*):\d+\)$", frame)
    return f"{m.group(1)} ({m.group(2)})" if m else frame


def summarise_profile(raw: Path, top: int = 15) -> dict[str, Any]:
    """Top functions of a py-spy raw (collapsed) profile: by own samples, by inclusive samples, and
    inclusive within memworks' own code (the benchmark harness and CLI left out).

    Stacks whose innermost frame only waits are left out, so idle worker threads do not crowd
    out the work.
    """
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    ours: Counter[str] = Counter()
    busy = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = stack.split(";")
        if any(mark in frames[-1] for mark in _IDLE):
            continue
        n = int(count)
        busy += n
        own[_function(frames[-1])] += n
        funcs = {_function(f) for f in frames[1:]}  # the first frame names the process
        for f in funcs:
            inclusive[f] += n
            if "memworks/" in f and "memworks_tools/bench/" not in f and "memworks/cli/" not in f:
                ours[f] += n

    def share(c: Counter[str]) -> list[dict[str, Any]]:
        return [{"frame": f, "samples": n, "share": round(n / busy, 3)} for f, n in c.most_common(top)] if busy else []

    return {
        "raw": str(raw),
        "busy_samples": busy,
        "rate_hz": 50,
        "top_self": share(own),
        "top_total": share(inclusive),
        "top_memworks": share(ours),
    }
