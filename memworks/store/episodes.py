"""Episode rows: the outbox that queued work starts from."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import and_, or_, select, tuple_, update
from sqlmodel import Session, col

from memworks.models.enums import EpisodeState
from memworks.models.schemas import EpisodeIn
from memworks.models.tables import Episode
from memworks.store.sql.idempotent import partition


def fingerprint(text: str) -> str:
    """Content fingerprint: finds a copy of the same text under another id."""
    return hashlib.sha256(" ".join(text.casefold().split()).encode()).hexdigest()


def content_hash(e: EpisodeIn) -> str:
    """What makes two submissions of one episode id the same episode."""
    body = json.dumps(
        [e.user_id, e.session_id, e.turn, e.role.value, e.source.value, e.content, e.occurred_at.isoformat()],
        ensure_ascii=False,
    )
    return hashlib.sha256(body.encode()).hexdigest()


def insert_episodes(session: Session, *, episodes: Sequence[EpisodeIn], now: datetime) -> tuple[list[int], list[str]]:
    """Store new episodes; an id seen before with the same content is a duplicate.

    An episode id is the client's idempotency key within its (tenant, user): another user's
    episode under the same id is neither a duplicate nor a conflict, so nothing tells one user
    which ids another has used.

    Returns:
        (row ids of new episodes, grouped by scope, and client ids that were duplicates).

    Raises:
        Conflict: an episode id already stored with different content (nothing is written).
    """
    new, duplicates = partition(
        session,
        table=Episode,
        id_field="episode_id",
        items=episodes,
        key=lambda e: (e.tenant_id, e.user_id, e.episode_id),
        digest=content_hash,
        what="episode_id",
        scope=("tenant_id", "user_id"),
    )
    rows = [
        Episode(
            episode_id=e.episode_id,
            tenant_id=e.tenant_id,
            user_id=e.user_id,
            session_id=e.session_id,
            turn=e.turn,
            role=e.role,
            source=e.source,
            content=e.content,
            content_hash=h,
            content_fingerprint=fingerprint(e.content),
            metadata_json=json.dumps(e.metadata, ensure_ascii=False, default=str),
            occurred_at=e.occurred_at,
            received_at=now,
            state=EpisodeState.RECEIVED,
        )
        # Grouped by scope (each scope's own order kept): the messages cut from these ids in
        # order then rarely share a scope, so concurrent workers neither judge the same
        # earlier episodes twice nor wait on each other's scope locks.
        for e, h in sorted(new, key=lambda eh: (eh[0].tenant_id, eh[0].user_id))
    ]
    session.add_all(rows)
    session.flush()
    return [row.id for row in rows if row.id is not None], duplicates


def event_order(e: Episode) -> tuple[datetime, str, int, int]:
    return (e.occurred_at, e.session_id, e.turn, e.id or 0)


def get_episodes(session: Session, *, ids: Sequence[int]) -> list[Episode]:
    """Episodes by row id, in event order."""
    rows = session.scalars(select(Episode).where(col(Episode.id).in_(ids))).all()
    return sorted(rows, key=event_order)


def earlier_received(session: Session, *, ahead_of: Sequence[Episode]) -> list[Episode]:
    """Unprocessed episodes of the same scopes that arrived before the latest of ``ahead_of``.

    A scope's episodes are applied in the order they arrived, whichever message carries them:
    the writer of a later episode takes the earlier ones along.
    """
    latest: dict[tuple[str, str], int] = {}
    for e in ahead_of:
        key = (e.tenant_id, e.user_id)
        latest[key] = max(latest.get(key, 0), e.id or 0)
    if not latest:
        return []
    have = {e.id for e in ahead_of}
    rows = session.scalars(
        select(Episode).where(
            tuple_(col(Episode.tenant_id), col(Episode.user_id)).in_(list(latest)),
            col(Episode.id) < max(latest.values()),
            col(Episode.state) == EpisodeState.RECEIVED,
            col(Episode.tombstoned_at).is_(None),
        )
    ).all()
    return [e for e in rows if e.id not in have and (e.id or 0) < latest[(e.tenant_id, e.user_id)]]


def session_contexts(session: Session, wanted: Sequence[tuple[Episode, int]]) -> dict[int, list[Episode]]:
    """For each (episode, limit): up to ``limit`` earlier turns of its session (oldest first), for
    extractors that look back. One query for the whole batch: per session, the turns between the
    earliest one needed and the last episode asking."""
    spans: dict[tuple[str, str, str], tuple[int, int]] = {}
    for e, limit in wanted:
        if limit > 0:
            # Session ids are the client's, not unique across users.
            k = (e.tenant_id, e.user_id, e.session_id)
            lo, hi = spans.get(k, (e.turn - limit, e.turn))
            spans[k] = (min(lo, e.turn - limit), max(hi, e.turn))
    out: dict[int, list[Episode]] = {e.id: [] for e, _ in wanted if e.id is not None}
    if not spans:
        return out
    within = or_(
        *(
            and_(
                col(Episode.tenant_id) == t,
                col(Episode.user_id) == u,
                col(Episode.session_id) == sid,
                col(Episode.turn) >= lo,
                col(Episode.turn) < hi,
            )
            for (t, u, sid), (lo, hi) in spans.items()
        )
    )
    by_session: dict[tuple[str, str, str], list[Episode]] = {}
    for r in session.scalars(
        select(Episode).where(within, col(Episode.tombstoned_at).is_(None)).order_by(col(Episode.turn))
    ):
        by_session.setdefault((r.tenant_id, r.user_id, r.session_id), []).append(r)
    for e, limit in wanted:
        if limit > 0 and e.id is not None:
            earlier = [r for r in by_session.get((e.tenant_id, e.user_id, e.session_id), []) if r.turn < e.turn]
            out[e.id] = earlier[-limit:]
    return out


def mark_processed(session: Session, *, ids: Sequence[int], now: datetime) -> None:
    """Forward-only: received → processed."""
    if ids:
        session.execute(
            update(Episode)
            .where(col(Episode.id).in_(ids), col(Episode.state) == EpisodeState.RECEIVED)
            .values(state=EpisodeState.PROCESSED, processed_at=now)
        )


def unprocessed_ids(session: Session, *, received_before: datetime, limit: int = 10_000) -> list[int]:
    """Episodes received but not processed: work a lost message left behind."""
    return list(
        session.scalars(
            select(col(Episode.id))
            .where(col(Episode.state) == EpisodeState.RECEIVED, col(Episode.received_at) < received_before)
            .order_by(col(Episode.id))
            .limit(limit)
        )
    )


def unprocessed_of(session: Session, *, keys: Sequence[tuple[str, str, str]]) -> list[tuple[int, str]]:
    """(row id, client id) of the named episodes, by (tenant, user, client id), that are stored but
    not yet processed: a re-submission of one of them re-sends it (its first message may be lost)."""
    if not keys:
        return []
    rows = session.execute(
        select(col(Episode.id), col(Episode.episode_id))
        .where(
            tuple_(col(Episode.tenant_id), col(Episode.user_id), col(Episode.episode_id)).in_(list(keys)),
            col(Episode.state) == EpisodeState.RECEIVED,
            col(Episode.tombstoned_at).is_(None),
        )
        .order_by(col(Episode.id))
    )
    return [(int(i), str(e)) for i, e in rows]


def by_client_ids(session: Session, *, tenant_id: str, user_id: str | None, ids: Sequence[str]) -> list[Episode]:
    """Episodes by their client ids within one user's namespace (any user's for ``None``: a
    tenant-wide record's evidence)."""
    if not ids:
        return []
    where = [col(Episode.tenant_id) == tenant_id, col(Episode.episode_id).in_(list(ids))]
    if user_id is not None:
        where.append(col(Episode.user_id) == user_id)
    return list(session.scalars(select(Episode).where(*where).order_by(col(Episode.occurred_at))))
