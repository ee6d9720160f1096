"""The vector projection: embeddings in SQL, searched exactly within the caller's scope.

The scope and time filters run in SQL first, so the matrix scored is the caller's scope only;
its cost follows the scope, not the store. float32 throughout (float16 matmul is far slower
on CPUs like this one).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import delete, func, select
from sqlmodel import Session, col

from memworks.models.schemas import Scope
from memworks.models.tables import Memory, VectorEntry
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
    session.add_all(
        VectorEntry(
            memory_id=r.memory_id, tenant_id=r.tenant_id, user_id=r.user_id, model=model,
            vector=np.ascontiguousarray(v, dtype=np.float32).tobytes(), fingerprint=fp,
        )  # fmt: skip
        for r, v, fp in zip(records, vectors, fingerprints, strict=True)
    )
    session.flush()


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


def search(
    session: Session, *, scope: Scope, query: npt.NDArray[np.float32], where: Sequence[Any], limit: int = LIMIT,
    also: Sequence[str] = (),
) -> dict[str, float]:
    """Cosine similarity of the best ``limit`` visible records (and of ``also``) to ``query``."""
    rows = session.execute(
        select(col(VectorEntry.memory_id), col(VectorEntry.vector))
        .join(Memory, col(Memory.memory_id) == col(VectorEntry.memory_id))
        .where(col(VectorEntry.tenant_id) == scope.tenant_id, *where)
    ).all()
    if not rows:
        return {}
    ids = [r[0] for r in rows]
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    sims = matrix @ query.astype(np.float32)
    top = np.argsort(-sims)[:limit] if len(ids) > limit else np.arange(len(ids))
    out = {ids[i]: float(sims[i]) for i in top}
    wanted = set(also) - out.keys()
    if wanted:
        out.update({mid: float(s) for mid, s in zip(ids, sims, strict=True) if mid in wanted})
    return out
