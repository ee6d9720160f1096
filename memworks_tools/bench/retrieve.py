"""Retrieval latency by scope size, isolation from other tenants' rows, and exactness.

For each database and scope size a fresh store is bulk-loaded (:mod:`memworks_tools.bench.data`) and
``Memworks.retrieve(scope, query)`` is timed end to end, the query's embedding included. The
read cache is out of the way twice over: ``cache_ttl_s=0`` (an entry expires as it is written:
``MemoryCache.get`` drops anything past its expiry) and every timed query is a different string
(the cache key holds the query). A few untimed queries warm the process first.

The 1k scope's store then grows by 10× and 100× its size in rows of other tenants, and the
same queries run again through the facade opened before the rows came (a long-running
process), and after the last step through a fresh one: ``foreign_100x_ratio`` is p95 with 100×
foreign rows over p95 without, for the long-running process
(``foreign_100x_ratio_fresh_connections`` for the fresh one). The two differ on SQLite, whose
connections keep the planner statistics they loaded when they opened; the loader refreshes the
statistics with ``ANALYZE`` after each load, as the nightly run does.

``stages``: at the sizes in ``retrieve.stage_sizes`` the same queries run again through facades
with the read path's stages switched on one after another (fusion alone; + sentence spans;
the learned ranker; + neighbouring turns; + time and subject checks: the default; + the
user's profile chosen for the question, ``include_profile=True``: every stage), so each stage's
cost shows as the step between two rows. The loader's records are single
sentences, so before the stage runs each record of the scope is given two sentence vectors
(its own vector plus noise): a LoCoMo turn has 2.6 on average.

``writes_per_read``: SQL statements that write (or take a write lock) issued by the reading
thread per timed retrieve, caught by SQLAlchemy's ``before_cursor_execute`` hook on the
facade's engine (:mod:`memworks_tools.bench.sql_writes`); 0 when the read path is read-only
(its attention goes to the maintenance queue, recorded by a worker). The headline is the largest.

``recall_vs_exact`` compares memworks' vector search (``projections.vector.search`` with the
read path's visibility filter, top 10) with brute-force cosine over the vectors the loader
wrote for the same scope.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memworks_tools.bench import data
from memworks_tools.bench.common import Options, PeakRss, percentiles, stopwatch
from memworks_tools.bench.data import vocabulary as words
from memworks_tools.bench.retrieve_report import HEADERS, draw, rows, summary
from memworks_tools.bench.sql_writes import is_write, statements_on_this_thread

NAME = "retrieve"
#: What the benchmark registry reads of this module besides :func:`run`.
__all__ = ["HEADERS", "NAME", "draw", "rows", "run"]
TENANT, USER = "bench", "caller"
#: Untimed queries that warm the process (compiled statements, the embedder, the pool).
WARMUP = 3
#: Queries checked for recall@10 per store (each is one exact vector search).
RECALL_QUERIES = 30

_QUESTIONS = (
    "Where do I live these days?",
    "Which city is home for me now?",
    "Where do I work?",
    "Who is my employer?",
    "What is my job title?",
    "What do I do for a living?",
    "What kind of food do I like?",
    "What are my hobbies?",
    "Am I allergic to anything?",
    "What is my pet called?",
    "What's my sister's name?",
    "What's my favourite colour?",
    "Do I prefer tea or coffee?",
    "Which seat do I like on planes?",
    "How should answers be formatted for me?",
    "What is my diet?",
    "Where did I grow up?",
    "What time zone am I in?",
    "What did we discuss about the budget?",
    "What should I pack for the trip?",
)


def queries(n: int, *, seed: int = 11) -> list[str]:
    """``n`` distinct questions in the pool's vocabulary (distinct strings never share a cache entry)."""
    rng = random.Random(seed)
    out = list(_QUESTIONS)
    out += [f"Do I still live in {c}?" for c in words.CITIES] + [f"Do I work at {e}?" for e in words.EMPLOYERS]
    out += [f"Do I like {t}?" for t in words.THINGS] + [f"Am I allergic to {a}?" for a in words.ALLERGENS]
    out += [f"Is my {s} called {n}?" for s, n in words.PETS] + [f"Who is {n}?" for _, n in words.FAMILY]
    out += [f"Am I a {j}?" for j in words.JOBS]
    out = list(dict.fromkeys(out))
    rng.shuffle(out)
    while len(out) < n:  # more than the templates give: numbered variants, still distinct
        out.append(f"{out[len(out) % len(_QUESTIONS)]} ({len(out)})")
    return out[:n]


def run(opts: Options) -> dict[str, Any]:
    """Run the retrieval benchmark; returns its report (see the module docstring)."""
    from memworks.adapters.embedder import get_embedder

    sizes: list[int] = opts.size("retrieve.sizes", [1_000, 10_000, 100_000], [1_000, 10_000])
    dbs: list[str] = opts.size("retrieve.dbs", ["sqlite", "postgresql"], ["sqlite"])
    foreign: list[int] = opts.size("retrieve.foreign", [10, 100], [10, 100])
    n_queries: int = opts.size("retrieve.queries", 100, 100)
    budget_s: float = opts.size("retrieve.budget_s", 30.0, 15.0)
    pool = data.build_pool(limit=opts.sizes.get("pool"))
    qs = queries(n_queries + WARMUP)
    warm, timed = qs[:WARMUP], qs[WARMUP:]
    qvecs = get_embedder("minilm").embed(timed[:RECALL_QUERIES])
    report: dict[str, Any] = {"sizes": sizes, "databases": {}, "queries": len(timed), "budget_s": budget_s}
    with PeakRss() as rss:
        for db in dbs:
            try:
                report["databases"][db] = _database(opts, db, sizes, foreign, pool, warm, timed, qvecs, budget_s)
            except _Unavailable as exc:
                opts.say(f"retrieve: {db} skipped ({exc})")
                report["databases"][db] = {"skipped": str(exc)}
    report["peak_rss_mb"] = rss.peak_mb
    return summary(report)


class _Unavailable(Exception):
    pass


#: Read-path stages, switched on one after another: name -> settings.
STAGES: dict[str, dict[str, Any]] = {
    "fusion": {
        "retrieve_ranker": "fusion",
        "retrieve_spans": False,
        "retrieve_neighbors": False,
        "retrieve_time": False,
        "retrieve_subjects": False,
        "retrieve_latest": False,
    },
    "+ spans": {
        "retrieve_ranker": "fusion",
        "retrieve_spans": True,
        "retrieve_neighbors": False,
        "retrieve_time": False,
        "retrieve_subjects": False,
        "retrieve_latest": False,
    },
    "+ learned ranker": {
        "retrieve_ranker": "learned",
        "retrieve_spans": True,
        "retrieve_neighbors": False,
        "retrieve_time": False,
        "retrieve_subjects": False,
        "retrieve_latest": False,
    },
    "+ neighbours": {
        "retrieve_ranker": "learned",
        "retrieve_spans": True,
        "retrieve_neighbors": True,
        "retrieve_time": False,
        "retrieve_subjects": False,
        "retrieve_latest": False,
    },
    "+ time, subjects, latest": {},
    "+ profile for the question (all)": {"include_profile": True},
}
#: Sentence vectors given to each record before the stage runs.
SPANS_PER_RECORD = 2


def _database(
    opts: Options,
    db: str,
    sizes: list[int],
    foreign: list[int],
    pool: data.Pool,
    warm: list[str],
    timed: list[str],
    qvecs: npt.NDArray[np.float32],
    budget_s: float,
) -> dict[str, Any]:
    out: dict[str, Any] = {"by_size": {}, "foreign": {}}
    stage_sizes: list[int] = opts.size("retrieve.stage_sizes", [10_000], [1_000, 10_000])
    for n in sizes:
        with _store(opts, db) as url:
            opts.say(f"retrieve[{db}]: loading a scope of {n:,} memories")
            loaded = data.load_isolated(
                url, [data.UserSpec(TENANT, USER, n)], pool, seed=n, keep=[(TENANT, USER)], queries=qvecs
            )
            row: dict[str, Any] = {"memories": loaded.memories, "build_s": loaded.seconds}
            with _memworks(url) as mw:
                row |= _measure(opts, mw, loaded, warm, timed, qvecs, budget_s, f"{db} {n:,}")
                out["by_size"][str(n)] = row
                if n == min(sizes) and foreign:
                    out["foreign"] = _foreign(
                        opts, db, url, mw, row, loaded, foreign, pool, warm, timed, qvecs, budget_s
                    )
            if n in stage_sizes:
                row["stages"] = _stages(opts, url, loaded, warm, timed, qvecs, budget_s, f"{db} {n:,}")
    return out


def _stages(
    opts: Options,
    url: str,
    loaded: data.Loaded,
    warm: list[str],
    timed: list[str],
    qvecs: npt.NDArray[np.float32],
    budget_s: float,
    label: str,
) -> dict[str, Any]:
    """Latency with the read path's stages switched on one after another (see the module doc)."""
    _add_spans(url)
    out: dict[str, Any] = {}
    for name, stage in STAGES.items():
        settings = {k: v for k, v in stage.items() if k != "include_profile"}
        with _memworks(url, **settings) as mw:
            label_ = f"{label}, {name}"
            profiled = bool(stage.get("include_profile"))
            out[name] = _measure(opts, mw, loaded, warm, timed, qvecs, budget_s, label_, include_profile=profiled)
    return out


def _add_spans(url: str, seed: int = 5) -> None:
    """Give every record of the benchmark scope :data:`SPANS_PER_RECORD` sentence vectors."""
    from sqlalchemy import bindparam, select, update
    from sqlmodel import col

    from memworks.models.tables import VectorEntry
    from memworks.store import versions
    from memworks.store.sql.db import get_engine, session_scope

    rng = np.random.default_rng(seed)
    with session_scope(get_engine(url)) as s:
        rows = s.execute(
            select(col(VectorEntry.memory_id), col(VectorEntry.vector)).where(
                col(VectorEntry.tenant_id) == TENANT, col(VectorEntry.user_id) == USER
            )
        ).all()
        params = []
        for mid, raw in rows:
            v = np.frombuffer(raw, dtype=np.float32)
            spans = v + rng.normal(0, 0.03, size=(SPANS_PER_RECORD, v.size)).astype(np.float32)
            spans /= np.linalg.norm(spans, axis=1, keepdims=True)
            params.append({"mid": mid, "sp": spans.astype(np.float32).tobytes()})
        s.connection().execute(
            update(VectorEntry).where(col(VectorEntry.memory_id) == bindparam("mid")).values(spans=bindparam("sp")),
            params,
        )
        versions.bump(s, tenant_id=TENANT, user_id=USER)  # the scope's cached matrices reload with spans


def _foreign(
    opts: Options,
    db: str,
    url: str,
    mw: Any,
    base: dict[str, Any],
    loaded: data.Loaded,
    foreign: list[int],
    pool: data.Pool,
    warm: list[str],
    timed: list[str],
    qvecs: npt.NDArray[np.float32],
    budget_s: float,
) -> dict[str, Any]:
    """The same scope and queries while other tenants' rows grow, through the facade that was
    open before they came (a long-running process); after the last step once more through a
    fresh facade. SQLite connections keep the planner statistics they loaded when they opened,
    so the long-running one may still plan for the smaller store."""
    out: dict[str, Any] = {"0": {"foreign_rows": 0} | base}
    have = 0
    for times in sorted(foreign):
        extra = times * loaded.memories - have
        opts.say(f"retrieve[{db}]: adding {extra:,} rows of other tenants ({times}× the scope)")
        more = data.load_isolated(url, data.foreign_specs(extra, prefix=f"other{times}"), pool, seed=times)
        have += more.memories
        label = f"{db} {base['memories']:,} + {times}× foreign"
        out[str(times)] = {"foreign_rows": have, "build_s": more.seconds} | _measure(
            opts, mw, loaded, warm, timed, qvecs, budget_s, f"{label}, open since before"
        )
    last = str(max(foreign))
    mw.close()  # its engine's connections go with it; the next facade opens new ones
    with _memworks(url) as fresh:
        out[last]["fresh_connections"] = _measure(
            opts, fresh, loaded, warm, timed, qvecs, budget_s, f"{db} {base['memories']:,} + {last}× foreign, reopened"
        )
    return out


@contextmanager
def _store(opts: Options, db: str) -> Iterator[str]:
    """A fresh, migrated database: a temporary SQLite file, or a scratch PostgreSQL database."""
    from memworks.store.sql.db import get_engine, upgrade
    from memworks_tools.chaos import scratch_database

    if db == "sqlite":
        with tempfile.TemporaryDirectory(prefix="memworks-bench-") as tmp:
            url = f"sqlite:///{Path(tmp) / 'bench.db'}"
            upgrade(url)
            yield url
            get_engine(url).dispose()
        return
    from memworks_tools.bench.common import postgres_version

    if postgres_version(opts.pg_url) is None:
        raise _Unavailable(f"PostgreSQL at {opts.pg_url} is not reachable")
    with scratch_database(opts.pg_url) as url:
        upgrade(url)
        try:
            yield url
        finally:
            get_engine(url).dispose()


@contextmanager
def _memworks(url: str, **settings: Any) -> Iterator[Any]:
    from memworks.client import Memworks
    from memworks.config import Settings

    mw = Memworks(Settings(database_url=url, broker_url="stub://", cache_url="memory", cache_ttl_s=0, **settings))
    try:
        yield mw
    finally:
        mw.close()


def _measure(
    opts: Options,
    mw: Any,
    loaded: data.Loaded,
    warm: list[str],
    timed: list[str],
    qvecs: npt.NDArray[np.float32],
    budget_s: float,
    label: str,
    *,
    include_profile: bool = False,
) -> dict[str, Any]:
    from memworks.models.schemas import Scope
    from memworks_tools.bench.common import progress

    scope = Scope(tenant_id=TENANT, user_id=USER)
    for q in warm:
        mw.retrieve(scope, q, include_profile=include_profile)
    latencies: list[float] = []
    abstained = 0
    deadline = time.perf_counter() + budget_s
    with statements_on_this_thread(mw.runtime.engine) as sql:
        for q in progress(timed, total=len(timed), desc=f"retrieve {label}", enabled=opts.progress):
            with stopwatch() as t:
                result = mw.retrieve(scope, q, include_profile=include_profile)
            latencies.append(t[0] * 1000)
            abstained += result.abstained
            if time.perf_counter() > deadline and len(latencies) >= 20:
                break
    writes = sum(map(is_write, sql))
    stats = percentiles(latencies)
    recall = _recall(mw, loaded, qvecs)
    opts.say(
        f"retrieve[{label}]: p50 {stats['p50']} ms, p95 {stats['p95']} ms, p99 {stats['p99']} ms over "
        f"{stats['n']} queries; recall@10 vs exact {recall}; {writes} write statements"
    )
    return {
        "latency_ms": stats,
        "writes_per_read": round(writes / len(latencies), 3) if latencies else float("nan"),
        "recall_vs_exact": recall,
        "abstained": abstained,
        "visible": loaded.visible[(TENANT, USER)],
    }


def _recall(mw: Any, loaded: data.Loaded, qvecs: npt.NDArray[np.float32], k: int = 10) -> float:
    """Mean recall@k of memworks' vector search against brute-force cosine over the loader's vectors."""
    from memworks.models.schemas import Scope
    from memworks.store.projections import vector
    from memworks.store.retrieval.filters import visible
    from memworks.store.sql.db import session_scope
    from memworks.workers.runtime import utcnow

    exact = loaded.exact[(TENANT, USER)]
    scope = Scope(tenant_id=TENANT, user_id=USER)
    hits = 0
    for q, truth in zip(qvecs, exact, strict=True):
        with session_scope(mw.runtime.engine, write=False) as s:
            where = visible(scope, now=utcnow(), as_of=None, known_at=None)
            found = vector.search(s, scope=scope, query=q, where=where, limit=k)
        hits += len(set(truth[:k]) & set(sorted(found, key=lambda m: -found[m])[:k]))
    return round(hits / (k * len(qvecs)), 4) if len(qvecs) else float("nan")
