"""The rows claim governance reads and writes: statements with their vectors, the records an
episode's statement holds, closings where the earliest wins, and copies that hold again."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import numpy as np
import numpy.typing as npt
from sqlalchemy import bindparam, delete, or_, select, update
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, SQLModel, col

from memworks.models.enums import MemoryStatus, Relation, Source
from memworks.models.tables import Lineage, Memory, VectorEntry
from memworks.store.memories import chunks

__all__ = [
    "STATEMENT_SOURCES",
    "close_records",
    "reopen_copies",
    "statements",
    "episodes_of",
    "records_of_episodes",
]

#: Sources whose statements are claims (trusted words about the world, not documents or guesses).
STATEMENT_SOURCES = (Source.USER, Source.VERIFIED_TOOL)


#: Rows still in the record: current or closed (history), not deleted, expired or quarantined.
_KEPT = (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED)


def statements(
    session: Session, *, tenant_id: str, user_id: str
) -> list[tuple[Memory, npt.NDArray[np.float32], npt.NDArray[np.float32] | None]]:
    """The scope's transcripts of trusted turns, current or closed, each with its stored vector
    and, for a turn of several sentences, theirs (rows, in the order of
    :func:`memworks.pipelines.text.spans.spans`)."""
    rows = session.execute(
        select(Memory, col(VectorEntry.vector), col(VectorEntry.spans))
        .join(VectorEntry, col(VectorEntry.memory_id) == col(Memory.memory_id))
        .where(
            col(Memory.tenant_id) == tenant_id,
            col(Memory.user_id) == user_id,
            col(Memory.extractor) == "transcript",
            col(Memory.status).in_(_KEPT),
            col(Memory.retracted_at).is_(None),
            col(Memory.source).in_(STATEMENT_SOURCES),
        )
        # Rows this transaction changed with table statements (closings, retirements) are read
        # again, not taken from the session's stale objects.
        .execution_options(populate_existing=True)
    ).all()
    out = []
    for m, v, sp in rows:
        whole = np.frombuffer(v, dtype=np.float32)
        parts = np.frombuffer(sp, dtype=np.float32).reshape(-1, whole.size) if sp is not None else None
        out.append((m, whole, parts))
    return out


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
    """The records (transcripts aside), current or closed, each episode of ``episodes`` said."""
    edges: list[tuple[str, str]] = []
    for chunk in chunks(list(episodes)):
        edges += [
            (str(c), str(p))
            for c, p in session.execute(
                select(col(Lineage.child_id), col(Lineage.parent_id)).where(
                    col(Lineage.tenant_id) == tenant_id,
                    col(Lineage.parent_type) == "episode",
                    col(Lineage.parent_id).in_(chunk),
                    # Extracted from the turn or reinforced by it: which turn a record was first
                    # made from depends on arrival order, that the turn said it does not.
                    col(Lineage.relation).in_((Relation.EXTRACTED_FROM, Relation.REINFORCED_BY)),
                )
            )
        ]
    ids = sorted({c for c, _ in edges})
    rows = {
        r.memory_id: r
        for chunk in chunks(ids)
        for r in session.scalars(
            select(Memory).where(col(Memory.memory_id).in_(chunk)).execution_options(populate_existing=True)
        )
        if r.user_id == user_id and r.extractor != "transcript" and r.status in _KEPT and r.retracted_at is None
    }
    out: dict[str, list[Memory]] = {}
    for c, p in edges:
        if c in rows:
            out.setdefault(p, []).append(rows[c])
    return out


def close_records(session: Session, *, closes: Sequence[tuple[str, str, datetime]], now: datetime) -> int:
    """Close each record ``(id, successor, at)`` at ``at`` (history keeps it), unless it stopped
    holding before: of several closings the earliest wins, whatever order they come in. A record
    closed where it began (a restatement's copy) never held on its own.

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
            # Literal values: an IN list cannot be expanded in an executemany.
            or_(t.c.status == MemoryStatus.ACTIVE, t.c.status == MemoryStatus.SUPERSEDED),
            t.c.retracted_at.is_(None),
            t.c.valid_from <= bindparam("c_at"),
            or_(t.c.valid_to.is_(None), t.c.valid_to > bindparam("c_at")),
        )
        .values(
            status=MemoryStatus.SUPERSEDED,
            valid_to=bindparam("c_at"),
            superseded_by=bindparam("c_by"),
            superseded_at=now,
        ),
        [{"c_id": mid, "c_by": by, "c_at": at} for mid, by, at in closes],
    )
    _expire(session, [mid for mid, _, _ in closes])
    return int(getattr(result, "rowcount", 0) or 0)


def reopen_copies(session: Session, *, tenant_id: str, closed: Sequence[tuple[str, datetime]]) -> int:
    """Copies of a record that stopped holding at ``at`` (closed where they began, superseded by
    it) and said at or after ``at`` hold again: what they restated had ended when they were said,
    and the evidence their turn gave it is taken back."""
    if not closed:
        return 0
    t = SQLModel.metadata.tables[Memory.__tablename__]
    found = [
        r
        for chunk in chunks(sorted({mid for mid, _ in closed}))
        for r in session.execute(
            select(t.c.memory_id, t.c.superseded_by, t.c.valid_from).where(
                t.c.superseded_by.in_(chunk),
                t.c.status == MemoryStatus.SUPERSEDED,
                t.c.retracted_at.is_(None),
                t.c.valid_to == t.c.valid_from,
            )
        )
    ]
    ends: dict[str, datetime] = {}
    for mid, at in closed:
        ends[mid] = min(at, ends.get(mid, at))
    reopen = {str(mid): str(by) for mid, by, start in found if _not_before(start, ends[str(by)])}
    if reopen:
        session.connection().execute(
            update(t)
            .where(t.c.memory_id == bindparam("r_id"), t.c.status == MemoryStatus.SUPERSEDED)
            .values(status=MemoryStatus.ACTIVE, valid_to=None, superseded_by=None, superseded_at=None),
            [{"r_id": mid} for mid in reopen],
        )
        _expire(session, list(reopen))
        # The evidence the copy's turn gave what it restated goes with it.
        turns = episodes_of(session, tenant_id=tenant_id, ids=list(reopen))
        gone = [(target, turns[mid]) for mid, target in reopen.items() if mid in turns]
        if gone:
            lt = SQLModel.metadata.tables[Lineage.__tablename__]
            session.connection().execute(
                delete(lt).where(
                    lt.c.child_id == bindparam("l_child"),
                    lt.c.parent_id == bindparam("l_parent"),
                    lt.c.parent_type == "episode",
                    lt.c.relation == Relation.REINFORCED_BY,
                ),
                [{"l_child": c, "l_parent": p} for c, p in gone],
            )
    return len(reopen)


def _not_before(a: datetime, b: datetime) -> bool:
    """``a >= b``, comparing SQLite's naive UTC times with aware ones."""
    if (a.tzinfo is None) != (b.tzinfo is None):
        a, b = a.replace(tzinfo=None), b.replace(tzinfo=None)
    return a >= b


def _expire(session: Session, ids: Sequence[str]) -> None:
    for mid in ids:
        if (obj := session.identity_map.get(identity_key(Memory, mid))) is not None:
            session.expire(obj)
