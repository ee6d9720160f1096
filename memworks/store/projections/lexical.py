"""The lexical projection: a scope-keyed postings table scored with BM25 in SQL.

Why not SQLite FTS5 or PostgreSQL full-text search: FTS5 (3.40 here) keeps a deleted
document's terms in its index segments until a full ``optimize``, whose cost follows the whole
store, so erased text would survive on disk; and one table works the same on both databases.
A posting's key starts with the scope, so a search reads only the caller's scope, and deleting
a document deletes its rows (SQLite's ``secure_delete`` zeroes them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Float, case, delete, func, insert, literal, select
from sqlmodel import Session, col

from memworks.models.schemas import Scope
from memworks.models.tables import LexicalDoc, LexicalPosting, Memory
from memworks.pipelines.terms import query_terms, term_counts
from memworks.store.projections.base import Evidence, IndexRecord

#: Candidates taken from the lexical side before fusion.
LIMIT = 50
#: BM25 term-frequency saturation and length normalisation (the usual defaults).
K1, B = 1.2, 0.75


def _users(scope: Scope) -> list[str]:
    return [scope.user_id, ""] if scope.user_id is not None else [""]


def apply(session: Session, records: Sequence[IndexRecord], fingerprints: Sequence[str]) -> None:
    """Index ``records`` (re-indexing an id replaces its entry)."""
    if not records:
        return
    purge(session, [r.memory_id for r in records])
    docs: list[dict[str, Any]] = []
    postings: list[dict[str, Any]] = []
    for r, fp in zip(records, fingerprints, strict=True):
        counts = term_counts(r.text)
        docs.append({"memory_id": r.memory_id, "tenant_id": r.tenant_id, "user_id": r.user_id or "",
                     "length": sum(counts.values()), "fingerprint": fp})  # fmt: skip
        postings += [{"tenant_id": r.tenant_id, "user_id": r.user_id or "", "term": t, "memory_id": r.memory_id, "tf": n}
                     for t, n in counts.items()]  # fmt: skip
    # One multi-row insert per table, not an ORM object per posting.
    session.execute(insert(LexicalDoc), docs)
    if postings:
        session.execute(insert(LexicalPosting), postings)


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
        remaining += session.scalar(select(func.count()).select_from(LexicalDoc).where(col(LexicalDoc.memory_id).in_(chunk))) or 0
        remaining += session.scalar(
            select(func.count()).select_from(LexicalPosting).where(col(LexicalPosting.memory_id).in_(chunk))
        ) or 0
    for i in range(0, len(fingerprints), 500):
        remaining += session.scalar(
            select(func.count()).select_from(LexicalDoc).where(
                col(LexicalDoc.tenant_id) == tenant_id, col(LexicalDoc.user_id) == user_id,
                col(LexicalDoc.fingerprint).in_(fingerprints[i : i + 500]),
            )
        ) or 0
    checked = [f"lexical_doc + lexical_posting by memory_id ({len(memory_ids)})",
               f"lexical_doc of {tenant_id}/{user_id} by fingerprint ({len(fingerprints)})"]  # fmt: skip
    return Evidence("lexical_index", remaining, checked, datetime.now(UTC))


def search(session: Session, *, scope: Scope, query: str, where: Sequence[Any], limit: int = LIMIT) -> list[str]:
    """Memory ids matching ``query`` in ``scope`` under the ``where`` filters, best BM25 first."""
    words = query_terms(query)
    if not words:
        return []
    users = _users(scope)
    in_scope = (col(LexicalDoc.tenant_id) == scope.tenant_id, col(LexicalDoc.user_id).in_(users))
    n_docs, avg_len = session.execute(select(func.count(), func.avg(LexicalDoc.length)).where(*in_scope)).one()
    if not n_docs:
        return []
    df: dict[str, int] = dict(
        session.execute(
            select(col(LexicalPosting.term), func.count())
            .where(col(LexicalPosting.tenant_id) == scope.tenant_id, col(LexicalPosting.user_id).in_(users),
                   col(LexicalPosting.term).in_(words))  # fmt: skip
            .group_by(col(LexicalPosting.term))
        ).all()
    )
    if not df:
        return []
    idf = {t: math.log(1 + (n_docs - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    weight = case(*((col(LexicalPosting.term) == t, literal(w, Float)) for t, w in idf.items()), else_=literal(0.0, Float))
    tf = col(LexicalPosting.tf)
    norm = K1 * (1 - B + B * col(LexicalDoc.length) / float(avg_len or 1.0))
    score = func.sum(weight * tf * (K1 + 1) / (tf + norm))
    q = (
        select(col(LexicalPosting.memory_id), score.label("score"))
        .join(LexicalDoc, col(LexicalDoc.memory_id) == col(LexicalPosting.memory_id))
        .join(Memory, col(Memory.memory_id) == col(LexicalPosting.memory_id))
        .where(col(LexicalPosting.tenant_id) == scope.tenant_id, col(LexicalPosting.user_id).in_(users),
               col(LexicalPosting.term).in_(list(df)), *where)  # fmt: skip
        .group_by(LexicalPosting.memory_id)
        .order_by(score.desc(), LexicalPosting.memory_id)
        .limit(limit)
    )
    return [mid for mid, _ in session.execute(q)]
