"""Subject deletion: time from ``submit_deletion`` to a complete manifest, by subject and store size.

Embedded deployment (SQLite + in-process workers). Each store is first filled with other
tenants' rows (memories with their lineage, episodes, gate decisions, vector and lexical
entries; :mod:`memworks_tools.bench.data`). The subjects are then made the real way, through the
facade: episodes until each subject holds about 10, 100 or 1,000 memory rows, task outcomes
(so lessons are mined from them), and a consolidation of their tenant (summaries, profile).
The clock runs from ``submit_deletion({"tenant_id", "user_id"})`` until
``manifest(rid).status == "complete"`` (``drain()`` in between).

The same database grows from the small store to the large one, with fresh subjects each time,
so ``store_1m_vs_10k_ratio`` compares the same subject size in both. A throwaway subject is
deleted first, untimed, after each bulk load (cold caches). Each size is deleted
``repeats`` times (different subjects) and the median reported: a target whose first check
finds residue is purged again after ``REPURGE_DELAY_MS`` (0.5 s), which makes single runs jumpy.
"""

from __future__ import annotations

import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from memworks_tools.bench import data
from memworks_tools.bench.common import Options, PeakRss, plot, ratio, stopwatch

NAME = "delete"
#: Outcomes each subject reports (triage tickets), so lessons rest on them.
OUTCOMES_PER_SUBJECT = 12
#: Longest wait for a manifest to complete (s).
TIMEOUT_S = 600.0


def run(opts: Options) -> dict[str, Any]:
    """Run the deletion benchmark; returns its report (see the module docstring)."""
    subjects: list[int] = opts.size("delete.subjects", [10, 100, 1_000], [10, 100])
    stores: list[int] = opts.size("delete.stores", [10_000, 1_000_000], [10_000, 100_000])
    repeats: int = opts.size("delete.repeats", 3, 2)
    pool = data.build_pool(limit=opts.sizes.get("pool"))
    report: dict[str, Any] = {"subjects": subjects, "stores": {}, "database": "sqlite", "repeats": repeats}
    from memworks.client import Memworks
    from memworks.config import Settings

    with tempfile.TemporaryDirectory(prefix="memworks-bench-") as tmp, PeakRss() as rss:
        url = f"sqlite:///{Path(tmp) / 'delete.db'}"
        with Memworks(Settings(database_url=url, broker_url="stub://", cache_url="memory")) as mw:
            for i, total in enumerate(sorted(stores)):
                report["stores"][str(total)] = _store_round(
                    opts, mw, pool, total, subjects, repeats, f"acme{i}", seed=i + 1
                )
    report["peak_rss_mb"] = rss.peak_mb
    return _summary(report, subjects, sorted(stores))


def _memory_rows(mw: Any, tenant: str | None = None, user: str | None = None) -> int:
    from sqlalchemy import func, select
    from sqlmodel import Session, col

    from memworks.models.tables import Memory

    q = select(func.count()).select_from(Memory)
    if tenant is not None:
        q = q.where(col(Memory.tenant_id) == tenant, col(Memory.user_id) == user)
    with Session(mw.runtime.engine) as s:
        return int(s.scalar(q) or 0)


def _store_round(
    opts: Options, mw: Any, pool: data.Pool, total: int, subjects: list[int], repeats: int, tenant: str, seed: int
) -> dict[str, Any]:
    users = {m: [f"subject-{m}-{r}" for r in range(repeats)] for m in subjects}
    with stopwatch() as t:
        made = {u: _make_subject(mw, pool, tenant, u, m, seed) for m in subjects for u in users[m]}
        _make_subject(mw, pool, tenant, "warmup", 10, seed)
        _outcomes(mw, tenant, [u for m in subjects for u in users[m]] + ["bystander"], seed)
        run = mw.consolidate(tenant)
    opts.say(f"delete: subjects made in {t[0]:.1f} s; consolidation of {tenant}: {run.get('counts')}")
    # Then other tenants, up to the store's size, bulk-loaded.
    foreign = max(total - _memory_rows(mw), 0)
    opts.say(f"delete: loading {foreign:,} rows of other tenants (store of {total:,})")
    specs = data.foreign_specs(foreign, prefix=f"other{seed}", with_gate=True, users_per_tenant=200)
    loaded = data.load_isolated(mw.settings.database_url, specs, pool, seed=seed)
    out: dict[str, Any] = {
        "foreign_build_s": loaded.seconds,
        "foreign_rows": loaded.memories,
        "subjects_build_s": round(t[0], 2),
        "consolidation": run.get("counts", {}),
        "memory_rows": _memory_rows(mw),
        "by_subject": {},
    }
    # Untimed: the first deletion after a bulk load meets cold caches (each pooled connection
    # re-reads pages the load changed), which a store in service does not.
    out["warmup_s"] = _delete(opts, mw, tenant, "warmup")["seconds"]
    for m in subjects:
        runs = [_delete(opts, mw, tenant, u) | {"episodes": made[u]} for u in users[m]]
        secs = sorted(r["seconds"] for r in runs)
        out["by_subject"][str(m)] = runs[0] | {
            "seconds": round(float(np.median(secs)), 3),
            "runs": runs,
            "seconds_each": secs,
            "status": "complete" if all(r["status"] == "complete" for r in runs) else "failed",
        }
    return out


def _make_subject(mw: Any, pool: data.Pool, tenant: str, user: str, target: int, seed: int) -> int:
    """Ingest a user's episodes until they hold ``target`` memory rows; returns the episodes sent."""
    import random

    rng = random.Random(f"{seed}-{user}")
    facts = [u for u in pool.utterances if u.facts]
    start = datetime.now(UTC) - timedelta(days=30)
    sent = 0
    while (have := _memory_rows(mw, tenant, user)) < target:
        batch = max((target - have) // 2, 1)
        eps = []
        for _ in range(batch):
            utt = rng.choice(facts) if rng.random() < 0.8 else rng.choice(pool.utterances)
            eps.append(
                {
                    "episode_id": f"{user}-{sent}",
                    "tenant_id": tenant,
                    "user_id": user,
                    "session_id": f"s{sent // 10}",
                    "turn": sent,
                    "role": "user",
                    "source": "user",
                    "content": f"{utt.content} (note {sent})" if rng.random() < 0.5 else utt.content,
                    "occurred_at": (start + timedelta(minutes=10 * sent)).isoformat(),
                }
            )
            sent += 1
        mw.enqueue_episodes(eps)
        mw.drain()
    return sent


def _outcomes(mw: Any, tenant: str, users: list[str], seed: int) -> None:
    """Triage outcomes per user (the naive policy, with the right action where it was wrong)."""
    from memworks_tools.evaluation import triage

    start = datetime.now(UTC) - timedelta(days=7)
    reports = []
    for u, user in enumerate(users):
        for i, t in enumerate(triage.episodes(1, OUTCOMES_PER_SUBJECT, seed=seed * 100 + u)[0]):
            action = triage.base_policy(set(t.keywords))
            ok = action == t.correct
            reports.append(
                {
                    "outcome_id": f"{user}-o{i}",
                    "tenant_id": tenant,
                    "user_id": user,
                    "task_id": f"{user}-{t.task_id}",
                    "task_type": triage.TASK_TYPE,
                    "features": list(t.keywords),
                    "action_taken": action,
                    "verified_action": None if ok else t.correct,
                    "success": ok,
                    "occurred_at": (start + timedelta(minutes=u * 60 + i)).isoformat(),
                }
            )
    mw.report_outcomes(reports, reporter="tenant")  # a platform reporting its users' tickets
    mw.drain()


def _delete(opts: Options, mw: Any, tenant: str, user: str) -> dict[str, Any]:
    rows = _memory_rows(mw, tenant, user)
    lessons = len(mw.lessons(tenant))
    with stopwatch() as t:
        rid = mw.submit_deletion({"tenant_id": tenant, "user_id": user})
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            mw.drain()
            manifest = mw.manifest(rid)
            if manifest.status in ("complete", "failed") or time.monotonic() > deadline:
                break
            time.sleep(0.02)
    attempts = {name: tgt.attempts for name, tgt in manifest.targets.items()}
    opts.say(f"delete: {user} ({rows} memory rows) → {manifest.status} in {t[0]:.2f} s; plan {manifest.plan}")
    return {
        "seconds": round(t[0], 3),
        "status": manifest.status,
        "memory_rows": rows,
        "plan": manifest.plan,
        "lesson_decisions": len(manifest.decisions),
        "tenant_lessons": lessons,
        "attempts": attempts,
    }


def _summary(report: dict[str, Any], subjects: list[int], stores: list[int]) -> dict[str, Any]:
    big, small = str(max(subjects)), str(min(stores))
    largest = str(max(stores))
    seconds = {n: r["by_subject"][big]["seconds"] for n, r in report["stores"].items()}
    report |= {
        # the shape's "seconds": by subject size, in the largest store
        "seconds": {m: r["seconds"] for m, r in report["stores"][largest]["by_subject"].items()},
        "seconds_by_store": {
            n: {m: r["seconds"] for m, r in s["by_subject"].items()} for n, s in report["stores"].items()
        },
        "store_1m_vs_10k_ratio": ratio(seconds[largest], seconds[small]),
        "ratio_compares": f"{int(big):,} memories: store of {int(largest):,} vs {int(small):,}",
        "all_complete": all(
            r["status"] == "complete" for s in report["stores"].values() for r in s["by_subject"].values()
        ),
    }
    return report


def rows(r: dict[str, Any]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for _n, s in r["stores"].items():
        for m, d in s["by_subject"].items():
            each = ", ".join(map(str, d["seconds_each"]))
            out.append(
                (
                    f"{s['memory_rows']:,}",
                    m,
                    d["memory_rows"],
                    d["plan"].get("derived", 0),
                    d["lesson_decisions"],
                    d["status"],
                    d["seconds"],
                    each,
                )
            )
    return out


HEADERS = ["store rows", "subject", "its rows", "derived", "lesson decisions", "status", "seconds", "each run"]


def draw(r: dict[str, Any], path: Path) -> Path:
    def paint(ax: Any) -> None:
        for _n, s in r["stores"].items():
            ms = [int(m) for m in s["by_subject"]]
            secs = [s["by_subject"][str(m)]["seconds"] for m in ms]
            ax.plot(ms, secs, "-o", label=f"store of {s['memory_rows']:,} rows")
        ax.axhline(5.0, color="grey", linestyle=":", label="goal: 5 s at 1,000")
        ax.set_xscale("log")
        ax.set_xlabel("subject's memories")
        ax.set_ylabel("submit → complete manifest (s)")
        ax.legend(fontsize=8)

    return plot(path, paint, title="subject deletion time (embedded SQLite)")
