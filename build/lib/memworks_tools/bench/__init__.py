"""Benchmarks: ingestion, retrieval, deletion and consolidation measured on this machine.

Each benchmark returns a JSON-able report and writes ``<out>/<name>.json`` and
``<out>/<name>.png``; :func:`run_all` also writes ``<out>/bench.json`` with the headline figures
of each and the machine they ran on. Benchmarks report; they never fail because a machine is slow.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

from memworks_tools.bench import consolidate, delete, fairness, ingest, retrieve
from memworks_tools.bench.common import Options, finite, machine, profiled, write_json

#: Benchmarks by name, in the order ``all`` runs them.
BENCHMARKS: dict[str, ModuleType] = {m.NAME: m for m in (ingest, retrieve, delete, consolidate, fairness)}

#: The headline fields of each report that ``bench.json`` carries.
HEADLINES: dict[str, tuple[str, ...]] = {
    "ingest": (
        "embedder_sps",
        "embedded_eps",
        "redis_eps",
        "redis_eps_by_workers",
        "embedded_vs_embedder",
        "embedded_vs_own_texts_ceiling",
        "redis_vs_embedded",
        "redis_vs_embedded_by_workers",
        "repeats",
        "worker_peak_rss_mb",
    ),
    "retrieve": (
        "p95_ms",
        "p95_ms_by_db",
        "foreign_100x_ratio",
        "foreign_100x_ratio_by_db",
        "foreign_100x_ratio_fresh_connections",
        "recall_vs_exact",
        "writes_per_read",
    ),
    "delete": ("seconds", "seconds_by_store", "store_1m_vs_10k_ratio", "ratio_compares", "all_complete"),
    "consolidate": ("seconds", "embedding_floor_s", "exponent"),
    "fairness": ("read_p95_ratio", "b_episode_s", "b_deletion_s", "a_requests", "a_429", "a_429_share"),
}


def run_benchmark(name: str, opts: Options) -> dict[str, Any]:
    """Run one benchmark; writes its JSON and PNG and returns the report."""
    module = BENCHMARKS[name]
    t0, load0 = time.perf_counter(), os.getloadavg()
    with profiled(opts, name) as prof:
        report: dict[str, Any] = module.run(opts)
    report["wall_s"] = round(time.perf_counter() - t0, 1)
    # Other work on the machine skews every figure: say how busy it was.
    report["loadavg_1m"] = {"before": round(load0[0], 2), "after": round(os.getloadavg()[0], 2)}
    if prof:
        report["profile"] = prof
    report["plot"] = str(module.draw(report, opts.out / f"{name}.png"))
    report["machine"] = machine(opts.pg_url)
    report = finite(report)
    write_json(opts.out / f"{name}.json", report)
    return report


def run_all(
    opts: Options, names: list[str] | None = None, on_done: Callable[[str, dict[str, Any]], None] | None = None
) -> dict[str, Any]:
    """Run every benchmark (or ``names``) and write ``bench.json``: headlines, peak RSS, machine.

    ``memworks bench all`` names all but ``fairness``, a load test run on its own.
    """
    t0 = time.perf_counter()
    summary: dict[str, Any] = {"machine": machine(opts.pg_url), "quick": opts.quick, "peak_rss_mb": {}}
    for name in names or list(BENCHMARKS):
        try:
            report = run_benchmark(name, opts)
        except Exception as exc:  # noqa: BLE001 - one benchmark's crash must not lose the others' figures
            opts.say(f"bench {name} crashed: {type(exc).__name__}: {exc}")
            summary[name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        summary[name] = {k: report[k] for k in HEADLINES[name] if k in report} | {
            "peak_rss_mb": report.get("peak_rss_mb"),
            "wall_s": report["wall_s"],
            "report": f"{name}.json",
        }
        summary["peak_rss_mb"][name] = report.get("peak_rss_mb")
        if on_done is not None:
            on_done(name, report)
    summary["wall_s"] = round(time.perf_counter() - t0, 1)
    summary = finite(summary)
    write_json(opts.out / "bench.json", summary)
    return summary


def table_of(name: str, report: dict[str, Any]) -> tuple[list[tuple[Any, ...]], list[str]]:
    """The rows and headers of a benchmark's printed table."""
    module = BENCHMARKS[name]
    rows: list[tuple[Any, ...]] = module.rows(report)
    headers: list[str] = module.HEADERS
    return rows, headers


__all__ = [
    # running
    "BENCHMARKS",
    "Options",
    "run_all",
    "run_benchmark",
    "table_of",
]
