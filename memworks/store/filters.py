"""Scope and time filters, applied inside every candidate query (never after ranking)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, or_

from memworks.models.enums import MemoryStatus
from memworks.models.schemas import Scope
from memworks.models.tables import Memory
from memworks.store.memories import scope_clause

_NEVER = (MemoryStatus.DELETED, MemoryStatus.PENDING_CONFIRMATION, MemoryStatus.QUARANTINED)
_M: Any = Memory  # column attributes, typed loosely for SQL expressions


def visible(scope: Scope, *, now: datetime, as_of: datetime | None, known_at: datetime | None) -> list[Any]:
    """WHERE clauses for what a read may see.

    * present: active, trusted, not retracted, not expired.
    * ``as_of``: valid-time history as currently believed (superseded included, deleted never).
    * ``known_at``: what the store believed current at that transaction time; with ``as_of``
      too, what it believed then about that moment.
    """
    where: list[Any] = [*scope_clause(scope), _M.trusted.is_(True)]
    if as_of is None and known_at is None:
        return where + [
            _M.status == MemoryStatus.ACTIVE,
            _M.retracted_at.is_(None),
            or_(_M.expires_at.is_(None), _M.expires_at > now),
        ]
    where.append(_M.status.notin_(_NEVER))
    if known_at is None:
        assert as_of is not None
        return where + [
            _M.retracted_at.is_(None),
            _M.valid_from <= as_of,
            or_(_M.valid_to.is_(None), _M.valid_to > as_of),
            or_(_M.expires_at.is_(None), _M.expires_at > as_of),
        ]
    # Believed at known_at: recorded by then and not yet retracted then.
    where += [_M.recorded_at <= known_at, or_(_M.retracted_at.is_(None), _M.retracted_at > known_at)]
    open_then = or_(_M.superseded_at.is_(None), _M.superseded_at > known_at)
    if as_of is None:
        return where + [open_then, _M.valid_from <= known_at]
    return where + [
        _M.valid_from <= as_of,
        or_(_M.valid_to.is_(None), open_then, and_(_M.valid_to > as_of)),
    ]
