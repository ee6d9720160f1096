"""Which SQL statements a piece of code sends, and which of them write: the read path's check.

The retrieval benchmark counts write statements per read with it (``writes_per_read``), and
the read-path tests assert there are none, through the same SQLAlchemy hook.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: A statement that writes or takes a write lock: a write verb anywhere (a CTE's, ``FOR
#: UPDATE``), DDL, SQLite's write transaction, or a PostgreSQL advisory lock.
_WRITE = re.compile(
    r"\b(INSERT|UPDATE|DELETE|MERGE|REPLACE)\b|^\s*(CREATE|DROP|ALTER|TRUNCATE)\b"
    r"|^\s*BEGIN\s+(IMMEDIATE|EXCLUSIVE)\b|pg_advisory(_xact)?_lock",
    re.IGNORECASE,
)


def is_write(statement: str) -> bool:
    """Whether a SQL statement writes or takes a write lock (see :data:`_WRITE`)."""
    return _WRITE.search(statement) is not None


@contextmanager
def statements_on_this_thread(engine: Any) -> Iterator[list[str]]:
    """Every SQL statement ``engine`` sends from the calling thread while open (in-process
    workers run on other threads and are not counted)."""
    from sqlalchemy import event

    thread, seen = threading.get_ident(), []

    def hook(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        if threading.get_ident() == thread:
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", hook)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", hook)
