"""End-to-end ingestion throughput: episodes/s from enqueue until every episode is processed.

Three ways, one stream (:func:`memworks_tools.bench.data.episode_stream`: the rules extractor's
vocabulary, a few users, 5% retrieved documents with an injection):

* **embedder** — ``get_embedder("minilm").embed`` on the stream's texts in batches of 64: the
  ceiling an embedding-bound pipeline is compared against; and the same on the texts the
  embedded run asked the embedder for (each episode's transcript and each fact's index text),
  giving ``embedded_vs_own_texts_ceiling``, the share of the time that is not embedding;
* **embedded** — the default deployment: SQLite and the in-process StubBroker worker through the
  facade (``enqueue_episodes`` then ``drain``), timed in this process;
* **redis** — PostgreSQL and Redis with 1 and 2 ``memworks worker`` processes (a scratch
  database and a private ``redis-server``, or a scratch queue namespace on the given Redis).
  The workers are started and warmed (model loaded, one message each) before the clock starts;
  the run ends when the database shows every episode processed.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memworks_tools.bench import data
from memworks_tools.bench.common import Options, PeakRss, plot, ratio, stopwatch
from memworks_tools.chaos import Workers
from memworks_tools.chaos.scenario import drop_namespace

NAME = "ingest"
#: Texts per embedder call (the extraction actor embeds a message's texts in batches of 64).
BATCH = 64
#: Episodes sent (one message each) to warm distributed workers before timing.
WARMUP_EPISODES = 8


def run(opts: Options) -> dict[str, Any]:
    """Run the ingestion benchmark; returns its report (see the module docstring).

    Every side of a ratio runs ``ingest.repeats`` times, interleaved (embedder, embedded,
    Redis with each worker count; then again), so that a slow minute of the machine falls on
    both sides: the headline figures are medians, each run's figure and the spread are kept,
    and a ratio is the median of the ratios of runs made side by side.
    """
    n: int = opts.size("ingest.episodes", 2_000, 300)
    users: int = opts.size("ingest.users", 40, 20)
    worker_counts: list[int] = opts.size("ingest.workers", [1, 2], [1, 2])
    threads: int = opts.size("ingest.threads", 4, 4)
    repeats: int = max(1, int(opts.size("ingest.repeats", 3, 3)))
    pool = data.build_pool(limit=opts.sizes.get("pool"))
    episodes = data.episode_stream(n, pool, users=users, seed=13, tenant="ing")
    texts = [e["content"] for e in episodes]
    report: dict[str, Any] = {"episodes": n, "users": users, "worker_threads": threads, "repeats": repeats}
    embedder_runs: list[dict[str, Any]] = []
    embedded_runs: list[dict[str, Any]] = []
    own_runs: list[dict[str, Any]] = []
    redis_runs: dict[str, list[dict[str, Any]]] = {str(w): [] for w in worker_counts}
    for rep in range(repeats):
        opts.say(f"ingest: round {rep + 1} of {repeats}")
        embedder_runs.append(_embedder(opts, texts))
        embedded = _embedded(opts, episodes)
        # The ceiling of a pipeline bound by embedding: the same model on exactly the texts this
        # run embedded (each episode's transcript and each fact's index text), per episode.
        own = _embedder(opts, embedded.pop("index_texts"))
        own_runs.append(own | {"eps_ceiling": round(n / own["seconds"], 1) if own["seconds"] else None})
        embedded_runs.append(embedded)
        for w in worker_counts:
            redis_runs[str(w)].append(_distributed(opts, episodes, w, threads))
    report["embedder"] = median_run(embedder_runs, "sps")
    report["embedded"] = median_run(embedded_runs, "eps")
    report["embedder_own_texts"] = median_run(own_runs, "eps_ceiling")
    report["redis"] = {w: median_run(runs, "eps") for w, runs in redis_runs.items()}
    eps = {w: r["eps"] for w, r in report["redis"].items() if "eps" in r}
    best = max(eps, key=lambda w: eps[w]) if eps else None
    report |= {
        "embedder_sps": report["embedder"]["sps"],
        "embedded_eps": report["embedded"]["eps"],
        "redis_eps": eps[best] if best else float("nan"),
        "redis_eps_by_workers": eps,
        "embedded_vs_embedder": paired_ratio(embedded_runs, "eps", embedder_runs, "sps"),
        "embedded_vs_own_texts_ceiling": paired_ratio(embedded_runs, "eps", own_runs, "eps_ceiling"),
        "redis_vs_embedded": paired_ratio(redis_runs[best], "eps", embedded_runs, "eps") if best else float("nan"),
        "redis_vs_embedded_by_workers": {w: paired_ratio(redis_runs[w], "eps", embedded_runs, "eps") for w in eps},
        "peak_rss_mb": max(r["peak_rss_mb"] for r in embedded_runs),
        "worker_peak_rss_mb": max(
            (r.get("peak_rss_mb", 0.0) for runs in redis_runs.values() for r in runs), default=0.0
        ),
    }
    return report


def median_run(runs: Sequence[dict[str, Any]], key: str) -> dict[str, Any]:
    """The run whose ``key`` is the median of ``runs`` (the lower middle one of an even
    count), with every run's figure (``runs``) and their range (``spread``: [min, max]).
    Skipped runs (no ``key``) are left out; all skipped, the first is returned."""
    done = [r for r in runs if isinstance(r.get(key), int | float)]
    if not done:
        return dict(runs[0]) if runs else {}
    ordered = sorted(done, key=lambda r: float(r[key]))
    figures = [r[key] for r in done]
    return dict(ordered[(len(ordered) - 1) // 2]) | {"runs": figures, "spread": [min(figures), max(figures)]}


def paired_ratio(a: Sequence[dict[str, Any]], a_key: str, b: Sequence[dict[str, Any]], b_key: str) -> float:
    """The median of ``a[i][a_key] / b[i][b_key]`` over runs made side by side (pairs where
    either side was skipped are left out)."""
    pairs = [
        ratio(float(x[a_key]), float(y[b_key]))
        for x, y in zip(a, b, strict=False)
        if isinstance(x.get(a_key), int | float) and isinstance(y.get(b_key), int | float)
    ]
    return float(statistics.median(pairs)) if pairs else float("nan")


def _embedder(opts: Options, texts: list[str]) -> dict[str, Any]:
    from memworks.adapters.embedder import get_embedder

    embedder = get_embedder("minilm")
    embedder.embed(texts[:BATCH])  # loaded and warm
    with stopwatch() as t:
        for i in range(0, len(texts), BATCH):
            embedder.embed(texts[i : i + BATCH])
    sps = round(len(texts) / t[0], 1)
    opts.say(f"ingest: embedder {sps} sentences/s ({len(texts)} texts, batches of {BATCH})")
    return {"sps": sps, "texts": len(texts), "seconds": round(t[0], 2), "batch": BATCH}


def _embedded(opts: Options, episodes: list[dict[str, Any]]) -> dict[str, Any]:
    from memworks.client import Memworks
    from memworks.config import Settings

    with tempfile.TemporaryDirectory(prefix="memworks-bench-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'ingest.db'}"
        with Memworks(Settings(database_url=url, broker_url="stub://", cache_url="memory")) as mw:
            _ = mw.runtime.embedder, mw.runtime.extractor  # loaded before the clock starts
            with _recording(mw.runtime.embedder) as texts, PeakRss() as rss, stopwatch() as t:
                mw.enqueue_episodes(episodes)
                mw.drain()
            done, memories = _counts(mw.runtime.engine)
    eps = round(len(episodes) / t[0], 1)
    opts.say(f"ingest: embedded (SQLite + in-process worker) {eps} episodes/s, {done}/{len(episodes)} processed")
    return {
        "eps": eps,
        "seconds": round(t[0], 2),
        "processed": done,
        "memories": memories,
        "memories_per_episode": round(memories / max(done, 1), 2),
        "peak_rss_mb": rss.peak_mb,
        "index_texts": texts,
    }


@contextmanager
def _recording(embedder: Any) -> Iterator[list[str]]:
    """Every text the pipeline asks ``embedder`` to embed, while the block runs."""
    texts: list[str] = []
    original = embedder.embed

    def embed(batch: Sequence[str]) -> Any:
        texts.extend(batch)
        return original(batch)

    embedder.embed = embed  # the process's shared instance: restored below
    try:
        yield texts
    finally:
        del embedder.embed


def _counts(engine: Any, tenant_prefix: str = "ing-") -> tuple[int, int]:
    from sqlalchemy import func, select
    from sqlmodel import Session, col

    from memworks.models.tables import Memory

    with Session(engine) as s:
        ours = col(Memory.tenant_id).startswith(tenant_prefix)
        memories = s.scalar(select(func.count()).select_from(Memory).where(ours))
    return _processed(engine, tenant_prefix), int(memories or 0)


def _processed(engine: Any, tenant_prefix: str) -> int:
    """Episodes of the run's tenants processed so far (the one count the wait polls for)."""
    from sqlalchemy import func, select
    from sqlmodel import Session, col

    from memworks.models.enums import EpisodeState
    from memworks.models.tables import Episode

    processed = (col(Episode.state) == EpisodeState.PROCESSED, col(Episode.tenant_id).startswith(tenant_prefix))
    with Session(engine) as s:
        return int(s.scalar(select(func.count()).select_from(Episode).where(*processed)) or 0)


def _distributed(opts: Options, episodes: list[dict[str, Any]], workers: int, threads: int) -> dict[str, Any]:
    from memworks_tools.bench.common import postgres_version

    if postgres_version(opts.pg_url) is None:
        opts.say(f"ingest: distributed run skipped (PostgreSQL at {opts.pg_url} is not reachable)")
        return {"skipped": f"PostgreSQL at {opts.pg_url} is not reachable"}
    from memworks_tools.chaos import PrivateRedis

    try:
        private: PrivateRedis | None = PrivateRedis()
    except Exception as exc:  # noqa: BLE001 - no redis-server binary: use the given Redis instead
        opts.say(f"ingest: no private redis-server ({exc}); using {opts.redis_url} with a scratch namespace")
        private = None
    try:
        return _distributed_run(
            opts, episodes, workers, threads, private.url if private else opts.redis_url, shared_redis=private is None
        )
    finally:
        if private is not None:
            private.stop()


def _distributed_run(
    opts: Options, episodes: list[dict[str, Any]], workers: int, threads: int, broker_url: str, *, shared_redis: bool
) -> dict[str, Any]:
    from memworks.client import Memworks
    from memworks.config import Settings
    from memworks.store.sql.db import get_engine, upgrade
    from memworks_tools.chaos import scratch_database

    namespace = f"memworks-bench-{uuid.uuid4().hex[:8]}"
    with scratch_database(opts.pg_url) as db, tempfile.TemporaryDirectory(prefix="memworks-bench-") as tmp:
        upgrade(db)
        env = dict(
            os.environ,
            MEMWORKS_DATABASE_URL=db,
            MEMWORKS_BROKER_URL=broker_url,
            MEMWORKS_QUEUE_NAMESPACE=namespace,
            MEMWORKS_CACHE_URL="memory",
        )
        settings = Settings(database_url=db, broker_url=broker_url, queue_namespace=namespace, cache_url="memory")
        mw = Memworks(settings)
        procs = Workers(env, workers, threads, Path(tmp))
        try:
            warm = data.episode_stream(
                WARMUP_EPISODES, data.build_pool(limit=opts.sizes.get("pool")), users=4, seed=99, tenant="warm"
            )
            for e in warm:  # one message each, so every process is likely to load its model
                mw.enqueue_episodes([e])
            if not _wait(mw.runtime.engine, WARMUP_EPISODES, prefix="warm-", timeout_s=180):
                return {"skipped": "the workers did not start within 180 s", "workers": workers}
            with PeakRss(lambda: [p.pid for p in procs.procs]) as rss, stopwatch() as t:
                mw.enqueue_episodes(episodes)
                ok = _wait(mw.runtime.engine, len(episodes), prefix="ing-", timeout_s=1800)
            done, memories = _counts(mw.runtime.engine)
        finally:
            procs.stop()
            mw.close()
            get_engine(db).dispose()
            if shared_redis:  # a private server goes with everything in it
                drop_namespace(broker_url, namespace)
    eps = round(len(episodes) / t[0], 1)
    opts.say(
        f"ingest: Redis + PostgreSQL, {workers} worker process(es) × {threads} threads: {eps} episodes/s"
        f"{'' if ok else ' (timed out)'}; worker peak RSS {rss.peak_mb} MB"
    )
    return {
        "eps": eps,
        "seconds": round(t[0], 2),
        "processed": done,
        "memories": memories,
        "workers": workers,
        "threads": threads,
        "completed": ok,
        "peak_rss_mb": rss.peak_mb,
        "peak_rss_sum_mb": rss.peak_sum_mb,
        "processes_seen": rss.processes,
    }


def _wait(engine: Any, n: int, *, prefix: str, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        # Only the episodes are counted while the workers run: the poll shares their cores.
        if _processed(engine, prefix) >= n:
            return True
        time.sleep(0.05)
    return False


def rows(r: dict[str, Any]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = [
        ("embedder (batches of 64)", r["embedder"]["sps"], "sentences/s", ""),
        ("embedded: SQLite + in-process worker", r["embedded"]["eps"], "episodes/s", r["embedded"]["peak_rss_mb"]),
    ]
    for w, d in r["redis"].items():
        if "eps" in d:
            out.append((f"Redis + PostgreSQL, {w} worker process(es)", d["eps"], "episodes/s", d["peak_rss_mb"]))
        else:
            out.append((f"Redis + PostgreSQL, {w} worker process(es)", "skipped", d.get("skipped", ""), ""))
    own = r["embedder_own_texts"]
    out.append((f"embedder on the run's own {own['texts']} index texts", own["eps_ceiling"], "episodes/s", ""))
    out.append(("embedded / embedder", r["embedded_vs_embedder"], "ratio", ""))
    out.append(("embedded / embedder on its own texts", r["embedded_vs_own_texts_ceiling"], "ratio (goal ≥ 0.8)", ""))
    out.append(("Redis + PostgreSQL / embedded", r["redis_vs_embedded"], "ratio (goal ≥ 0.8)", ""))
    n = r.get("repeats", 1)
    out.append((f"rates: medians of {n} interleaved runs", "", "", ""))
    return out


HEADERS = ["run", "rate", "unit", "peak RSS MB"]


def draw(r: dict[str, Any], path: Path) -> Path:
    labels = ["embedder\n(sentences/s)", "embedded\n(SQLite)"]
    labels += [f"Redis+PG\n{w} proc" for w in r["redis_eps_by_workers"]]
    values = [r["embedder_sps"], r["embedded_eps"], *r["redis_eps_by_workers"].values()]

    def paint(ax: Any) -> None:
        ax.bar(labels, values, color=["#888888", "#1f77b4"] + ["#2ca02c"] * (len(values) - 2))
        for i, v in enumerate(values):
            ax.text(i, v, f"{v:.0f}", ha="center", va="bottom", fontsize=8)
        ax.set_ylabel("per second")

    return plot(path, paint, title=f"ingest throughput, {r['episodes']:,} episodes (enqueue → processed)")
