"""The records a write plan works on, and the edits every decision of :mod:`.supersession` makes.

:class:`WorkingRecords` is the stored records of the touched slots, updated as the plan grows,
so each decision sees the ones before it. The edits add to the plan and keep that view in
step: a new record, a reinforcement (NOOP), a re-recording with new bounds (transaction time
retires the old row; nothing is overwritten).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryStatus, Op
from memworks.pipelines.ingest.record_ids import memory_id_for, transcript_id
from memworks.pipelines.ingest.write_plan import Accepted, NewMemory, Reinforce, WritePlan

__all__ = ["WorkingRecords", "as_view", "new_record", "reinforce", "revise", "with_changes"]

_LIVE = (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED)


def with_changes(view: MemoryView, **changes: Any) -> MemoryView:
    """A copy of ``view`` with ``changes``."""
    return view.model_copy(update=changes)


class WorkingRecords:
    """The working view of stored records, updated as the plan grows."""

    def __init__(self, existing: Sequence[MemoryView]) -> None:
        self.records: dict[str, MemoryView] = {m.memory_id: m for m in existing}

    def chain(self, key: str, *, trusted: bool) -> list[MemoryView]:
        rows = [
            m
            for m in self.records.values()
            if m.key == key and m.trusted == trusted and m.status in _LIVE and m.retracted_at is None
        ]
        return sorted(rows, key=lambda m: (m.valid_from, m.recorded_at))

    def put(self, view: MemoryView) -> None:
        self.records[view.memory_id] = view


def new_record(item: Accepted, scope_key: str, status: MemoryStatus, derived: tuple[str, ...]) -> NewMemory:
    """The record an accepted candidate becomes, under its deterministic id."""
    c = item.candidate
    if c.extractor == "transcript":
        mid = transcript_id(scope_key, item.episode_id)
    else:
        mid = memory_id_for(scope_key, item.episode_id, item.verdict.kind, c.key or "", c.value, c.text)
    return NewMemory(
        memory_id=mid,
        kind=item.verdict.kind,
        key=c.key,
        value=c.value,
        text=c.text,
        source=c.source,
        confidence=c.confidence,
        trusted=item.verdict.trusted,
        status=status,
        extractor=c.extractor,
        valid_from=item.valid_from,
        evidence=tuple(dict.fromkeys(c.evidence)),
        derived_from=derived,
        event_at=c.event_at,
    )


def as_view(n: NewMemory, now: datetime) -> MemoryView:
    """A planned record as the stored record it will be, recorded at ``now``."""
    return n.as_view(now)


def reinforce(plan: WritePlan, slots: WorkingRecords, target: MemoryView, item: Accepted) -> tuple[Op, str]:
    """NOOP: ``item`` restates ``target``; its evidence is added and the higher confidence kept."""
    evidence = tuple(e for e in item.candidate.evidence if e not in target.evidence)
    confidence = max(target.confidence, item.candidate.confidence)
    # Said before the record began (a turn redelivered late): it has held since then.
    earlier = item.valid_from if item.valid_from < target.valid_from else None
    plan.reinforces.append(Reinforce(target.memory_id, evidence, confidence, earlier))
    start = {"valid_from": earlier} if earlier is not None else {}
    slots.put(with_changes(target, evidence=target.evidence + evidence, confidence=confidence, **start))
    for n in plan.new:  # keep a record created earlier in this plan in step
        if n.memory_id == target.memory_id:
            n.evidence, n.confidence = n.evidence + evidence, confidence
            n.valid_from = earlier or n.valid_from
    return Op.NOOP, target.memory_id


def revise(
    plan: WritePlan,
    slots: WorkingRecords,
    m: MemoryView,
    now: datetime,
    *,
    evidence: Sequence[str] = (),
    **changes: Any,
) -> MemoryView:
    """Re-record ``m`` with ``changes`` (valid time, successor) and more evidence; ``m`` is retired
    by transaction time. A record made earlier in the same plan is re-recorded too, so a batch
    leaves the same history as its episodes written one by one."""
    more = tuple(e for e in dict.fromkeys(evidence) if e not in m.evidence)
    valid_to = changes.get("valid_to", m.valid_to)
    revised = NewMemory.from_view(
        m,
        memory_id=memory_id_for(
            m.memory_id, "revised", now.isoformat(), *sorted(f"{k}={v}" for k, v in changes.items())
        ),
        status=MemoryStatus.ACTIVE if valid_to is None else MemoryStatus.SUPERSEDED,
        valid_from=changes.get("valid_from", m.valid_from),
        valid_to=valid_to,
        superseded_by=changes.get("superseded_by", m.superseded_by),
        superseded_at=None if valid_to is None else (m.superseded_at or now),
        evidence=m.evidence + more,
        revises=m.memory_id,
    )
    plan.revised.append(m.memory_id)
    plan.new.append(revised)
    slots.put(with_changes(m, retracted_at=now))
    view = as_view(revised, now)
    slots.put(view)
    return view
