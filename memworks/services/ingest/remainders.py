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

__all__ = ["Cut", "Index", "MIN_WORDS", "holds_sentence", "remainder_text", "write_remainders"]

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


def _sentence(text: str, part: str) -> re.Match[str] | None:
    """Where ``part`` stands in ``text``, whitespace aside (a sentence joined over a line break
    reads "Mrs. Kowalski"), with or without its turn's "Name: "."""
    for p in dict.fromkeys((part, split_speaker(part)[1])):
        if words := p.split():
            if m := re.search(r"\s+".join(re.escape(w) for w in words), text):
                return m
    return None


def holds_sentence(text: str, part: str) -> bool:
    """Whether ``part`` is a sentence of ``text`` (a closing of it alone can leave the rest)."""
    return _sentence(text, part) is not None


def remainder_text(text: str, parts: Sequence[str]) -> str | None:
    """``text`` without the sentences ``parts``; None when one is not in it or too little is left."""
    left = text
    for p in parts:
        if (m := _sentence(left, p)) is None:
            return None
        left = f"{left[: m.start()]} {left[m.end() :]}"
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
        # The turn's record again, from when the sentences stopped holding, without them.
        plan.new.append(
            NewMemory.from_view(
                memories.to_view(m, (its[0].episode_id,)),
                memory_id=memory_id_for(mid, "remainder", *parts),
                value=text,
                text=text,
                status=MemoryStatus.ACTIVE,
                valid_from=min(c.at for c in its),
                valid_to=None,
                superseded_by=None,
                superseded_at=None,
            )
        )
    if not plan.new:
        return []
    rows = memories.apply_plan(s, plan=plan, tenant_id=tenant, user_id=user, now=now)
    if index is not None and rows:
        index(s, rows)
    return [r.memory_id for r in rows]
