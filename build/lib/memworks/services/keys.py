"""API keys as a use case: create, revoke, list and authenticate, each in its own transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine

from memworks.models.tables import ApiKey
from memworks.store import keys
from memworks.store.sql.db import session_scope


@dataclass(frozen=True)
class KeyView:
    """A key as callers see it: never its secret (which is not stored)."""

    key_id: str
    tenant_id: str
    user_id: str | None
    label: str
    created_at: datetime
    revoked_at: datetime | None


def create_key(engine: Engine, *, tenant_id: str, user_id: str | None, label: str, now: datetime) -> tuple[str, str]:
    """A new key; returns ``(key_id, secret)`` and the secret is never shown again."""
    with session_scope(engine) as s:
        return keys.create_key(s, tenant_id=tenant_id, user_id=user_id, label=label, now=now)


def revoke_key(engine: Engine, *, key_id: str, now: datetime) -> KeyView:
    """Revoke a key at once (idempotent). Raises NotFound for an unknown id."""
    with session_scope(engine) as s:
        return _view(keys.revoke(s, key_id=key_id, now=now))


def list_keys(engine: Engine, *, tenant_id: str) -> list[KeyView]:
    """A tenant's keys, revoked ones included."""
    with session_scope(engine, write=False) as s:
        return [_view(r) for r in keys.list_keys(s, tenant_id=tenant_id)]


def authenticate(engine: Engine, secret: str) -> KeyView | None:
    """The live key whose secret this is, or ``None`` (unknown or revoked)."""
    with session_scope(engine, write=False) as s:
        row = keys.authenticate(s, secret)
        return None if row is None else _view(row)


def _view(row: ApiKey) -> KeyView:
    return KeyView(
        key_id=row.key_id,
        tenant_id=row.tenant_id,
        user_id=row.user_id,
        label=row.label,
        created_at=row.created_at,
        revoked_at=row.revoked_at,
    )
