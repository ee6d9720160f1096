"""Self-editing memory: decide ADD / UPDATE / NOOP / DELETE for accepted candidates.

A slot (``user.home_city``) holds a chain of claims ordered by valid time; the one with an
open ``valid_to`` is current. Nothing is overwritten:

* ADD — a new claim in an empty slot (or a keyless event such as a transcript or a plan).
* NOOP — the claim already holds at that time: the new evidence reinforces the stored record
  and its confidence becomes the max of the two (never an average, never a second row).
* UPDATE — a different value from a later event time closes the current claim's ``valid_to``
  at the new event time, links ``superseded_by``, and adds the new claim.
* Late correction — a claim whose event time falls before the current one is inserted into
  history, already closed by its successor. A closed record whose interval must shrink is
  retracted (transaction time) and re-recorded with the new bounds, so ``known_at`` still
  answers what the store believed before.
* DELETE — a retraction retires the slot's whole chain (history reveals too), records derived
  from it, and the transcripts that were its evidence.

Untrusted claims (model inference) never supersede trusted ones; they are kept beside them.
Slots in :data:`MULTI_VALUED` (likes, allergies) collect values instead of replacing them.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from datetime import datetime

from memworks.models.drafts import Candidate, MemoryView
from memworks.models.enums import CandidateOp, GateOutcome, MemoryKind, MemoryStatus, Op, Source
from memworks.pipelines.gate import Verdict

_NS = uuid.UUID("6f1c1b7e-8a51-4c3e-9a55-2f0d0c7d1e01")
_LIVE = (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED)


#: Slots that hold several values at once: a new value is added beside the others, not instead.
MULTI_VALUED = frozenset({"user.likes", "user.dislikes", "user.allergy"})


def memory_id_for(*parts: str) -> str:
    """A deterministic id, so processing the same evidence twice names the same record."""
    return uuid.uuid5(_NS, "\x1f".join(parts)).hex


def scope_key(tenant_id: str, user_id: str | None) -> str:
    """One string naming a scope: part of record ids and of lock names."""
    return f"{tenant_id}\x1f{user_id or ''}"


def transcript_id(scope_key: str, episode_id: str) -> str:
    """The id of an episode's transcript record."""
    return memory_id_for(scope_key, "transcript", episode_id)


def same_value(a: str, b: str) -> bool:
    """Values match when they differ only in case, spacing and punctuation."""

    def norm(s: str) -> str:
        return re.sub(r"[\W_]+", " ", s.casefold()).strip()

    return norm(a) == norm(b)


@dataclass(frozen=True)
class Accepted:
    """A candidate that cleared the gate, with its resolved event time."""

    candidate: Candidate
    verdict: Verdict
    episode_id: str
    valid_from: datetime


@dataclass
class NewMemory:
    memory_id: str
    kind: MemoryKind
    key: str | None
    value: str
    text: str
    source: Source
    confidence: float
    trusted: bool
    status: MemoryStatus
    extractor: str
    valid_from: datetime
    valid_to: datetime | None = None
    superseded_by: str | None = None
    superseded_at: datetime | None = None
    evidence: tuple[str, ...] = ()
    derived_from: tuple[str, ...] = ()
    supersedes: str | None = None
    revises: str | None = None


@dataclass(frozen=True)
class CloseMemory:
    memory_id: str
    valid_to: datetime
    superseded_by: str


@dataclass(frozen=True)
class Reinforce:
    memory_id: str
    evidence: tuple[str, ...]
    confidence: float


@dataclass
class WritePlan:
    """What the store must write, in one transaction. ``ops`` pairs each input with its op."""

    new: list[NewMemory] = field(default_factory=list)
    closes: list[CloseMemory] = field(default_factory=list)
    reinforces: list[Reinforce] = field(default_factory=list)
    #: Record ids retired by transaction time (status kept) because a revision replaces them.
    revised: list[str] = field(default_factory=list)
    #: Record ids deleted by a retraction.
    deleted: list[str] = field(default_factory=list)
    ops: list[tuple[Op, str | None]] = field(default_factory=list)


def _with(view: MemoryView, **changes: Any) -> MemoryView:
    return view.model_copy(update=changes)


class _Slots:
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


def decide_writes(
    items: Sequence[Accepted],
    existing: Sequence[MemoryView],
    *,
    scope_key: str,
    now: datetime,
) -> WritePlan:
    """Plan the writes for accepted candidates against the stored records of their slots.

    Args:
        items: accepted candidates, in the order their episodes happened.
        existing: every stored record of the slots the candidates touch, plus records derived
            from them; history included.
        scope_key: identifies tenant and user; part of every new record's id.
        now: transaction time.

    Returns:
        The plan; ``plan.ops[i]`` is the op and resulting memory id for ``items[i]``.
    """
    plan = WritePlan()
    slots = _Slots(existing)
    produced: dict[tuple[str, str], str] = {}  # (episode, key) → memory id holding it
    for item in items:
        c = item.candidate
        if c.op is CandidateOp.RETRACT:
            plan.ops.append((Op.DELETE, _retract(plan, slots, c.key or "", scope_key)))
            continue
        derived: tuple[str, ...] = ()
        if c.derived_from_key and (parent := produced.get((item.episode_id, c.derived_from_key))):
            derived = (parent,)
        op, mid = _assert(plan, slots, item, scope_key, now, derived)
        if c.key and mid:
            produced[(item.episode_id, c.key)] = mid
        plan.ops.append((op, mid))
    return plan


def _new(item: Accepted, scope_key: str, status: MemoryStatus, derived: tuple[str, ...]) -> NewMemory:
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
    )


def _as_view(n: NewMemory, now: datetime) -> MemoryView:
    return MemoryView(
        memory_id=n.memory_id, kind=n.kind, key=n.key, value=n.value, text=n.text, source=n.source,
        confidence=n.confidence, trusted=n.trusted, status=n.status, extractor=n.extractor,
        valid_from=n.valid_from, valid_to=n.valid_to, recorded_at=now, superseded_by=n.superseded_by,
        superseded_at=n.superseded_at, evidence=n.evidence, derived_from=n.derived_from,
    )  # fmt: skip


def _reinforce(plan: WritePlan, slots: _Slots, target: MemoryView, item: Accepted) -> tuple[Op, str]:
    evidence = tuple(e for e in item.candidate.evidence if e not in target.evidence)
    confidence = max(target.confidence, item.candidate.confidence)
    plan.reinforces.append(Reinforce(target.memory_id, evidence, confidence))
    slots.put(_with(target, evidence=target.evidence + evidence, confidence=confidence))
    for n in plan.new:  # keep a record created earlier in this plan in step
        if n.memory_id == target.memory_id:
            n.evidence, n.confidence = n.evidence + evidence, confidence
    return Op.NOOP, target.memory_id


def _assert(
    plan: WritePlan, slots: _Slots, item: Accepted, scope_key: str, now: datetime, derived: tuple[str, ...]
) -> tuple[Op, str | None]:
    c, t = item.candidate, item.valid_from
    pending = item.verdict.outcome is GateOutcome.PENDING
    if c.key is None or pending or c.key in MULTI_VALUED:
        status = MemoryStatus.PENDING_CONFIRMATION if pending else MemoryStatus.ACTIVE
        twin = next(
            (m for m in slots.records.values()
             if m.key == c.key and m.status is status and m.retracted_at is None
             and m.kind is item.verdict.kind and same_value(m.value, c.value) and same_value(m.text, c.text)
             and (c.key is not None or m.valid_from == item.valid_from)),  # a keyless twin is the same event
            None,
        )  # fmt: skip
        if twin is not None:
            return _reinforce(plan, slots, twin, item)
        new = _new(item, scope_key, status, derived)
        plan.new.append(new)
        slots.put(_as_view(new, now))
        return Op.ADD, new.memory_id

    chain = slots.chain(c.key, trusted=item.verdict.trusted)
    holder = next((m for m in reversed(chain) if m.valid_from <= t and (m.valid_to is None or t < m.valid_to)), None)
    if holder is not None and same_value(holder.value, c.value):
        return _reinforce(plan, slots, holder, item)
    if not chain:
        new = _new(item, scope_key, MemoryStatus.ACTIVE, derived)
        plan.new.append(new)
        slots.put(_as_view(new, now))
        return Op.ADD, new.memory_id

    new = _new(item, scope_key, MemoryStatus.ACTIVE, derived)
    if holder is None:
        # Earlier than anything stored: history that the first record already closes.
        first = chain[0]
        if same_value(first.value, c.value):  # the same value, said earlier: it held since then
            return Op.UPDATE, _revise(plan, slots, first, now, valid_from=t, evidence=c.evidence).memory_id
        new.valid_to, new.superseded_by = first.valid_from, first.memory_id
        new.status, new.superseded_at = MemoryStatus.SUPERSEDED, now
    elif holder.valid_to is None:
        # The usual update: the current claim ends where the new one begins.
        plan.closes.append(CloseMemory(holder.memory_id, t, new.memory_id))
        new.supersedes = holder.memory_id
        slots.put(_with(holder, valid_to=t, superseded_by=new.memory_id, superseded_at=now,
                          status=MemoryStatus.SUPERSEDED))  # fmt: skip
    elif (succ := next((m for m in chain if m.valid_from == holder.valid_to), None)) is not None and same_value(
            succ.value, c.value):  # fmt: skip
        # A late statement of the next record's value: that value began earlier.
        later = _revise(plan, slots, succ, now, valid_from=t, evidence=c.evidence)
        _revise(plan, slots, holder, now, valid_to=t, superseded_by=later.memory_id)
        return Op.UPDATE, later.memory_id
    else:
        # A late correction inside a closed interval: shrink the holder by re-recording it.
        revised = NewMemory(
            memory_id=memory_id_for(holder.memory_id, "revised", t.isoformat()),
            kind=holder.kind, key=holder.key, value=holder.value, text=holder.text, source=holder.source,
            confidence=holder.confidence, trusted=holder.trusted, status=MemoryStatus.SUPERSEDED,
            extractor=holder.extractor, valid_from=holder.valid_from, valid_to=t, superseded_by=new.memory_id,
            superseded_at=now, evidence=holder.evidence, derived_from=holder.derived_from, revises=holder.memory_id,
        )  # fmt: skip
        new.valid_to, new.superseded_by = holder.valid_to, holder.superseded_by
        new.status, new.superseded_at = MemoryStatus.SUPERSEDED, now
        plan.revised.append(holder.memory_id)
        plan.new.append(revised)
        slots.put(_with(holder, retracted_at=now))
        slots.put(_as_view(revised, now))
    plan.new.append(new)
    slots.put(_as_view(new, now))
    return Op.UPDATE, new.memory_id


def _revise(plan: WritePlan, slots: _Slots, m: MemoryView, now: datetime, *, evidence: Sequence[str] = (),
            **changes: Any) -> MemoryView:  # fmt: skip
    """Re-record ``m`` with ``changes`` (valid time, successor) and more evidence; ``m`` is retired
    by transaction time. A record made earlier in the same plan is re-recorded too, so a batch
    leaves the same history as its episodes written one by one."""
    more = tuple(e for e in dict.fromkeys(evidence) if e not in m.evidence)
    valid_to = changes.get("valid_to", m.valid_to)
    revised = NewMemory(
        memory_id=memory_id_for(m.memory_id, "revised", now.isoformat(), *sorted(f"{k}={v}" for k, v in changes.items())),
        kind=m.kind, key=m.key, value=m.value, text=m.text, source=m.source, confidence=m.confidence,
        trusted=m.trusted, status=MemoryStatus.ACTIVE if valid_to is None else MemoryStatus.SUPERSEDED,
        extractor=m.extractor, valid_from=changes.get("valid_from", m.valid_from), valid_to=valid_to,
        superseded_by=changes.get("superseded_by", m.superseded_by),
        superseded_at=None if valid_to is None else (m.superseded_at or now),
        evidence=m.evidence + more, derived_from=m.derived_from, revises=m.memory_id,
    )  # fmt: skip
    plan.revised.append(m.memory_id)
    plan.new.append(revised)
    slots.put(_with(m, retracted_at=now))
    view = _as_view(revised, now)
    slots.put(view)
    return view


def _retract(plan: WritePlan, slots: _Slots, key: str, scope_key: str) -> str | None:
    targets = {
        m.memory_id
        for m in slots.records.values()
        if m.key == key and m.status is not MemoryStatus.DELETED
    }
    derived = {
        m.memory_id
        for m in slots.records.values()
        if m.status is not MemoryStatus.DELETED and targets.intersection(m.derived_from)
    }
    evidence = {e for mid in targets | derived for e in slots.records[mid].evidence}
    transcripts = {transcript_id(scope_key, e) for e in evidence}
    for mid in targets | derived:
        slots.put(_with(slots.records[mid], status=MemoryStatus.DELETED))
    doomed = sorted(targets | derived | transcripts)
    plan.deleted.extend(d for d in doomed if d not in plan.deleted)
    plan.new = [n for n in plan.new if n.memory_id not in doomed]
    return None
