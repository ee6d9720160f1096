"""SQL engine and sessions; the schema comes from Alembic migrations."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, insert
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool
from sqlmodel import Session

from memworks.store.sql import locks

_MIGRATIONS = Path(__file__).parents[1] / "migrations"
_upgrade_lock = threading.Lock()


def _sqlite_setup(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event issue BEGIN itself, so writers can take the lock up front.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        for pragma in (
            "journal_mode=WAL",
            "foreign_keys=ON",
            "busy_timeout=30000",
            "synchronous=NORMAL",
            # Deleted text is overwritten with zeros, not left in free pages.
            "secure_delete=ON",
        ):
            cur.execute(f"PRAGMA {pragma}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        immediate = conn.get_execution_options().get("memworks_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def make_engine(url: str) -> Engine:
    """An engine for ``url`` with the pragmas and pool that memworks relies on."""
    # An error's message must never carry a statement's parameters: they are users' text and ids,
    # and errors end up in logs and manifests.
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, hide_parameters=True)
        _sqlite_setup(engine)
        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10, hide_parameters=True)


#: Rows from which a PostgreSQL batch goes by COPY (about 5× faster than a pipelined
#: executemany at a few hundred rows, measured); a smaller one is one executemany.
COPY_FROM_ROWS = 32


def insert_rows(session: Session, model: Any, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``rows`` (dicts of column values, the same keys in each) of ``model`` as one batch.

    A None is sent as NULL: the ORM otherwise leaves a None column out of the INSERT and starts
    a new statement wherever the set of filled columns changes, which for rows that alternate
    (an optional key, an optional sentence vector) is one statement, one round trip, per row.
    On PostgreSQL a large batch is one COPY, its values bound by the columns' own types.
    """
    if not rows:
        return
    table = model.__table__
    names = list(rows[0])
    dialect = session.get_bind().dialect
    if dialect.name == "postgresql" and len(rows) >= COPY_FROM_ROWS and _copyable(table, names, rows):
        _copy(session, table, names, rows)
        return
    session.execute(insert(model).execution_options(render_nulls=True), rows)


def _copyable(table: Any, names: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> bool:
    """COPY applies no Python-side column default: only when every such column is given."""
    given = set(names)
    defaults = {c.name for c in table.c if c.default is not None}
    return defaults <= given and all(len(r) == len(names) and given.issuperset(r) for r in rows)


def _copy(session: Session, table: Any, names: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> None:
    dialect = session.get_bind().dialect
    binds = [table.c[n].type.dialect_impl(dialect).bind_processor(dialect) for n in names]
    quote = dialect.identifier_preparer.quote
    sql = f"COPY {quote(table.name)} ({', '.join(quote(n) for n in names)}) FROM STDIN"
    session.flush()  # the ORM's pending rows go first, as an execute's autoflush would send them
    raw: Any = session.connection().connection.driver_connection  # in the session's transaction
    with raw.cursor() as cur, cur.copy(sql) as copy:
        for r in rows:
            copy.write_row([b(r[n]) if b else r[n] for n, b in zip(names, binds, strict=True)])


def error_text(exc: BaseException) -> str:
    """An error as it may be kept (a manifest's detail): a database error by its type alone,
    since the driver's message quotes values (``Key (user_id)=(…) already exists``)."""
    if isinstance(exc, SQLAlchemyError):
        orig = getattr(exc, "orig", None)
        return type(exc).__name__ + (
            f" ({type(orig).__module__}.{type(orig).__qualname__})" if orig is not None else ""
        )
    return f"{type(exc).__name__}: {exc}"


@lru_cache(maxsize=8)
def get_engine(url: str) -> Engine:
    return make_engine(url)


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(_MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Apply migrations up to ``revision`` (idempotent)."""
    with _upgrade_lock:
        engine = (
            create_engine(url, poolclass=NullPool, hide_parameters=True)
            if url.startswith("sqlite")
            else get_engine(url)
        )
        if url.startswith("sqlite"):
            _sqlite_setup(engine)
        with engine.begin() as conn:
            cfg = alembic_config(url)
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, revision)
        if url.startswith("sqlite"):
            engine.dispose()


@contextmanager
def session_scope(engine: Engine, *, write: bool = True) -> Iterator[Session]:
    """One transaction: commit on success, roll back on error.

    A writing transaction (the default) takes SQLite's write lock at BEGIN, so a read-then-write
    sequence never meets a newer snapshot half way (SQLite would fail it at once as "locked");
    PostgreSQL callers take row or advisory locks instead. Pass ``write=False`` for reads.
    """
    bind = engine.execution_options(memworks_write=True) if write else engine
    session = Session(bind=bind, expire_on_commit=False)
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def lock_scope(session: Session, scope_key: str) -> None:
    """Serialise writers of one scope on PostgreSQL (SQLite already holds its write lock).

    Kept for callers that build the name themselves; new code uses :mod:`memworks.store.sql.locks`.
    """
    locks.hold(session, scope_key)


def checkpoint(engine: Engine) -> None:
    """Fold the SQLite WAL into the main file so erased pages leave no copy behind."""
    if engine.dialect.name == "sqlite":
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def analyze(engine: Engine) -> None:
    """Refresh the query planner's statistics.

    Without them SQLite guesses that an equality on any indexed column matches ten rows, so a
    lookup of a hundred ids by primary key loses to a scan of the whole tenant through the scope
    index. ``analysis_limit`` samples each index, keeping this cheap on big stores. PostgreSQL's
    autovacuum keeps its own statistics; ANALYZE there only hurries them.
    """
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":
            conn.exec_driver_sql("PRAGMA analysis_limit=1000")
        conn.exec_driver_sql("ANALYZE")
