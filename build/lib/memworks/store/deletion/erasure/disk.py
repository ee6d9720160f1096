"""Bytes, not rows: after deletions complete, PostgreSQL's table files are rewritten.

An erased row on PostgreSQL is a new tuple version; the old one, with the content, stays in the
table's pages (and its TOAST and index pages) until the space is reused, and a plain ``VACUUM``
only marks that space free. ``VACUUM FULL`` writes each table, its TOAST table and its indexes
into new files and unlinks the old ones, so the live files hold no erased byte. It holds an
``ACCESS EXCLUSIVE`` lock on one table at a time while it copies it: a table whose lock is not
granted within ``lock_timeout_s`` is left for the next run rather than queueing every reader
behind the rewrite.

SQLite needs none of this: it runs with ``secure_delete`` (freed bytes are zeroed) and a
completed deletion checkpoints its WAL.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Engine, update
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, SQLModel, col, select

from memworks.models.enums import DeletionStatus
from memworks.models.tables import DeletionRequest

__all__ = ["CONTENT_TABLES", "awaiting_rewrite", "mark_rewritten", "rewrite_tables"]

#: Every table memworks writes, the scheduler's own job store aside (it holds no user content).
CONTENT_TABLES = tuple(t.name for t in SQLModel.metadata.sorted_tables if t.name != "scheduler_job")


def awaiting_rewrite(session: Session) -> list[str]:
    """Completed deletion requests whose erased bytes may still be in the database files."""
    return list(
        session.scalars(
            select(col(DeletionRequest.request_id)).where(
                col(DeletionRequest.status) == DeletionStatus.COMPLETE, col(DeletionRequest.rewritten_at).is_(None)
            )
        )
    )


def mark_rewritten(session: Session, request_ids: Sequence[str], *, now: datetime) -> None:
    if request_ids:
        session.execute(
            update(DeletionRequest).where(col(DeletionRequest.request_id).in_(request_ids)).values(rewritten_at=now)
        )


def rewrite_tables(engine: Engine, tables: Sequence[str] = CONTENT_TABLES, *, lock_timeout_s: float = 5) -> list[str]:
    """Rewrite ``tables`` into new files (PostgreSQL); the tables left for later (lock not granted).

    On SQLite this does nothing and returns ``[]``: its erased bytes are already zeroed.
    """
    if engine.dialect.name != "postgresql":
        return []
    left: list[str] = []
    # VACUUM runs outside a transaction block.
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql(f"SET lock_timeout = {int(lock_timeout_s * 1000)}")
        for table in tables:
            try:
                conn.exec_driver_sql(f'VACUUM (FULL) "{table}"')
            except OperationalError as exc:
                if getattr(exc.orig, "sqlstate", None) != "55P03":  # lock_not_available
                    raise
                left.append(table)
    return left
