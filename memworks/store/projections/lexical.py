"""The lexical projection: SQLite FTS5 (BM25) or PostgreSQL full-text search.

On SQLite each entry carries a scope token, so MATCH narrows to the caller's scope inside
the index; on PostgreSQL the scope columns are indexed beside the GIN index.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Column, ColumnClause, MetaData, String, Table, Text, delete, func, insert, literal_column, select
from sqlmodel import Session, col

from memworks.models.schemas import Scope
from memworks.models.tables import Memory
from memworks.store.projections.base import Evidence, IndexRecord

_meta = MetaData()
FTS = Table("lexical_fts", _meta, Column("scope", Text), Column("body", Text), Column("memory_id", String))
PG = Table(
    "lexical_entry",
    _meta,
    Column("memory_id", String, primary_key=True),
    Column("tenant_id", String),
    Column("user_id", String),
    Column("body", Text),
)
#: Candidates taken from the lexical side before fusion.
LIMIT = 50
#: Query words too common to say anything about relevance.
STOPWORDS = frozenset(
    "a an and are as at be but by do does did for from had has have how i i'm in is it its me my of on or "
    "our so that the their them there they this to was we were what when where which who why will with "
    "you your am been being can could should would about any all also just than then these those us".split()
)


def scope_token(tenant_id: str, user_id: str | None) -> str:
    return "s" + hashlib.sha1(f"{tenant_id}\x1f{user_id or ''}".encode()).hexdigest()[:20]


def query_terms(query: str) -> list[str]:
    """Content words of a query, de-duplicated, in order."""
    words = [w for w in re.findall(r"[\w']+", query.casefold()) if w not in STOPWORDS and len(w) > 1]
    return list(dict.fromkeys(w.replace("'", "") for w in words))[:32]


def _is_sqlite(session: Session) -> bool:
    return session.get_bind().dialect.name == "sqlite"


def apply(session: Session, records: Sequence[IndexRecord]) -> None:
    """Index ``records`` (re-indexing an id replaces its entry)."""
    if not records:
        return
    ids = [r.memory_id for r in records]
    purge(session, ids)
    if _is_sqlite(session):
        rows: list[dict[str, str | None]] = [
            {"scope": scope_token(r.tenant_id, r.user_id), "body": r.text, "memory_id": r.memory_id} for r in records
        ]
        session.execute(insert(FTS), rows)
    else:
        rows = [{"memory_id": r.memory_id, "tenant_id": r.tenant_id, "user_id": r.user_id, "body": r.text} for r in records]
        session.execute(insert(PG), rows)


def purge(session: Session, memory_ids: Sequence[str]) -> int:
    """Remove entries by memory id; returns how many went."""
    table = FTS if _is_sqlite(session) else PG
    total = 0
    for i in range(0, len(memory_ids), 500):
        result: Any = session.execute(delete(table).where(table.c.memory_id.in_(memory_ids[i : i + 500])))
        total += result.rowcount or 0
    return total


def confirm_absent(session: Session, memory_ids: Sequence[str], texts: Sequence[str]) -> Evidence:
    """Residue check by id and by exact content (a copy under another id counts)."""
    table = FTS if _is_sqlite(session) else PG
    remaining = 0
    for i in range(0, len(memory_ids), 500):
        remaining += session.scalar(
            select(func.count()).select_from(table).where(table.c.memory_id.in_(memory_ids[i : i + 500]))
        ) or 0
    for i in range(0, len(texts), 500):
        remaining += session.scalar(
            select(func.count()).select_from(table).where(table.c.body.in_(texts[i : i + 500]))
        ) or 0
    return Evidence(
        "lexical_index", remaining, [f"{table.name} by memory_id ({len(memory_ids)})", f"{table.name} by body ({len(texts)})"],
        datetime.now(UTC),
    )


def search(session: Session, *, scope: Scope, query: str, where: Sequence[Any], limit: int = LIMIT) -> list[str]:
    """Memory ids matching ``query`` in ``scope`` under the ``where`` filters, best first."""
    terms = query_terms(query)
    if not terms:
        return []
    if _is_sqlite(session):
        tokens = [scope_token(scope.tenant_id, scope.user_id)]
        if scope.user_id is not None:
            tokens.append(scope_token(scope.tenant_id, None))
        match = "{scope} : (%s) AND {body} : (%s)" % (
            " OR ".join(tokens),
            " OR ".join('"' + t.replace('"', "") + '"' for t in terms),
        )
        score = func.bm25(literal_column("lexical_fts"), 0.0, 1.0)
        q = (
            select(FTS.c.memory_id)
            .join(Memory, col(Memory.memory_id) == FTS.c.memory_id)
            .where(literal_column("lexical_fts").op("MATCH")(match), *where)
            .order_by(score)
            .limit(limit)
        )
    else:
        tsq = func.to_tsquery("english", " | ".join(re.sub(r"\W", "", t) for t in terms if re.sub(r"\W", "", t)))
        tsv: ColumnClause[Any] = literal_column("lexical_entry.tsv")
        q = (
            select(PG.c.memory_id)
            .join(Memory, col(Memory.memory_id) == PG.c.memory_id)
            .where(tsv.op("@@")(tsq), PG.c.tenant_id == scope.tenant_id, *where)
            .order_by(func.ts_rank_cd(tsv, tsq).desc())
            .limit(limit)
        )
    return list(session.scalars(q))
