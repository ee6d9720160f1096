"""Per-scope index versions: a write bumps them, read-cache keys carry them."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col

from memworks.models.tables import ScopeVersion


def bump(session: Session, *, tenant_id: str, user_id: str | None) -> None:
    """Advance the version of one scope ("" is tenant-wide); call inside the writing transaction."""
    uid = user_id or ""
    # One upsert: two writers bumping a new scope at once must not both insert it.
    insert_of = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    session.execute(
        insert_of(ScopeVersion)
        .values(tenant_id=tenant_id, user_id=uid, version=1)
        .on_conflict_do_update(index_elements=["tenant_id", "user_id"], set_={"version": col(ScopeVersion.version) + 1})
    )


def read(session: Session, *, tenant_id: str, user_id: str | None) -> tuple[int, int]:
    """(user scope version, tenant-wide version)."""
    rows = dict(
        session.execute(
            select(col(ScopeVersion.user_id), col(ScopeVersion.version)).where(
                col(ScopeVersion.tenant_id) == tenant_id, col(ScopeVersion.user_id).in_([user_id or "", ""])
            )
        ).all()
    )
    return int(rows.get(user_id or "", 0)), int(rows.get("", 0))
