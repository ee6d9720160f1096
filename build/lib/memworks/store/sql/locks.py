"""Advisory locks: every lock name is built here, so writers that must serialise agree on it.

On PostgreSQL a lock is a transaction-scoped advisory lock on a hash of its name, released at
commit or rollback. SQLite needs none: a writing transaction holds the database's write lock
from BEGIN (see :func:`memworks.store.sql.db.session_scope`).

Names are part of the deployment's contract: workers of two releases running side by side
must build the same name for the same thing, so a name, once used, is never reworded.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlmodel import Session

from memworks.pipelines.ingest.supersession import scope_key

#: Separates the parts of a name (never in an id or a task type).
SEP = "\x1f"


def scope(tenant_id: str, user_id: str | None) -> str:
    """Writers of one memory scope: extraction, corrections, consolidation, erasure."""
    return scope_key(tenant_id, user_id)


def lessons(tenant_id: str, task_type: str) -> str:
    """Learning rounds of one tenant's task type."""
    return SEP.join(("lessons", tenant_id, task_type))


def deletion(request_id: str) -> str:
    """Verifications of one deletion request, so the last one to close a target sees every target."""
    return SEP.join(("deletion", request_id))


def deletion_requests(tenant_id: str, user_id: str) -> str:
    """Submissions of one user's deletion requests, so two identical ones open one request."""
    return SEP.join(("deletion-requests", tenant_id, user_id))


def hold(session: Session, name: str) -> None:
    """Take the lock ``name`` until the session's transaction ends (PostgreSQL; SQLite holds its write lock)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:k, 0))"), {"k": name})
