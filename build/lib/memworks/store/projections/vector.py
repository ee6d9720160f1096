"""The vector projection: embeddings in SQL, searched exactly within the caller's scope.

The scope and time filters run in SQL first, so the matrix scored is the caller's scope only;
its cost follows the scope, not the store. float32 throughout (float16 matmul is far slower
on CPUs like this one). A long record also has one vector per sentence (in the same row, so
purging the row purges them); a read may score a record by its best sentence.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import delete, func, or_, select
from sqlmodel import Session, col

from memworks.models.schemas import Scope
from memworks.models.tables import VectorEntry
from memworks.store.projections.base import Evidence, IndexRecord
from memworks.store.projections.scope_cache import admitted, cached, keep_visible, live_mask
from memworks.store.sql.db import insert_rows

#: Candidates taken from the vector side before fusion.
LIMIT = 50
#: Records re-scored by their best sentence per query (besides the lexical side's candidates).
RESCORE = 200


def apply(
    session: Session,
    records: Sequence[IndexRecord],
    vectors: npt.NDArray[np.float32],
    fingerprints: Sequence[str],
    *,
    model: str,
    replace: bool = True,
    spans: Sequence[npt.NDArray[np.float32] | None] | None = None,
) -> None:
    """Store one vector per record (with ``replace``, replacing an existing one), and its
    sentences' vectors (``spans[i]``: an (n, dim) array, or None) beside it."""
    if not records:
        return
    if replace:
        purge(session, [r.memory_id for r in records])
    per = list(spans) if spans is not None else [None] * len(records)
    insert_rows(
        session,
        VectorEntry,
        [
            {
                "memory_id": r.memory_id,
                "tenant_id": r.tenant_id,
                "user_id": r.user_id,
                "model": model,
                "vector": np.ascontiguousarray(v, dtype=np.float32).tobytes(),
                "fingerprint": fp,
                "spans": np.ascontiguousarray(sp, dtype=np.float32).tobytes() if sp is not None and len(sp) else None,
            }
            for r, v, fp, sp in zip(records, vectors, fingerprints, per, strict=True)
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
    #: When each expires (POSIX seconds, ``inf`` for never): with ``live``, a present read at a
    #: known time needs no SQL (:func:`~memworks.store.projections.scope_cache.admitted`).
    expires: npt.NDArray[np.float64]
    #: Sentence vectors of all rows, row by row; row i's are ``spans[start[i] : start[i] + count[i]]``.
    spans: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    start: npt.NDArray[np.intp] = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    count: npt.NDArray[np.intp] = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    used: float = field(default_factory=time.monotonic)

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes + self.spans.nbytes)


def _load(session: Session, scope: Scope, version: tuple[int, int]) -> _Matrix:
    user = (
        col(VectorEntry.user_id).is_(None)
        if scope.user_id is None
        else or_(col(VectorEntry.user_id) == scope.user_id, col(VectorEntry.user_id).is_(None))
    )
    rows = session.execute(
        select(col(VectorEntry.memory_id), col(VectorEntry.vector), col(VectorEntry.spans)).where(
            col(VectorEntry.tenant_id) == scope.tenant_id, user
        )
    ).all()
    ids = [r[0] for r in rows]
    if not rows:
        empty = np.zeros((0, 0), dtype=np.float32)
        return _Matrix(version, ids, empty, {}, np.zeros(0, dtype=np.bool_), np.zeros(0, dtype=np.float64))
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    row_bytes = matrix.shape[1] * 4
    count = np.array([len(r[2]) // row_bytes if r[2] else 0 for r in rows], dtype=np.intp)
    start = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.intp)
    spans = (
        np.frombuffer(b"".join(r[2] for r in rows if r[2]), dtype=np.float32).reshape(-1, matrix.shape[1])
        if count.sum()
        else np.zeros((0, matrix.shape[1]), dtype=np.float32)
    )
    return _Matrix(
        version, ids, matrix, {m: i for i, m in enumerate(ids)}, *live_mask(session, scope, ids), spans, start, count
    )


@dataclass
class Scores:
    """One query's similarities over a whole scope: per row, to the whole text and to the best
    sentence (the whole text's where it has none, or was not among the rows re-scored)."""

    matrix: _Matrix
    whole: npt.NDArray[np.float32]
    best: npt.NDArray[np.float32]
    #: Per re-scored row: the similarities of its sentences.
    sentences: dict[int, npt.NDArray[np.float32]] = field(default_factory=dict)

    def of(self, mid: str) -> tuple[float, float] | None:
        """(whole, best) similarity of record ``mid``, or None if it has no vector."""
        i = self.matrix.index.get(mid)
        return None if i is None else (float(self.whole[i]), float(self.best[i]))

    def best_span(self, mid: str) -> int:
        """Position of ``mid``'s best sentence among its spans, or -1 if the whole text scores best."""
        i = self.matrix.index.get(mid)
        s = self.sentences.get(i) if i is not None else None
        if s is None or not len(s):
            return -1
        j = int(np.argmax(s))
        return j if s[j] > self.whole[i] else -1


def score(
    session: Session,
    *,
    scope: Scope,
    query: npt.NDArray[np.float32],
    version: tuple[int, int] | None = None,
    spans: bool = True,
    also: Sequence[str] = (),
) -> Scores:
    """Similarities of ``query`` to every record of the scope (filters not applied: see :func:`top`).

    With ``spans``, the best :data:`RESCORE` records by whole-text similarity, and ``also``
    (the lexical side's candidates), are re-scored by their best sentence: scoring every
    sentence of the scope would read its vectors three times over for the same candidates
    (measured on LoCoMo: re-scoring the top 200 loses no recall).
    """
    e = cached(session, scope, "vector", lambda v: _load(session, scope, v), version)
    q = query.astype(np.float32)
    whole = e.matrix @ q if e.ids else np.zeros(0, dtype=np.float32)
    out = Scores(e, whole, whole)
    if not spans or not len(e.spans):
        return out
    n = min(RESCORE, len(whole))
    pick = np.argpartition(-whole, n - 1)[:n] if n < len(whole) else np.arange(len(whole))
    extra = [e.index[m] for m in also if m in e.index]
    rows = np.unique(np.concatenate([pick, np.asarray(extra, dtype=np.intp)]).astype(np.intp))
    rows = rows[e.count[rows] > 0]
    if not len(rows):
        return out
    idx = np.concatenate([np.arange(e.start[i], e.start[i] + e.count[i]) for i in rows])
    sims = e.spans[idx] @ q
    bounds = np.concatenate([[0], np.cumsum(e.count[rows])])
    out.best = whole.copy()
    out.best[rows] = np.maximum(whole[rows], np.maximum.reduceat(sims, bounds[:-1]))
    out.sentences = {int(i): sims[bounds[j] : bounds[j + 1]] for j, i in enumerate(rows)}
    return out


def top(
    session: Session,
    scores: Scores,
    *,
    where: Sequence[Any],
    limit: int = LIMIT,
    present: bool = False,
    now: datetime | None = None,
) -> list[str]:
    """The best ``limit`` records by best similarity that the read's filters admit, best first.

    ``now``: a present read's time; its visibility is then settled in memory, with no SQL.
    """
    e = scores.matrix
    if not e.ids:
        return []
    sure = admitted(e.live, e.expires, now) if present and now is not None else None
    return list(
        keep_visible(
            session,
            e.ids,
            scores.best,
            where,
            limit,
            among=np.flatnonzero(sure if sure is not None else e.live) if present else None,
            sure=sure,
        )
    )


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
    out = keep_visible(
        session,
        e.ids,
        sims,
        where,
        limit,
        among=np.flatnonzero(e.live) if present else None,
        sure=None,
    )
    for mid in set(also) - out.keys():
        if mid in e.index:
            out[mid] = float(sims[e.index[mid]])
    return out
