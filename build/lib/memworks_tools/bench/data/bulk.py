"""Rows into a memworks database in large batches: ``executemany`` on SQLite, ``COPY`` on PostgreSQL."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import Boolean, Table
from sqlalchemy.engine import make_url
from sqlmodel import SQLModel

from memworks.models.tables import (
    Episode,
    GateDecision,
    LexicalDoc,
    LexicalPosting,
    Lineage,
    Memory,
    ScopeVersion,
    VectorEntry,
)
from memworks.models.types import UTCDateTime
from memworks_tools.bench.data.index_rows import lexical_rows, vector_rows
from memworks_tools.bench.data.pool import Pool
from memworks_tools.bench.data.rows import Rows

__all__ = ["CHUNK", "BulkWriter"]

#: Rows per INSERT batch / COPY.
CHUNK = 20_000


_TABLES: dict[str, Table] = {
    str(t.__tablename__): SQLModel.metadata.tables[str(t.__tablename__)]
    for t in (Memory, Lineage, Episode, GateDecision, ScopeVersion, VectorEntry, LexicalDoc, LexicalPosting)
}
_AUTO = {"lineage": "id", "episode": "id"}


def _columns(table: str) -> list[str]:
    return [c.name for c in _TABLES[table].columns if c.name != _AUTO.get(table)]


class BulkWriter:
    """Rows into a memworks database in large batches: ``executemany`` (SQLite) or ``COPY`` (PostgreSQL).

    The schema must exist (``store.db.upgrade``). Datetimes are written the way the
    ``UTCDateTime`` column type writes them (naive UTC text on SQLite, ``timestamptz`` on
    PostgreSQL), enums by value, booleans as the column expects.
    """

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        self.dialect = "sqlite" if url.startswith("sqlite") else "postgresql"
        self.rows_written: Counter[str] = Counter()
        self._conn: Any = None

    def __enter__(self) -> BulkWriter:
        if self.dialect == "sqlite":
            conn = sqlite3.connect(self.url.database or "", isolation_level=None, timeout=60)
            for pragma in ("synchronous=OFF", "cache_size=-400000", "temp_store=MEMORY"):
                conn.execute(f"PRAGMA {pragma}")
            self._conn = conn
        else:
            import psycopg

            url = self.url.set(drivername="postgresql").render_as_string(hide_password=False)
            self._conn = psycopg.connect(url, autocommit=False)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._conn is not None:
            if exc and exc[0] is not None:
                self._conn.rollback()
                self._conn.close()
                self._conn = None
                return
            if self.dialect == "sqlite":
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            else:
                self._conn.commit()
                self._conn.autocommit = True
                for t in _TABLES:
                    self._conn.execute(f"ANALYZE {t}")  # autovacuum would, sooner or later
            self._conn.close()
            self._conn = None

    def dicts(self, table: str, rows: Sequence[dict[str, Any]]) -> None:
        cols = _columns(table)
        self.tuples(table, cols, [tuple(r.get(c) for c in cols) for r in rows])  # a newer nullable column: NULL

    def tuples(self, table: str, cols: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> None:
        if not rows:
            return
        if self.dialect == "sqlite":
            sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
            convert = _sqlite_converter(table, cols)
            for i in range(0, len(rows), CHUNK):
                batch = rows[i : i + CHUNK] if convert is None else [convert(r) for r in rows[i : i + CHUNK]]
                self._conn.execute("BEGIN")
                self._conn.executemany(sql, batch)
                self._conn.execute("COMMIT")
        else:
            with self._conn.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(cols)}) FROM STDIN") as cp:
                for r in rows:
                    cp.write_row(r)
            self._conn.commit()
        self.rows_written[table] += len(rows)

    def rows(self, rows: Rows, pool: Pool, *, rng: np.random.Generator) -> npt.NDArray[np.float32]:
        """Write every table of ``rows`` with its index entries; returns the vectors written."""
        for table in ("episode", "memory", "lineage", "gate_decision", "scope_version"):
            self.dicts(table, getattr(rows, table))
        docs, postings = lexical_rows(rows.indexed)
        self.tuples("lexical_doc", ["memory_id", "tenant_id", "user_id", "length", "fingerprint"], docs)
        self.tuples("lexical_posting", ["tenant_id", "user_id", "term", "memory_id", "tf"], postings)
        vrows, vecs = vector_rows(rows.indexed, pool, rng=rng)
        self.tuples("vector_entry", ["memory_id", "tenant_id", "user_id", "model", "vector", "fingerprint"], vrows)
        return vecs


@lru_cache(maxsize=100_000)
def _sqlite_time(v: datetime) -> str:
    # What UTCDateTime + SQLAlchemy's SQLite DateTime store: naive UTC, microseconds always shown.
    return v.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


def _sqlite_converter(table: str, cols: Sequence[str]) -> Any:
    """A row converter for the datetime and boolean columns of ``table`` (None when there are none)."""
    types = {c.name: c.type for c in _TABLES[table].columns}
    times = [i for i, c in enumerate(cols) if isinstance(types.get(c), UTCDateTime)]
    bools = [i for i, c in enumerate(cols) if isinstance(types.get(c), Boolean)]
    if not times and not bools:
        return None

    def convert(r: tuple[Any, ...]) -> tuple[Any, ...]:
        out = list(r)
        for i in times:
            if out[i] is not None:
                out[i] = _sqlite_time(out[i])
        for i in bools:
            out[i] = int(out[i])
        return tuple(out)

    return convert
