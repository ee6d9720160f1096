"""The vector projection: embeddings in SQL, searched exactly within the caller's scope.

The scope and time filters run in SQL first, so the matrix scored is the caller's scope only;
its cost follows the scope, not the store. float32 throughout (float16 matmul is far slower
on CPUs like this one).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import delete, func, insert, or_, select
from sqlmodel import Session, col

from memworks.models.schemas import Scope
from memworks.models.tables import VectorEntry
from memworks.store.projections.base import Evidence, IndexRecord
from memworks.store.projections.scope_cache import cached, keep_visible, live_mask

#: Candidates taken from the vector side before fusion.
LIMIT = 50


def apply(
    session: Session,
    records: Sequence[IndexRecord],
    vectors: npt.NDArray[np.float32],
    fingerprints: Sequence[str],
    *,
    model: str,
    replace: bool = True,
) -> None:
    """Store one vector per record (with ``replace``, replacing an existing one)."""
    if not records:
        return
    if replace:
        purge(session, [r.memory_id for r in records])
    session.execute(
        insert(VectorEntry),
        [
            {
                "memory_id": r.memory_id,
                "tenant_id": r.tenant_id,
                "user_id": r.user_id,
                "model": model,
                "vector": np.ascontiguousarray(v, dtype=np.float32).tobytes(),
                "fingerprint": fp,
            }
            for r, v, fp in zip(records, vectors, fingerprints, strict=True)
        ],
    )


def purge(session: Session, memory_ids: Sequence[str]) -> int:
    total = 0
    for i in range(0, len(memory_ids), 500):
        result: Any = session.execute(
            delete(VectorEntry).where(col(VectorEntry.memory_id).in_(memory_ids[i : i + 500]))
        )
        total += result.rowcount or 0
    return total


def confirm_absent(session: Session, memory_ids: Sequence[str]) -> Evidence:
    remaining = 0
    for i in range(0, len(memory_ids), 500):
        remaining += (
            session.scalar(
                select(func.count())
                .select_from(VectorEntry)
                .where(col(VectorEntry.memory_id).in_(memory_ids[i : i + 500]))
            )
            or 0
        )
    return Evidence("vector_index", remaining, [f"vector_entry by memory_id ({len(memory_ids)})"], datetime.now(UTC))


@dataclass
class _Matrix:
    version: tuple[int, int]
    ids: list[str]
    matrix: npt.NDArray[np.float32]
    index: dict[str, int]
    #: Which rows a present read may see (:func:`~memworks.store.projections.scope_cache.live_mask`).
    live: npt.NDArray[np.bool_]
    used: float = field(default_factory=time.monotonic)

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes)


def _load(session: Session, scope: Scope, version: tuple[int, int]) -> _Matrix:
    user = (
        col(VectorEntry.user_id).is_(None)
        if scope.user_id is None
        else or_(col(VectorEntry.user_id) == scope.user_id, col(VectorEntry.user_id).is_(None))
    )
    rows = session.execute(
        select(col(VectorEntry.memory_id), col(VectorEntry.vector)).where(
            col(VectorEntry.tenant_id) == scope.tenant_id, user
        )
    ).all()
    ids = [r[0] for r in rows]
    matrix = (
        np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        if rows
        else np.zeros((0, 0), dtype=np.float32)
    )
    return _Matrix(version, ids, matrix, {m: i for i, m in enumerate(ids)}, live_mask(session, scope, ids))


def search(
    session: Session,
    *,
    scope: Scope,
    query: npt.NDArray[np.float32],
    where: Sequence[Any],
    limit: int = LIMIT,
    also: Sequence[str] = (),
    version: tuple[int, int] | None = None,
    present: bool = False,
) -> dict[str, float]:
    """Cosine similarity of the best ``limit`` visible records (and of ``also``) to ``query``.

    Exact search: the scope's whole matrix is scored, then candidates are taken best first and
    kept only if the read's filters (time, status, scope) admit them, in SQL, until ``limit`` are
    kept. The result equals filtering first and ranking after. ``present``: ``where`` is a
    present read's, so rows that the scope version already rules out are not even checked.
    """
    e = cached(session, scope, "vector", lambda v: _load(session, scope, v), version)
    if not e.ids:
        return {}
    sims = e.matrix @ query.astype(np.float32)
    out = keep_visible(session, e.ids, sims, where, limit, among=np.flatnonzero(e.live) if present else None)
    for mid in set(also) - out.keys():
        if mid in e.index:
            out[mid] = float(sims[e.index[mid]])
    return out
