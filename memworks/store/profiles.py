"""The injected profile projection: one small block per user, rebuilt from SQL."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt
from sqlalchemy import delete, func, select
from sqlmodel import Session, col

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus
from memworks.models.schemas import Scope
from memworks.models.tables import Memory, VectorEntry
from memworks.models.tables import Profile as ProfileRow
from memworks.pipelines.consolidation import (
    CONSTRAINT,
    FACT,
    PREFERENCE,
    Profile,
    ProfileLine,
    build_profile,
    profile_lines,
)
from memworks.store import memories
from memworks.store.episodes import fingerprint
from memworks.store.projections.base import Evidence
from memworks.store.projections.scope_cache import cached

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


@dataclass
class Lines:
    """A user's profile lines, in the profile's order, held in process for the reads that choose
    among them: one scope version, and a span of time in which no record starts, ends or expires
    (so every line's eligibility holds throughout)."""

    version: tuple[int, int]
    #: POSIX seconds: the lines hold for reads at ``since <= now < until``.
    since: float
    until: float
    lines: list[ProfileLine]
    #: Row i is line i's vector; filled by the first read that must choose (see :func:`vectors`).
    matrix: npt.NDArray[np.float32] | None = None
    #: Each line's tokens (the model's count), and by cap the whole block when every line fits
    #: (None when they do not): filled by the first read that needs them.
    sizes: npt.NDArray[np.int64] | None = None
    fits: dict[int, Profile | None] = field(default_factory=dict)
    used: float = field(default_factory=time.monotonic)

    @property
    def nbytes(self) -> int:
        # About 200 bytes per line's text and object, plus its vector once loaded.
        return 200 * len(self.lines) + (0 if self.matrix is None else int(self.matrix.nbytes))


def held_lines(session: Session, scope: Scope, *, version: tuple[int, int] | None, now: datetime, model: str) -> Lines:
    """The user's profile lines at ``now`` (:func:`~memworks.pipelines.consolidation.profile_lines`
    over :func:`current_records`), read once per scope version and kept while no record's
    time boundary passes: rendering and judging a large user's records costs far more than a read."""
    assert scope.user_id is not None
    at = now.timestamp()

    def load(v: tuple[int, int]) -> Lines:
        records = current_records(session, tenant_id=scope.tenant_id, user_id=scope.user_id or "")
        bounds = (t.timestamp() for m in records for t in (m.valid_from, m.valid_to, m.expires_at) if t is not None)
        return Lines(v, at, min((t for t in bounds if t > at), default=math.inf), profile_lines(records, now=now))

    return cached(session, scope, f"profile:{model}", load, version, fresh=lambda e: e.since <= at < e.until)


def vectors(
    session: Session, held: Lines, *, model: str, embed: Callable[[list[str]], npt.NDArray[np.float32]]
) -> npt.NDArray[np.float32]:
    """Each held line's vector: the vector projection's, else embedded now (a line not indexed yet)."""
    if held.matrix is None:
        found = line_vectors(session, memory_ids=[ln.memory_id for ln in held.lines], model=model)
        missing = [ln for ln in held.lines if ln.memory_id not in found]
        if missing:
            found.update(zip((ln.memory_id for ln in missing), embed([ln.text for ln in missing]), strict=True))
        rows = [found[ln.memory_id] for ln in held.lines]
        # Two reads racing here compute the same matrix: the second assignment changes nothing.
        held.matrix = np.vstack(rows).astype(np.float32) if rows else np.zeros((0, 0), dtype=np.float32)
    return held.matrix


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
