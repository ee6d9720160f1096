"""The retrieval benchmark's headline figures, table rows and plot (see :mod:`memworks_tools.bench.retrieve`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memworks_tools.bench.common import plot, ratio


def summary(report: dict[str, Any]) -> dict[str, Any]:
    """The headline figures: p95 by size (SQLite first, the embedded default), the foreign ratio, recall."""
    by_db: dict[str, dict[str, float]] = {}
    ratios: dict[str, float] = {}
    fresh: dict[str, float] = {}
    recalls: list[float] = []
    writes: list[float] = []
    for db, r in report["databases"].items():
        if "skipped" in r:
            continue
        for row in [*r["by_size"].values(), *r["foreign"].values()]:
            runs = [
                row,
                *row.get("stages", {}).values(),
                *([row["fresh_connections"]] if "fresh_connections" in row else []),
            ]
            writes += [run["writes_per_read"] for run in runs if "writes_per_read" in run]
        by_db[db] = {n: row["latency_ms"]["p95"] for n, row in r["by_size"].items()}
        recalls += [row["recall_vs_exact"] for row in [*r["by_size"].values(), *r["foreign"].values()]]
        f = r["foreign"]
        if "0" in f and "100" in f:
            ratios[db] = ratio(f["100"]["latency_ms"]["p95"], f["0"]["latency_ms"]["p95"])
            if "fresh_connections" in f["100"]:
                fresh[db] = ratio(f["100"]["fresh_connections"]["latency_ms"]["p95"], f["0"]["latency_ms"]["p95"])
    first = by_db.get("sqlite") or next(iter(by_db.values()), {})
    report |= {
        "p95_ms": first,
        "p95_ms_by_db": by_db,
        "foreign_100x_ratio": max(ratios.values()) if ratios else float("nan"),
        "foreign_100x_ratio_by_db": ratios,
        "foreign_100x_ratio_fresh_connections": fresh,
        "recall_vs_exact": min(recalls) if recalls else float("nan"),
        "writes_per_read": max(writes) if writes else float("nan"),
    }
    return report


def rows(r: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Table rows: database, store, p50/p95/p99 (ms), queries, recall."""
    out: list[tuple[Any, ...]] = []
    for db, d in r["databases"].items():
        if "skipped" in d:
            out.append((db, "skipped", "", "", "", "", ""))
            continue
        for n, row in d["by_size"].items():
            lat = row["latency_ms"]
            out.append(
                (db, f"{int(n):,} in scope", lat["p50"], lat["p95"], lat["p99"], lat["n"], row["recall_vs_exact"])
            )
            for stage, r in row.get("stages", {}).items():
                lat = r["latency_ms"]
                out.append(
                    (
                        db,
                        f"{int(n):,} in scope, {stage}",
                        lat["p50"],
                        lat["p95"],
                        lat["p99"],
                        lat["n"],
                        r["recall_vs_exact"],
                    )
                )
        for times, row in d["foreign"].items():
            if times != "0":
                runs = [("open since before", row)]
                if "fresh_connections" in row:
                    runs.append(("reopened", row["fresh_connections"]))
                for how, r in runs:
                    lat = r["latency_ms"]
                    out.append(
                        (
                            db,
                            f"1k + {row['foreign_rows']:,} foreign, {how}",
                            lat["p50"],
                            lat["p95"],
                            lat["p99"],
                            lat["n"],
                            r["recall_vs_exact"],
                        )
                    )
    return out


HEADERS = ["db", "store", "p50 ms", "p95 ms", "p99 ms", "queries", "recall@10"]


def draw(r: dict[str, Any], path: Path) -> Path:
    """p50 and p95 against scope size (log-log), one line per database; foreign-row points beside."""

    def paint(ax: Any) -> None:
        for db, d in r["databases"].items():
            if "skipped" in d:
                continue
            ns = [int(n) for n in d["by_size"]]
            for q, style in (("p95", "-o"), ("p50", "--.")):
                ax.plot(ns, [d["by_size"][str(n)]["latency_ms"][q] for n in ns], style, label=f"{db} {q}")
            for times, row in d["foreign"].items():
                if times != "0":
                    ax.plot(
                        [int(min(ns))],
                        [row["latency_ms"]["p95"]],
                        "x",
                        markersize=9,
                        label=f"{db} p95, 1k scope + {times}× foreign",
                    )
                    if "fresh_connections" in row:
                        ax.plot(
                            [int(min(ns))],
                            [row["fresh_connections"]["latency_ms"]["p95"]],
                            "+",
                            markersize=9,
                            label=f"{db} p95, 1k scope + {times}× foreign, reopened",
                        )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("memories in the caller's scope")
        ax.set_ylabel("Memworks.retrieve latency (ms)")
        ax.legend(fontsize=7)

    return plot(path, paint, title="retrieve latency by scope size (query embedding included, cache bypassed)")
