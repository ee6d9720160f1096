"""The lexical projection: a scope-keyed postings table, scored with BM25 per scope in memory.

Why not SQLite FTS5 or PostgreSQL full-text search: FTS5 (3.40 here) keeps a deleted
document's terms in its index segments until a full ``optimize``, whose cost follows the whole
store, so erased text would survive on disk; and one table works the same on both databases.
A posting's key starts with the scope, so a search reads only the caller's scope, and deleting
a document deletes its rows (SQLite's ``secure_delete`` zeroes them).

Queries score a copy of the scope's postings held in process for one scope version
(:mod:`~memworks.store.projections.scope_cache`): reading the query terms' postings from SQL
costs milliseconds per thousand, and a scope's document count and mean length had to be
recounted on every query.
"""

from __future__ import annotations

import bisect
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import islice
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import delete, func, select
from sqlmodel import Session, col

from memworks.models.schemas import Scope
from memworks.models.tables import LexicalDoc, LexicalPosting
from memworks.pipelines.text.terms import query_terms, term_counts
from memworks.store.projections.base import Evidence, IndexRecord
from memworks.store.projections.scope_cache import admitted, cached, keep_visible, live_mask
from memworks.store.sql.db import insert_rows

#: Candidates taken from the lexical side before fusion.
LIMIT = 50
#: Distinct terms one record adds to the index (its first ones; its length still counts them all):
#: a long turn of made-up words ("tea0x1 tea0x2 …") must not write thousands of postings.
MAX_TERMS = 2_000
#: BM25 term-frequency saturation and length normalisation (the usual defaults).
K1, B = 1.2, 0.75


def _users(scope: Scope) -> list[str]:
    return [scope.user_id, ""] if scope.user_id is not None else [""]


def apply(
    session: Session, records: Sequence[IndexRecord], fingerprints: Sequence[str], *, replace: bool = True
) -> None:
    """Index ``records`` (with ``replace``, re-indexing an id replaces its entry)."""
    if not records:
        return
    if replace:
        purge(session, [r.memory_id for r in records])
    docs: list[dict[str, Any]] = []
    postings: list[dict[str, Any]] = []
    for r, fp in zip(records, fingerprints, strict=True):
        counts = term_counts(r.text)
        docs.append(
            {
                "memory_id": r.memory_id,
                "tenant_id": r.tenant_id,
                "user_id": r.user_id or "",
                "length": sum(counts.values()),
                "fingerprint": fp,
            }
        )
        postings += [
            {"tenant_id": r.tenant_id, "user_id": r.user_id or "", "term": t, "memory_id": r.memory_id, "tf": n}
            for t, n in islice(counts.items(), MAX_TERMS)
        ]
    # One multi-row insert per table, not an ORM object per posting.
    insert_rows(session, LexicalDoc, docs)
    if postings:
        insert_rows(session, LexicalPosting, postings)


def purge(session: Session, memory_ids: Sequence[str]) -> int:
    """Remove entries by memory id; returns how many documents went."""
    total = 0
    for i in range(0, len(memory_ids), 500):
        chunk = memory_ids[i : i + 500]
        session.execute(delete(LexicalPosting).where(col(LexicalPosting.memory_id).in_(chunk)))
        result: Any = session.execute(delete(LexicalDoc).where(col(LexicalDoc.memory_id).in_(chunk)))
        total += result.rowcount or 0
    return total


def confirm_absent(
    session: Session, *, tenant_id: str, user_id: str, memory_ids: Sequence[str], fingerprints: Sequence[str]
) -> Evidence:
    """Residue by id (documents and postings) and by content fingerprint in the subject's scope."""
    remaining = 0
    for i in range(0, len(memory_ids), 500):
        chunk = memory_ids[i : i + 500]
        remaining += (
            session.scalar(select(func.count()).select_from(LexicalDoc).where(col(LexicalDoc.memory_id).in_(chunk)))
            or 0
        )
        remaining += (
            session.scalar(
                select(func.count()).select_from(LexicalPosting).where(col(LexicalPosting.memory_id).in_(chunk))
            )
            or 0
        )
    for i in range(0, len(fingerprints), 500):
        remaining += (
            session.scalar(
                select(func.count())
                .select_from(LexicalDoc)
                .where(
                    col(LexicalDoc.tenant_id) == tenant_id,
                    col(LexicalDoc.user_id) == user_id,
                    col(LexicalDoc.fingerprint).in_(fingerprints[i : i + 500]),
                )
            )
            or 0
        )
    checked = [
        f"lexical_doc + lexical_posting by memory_id ({len(memory_ids)})",
        f"lexical_doc of {tenant_id}/{user_id} by fingerprint ({len(fingerprints)})",
    ]
    return Evidence("lexical_index", remaining, checked, datetime.now(UTC))


#: Fewest characters of a stem read as another form of a held one (:meth:`_Index.knows`), and
#: how many of its last characters may differ.
MIN_STEM, STEM_SLACK = 7, 2


@dataclass
class _Index:
    """A scope's postings as arrays: documents in memory-id order (ties rank by id)."""

    version: tuple[int, int]
    ids: list[str]
    lengths: npt.NDArray[np.float64]
    postings: dict[str, tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]]
    #: Which documents a present read may see (:func:`~memworks.store.projections.scope_cache.live_mask`).
    live: npt.NDArray[np.bool_]
    #: When each expires (POSIX seconds, ``inf`` for never): with ``live``, a present read at a
    #: known time needs no SQL (:func:`~memworks.store.projections.scope_cache.admitted`).
    expires: npt.NDArray[np.float64]
    used: float = field(default_factory=time.monotonic)
    index: dict[str, int] = field(default_factory=dict)
    #: The scope's terms in order, read only for a query term no document holds.
    _sorted: list[str] | None = None

    def knows(self, term: str) -> bool:
        """A document holds ``term``, or another form of its word: a stem of :data:`MIN_STEM`
        characters or more that differs from a held one only in its last two ("subscrib" of
        "subscribed" and "subscript" of "subscription").  The stemmer leaves such pairs apart; a
        question in one form is about what was said in the other."""
        if term in self.postings:
            return True
        if len(term) < MIN_STEM:
            return False
        if self._sorted is None:
            self._sorted = sorted(self.postings)
        stem = term[: len(term) - STEM_SLACK]
        at = bisect.bisect_left(self._sorted, stem)
        while at < len(self._sorted) and self._sorted[at].startswith(stem):
            if len(self._sorted[at]) - len(stem) <= STEM_SLACK + 1:
                return True
            at += 1
        return False

    @property
    def nbytes(self) -> int:
        return self.lengths.nbytes * 2 + sum(i.nbytes + t.nbytes for i, t in self.postings.values())


def _load(session: Session, scope: Scope, version: tuple[int, int]) -> _Index:
    users = _users(scope)
    docs = session.execute(
        select(col(LexicalDoc.memory_id), col(LexicalDoc.length))
        .where(col(LexicalDoc.tenant_id) == scope.tenant_id, col(LexicalDoc.user_id).in_(users))
        .order_by(col(LexicalDoc.memory_id))
    ).all()
    ids = [d[0] for d in docs]
    at = {m: i for i, m in enumerate(ids)}
    by_term: dict[str, tuple[list[int], list[int]]] = {}
    for term, mid, tf in session.execute(
        select(col(LexicalPosting.term), col(LexicalPosting.memory_id), col(LexicalPosting.tf)).where(
            col(LexicalPosting.tenant_id) == scope.tenant_id, col(LexicalPosting.user_id).in_(users)
        )
    ):
        if (i := at.get(mid)) is not None:
            docs_of, tfs = by_term.setdefault(term, ([], []))
            docs_of.append(i)
            tfs.append(tf)
    postings = {t: (np.array(d, dtype=np.int32), np.array(f, dtype=np.float64)) for t, (d, f) in by_term.items()}
    return _Index(
        version,
        ids,
        np.array([d[1] for d in docs], dtype=np.float64),
        postings,
        *live_mask(session, scope, ids),
        index=at,
    )


@dataclass
class Scores:
    """One query's BM25 scores over a whole scope, and how much of the query each document
    covers (the idf-weighted share of the query's terms it contains: an absolute measure,
    where BM25 is only comparable within one query)."""

    index: _Index
    bm25: npt.NDArray[np.float64]
    cover: npt.NDArray[np.float64]
    #: Query terms no document of the scope holds.
    unseen: frozenset[str] = frozenset()

    def of(self, mid: str) -> tuple[float, float]:
        """(BM25, cover) of record ``mid`` (zeros if it is not indexed)."""
        i = self.index.index.get(mid)
        return (0.0, 0.0) if i is None else (float(self.bm25[i]), float(self.cover[i]))


def score(session: Session, *, scope: Scope, query: str, version: tuple[int, int] | None = None) -> Scores | None:
    """BM25 of ``query`` against every document of the scope (filters not applied: see :func:`top`);
    None when the query has no terms or the scope no documents."""
    words = query_terms(query)
    if not words:
        return None
    ix = cached(session, scope, "lexical", lambda v: _load(session, scope, v), version)
    n_docs = len(ix.ids)
    if not n_docs:
        return None
    avg_len = float(ix.lengths.mean()) or 1.0
    scores = np.zeros(n_docs, dtype=np.float64)
    cover = np.zeros(n_docs, dtype=np.float64)
    # A term the scope has never seen weighs as much as the rarest possible one.
    total = 0.0
    for t in words:
        docs, tf = ix.postings.get(t, (None, None))
        df = 0 if docs is None else len(docs)
        idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
        total += idf
        if docs is None or tf is None:
            continue
        norm = K1 * (1 - B + B * ix.lengths[docs] / avg_len)
        scores[docs] += idf * tf * (K1 + 1) / (tf + norm)  # a term lists a document once
        cover[docs] += idf
    return Scores(ix, scores, cover / total if total else cover, frozenset(t for t in words if not ix.knows(t)))


def top(
    session: Session,
    scores: Scores,
    *,
    where: Sequence[Any],
    limit: int = LIMIT,
    present: bool = False,
    now: datetime | None = None,
) -> list[str]:
    """The best ``limit`` matching documents that the read's filters admit, best first (ties by id).

    ``now``: a present read's time; its visibility is then settled in memory, with no SQL.
    """
    ix = scores.index
    sure = admitted(ix.live, ix.expires, now) if present and now is not None else None
    seen = sure if sure is not None else ix.live
    among = np.flatnonzero((scores.bm25 > 0) & seen if present else scores.bm25)
    return list(keep_visible(session, ix.ids, scores.bm25, where, limit, among=among, sure=sure))


def search(
    session: Session,
    *,
    scope: Scope,
    query: str,
    where: Sequence[Any],
    limit: int = LIMIT,
    version: tuple[int, int] | None = None,
    present: bool = False,
) -> list[str]:
    """Memory ids matching ``query`` in ``scope`` under the ``where`` filters, best BM25 first
    (ties by memory id).

    The scope's postings are scored in memory (statistics over the whole scope, as an index
    keeps them); candidates are then kept best first only if the read's filters admit them,
    in SQL, so the result equals filtering first and ranking after. ``present``: ``where`` is
    a present read's, so documents that the scope version already rules out are not even checked.
    """
    scored = score(session, scope=scope, query=query, version=version)
    return [] if scored is None else top(session, scored, where=where, limit=limit, present=present)
