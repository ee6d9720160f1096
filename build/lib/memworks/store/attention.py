"""Retrieval attention, recorded off the read path: batches of hits applied once each.

A read never writes; the facade batches its hits and a maintenance actor applies each batch
here. Delivery is at least once, so a batch's id is stored with it and a batch seen before
changes nothing: ``attention`` grows by the hit counts once, and ``last_retrieved_at`` only
ever moves forward (the later of the stored time and the batch's), so batches applied out of
order agree too.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from sqlalchemy import bindparam, case, delete, literal, or_, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col

from memworks.models.enums import MemoryStatus
from memworks.models.tables import AttentionBatch, Memory
from memworks.models.types import UTCDateTime

#: Days a recorded batch's id is kept (a redelivery of it is ignored that long): far past the
#: life of any copy of its message (Redis dead letters expire after 7 days).
RETENTION_DAYS = 30


def record(session: Session, *, batch_id: str, hits: Mapping[str, int], at: datetime, now: datetime) -> bool:
    """Apply one batch of retrievals in the caller's transaction: each record's ``attention``
    grows by its hit count, its ``last_retrieved_at`` becomes ``at`` unless already later.
    Retrieval refreshes attention, never truth. Records deleted since are skipped.

    Returns False, changing nothing, when ``batch_id`` was recorded before.

    The batch's id is claimed first (an insert that a concurrent claim of the same id waits
    for, then skips), and records are updated in id order, so two batches touching the same
    records never lock them in opposite orders.
    """
    insert_of = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    claim = (
        insert_of(AttentionBatch)
        .values(batch_id=batch_id, applied_at=now)
        .on_conflict_do_nothing()
        .returning(col(AttentionBatch.batch_id))
    )
    # RETURNING, not rowcount: the driver's rowcount of an insert is not always kept (-1).
    if session.connection().execute(claim).first() is None:
        return False
    session.execute(delete(AttentionBatch).where(col(AttentionBatch.applied_at) < now - timedelta(days=RETENTION_DAYS)))
    if hits:
        last, when = col(Memory.last_retrieved_at), literal(at, UTCDateTime())
        bump = (
            update(Memory)
            .where(col(Memory.memory_id) == bindparam("mid"), col(Memory.status) != MemoryStatus.DELETED)
            .values(
                attention=col(Memory.attention) + bindparam("n"),
                last_retrieved_at=case((or_(last.is_(None), last < when), when), else_=last),
            )
        )
        # One statement, many parameter sets (executemany): Core, so no ORM state to keep in step.
        session.connection().execute(bump, [{"mid": m, "n": hits[m]} for m in sorted(hits)])
    return True
