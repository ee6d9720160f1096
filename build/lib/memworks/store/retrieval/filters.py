"""Scope and time filters, applied inside every candidate query (never after ranking)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, or_
from sqlmodel import col

from memworks.models.enums import MemoryStatus
from memworks.models.schemas import Scope
from memworks.models.tables import Memory
from memworks.store.memories import scope_clause

_NEVER = (MemoryStatus.DELETED, MemoryStatus.PENDING_CONFIRMATION, MemoryStatus.QUARANTINED)


def present_by_version(scope: Scope) -> list[Any]:
    """The part of a present read's filter that only a write can change (so a scope version
    fixes it): active, trusted, not retracted. Expiry depends on the clock as well."""
    return [
        *scope_clause(scope),
        col(Memory.trusted).is_(True),
        col(Memory.status) == MemoryStatus.ACTIVE,
        col(Memory.retracted_at).is_(None),
    ]


def visible(scope: Scope, *, now: datetime, as_of: datetime | None, known_at: datetime | None) -> list[Any]:
    """WHERE clauses for what a read may see.

    * present: active, trusted, not retracted, not expired.
    * ``as_of``: valid-time history as currently believed (superseded included, deleted never).
    * ``known_at``: what the store believed current at that transaction time; with ``as_of``
      too, what it believed then about that moment.
    """
    if as_of is None and known_at is None:
        return present_by_version(scope) + [or_(col(Memory.expires_at).is_(None), col(Memory.expires_at) > now)]
    where: list[Any] = [*scope_clause(scope), col(Memory.trusted).is_(True)]
    where.append(col(Memory.status).notin_(_NEVER))
    if known_at is None:
        assert as_of is not None
        return where + [
            col(Memory.retracted_at).is_(None),
            col(Memory.valid_from) <= as_of,
            or_(col(Memory.valid_to).is_(None), col(Memory.valid_to) > as_of),
            or_(col(Memory.expires_at).is_(None), col(Memory.expires_at) > as_of),
        ]
    # Believed at known_at: recorded by then and not yet retracted then.
    where += [
        col(Memory.recorded_at) <= known_at,
        or_(col(Memory.retracted_at).is_(None), col(Memory.retracted_at) > known_at),
    ]
    open_then = or_(col(Memory.superseded_at).is_(None), col(Memory.superseded_at) > known_at)
    if as_of is None:
        return where + [open_then, col(Memory.valid_from) <= known_at]
    return where + [
        col(Memory.valid_from) <= as_of,
        or_(col(Memory.valid_to).is_(None), open_then, and_(col(Memory.valid_to) > as_of)),
    ]
