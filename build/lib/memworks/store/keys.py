"""HTTP API keys: bound to a tenant (and optionally one user); only a hash of the secret is kept."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import UTC, datetime

from pydantic import ValidationError
from sqlalchemy import Engine, select, text
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col

from memworks.errors import InvalidInput, NotFound
from memworks.models.schemas import Scope
from memworks.models.tables import ApiKey

#: Every secret starts with this, so a leaked one is easy to recognise (and to scan for).
SECRET_PREFIX = "mw_"


def hash_secret(secret: str) -> str:
    """The stored form of a secret (sha256 hex)."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def create_key(
    session: Session, *, tenant_id: str, user_id: str | None = None, label: str = "", now: datetime
) -> tuple[str, str]:
    """A new key for a tenant (or for one user of it, an end-user key).

    Returns:
        ``(key_id, secret)``; the secret is never stored and cannot be shown again.

    Raises:
        InvalidInput: the tenant or user id is malformed, or the label is too long.
    """
    try:
        Scope(tenant_id=tenant_id, user_id=user_id)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0])
        raise InvalidInput(f"{field}: {err['msg']} (letters, digits and ._:@- only)", field=field) from None
    if len(label) > 200:
        raise InvalidInput("label must be at most 200 characters", field="label")
    key_id, secret = uuid.uuid4().hex, SECRET_PREFIX + secrets.token_urlsafe(32)
    session.add(
        ApiKey(
            key_id=key_id,
            tenant_id=tenant_id,
            user_id=user_id,
            secret_hash=hash_secret(secret),
            label=label,
            created_at=now,
        )
    )
    session.flush()
    return key_id, secret


def authenticate(session: Session, secret: str) -> ApiKey | None:
    """The live key whose secret this is, or ``None`` (unknown or revoked)."""
    if not secret.startswith(SECRET_PREFIX) or len(secret) > 200:
        return None
    row = session.scalars(select(ApiKey).where(col(ApiKey.secret_hash) == hash_secret(secret))).first()
    if row is None or row.revoked_at is not None:
        return None
    return row


def revoke(session: Session, *, key_id: str, now: datetime | None = None) -> ApiKey:
    """Revoke a key at once (idempotent: revoking twice keeps the first time).

    Raises:
        NotFound: no key has this id.
    """
    row = session.get(ApiKey, key_id)
    if row is None:
        raise NotFound(f"no API key {key_id!r}")
    if row.revoked_at is None:
        row.revoked_at = now or datetime.now(UTC)
        session.add(row)
    return row


def list_keys(session: Session, *, tenant_id: str) -> list[ApiKey]:
    """A tenant's keys, revoked ones included (never their secrets, which are not stored)."""
    return list(
        session.scalars(
            select(ApiKey)
            .where(col(ApiKey.tenant_id) == tenant_id)
            .order_by(col(ApiKey.created_at), col(ApiKey.key_id))
        )
    )


def database_ok(engine: Engine) -> bool:
    """Whether the database answers a trivial query (the health check)."""
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except SQLAlchemyError:
        return False
    return True
