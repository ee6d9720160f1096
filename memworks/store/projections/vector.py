"""The vector projection: embeddings in SQL, searched exactly within the caller's scope.

The scope and time filters run in SQL first, so the matrix scored is the caller's scope only;
its cost follows the scope, not the store. float32 throughout (float16 matmul is far slower
on CPUs like this one).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import delete, func, insert, or_, select
from sqlmodel import Session, col

from memworks.models.schemas import Scope
from memworks.models.tables import Memory, VectorEntry
from memworks.store import versions
from memworks.store.projections.base import Evidence, IndexRecord

#: Candidates taken from the vector side before fusion.
LIMIT = 50


def apply(
    session: Session, records: Sequence[IndexRecord], vectors: npt.NDArray[np.float32], fingerprints: Sequence[str],
    *, model: str,
) -> None:
    """Store one vector per record (replacing an existing one)."""
    if not records:
        return
    purge(session, [r.memory_id for r in records])
    session.execute(insert(VectorEntry), [
        {"memory_id": r.memory_id, "tenant_id": r.tenant_id, "user_id": r.user_id, "model": model,
         "vector": np.ascontiguousarray(v, dtype=np.float32).tobytes(), "fingerprint": fp}
        for r, v, fp in zip(records, vectors, fingerprints, strict=True)
    ])  # fmt: skip


def purge(session: Session, memory_ids: Sequence[str]) -> int:
    total = 0
    for i in range(0, len(memory_ids), 500):
        result: Any = session.execute(delete(VectorEntry).where(col(VectorEntry.memory_id).in_(memory_ids[i : i + 500])))
        total += result.rowcount or 0
    return total


def confirm_absent(session: Session, memory_ids: Sequence[str]) -> Evidence:
    remaining = 0
    for i in range(0, len(memory_ids), 500):
        remaining += session.scalar(
            select(func.count()).select_from(VectorEntry).where(col(VectorEntry.memory_id).in_(memory_ids[i : i + 500]))
        ) or 0
    return Evidence("vector_index", remaining, [f"vector_entry by memory_id ({len(memory_ids)})"], datetime.now(UTC))


class MatrixCache:
    """Each scope's vectors as one float32 matrix, kept in process between queries.

    An entry is valid for one (user, tenant-wide) scope version: any write to the scope bumps
    it, so the next query reloads. Entries unused for ``max_age_s`` are dropped, and the
    whole cache stays under ``max_bytes`` (least recently used first), so an erased vector
    outlives its deletion in a process's memory by at most ``max_age_s``, and only until the
    scope's next query, which finds the bumped version.
    """

    def __init__(self, max_bytes: int = 512 * 2**20, max_age_s: float = 300.0) -> None:
        self.max_bytes, self.max_age_s = max_bytes, max_age_s
        self._entries: OrderedDict[tuple[str, str, str | None], _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, str | None], version: tuple[int, int]) -> _Entry | None:
        with self._lock:
            self._expire()
            e = self._entries.get(key)
            if e is None or e.version != version:
                return None
            self._entries.move_to_end(key)
            e.used = time.monotonic()
            return e

    def put(self, key: tuple[str, str, str | None], entry: _Entry) -> None:
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while sum(x.matrix.nbytes for x in self._entries.values()) > self.max_bytes and len(self._entries) > 1:
                self._entries.popitem(last=False)

    def drop(self, tenant_id: str, user_id: str | None = None) -> None:
        """Forget a tenant's (or one user's) matrices now, e.g. when a deletion purges them."""
        with self._lock:
            for key in [k for k in self._entries if k[1] == tenant_id and (user_id is None or k[2] in (user_id, None))]:
                del self._entries[key]

    def drop_database(self, database: str) -> None:
        """Forget every matrix of one database (its facade is closing)."""
        with self._lock:
            for key in [k for k in self._entries if k[0] == database]:
                del self._entries[key]

    def _expire(self) -> None:
        cutoff = time.monotonic() - self.max_age_s
        for key in [k for k, e in self._entries.items() if e.used < cutoff]:
            del self._entries[key]


@dataclass
class _Entry:
    version: tuple[int, int]
    ids: list[str]
    matrix: npt.NDArray[np.float32]
    index: dict[str, int]
    used: float


#: The process's matrices (the API, the embedded worker and each worker process hold their own).
MATRICES = MatrixCache()


def _entry(session: Session, scope: Scope) -> _Entry:
    version = versions.read(session, tenant_id=scope.tenant_id, user_id=scope.user_id)
    # Keyed by database too: one process may hold facades of several stores.
    key = (session.get_bind().engine.url.render_as_string(hide_password=True), scope.tenant_id, scope.user_id)
    cached = MATRICES.get(key, version)
    if cached is not None:
        return cached
    user = col(VectorEntry.user_id).is_(None) if scope.user_id is None else or_(
        col(VectorEntry.user_id) == scope.user_id, col(VectorEntry.user_id).is_(None))  # fmt: skip
    rows = session.execute(
        select(col(VectorEntry.memory_id), col(VectorEntry.vector)).where(col(VectorEntry.tenant_id) == scope.tenant_id, user)
    ).all()
    ids = [r[0] for r in rows]
    matrix = (np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
              if rows else np.zeros((0, 0), dtype=np.float32))  # fmt: skip
    entry = _Entry(version, ids, matrix, {m: i for i, m in enumerate(ids)}, time.monotonic())
    MATRICES.put(key, entry)
    return entry


def _best_first(sims: npt.NDArray[np.float32], step: int) -> Iterator[npt.NDArray[np.intp]]:
    """Indices by descending score, ``step`` at a time; the full sort only if the first
    ``step`` (found by partition) are not enough."""
    if len(sims) <= step:
        yield np.argsort(-sims)
        return
    top = np.argpartition(-sims, step - 1)[:step]
    yield top[np.argsort(-sims[top])]
    seen = set(top.tolist())
    rest = np.array([i for i in np.argsort(-sims).tolist() if i not in seen], dtype=np.intp)
    for i in range(0, len(rest), step):
        yield rest[i : i + step]


def search(
    session: Session, *, scope: Scope, query: npt.NDArray[np.float32], where: Sequence[Any], limit: int = LIMIT,
    also: Sequence[str] = (),
) -> dict[str, float]:
    """Cosine similarity of the best ``limit`` visible records (and of ``also``) to ``query``.

    Exact search: the scope's whole matrix is scored, then candidates are taken best first and
    kept only if the read's filters (time, status, scope) admit them, in SQL, until ``limit`` are
    kept. The result equals filtering first and ranking after.
    """
    e = _entry(session, scope)
    if not e.ids:
        return {}
    sims = e.matrix @ query.astype(np.float32)
    out: dict[str, float] = {}
    for batch in _best_first(sims, max(4 * limit, 64)):
        ids = [e.ids[i] for i in batch]
        keep = set(session.scalars(select(col(Memory.memory_id)).where(col(Memory.memory_id).in_(ids), *where)))
        for i, mid in zip(batch, ids, strict=True):
            if mid in keep and len(out) < limit:
                out[mid] = float(sims[i])
        if len(out) >= limit:
            break
    for mid in set(also) - out.keys():
        if mid in e.index:
            out[mid] = float(sims[e.index[mid]])
    return out
