"""Retractions in a write plan: ending a fact (its valid time closes, history stays) and erasing
a slot (a forget request: the chain, what was derived from it and its transcripts go).
"""

from __future__ import annotations

from datetime import datetime

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryStatus
from memworks.pipelines.ingest.record_ids import transcript_id
from memworks.pipelines.ingest.slots import companions, in_family, names_value
from memworks.pipelines.ingest.working_records import WorkingRecords, with_changes
from memworks.pipelines.ingest.write_plan import Accepted, CloseMemory, WritePlan

__all__ = ["end_records", "erase_slot"]


def end_records(plan: WritePlan, slots: WorkingRecords, item: Accepted, now: datetime) -> str | None:
    """End the current record(s) a retraction names at its event time; history is kept.

    Returns the first record ended (for the audit), None when nothing current matched.
    """
    c, t = item.candidate, item.valid_from
    named = c.extra.get("retracted_value", "")
    key = c.key or ""

    def current(m: MemoryView) -> bool:
        return m.status is MemoryStatus.ACTIVE and m.valid_to is None and m.retracted_at is None and m.valid_from <= t

    ended = sorted(
        (
            m
            for m in slots.records.values()
            if current(m)
            and (in_family(m.key, key) if c.key_is_prefix else m.key == key)
            and names_value(m.key, m.value, named)
        ),
        key=lambda m: (m.valid_from, m.memory_id),
    )
    ids = {m.memory_id for m in ended}
    # What was derived from an ended record, and its companions said in the same turn, end with it.
    said_with = {(k, e) for m in ended for k in companions(m.key) for e in m.evidence}
    ended += [
        m
        for m in slots.records.values()
        if current(m)
        and m.memory_id not in ids
        and (ids.intersection(m.derived_from) or any((m.key, e) in said_with for e in m.evidence))
    ]
    for m in ended:
        plan.closes.append(CloseMemory(m.memory_id, t, None))
        slots.put(with_changes(m, valid_to=t, status=MemoryStatus.SUPERSEDED, superseded_at=now))
    return ended[0].memory_id if ended else None


def erase_slot(plan: WritePlan, slots: WorkingRecords, key: str, scope_key: str) -> str | None:
    """Delete the slot's whole chain, records derived from it and the transcripts that were their
    evidence (a forget request). Returns None: no one record stands for the erasure."""
    targets = {m.memory_id for m in slots.records.values() if m.key == key and m.status is not MemoryStatus.DELETED}
    derived = {
        m.memory_id
        for m in slots.records.values()
        if m.status is not MemoryStatus.DELETED and targets.intersection(m.derived_from)
    }
    evidence = {e for mid in targets | derived for e in slots.records[mid].evidence}
    transcripts = {transcript_id(scope_key, e) for e in evidence}
    for mid in targets | derived:
        slots.put(with_changes(slots.records[mid], status=MemoryStatus.DELETED))
    doomed = sorted(targets | derived | transcripts)
    plan.deleted.extend(d for d in doomed if d not in plan.deleted)
    plan.new = [n for n in plan.new if n.memory_id not in doomed]
    return None
