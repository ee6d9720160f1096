"""The rows claim governance reads and writes: current statements with their vectors, and the
records an episode's statement holds."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import numpy as np
import numpy.typing as npt
from sqlalchemy import bindparam, select, update
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, SQLModel, col

from memworks.models.enums import MemoryStatus, Relation, Source
from memworks.models.tables import Lineage, Memory, VectorEntry
from memworks.store.memories import chunks

__all__ = [
    "STATEMENT_SOURCES",
    "close_records",
    "current_statements",
    "episodes_of",
    "records_of_episodes",
]

#: Sources whose statements are claims (trusted words about the world, not documents or guesses).
STATEMENT_SOURCES = (Source.USER, Source.VERIFIED_TOOL)


def current_statements(
    session: Session, *, tenant_id: str, user_id: str
) -> list[tuple[Memory, npt.NDArray[np.float32]]]:
    """The scope's current transcripts of trusted turns, each with its stored vector."""
    rows = session.execute(
        select(Memory, col(VectorEntry.vector))
        .join(VectorEntry, col(VectorEntry.memory_id) == col(Memory.memory_id))
        .where(
            col(Memory.tenant_id) == tenant_id,
            col(Memory.user_id) == user_id,
            col(Memory.extractor) == "transcript",
            col(Memory.status) == MemoryStatus.ACTIVE,
            col(Memory.valid_to).is_(None),
            col(Memory.retracted_at).is_(None),
            col(Memory.source).in_(STATEMENT_SOURCES),
        )
    ).all()
    return [(m, np.frombuffer(v, dtype=np.float32)) for m, v in rows]


def episodes_of(session: Session, *, tenant_id: str, ids: Sequence[str]) -> dict[str, str]:
    """The episode each record was extracted from."""
    out: dict[str, str] = {}
    for chunk in chunks(list(ids)):
        for child, parent in session.execute(
            select(col(Lineage.child_id), col(Lineage.parent_id)).where(
                col(Lineage.tenant_id) == tenant_id,
                col(Lineage.child_id).in_(chunk),
                col(Lineage.parent_type) == "episode",
                col(Lineage.relation) == Relation.EXTRACTED_FROM,
            )
        ):
            out.setdefault(child, parent)
    return out


def records_of_episodes(
    session: Session, *, tenant_id: str, user_id: str, episodes: Sequence[str]
) -> dict[str, list[Memory]]:
    """The current records (transcripts aside) extracted from each episode of ``episodes``."""
    edges: list[tuple[str, str]] = []
    for chunk in chunks(list(episodes)):
        edges += [
            (str(c), str(p))
            for c, p in session.execute(
                select(col(Lineage.child_id), col(Lineage.parent_id)).where(
                    col(Lineage.tenant_id) == tenant_id,
                    col(Lineage.parent_type) == "episode",
                    col(Lineage.parent_id).in_(chunk),
                    col(Lineage.relation) == Relation.EXTRACTED_FROM,
                )
            )
        ]
    ids = sorted({c for c, _ in edges})
    rows = {
        r.memory_id: r
        for chunk in chunks(ids)
        for r in session.scalars(select(Memory).where(col(Memory.memory_id).in_(chunk)))
        if r.user_id == user_id
        and r.extractor != "transcript"
        and r.status is MemoryStatus.ACTIVE
        and r.valid_to is None
        and r.retracted_at is None
    }
    out: dict[str, list[Memory]] = {}
    for c, p in edges:
        if c in rows:
            out.setdefault(p, []).append(rows[c])
    return out


def close_records(session: Session, *, closes: Sequence[tuple[str, str, datetime]], now: datetime) -> int:
    """Close each open record ``(id, successor, at)``: superseded at ``at`` (history keeps it).
    A record closed where it began (a restatement's copy) never held on its own.

    One executemany on the table (not an ORM update matched against every object the session
    holds); the closed rows' objects in the session are expired so later reads see the change.
    """
    if not closes:
        return 0
    t = SQLModel.metadata.tables[Memory.__tablename__]
    result = session.connection().execute(
        update(t)
        .where(
            t.c.memory_id == bindparam("c_id"),
            t.c.valid_to.is_(None),
            t.c.status == MemoryStatus.ACTIVE,
            t.c.valid_from <= bindparam("c_at"),
        )
        .values(
            status=MemoryStatus.SUPERSEDED,
            valid_to=bindparam("c_at"),
            superseded_by=bindparam("c_by"),
            superseded_at=now,
        ),
        [{"c_id": mid, "c_by": by, "c_at": at} for mid, by, at in closes],
    )
    for mid, _, _ in closes:
        if (obj := session.identity_map.get(identity_key(Memory, mid))) is not None:
            session.expire(obj)
    return int(getattr(result, "rowcount", 0) or 0)
