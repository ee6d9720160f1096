"""The injected profile projection: one small block per user, rebuilt from SQL."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt
from sqlalchemy import delete, func, select
from sqlmodel import Session, col

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus
from memworks.models.tables import Memory, VectorEntry
from memworks.models.tables import Profile as ProfileRow
from memworks.pipelines.consolidation import CONSTRAINT, FACT, PREFERENCE, build_profile
from memworks.store import memories
from memworks.store.episodes import fingerprint
from memworks.store.projections.base import Evidence

#: How a line's tier is named in the stored lines (and the facade's answer).
TIER_NAMES = {CONSTRAINT: "constraint", PREFERENCE: "preference", FACT: "fact"}


def current_records(
    session: Session, *, tenant_id: str, user_id: str, exclude: Collection[str] = ()
) -> list[MemoryView]:
    """The user's records a profile may cite: active, trusted, current facts and procedures
    (:func:`~memworks.pipelines.consolidation.profile.eligible` judges the rest), minus ``exclude``."""
    # What eligible() would reject by status and kind is left in SQL: the scan follows the
    # user's current facts, not their whole history.
    rows = session.scalars(
        select(Memory).where(
            col(Memory.tenant_id) == tenant_id,
            col(Memory.user_id) == user_id,
            col(Memory.status) == MemoryStatus.ACTIVE,
            col(Memory.trusted).is_(True),
            col(Memory.retracted_at).is_(None),
            col(Memory.superseded_by).is_(None),
            col(Memory.kind).in_([MemoryKind.PROCEDURAL, MemoryKind.SEMANTIC]),
            col(Memory.extractor).notin_(["transcript", "summary"]),
        )
    )
    # A profile line cites its record, not the record's lineage: no evidence queries.
    return [memories.to_view(r, ()) for r in rows if r.memory_id not in exclude]


def line_vectors(session: Session, *, memory_ids: Sequence[str], model: str) -> dict[str, npt.NDArray[np.float32]]:
    """The vector projection's embedding of each record (those indexed by ``model``)."""
    out: dict[str, npt.NDArray[np.float32]] = {}
    for i in range(0, len(memory_ids), 500):
        rows = session.execute(
            select(col(VectorEntry.memory_id), col(VectorEntry.vector)).where(
                col(VectorEntry.memory_id).in_(memory_ids[i : i + 500]), col(VectorEntry.model) == model
            )
        )
        out.update((mid, np.frombuffer(vec, dtype=np.float32)) for mid, vec in rows)
    return out


def rebuild(
    session: Session,
    *,
    tenant_id: str,
    user_id: str,
    count_tokens: Callable[[str], int],
    max_tokens: int,
    now: datetime,
    exclude: Collection[str] = (),
) -> ProfileRow | None:
    """Build the user's profile from active records (minus ``exclude``) and store it."""
    profile = build_profile(
        current_records(session, tenant_id=tenant_id, user_id=user_id, exclude=exclude),
        now=now,
        count_tokens=count_tokens,
        max_tokens=max_tokens,
    )
    session.execute(
        delete(ProfileRow).where(col(ProfileRow.tenant_id) == tenant_id, col(ProfileRow.user_id) == user_id)
    )
    if not profile.lines:
        return None
    row = ProfileRow(
        tenant_id=tenant_id,
        user_id=user_id,
        text=profile.text,
        tokens=profile.tokens,
        built_at=now,
        lines_json=json.dumps(
            [{"memory_id": ln.memory_id, "text": ln.text, "tier": TIER_NAMES[ln.tier]} for ln in profile.lines]
        ),
    )
    session.add(row)
    session.flush()
    return row


def get(session: Session, *, tenant_id: str, user_id: str) -> ProfileRow | None:
    return session.get(ProfileRow, (tenant_id, user_id))


def drop(session: Session, *, tenant_id: str, user_id: str) -> int:
    result = session.execute(
        delete(ProfileRow).where(col(ProfileRow.tenant_id) == tenant_id, col(ProfileRow.user_id) == user_id)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def confirm_absent(
    session: Session, *, tenant_id: str, user_id: str, memory_ids: Collection[str], fingerprints: Collection[str]
) -> Evidence:
    """Residue: profile lines that cite a planned record, or repeat its text."""
    row = get(session, tenant_id=tenant_id, user_id=user_id)
    left = 0
    if row is not None:
        ids, prints = set(memory_ids), set(fingerprints)
        for line in json.loads(row.lines_json):
            left += line["memory_id"] in ids or fingerprint(line["text"]) in prints
    return Evidence(
        "profile", left, [f"profile of {tenant_id}/{user_id}: cited ids and line fingerprints"], datetime.now(UTC)
    )


def count(session: Session) -> int:
    return int(session.scalar(select(func.count()).select_from(ProfileRow)) or 0)
