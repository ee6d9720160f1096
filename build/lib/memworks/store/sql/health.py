"""What the health checks read from storage: the schema's migration state, work left behind
(episodes never processed, deletions that failed) and whether a Redis answers.

Everything here only reads: a check must never change the store it reports on (the embedded
facade upgrades a SQLite schema by itself, so these functions are used before any facade exists).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Literal

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, func, select
from sqlmodel import Session, col

from memworks.models.enums import DeletionStatus, EpisodeState
from memworks.models.tables import DeletionRequest, Episode
from memworks.store.sql.db import alembic_config

#: current: at the newest migration; behind: an older one; missing: none applied (an empty
#: database); ahead: a migration this code does not know (a newer memworks migrated it).
SchemaWord = Literal["current", "behind", "missing", "ahead"]
#: Failed deletion requests a report names by id at most (all of them are counted).
MAX_NAMED = 5


@dataclass(frozen=True)
class SchemaState:
    state: SchemaWord
    #: The revision the database is at (None when no migration was applied).
    revision: str | None
    #: The newest revision this code ships.
    head: str


@lru_cache(maxsize=1)
def _script() -> ScriptDirectory:
    # The URL only matters to a migration run: the migration files are the same for every database.
    return ScriptDirectory.from_config(alembic_config("sqlite://"))


def head_revision() -> str:
    """The newest migration this code ships."""
    head = _script().get_current_head()
    assert head is not None, "the migrations directory has no head"
    return head


def history() -> list[tuple[str, str]]:
    """Every migration this code ships, oldest first: (revision, what it does)."""
    return [(s.revision, (s.doc or "").strip()) for s in reversed(list(_script().walk_revisions()))]


def schema_state(engine: Engine) -> SchemaState:
    """Where the database's schema stands against this code's migrations (one query).

    Raises:
        sqlalchemy.exc.OperationalError: the database cannot be reached.
    """
    with engine.connect() as conn:
        revisions = MigrationContext.configure(conn).get_current_heads()
    head = head_revision()
    if not revisions:
        return SchemaState("missing", None, head)
    revision = revisions[0]
    if revision == head:
        return SchemaState("current", revision, head)
    known = {s.revision for s in _script().walk_revisions()}
    return SchemaState("behind" if revision in known else "ahead", revision, head)


def stuck_episodes(session: Session, *, received_before: datetime) -> int:
    """Episodes still ``received`` (never processed) that arrived before ``received_before``."""
    return int(
        session.scalar(
            select(func.count())
            .select_from(Episode)
            .where(col(Episode.state) == EpisodeState.RECEIVED, col(Episode.received_at) < received_before)
        )
        or 0
    )


def failed_deletions(session: Session) -> tuple[int, list[str]]:
    """(how many deletion requests failed, the first :data:`MAX_NAMED` of their ids)."""
    failed = col(DeletionRequest.status) == DeletionStatus.FAILED.value
    count = int(session.scalar(select(func.count()).select_from(DeletionRequest).where(failed)) or 0)
    ids = session.scalars(
        select(col(DeletionRequest.request_id)).where(failed).order_by(col(DeletionRequest.created_at)).limit(MAX_NAMED)
    )
    return count, list(ids)


def ping_redis(url: str, *, timeout_s: float = 2.0) -> None:
    """Raise ``redis.exceptions.ConnectionError`` (or ``TimeoutError``) unless Redis at ``url`` answers."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)
    try:
        client.ping()
    finally:
        client.close()
