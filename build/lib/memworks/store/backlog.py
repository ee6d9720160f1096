"""A tenant's work not yet done: episodes received and unprocessed, deletion requests not complete.

The counts are bounded (``at_most``): a flood of a million episodes costs a lane decision no
more than the threshold it is compared with. Both read partial indexes of the unfinished rows
(migration 0010), so another tenant's backlog is never scanned.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session, col

from memworks.models.enums import DeletionStatus, EpisodeState
from memworks.models.schemas import DeletionRequestIn
from memworks.models.tables import DeletionRequest, Episode

#: Statuses of a deletion request still at work (a failed one waits for the sweeper).
UNFINISHED = (DeletionStatus.PENDING, DeletionStatus.OPEN)


def received_episodes(session: Session, *, tenant_id: str, at_most: int) -> tuple[int, int]:
    """The tenant's episodes received and not yet processed, and their characters, counted over
    at most ``at_most`` of them."""
    rows = (
        select(_size(session).label("size"))
        .where(col(Episode.tenant_id) == tenant_id, col(Episode.state) == EpisodeState.RECEIVED)
        .limit(at_most)
        .subquery()
    )
    n, chars = session.execute(select(func.count(), func.coalesce(func.sum(rows.c.size), 0))).one()
    return int(n), int(chars)


def episode_sizes(session: Session, *, ids: Sequence[int]) -> dict[int, tuple[str, int]]:
    """``{row id: (tenant, characters of content)}`` of the stored episodes among ``ids``."""
    out: dict[int, tuple[str, int]] = {}
    for start in range(0, len(ids), 1000):
        chunk = list(ids[start : start + 1000])
        for i, tenant, chars in session.execute(
            select(col(Episode.id), col(Episode.tenant_id), _size(session)).where(col(Episode.id).in_(chunk))
        ):
            out[int(i)] = (str(tenant), int(chars or 0))
    return out


def unfinished_requests(session: Session, *, tenant_id: str, at_most: int) -> int:
    """The tenant's deletion requests pending or open, counted up to ``at_most``."""
    rows = (
        select(col(DeletionRequest.request_id))
        .where(col(DeletionRequest.tenant_id) == tenant_id, col(DeletionRequest.status).in_(UNFINISHED))
        .limit(at_most)
        .subquery()
    )
    return int(session.scalar(select(func.count()).select_from(rows)) or 0)


def request_tenants(session: Session, *, request_ids: Sequence[str]) -> dict[str, str]:
    """``{request id: tenant}`` of the named deletion requests."""
    out: dict[str, str] = {}
    for start in range(0, len(request_ids), 1000):
        chunk = list(request_ids[start : start + 1000])
        for rid, tenant in session.execute(
            select(col(DeletionRequest.request_id), col(DeletionRequest.tenant_id)).where(
                col(DeletionRequest.request_id).in_(chunk)
            )
        ):
            out[str(rid)] = str(tenant)
    return out


def pending_twin(session: Session, *, request: DeletionRequestIn) -> str | None:
    """The oldest request not yet planned for the same subject as ``request`` (tenant, user, the
    same keys and the same records, as stored: sorted, each once), or None."""
    return session.scalar(
        select(col(DeletionRequest.request_id))
        .where(
            col(DeletionRequest.tenant_id) == request.tenant_id,
            col(DeletionRequest.user_id) == request.user_id,
            col(DeletionRequest.status) == DeletionStatus.PENDING,
            col(DeletionRequest.keys_json) == _canonical(request.keys),
            col(DeletionRequest.memory_ids_json) == _canonical(request.memory_ids),
        )
        .order_by(col(DeletionRequest.created_at), col(DeletionRequest.request_id))
        .limit(1)
    )


def _size(session: Session) -> Any:
    """An episode's text size: its bytes on PostgreSQL (read from the stored value's header, a
    long text is not decompressed), its characters on SQLite."""
    if session.get_bind().dialect.name == "postgresql":
        return func.octet_length(col(Episode.content))
    return func.length(col(Episode.content))


def _canonical(values: Sequence[str]) -> str:
    return json.dumps(sorted(set(values)))
