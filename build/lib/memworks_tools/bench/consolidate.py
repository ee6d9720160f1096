"""Consolidation time by tenant size, and how it grows (the log-log slope).

A fresh embedded store per size holds one tenant of 100 users whose memories were bulk-loaded
as ingestion writes them (:mod:`memworks_tools.bench.data`): transcripts and keyed facts across the
slots of the rules extractor's vocabulary, superseded history in single-valued slots, values
collected in multi-valued ones (likes, dislikes, allergies) where near-duplicates ("sushi",
"spicy sushi") are what dedup groups, sessions of 10 turns for summaries. The clock runs around
``Memworks.consolidate(tenant)`` (dedup, summaries, eviction, repair, profile); the run record's
counts are reported beside it. ``repairs`` should be 0: the loader writes every index entry.
``embedding_floor_s`` is the time the model alone takes to embed the summaries the run wrote.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from memworks_tools.bench import data
from memworks_tools.bench.common import Options, PeakRss, fit_exponent, plot, stopwatch

NAME = "consolidate"
TENANT = "cons"
#: Longest wait for one consolidation (s): the actor's own time limit.
WAIT_S = 3600.0


def run(opts: Options) -> dict[str, Any]:
    """Run the consolidation benchmark; returns its report (see the module docstring)."""
    from memworks.client import Memworks
    from memworks.config import Settings

    sizes: list[int] = opts.size("consolidate.sizes", [10_000, 100_000], [1_000, 10_000])
    users: int = opts.size("consolidate.users", 100, 100)
    pool = data.build_pool(limit=opts.sizes.get("pool"))
    report: dict[str, Any] = {"users": users, "by_size": {}}
    peak = 0.0
    for n in sorted(sizes):
        with tempfile.TemporaryDirectory(prefix="memworks-bench-") as tmp:
            url = f"sqlite:///{Path(tmp) / 'consolidate.db'}"
            with Memworks(Settings(database_url=url, broker_url="stub://", cache_url="memory")) as mw:
                opts.say(f"consolidate: loading {n:,} memories over {users} users")
                specs = [data.UserSpec(TENANT, f"u{u:04d}", max(n // users, 1)) for u in range(users)]
                loaded = data.load_isolated(url, specs, pool, seed=n)
                _ = mw.runtime.embedder  # loaded before the clock starts
                with PeakRss() as rss, stopwatch() as t:
                    result = _consolidate(mw)
                floor = _embedding_floor(mw)
            peak = max(peak, rss.peak_mb)
        counts = result.get("counts", {})
        report["by_size"][str(n)] = {
            "memories": loaded.memories,
            "build_s": loaded.seconds,
            "seconds": round(t[0], 2),
            "status": result.get("status"),
            "counts": counts,
            "peak_rss_mb": rss.peak_mb,
            "embedding_floor_s": floor,
        }
        opts.say(
            f"consolidate: {loaded.memories:,} memories in {t[0]:.1f} s (embedding its summaries alone: "
            f"{floor:.1f} s); {counts}"
        )
    ns = [r["memories"] for r in report["by_size"].values()]
    secs = [r["seconds"] for r in report["by_size"].values()]
    report |= {
        "seconds": {n: r["seconds"] for n, r in report["by_size"].items()},
        "exponent": fit_exponent(ns, secs),
        "embedding_floor_s": {n: r["embedding_floor_s"] for n, r in report["by_size"].items()},
        "peak_rss_mb": peak,
    }
    return report


def _consolidate(mw: Any) -> dict[str, Any]:
    """``mw.consolidate(tenant)``, waiting past its drain's 600 s if a slow machine needs longer
    (the actor's own time limit is an hour)."""
    from dramatiq.errors import QueueJoinTimeout

    try:
        return dict(mw.consolidate(TENANT))
    except QueueJoinTimeout:
        mw.drain(timeout_s=WAIT_S)
    from sqlalchemy import select
    from sqlmodel import Session, col

    from memworks.models.tables import ConsolidationRun

    with Session(mw.runtime.engine) as s:
        run = s.scalars(
            select(ConsolidationRun)
            .where(col(ConsolidationRun.tenant_id) == TENANT)
            .order_by(col(ConsolidationRun.id).desc())
            .limit(1)
        ).first()
        if run is None:
            return {"status": "missing"}
        return {"status": run.status, "counts": json.loads(run.counts_json), "duration_ms": run.duration_ms}


def _embedding_floor(mw: Any) -> float:
    """Seconds the model alone takes to embed the summaries the run wrote, in one call: the
    part of consolidation no amount of SQL tuning removes."""
    from sqlalchemy import select
    from sqlmodel import Session, col

    from memworks.models.tables import Memory

    with Session(mw.runtime.engine) as s:
        texts = list(
            s.scalars(
                select(col(Memory.text)).where(col(Memory.tenant_id) == TENANT, col(Memory.extractor) == "summary")
            )
        )
    with stopwatch() as t:
        mw.runtime.embedder.embed(texts)
    return round(t[0], 2)


def rows(r: dict[str, Any]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for d in r["by_size"].values():
        c = d["counts"]
        out.append(
            (
                f"{d['memories']:,}",
                d["seconds"],
                d["embedding_floor_s"],
                *(c.get(k, 0) for k in ("groups", "merged", "blocked_merges", "summaries", "repairs", "profiles")),
            )
        )
    out.append(("exponent", r["exponent"], "", "", "", "", "", "", ""))
    return out


HEADERS = [
    "memories",
    "seconds",
    "embedding alone (s)",
    "groups",
    "merged",
    "blocked",
    "summaries",
    "repairs",
    "profiles",
]


def draw(r: dict[str, Any], path: Path) -> Path:
    def paint(ax: Any) -> None:
        ns = [d["memories"] for d in r["by_size"].values()]
        secs = [d["seconds"] for d in r["by_size"].values()]
        ax.plot(ns, secs, "-o", label=f"measured (slope {r['exponent']})")
        if ns:
            ax.plot(ns, [secs[0] * (n / ns[0]) for n in ns], ":", color="grey", label="linear from the first point")
            ax.plot(ns, [secs[0] * (n / ns[0]) ** 2 for n in ns], "--", color="grey", label="quadratic")
        ax.axhline(60.0, color="red", linestyle=":", label="goal: 60 s at 100k")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("memories in the tenant")
        ax.set_ylabel("Memworks.consolidate (s)")
        ax.legend(fontsize=8)

    return plot(path, paint, title=f"consolidation time ({r['users']} users)")
