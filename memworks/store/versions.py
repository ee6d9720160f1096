"""Per-scope index versions: a write bumps them, read-cache keys carry them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlmodel import Session

from memworks.models.tables import ScopeVersion

_S: Any = ScopeVersion


def bump(session: Session, *, tenant_id: str, user_id: str | None) -> None:
    """Advance the version of one scope ("" is tenant-wide); call inside the writing transaction."""
    uid = user_id or ""
    result: Any = session.execute(
        update(ScopeVersion).where(_S.tenant_id == tenant_id, _S.user_id == uid).values(version=_S.version + 1)
    )
    if not result.rowcount:
        session.add(ScopeVersion(tenant_id=tenant_id, user_id=uid, version=1))
        session.flush()


def read(session: Session, *, tenant_id: str, user_id: str | None) -> tuple[int, int]:
    """(user scope version, tenant-wide version)."""
    rows = dict(
        session.execute(
            select(_S.user_id, _S.version).where(_S.tenant_id == tenant_id, _S.user_id.in_([user_id or "", ""]))
        ).all()
    )
    return int(rows.get(user_id or "", 0)), int(rows.get("", 0))
