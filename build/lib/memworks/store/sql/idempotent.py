"""Idempotent intake: a client id seen before with the same content is a duplicate, not an error."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import select, tuple_
from sqlmodel import Session, col

from memworks.errors import Conflict

T = TypeVar("T")


def partition(
    session: Session,
    *,
    table: Any,
    id_field: str,
    items: Sequence[T],
    key: Callable[[T], tuple[str, ...]],
    digest: Callable[[T], str],
    what: str,
    scope: Sequence[str] = ("tenant_id",),
) -> tuple[list[tuple[T, str]], list[str]]:
    """Split ``items`` into new ones (with their content hash) and ids already stored.

    ``table`` has the ``scope`` columns, ``<id_field>`` and ``content_hash``; ``key`` gives an
    item's (*scope values, client id): the client id's namespace is the scope. Duplicates
    within ``items`` count as duplicates too.

    Raises:
        Conflict: a client id already stored (or repeated) with different content.
    """
    columns = [col(getattr(table, c)) for c in (*scope, id_field)]
    keys = [key(i) for i in items]
    stored = (
        {
            tuple(row[:-1]): row[-1]
            for row in session.execute(select(*columns, col(table.content_hash)).where(tuple_(*columns).in_(keys)))
        }
        if keys
        else {}
    )
    fresh: dict[tuple[str, ...], tuple[T, str]] = {}
    duplicates: list[str] = []
    for item in items:
        k, h = key(item), digest(item)
        seen = stored.get(k) or (fresh[k][1] if k in fresh else None)
        if seen is None:
            fresh[k] = (item, h)
        elif seen == h:
            duplicates.append(k[-1])
        else:
            raise Conflict(f"{what} {k[-1]!r} was already stored with different content")
    return list(fresh.values()), duplicates
