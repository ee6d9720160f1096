"""Memory rows and transcripts: the primary store, derived records, and the episodes the plan
tombstones with their transcript records.

A record is erased in place (text, value, key, subject and event time emptied, status deleted,
transaction time closed) so lineage and the manifest still name it, and nothing derived from its
words stays on the row (a speaker's name, a slot key built from what was said); its residue is
checked by id and, for copies under other ids, by content fingerprint.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select, update
from sqlmodel import Session, col

from memworks.models.enums import MemoryStatus
from memworks.models.tables import Episode, Memory
from memworks.store.deletion.erasure.base import Subject, chunks, count_in, evidence
from memworks.store.projections.base import Evidence

__all__ = [
    "check_derived",
    "check_primary",
    "check_transcripts",
    "purge_derived",
    "purge_primary",
    "purge_transcripts",
]


def _memory_left() -> ColumnElement[bool]:
    """A memory row that still holds text, a key, a subject or an event time, or is not yet deleted."""
    return or_(
        col(Memory.text) != "",
        col(Memory.value) != "",
        col(Memory.key).is_not(None),
        col(Memory.subject).is_not(None),
        col(Memory.event_at).is_not(None),
        col(Memory.status) != MemoryStatus.DELETED,
    )


def _episode_left() -> ColumnElement[bool]:
    """An episode that still holds text or is not yet tombstoned."""
    return or_(col(Episode.content) != "", col(Episode.tombstoned_at).is_(None))


def _erase_memories(session: Session, ids: Sequence[str], now: datetime) -> int:
    n = 0
    for chunk in chunks(ids):
        result: Any = session.execute(
            update(Memory)
            .where(col(Memory.memory_id).in_(chunk), _memory_left())
            .values(
                value="",
                text="",
                key=None,
                subject=None,
                event_at=None,
                status=MemoryStatus.DELETED,
                retracted_at=func.coalesce(Memory.retracted_at, now),
            )
        )
        n += result.rowcount or 0
    return n


def _memory_residue(session: Session, s: Subject, ids: Sequence[str], name: str) -> Evidence:
    """Residue of ``ids`` by id, plus copies: the subject's records outside the plan that hold
    a planned fingerprint. Planned records of other targets are theirs to check, so no target
    waits on another's purge (a late one used to cost a re-purge after 0.5 s)."""
    left = count_in(session, Memory, Memory.memory_id, ids, _memory_left())
    planned = set(s.plan.memory_ids)
    copies = sum(
        1
        for chunk in chunks(s.plan.fingerprints)
        for mid in session.scalars(
            select(col(Memory.memory_id)).where(
                col(Memory.tenant_id) == s.tenant_id,
                col(Memory.user_id) == s.user_id,
                col(Memory.fingerprint).in_(chunk),
                col(Memory.text) != "",
            )
        )
        if mid not in planned
    )
    return evidence(
        name,
        left + copies,
        [
            f"memory rows by id ({len(ids)}) still holding text, a key or a subject, or not deleted",
            f"memory rows of the subject outside the plan by fingerprint ({len(s.plan.fingerprints)})",
        ],
    )


def _own_ids(s: Subject, session: Session, *, transcripts: bool) -> list[str]:
    """Plan ids that are (or are not) transcript records, derived ones excluded."""
    derived = set(s.plan.derived_ids)
    out = []
    for chunk in chunks(s.plan.memory_ids):
        rows = session.execute(
            select(col(Memory.memory_id), col(Memory.extractor)).where(col(Memory.memory_id).in_(chunk))
        )
        out += [mid for mid, ext in rows if (ext == "transcript") == transcripts and mid not in derived]
    return out


def purge_primary(session: Session, s: Subject) -> int:
    return _erase_memories(session, _own_ids(s, session, transcripts=False), s.now)


def check_primary(session: Session, s: Subject) -> Evidence:
    return _memory_residue(session, s, _own_ids(s, session, transcripts=False), "primary_store")


def purge_derived(session: Session, s: Subject) -> int:
    return _erase_memories(session, s.plan.derived_ids, s.now)


def check_derived(session: Session, s: Subject) -> Evidence:
    return _memory_residue(session, s, s.plan.derived_ids, "derived")


# -- transcripts: episodes tombstoned, their transcript records erased ---------------------


def purge_transcripts(session: Session, s: Subject) -> int:
    n = _erase_memories(session, _own_ids(s, session, transcripts=True), s.now)
    for chunk in chunks(s.plan.episode_ids):
        result: Any = session.execute(
            update(Episode)
            .where(
                col(Episode.tenant_id) == s.tenant_id,
                col(Episode.user_id) == s.user_id,
                col(Episode.episode_id).in_(chunk),
                _episode_left(),
            )
            .values(content="", metadata_json="{}", tombstoned_at=s.now)
        )
        n += result.rowcount or 0
    return n


def check_transcripts(session: Session, s: Subject) -> Evidence:
    subject = (col(Episode.tenant_id) == s.tenant_id, col(Episode.user_id) == s.user_id)
    left = count_in(session, Episode, Episode.episode_id, s.plan.episode_ids, *subject, _episode_left())
    copies = count_in(
        session, Episode, Episode.content_fingerprint, s.plan.fingerprints, *subject, col(Episode.content) != ""
    )
    records = _memory_residue(session, s, _own_ids(s, session, transcripts=True), "transcripts")
    return evidence(
        "transcripts",
        left + copies + records.remaining,
        [
            f"episodes by id ({len(s.plan.episode_ids)}) not tombstoned or holding text",
            "episodes of the subject by content fingerprint",
            *records.checked,
        ],
    )
