"""What still holds of a turn when one of its sentences stops holding.

A turn of several things ("rent's £1,800 a month, so £600 each. I'll keep the standing order
going") whose one sentence a later turn changes does not stop holding whole: its transcript closes
(history keeps it, ``superseded_by`` the later turn) and a *remainder* takes its place from then,
the same turn without the sentences that stopped holding, resting on the same episode (so a deletion
of the turn erases it too) and governed as a statement like any other. A remainder's id is
derived from the record and the sentences it lacks: a redelivery writes nothing twice.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from memworks.models.enums import MemoryStatus
from memworks.models.tables import Memory
from memworks.pipelines.ingest.record_ids import memory_id_for
from memworks.pipelines.ingest.write_plan import NewMemory, WritePlan
from memworks.pipelines.text.spans import split_speaker
from memworks.store import memories

__all__ = ["Cut", "Index", "MIN_WORDS", "remainder_text", "write_remainders"]

#: Indexes new rows in the caller's transaction (vectors, lexical terms, subjects).
Index = Callable[[Session, Sequence[Memory]], None]
#: Fewest words a remainder keeps to be a statement of its own ("ok. thanks!" is none).
MIN_WORDS = 4


@dataclass(frozen=True)
class Cut:
    """The sentence ``part`` of the transcript ``memory_id`` stopped holding at ``at``."""

    memory_id: str
    episode_id: str
    part: str
    at: datetime


def remainder_text(text: str, parts: Sequence[str]) -> str | None:
    """``text`` without the sentences ``parts``; None when one is not in it or too little is left."""
    left = text
    for p in parts:
        p = p if p in left else split_speaker(p)[1]  # a sentence carries its turn's "Name: "
        if p not in left:
            return None
        left = left.replace(p, " ", 1)
    left = " ".join(left.split())
    return left if len(re.findall(r"\w+", left)) >= MIN_WORDS else None


def write_remainders(
    s: Session,
    *,
    tenant: str,
    user: str,
    cuts: Sequence[Cut],
    records: Mapping[str, Memory],
    now: datetime,
    index: Index | None,
) -> list[str]:
    """A remainder for each transcript in ``cuts`` (its rows in ``records``) with enough left;
    the ids written."""
    by_record: dict[str, list[Cut]] = {}
    for c in cuts:
        by_record.setdefault(c.memory_id, []).append(c)
    plan = WritePlan()
    for mid, its in sorted(by_record.items()):
        m = records.get(mid)
        parts = sorted({c.part for c in its})
        if m is None or (text := remainder_text(m.text, parts)) is None:
            continue
        plan.new.append(
            NewMemory(
                memory_id=memory_id_for(mid, "remainder", *parts),
                kind=m.kind,
                key=None,
                value=text,
                text=text,
                source=m.source,
                confidence=m.confidence,
                trusted=m.trusted,
                status=MemoryStatus.ACTIVE,
                extractor=m.extractor,
                valid_from=min(c.at for c in its),
                evidence=(its[0].episode_id,),
                event_at=m.event_at,
            )
        )
    if not plan.new:
        return []
    rows = memories.apply_plan(s, plan=plan, tenant_id=tenant, user_id=user, now=now)
    if index is not None and rows:
        index(s, rows)
    return [r.memory_id for r in rows]
