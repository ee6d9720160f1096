"""Per-scope index versions: a write bumps them, read-cache keys carry them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlmodel import Session, col

from memworks.models.tables import ScopeVersion


def bump(session: Session, *, tenant_id: str, user_id: str | None) -> None:
    """Advance the version of one scope ("" is tenant-wide); call inside the writing transaction."""
    uid = user_id or ""
    result: Any = session.execute(
        update(ScopeVersion)
        .where(col(ScopeVersion.tenant_id) == tenant_id, col(ScopeVersion.user_id) == uid)
        .values(version=col(ScopeVersion.version) + 1)
    )
    if not result.rowcount:
        session.add(ScopeVersion(tenant_id=tenant_id, user_id=uid, version=1))
        session.flush()


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
