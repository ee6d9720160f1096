"""The records a forget request may match: one user's, with their stored vectors."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from sqlalchemy import select
from sqlmodel import Session, col

from memworks.models.enums import MemoryStatus
from memworks.models.tables import Episode, Memory, VectorEntry
from memworks.pipelines.deletion.forget_match import Known
from memworks.store.memories import chunks, views
from memworks.store.turns import named_speaker

__all__ = ["forget_candidates"]

#: Records built from several turns: matching one would erase every turn it was built from, so
#: they are left to the deletion's cascade (a summary citing an erased turn goes with it).
_DERIVED = frozenset({"summary", "reflection"})


def forget_candidates(session: Session, *, tenant_id: str, user_id: str) -> list[Known]:
    """Every record of the user's scope a request may be about (history included; deleted
    ones, derived summaries and pending requests left out), with its vectors from the vector
    projection (none yet: it is matched by its words alone)."""
    rows = [
        r
        for r in session.scalars(
            select(Memory).where(
                col(Memory.tenant_id) == tenant_id,
                col(Memory.user_id) == user_id,
                col(Memory.status) != MemoryStatus.DELETED,
            )
        )
        if r.extractor not in _DERIVED and not (r.key or "").endswith(".forget_request")
    ]
    stored: dict[str, npt.NDArray[np.float32]] = {}
    for part in chunks([r.memory_id for r in rows]):
        for mid, vector, spans in session.execute(
            select(col(VectorEntry.memory_id), col(VectorEntry.vector), col(VectorEntry.spans)).where(
                col(VectorEntry.memory_id).in_(part)
            )
        ):
            whole = np.frombuffer(vector, dtype=np.float32)
            if not len(whole):
                continue
            rest = (
                np.frombuffer(spans, dtype=np.float32).reshape(-1, len(whole))
                if spans
                else np.zeros((0, len(whole)), dtype=np.float32)
            )
            stored[mid] = np.vstack([whole[None, :], rest])
    seen = views(session, tenant_id=tenant_id, rows=rows)
    said_by = _speakers(session, tenant_id, user_id, {e for v in seen for e in v.evidence})
    out = []
    for v in seen:
        text = v.text if v.value in v.text else f"{v.text} {v.value}"
        out.append(
            Known(
                ref=v.memory_id,
                text=text,
                vectors=stored.get(v.memory_id, np.zeros((0, 0), dtype=np.float32)),
                said_at=v.valid_from,
                current=v.status is MemoryStatus.ACTIVE and v.valid_to is None,
                episodes=v.evidence,
                key=v.key,
                speakers=frozenset(said_by[e] for e in v.evidence if e in said_by),
                source=v.source.value,
            )
        )
    return out


def _speakers(session: Session, tenant_id: str, user_id: str, episode_ids: set[str]) -> dict[str, str]:
    """The named speaker of each of ``episode_ids`` that has one."""
    out: dict[str, str] = {}
    for part in chunks(sorted(episode_ids)):
        for eid, meta, role in session.execute(
            select(col(Episode.episode_id), col(Episode.metadata_json), col(Episode.role)).where(
                col(Episode.tenant_id) == tenant_id, col(Episode.user_id) == user_id, col(Episode.episode_id).in_(part)
            )
        ):
            if (who := named_speaker(meta, str(getattr(role, "value", role)))) is not None:
                out[eid] = who
    return out
