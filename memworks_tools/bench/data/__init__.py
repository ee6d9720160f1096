"""Synthetic stores, fast: realistic rows bulk-loaded straight into the tables.

The rows mirror what ingestion writes (``services/ingest/process.py`` → ``memories.apply_plan`` →
``indexing.index_memories`` → the lexical and vector projections) without running the
embedder per row:

* a **pool** of utterances in the rules extractor's vocabulary is run through the real
  extractor and gate (:func:`judge_episode`), and every distinct sentence (the utterances and
  the index texts of their facts, :func:`index_text`) is embedded once with the real model;
* a user's store is a stream of episodes drawn from the pool. Each episode gives its
  transcript record and its facts, with the supersession rules of ``pipelines/ingest/supersession.py``
  in a simplified form: a single-valued slot's previous record is superseded (``valid_to``,
  ``superseded_by``, a ``supersedes`` edge), a value already held is reinforced (a
  ``reinforced_by`` edge, no new row), multi-valued slots collect values, and a derived time
  zone gets a ``derived_from`` edge to its city;
* every text carries a numeric suffix (``"… #1234"``), so documents are distinct and the
  postings realistic; values are left as the extractor wrote them;
* vectors are the pool vector of the sentence plus small Gaussian noise, re-normalised
  (clusters, as real stores have); lexical documents and postings are
  ``term_counts(index_text(key, text))`` exactly as ``lexical.apply`` writes them.

Rows go in with ``executemany`` on SQLite and ``COPY`` on PostgreSQL. The parts: :mod:`.vocabulary`
and :mod:`.pool` (the utterances), :mod:`.rows` (one user's rows), :mod:`.index_rows` (lexical and
vector entries) and :mod:`.bulk` (the writer); this module loads whole stores.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import numpy.typing as npt

from memworks.models.enums import MemoryStatus
from memworks_tools.bench.data.bulk import CHUNK, BulkWriter
from memworks_tools.bench.data.pool import Pool, build_pool
from memworks_tools.bench.data.rows import Rows, UserSpec, user_rows
from memworks_tools.chaos import agent_episode

__all__ = [
    "MIN_FOREIGN_ROWS",
    "Loaded",
    "Pool",
    "UserSpec",
    "build_pool",
    "episode_stream",
    "foreign_specs",
    "load_isolated",
    "load_users",
]

#: Fewest memory rows of one user of another tenant.
MIN_FOREIGN_ROWS = 20


@dataclass
class Loaded:
    """What :func:`load_users` wrote, and for the scopes asked to keep: how many records a read
    may see, and the exact top-k neighbours of given query vectors among them."""

    memories: int = 0
    rows: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    visible: dict[tuple[str, str], int] = field(default_factory=dict)
    #: Per kept scope: the ids of the k most similar active records, per query (brute force).
    exact: dict[tuple[str, str], list[list[str]]] = field(default_factory=dict)


def load_users(
    url: str,
    specs: Sequence[UserSpec],
    pool: Pool,
    *,
    seed: int,
    now: datetime | None = None,
    keep: Sequence[tuple[str, str]] = (),
    queries: npt.NDArray[np.float32] | None = None,
    k: int = 10,
) -> Loaded:
    """Generate and bulk-load ``specs`` into the database at ``url`` (user by user, small users
    batched together)."""
    t0 = time.perf_counter()
    now = now or datetime.now(UTC)
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    serial = iter(range(seed * 10_000_000, 2**62))
    out = Loaded()
    keep_set = set(keep)
    batch = Rows()
    with BulkWriter(url) as w:
        for spec in specs:
            r = user_rows(spec, pool, rng=rng, now=now, serial=serial)
            out.memories += len(r)
            if (spec.tenant_id, spec.user_id) in keep_set:
                vecs = w.rows(r, pool, rng=nrng)  # rows.indexed follows rows.memory: one vector per record
                live = np.array([m["status"] == MemoryStatus.ACTIVE.value for m in r.memory], dtype=bool)
                ids = [m["memory_id"] for m in r.memory if m["status"] == MemoryStatus.ACTIVE.value]
                key = (spec.tenant_id, spec.user_id)
                out.visible[key] = len(ids)
                if queries is not None:
                    sims = queries @ vecs[live].T
                    out.exact[key] = [[ids[i] for i in np.argsort(-row)[:k]] for row in sims]
            else:
                _extend(batch, r)
                if len(batch) >= CHUNK:
                    w.rows(batch, pool, rng=nrng)
                    batch = Rows()
        if len(batch):
            w.rows(batch, pool, rng=nrng)
        out.rows = w.rows_written
    # A store this size has been through nightly runs: the planner's statistics are current.
    from memworks.store.sql.db import analyze, make_engine

    engine = make_engine(url)
    analyze(engine)
    engine.dispose()
    out.seconds = round(time.perf_counter() - t0, 2)
    return out


def load_isolated(
    url: str,
    specs: Sequence[UserSpec],
    pool: Pool,
    *,
    seed: int,
    keep: Sequence[tuple[str, str]] = (),
    queries: npt.NDArray[np.float32] | None = None,
) -> Loaded:
    """:func:`load_users` in a child process, so the rows it builds never count in this
    process's memory (the benchmarks report this process's peak RSS as the worker's).

    The child is a fresh interpreter given its arguments in a pickle file (not multiprocessing's
    spawn, which would re-run an unguarded ``__main__`` such as ``python -m memworks.cli``).
    """
    import pickle
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory(prefix="memworks-bench-load-") as tmp:
        args, result = Path(tmp) / "args.pickle", Path(tmp) / "result.pickle"
        args.write_bytes(pickle.dumps((url, list(specs), pool, seed, list(keep), queries)))
        subprocess.run(
            [sys.executable, "-c", f"from memworks_tools.bench.data import _child; _child({str(tmp)!r})"], check=True
        )
        loaded: Loaded = pickle.loads(result.read_bytes())
        return loaded


def _child(tmp: str) -> None:
    """The child of :func:`load_isolated`: load, then hand the result back in a pickle file."""
    import pickle
    from pathlib import Path

    url, specs, pool, seed, keep, queries = pickle.loads((Path(tmp) / "args.pickle").read_bytes())
    loaded = load_users(url, specs, pool, seed=seed, keep=keep, queries=queries)
    (Path(tmp) / "result.pickle").write_bytes(pickle.dumps(loaded))


def _extend(into: Rows, r: Rows) -> None:
    for name in ("memory", "lineage", "episode", "gate_decision", "scope_version", "indexed"):
        getattr(into, name).extend(getattr(r, name))


def foreign_specs(
    total: int, *, tenants: int = 10, users_per_tenant: int = 100, prefix: str = "other", with_gate: bool = False
) -> list[UserSpec]:
    """About ``total`` memory rows of other tenants, spread evenly over up to ``tenants`` ×
    ``users_per_tenant`` users of at least :data:`MIN_FOREIGN_ROWS` rows each (a user may go
    over by the rows of one episode)."""
    if total <= 0:
        return []
    n_users = max(min(tenants * users_per_tenant, total // MIN_FOREIGN_ROWS), 1)
    base, extra = divmod(total, n_users)
    return [
        UserSpec(f"{prefix}-{i // users_per_tenant:03d}", f"u{i % users_per_tenant:05d}", base + (i < extra), with_gate)
        for i in range(n_users)
    ]


def episode_stream(n: int, pool: Pool, *, users: int, seed: int, tenant: str = "bench") -> list[dict[str, Any]]:
    """``n`` episodes as agents send them, like ``chaos.stream`` but with the pool's utterances:
    facts, changes, requests and small talk, 5% retrieved documents carrying an injection."""
    rng = random.Random(seed)
    start = datetime.now(UTC) - timedelta(minutes=n + 60)
    turns: Counter[str] = Counter()
    out = []
    for i in range(n):
        user = f"u{rng.randrange(users):03d}"
        tenant_id = f"{tenant}-a" if rng.random() < 0.5 else f"{tenant}-b"
        turn = turns[tenant_id + user]
        turns[tenant_id + user] += 1
        content = pool.utterances[rng.randrange(len(pool.utterances))].content
        out.append(
            agent_episode(
                rng, tenant=tenant_id, user=user, turn=turn, content=content, when=start + timedelta(minutes=i)
            )
        )
    return out
