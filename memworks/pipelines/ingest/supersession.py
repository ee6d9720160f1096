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
* DELETE, ending — a retraction ("I quit Acme", "I gave up the cello", "I don't have a car
  anymore") closes the valid time of the current record(s) it names at its event time, and of
  records derived from them; history stays, so ``as_of`` reads before the ending still see the
  fact. A retraction naming a value ends only records holding it ("I left Acme" does not end
  Globex); one naming a slot family (``key_is_prefix``) ends every slot under it.
* DELETE, erasure — only a forget request ("forget where I live": ``Candidate.forget`` or a
  ``forget.*`` rule) retires the slot's whole chain (history too), records derived from it and
  the transcripts that were its evidence.

Untrusted claims (model inference) never supersede trusted ones; they are kept beside them.
Slots that hold several values (:func:`~memworks.pipelines.ingest.slots.is_multi_valued`: likes,
allergies, languages spoken, interests) collect values instead of replacing them, and so do
the open extractor's past events (two trips are two events) and plans (a new job beside a move;
a plan said again with its date, or with none, reinforces). A plan of a kind one holds one of at a
time (a move, a new job) replaces the current plan of that kind. For the open extractor's records
a restatement in other words ("cello" / "the cello") reinforces the record
(:func:`~memworks.pipelines.ingest.slots.values_agree`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache

from memworks.models.drafts import Candidate, MemoryView
from memworks.models.enums import CandidateOp, GateOutcome, MemoryKind, MemoryStatus, Op
from memworks.pipelines.extraction.tools.results import KEY_PREFIX, STILL, still_holds
from memworks.pipelines.ingest.record_ids import memory_id_for, scope_key, transcript_id
from memworks.pipelines.ingest.retraction import end_records, erase_slot
from memworks.pipelines.ingest.slots import is_multi_valued, values_agree
from memworks.pipelines.ingest.working_records import (
    WorkingRecords,
    as_view,
    new_record,
    reinforce,
    revise,
    with_changes,
)
from memworks.pipelines.ingest.write_plan import Accepted, CloseMemory, NewMemory, Reinforce, WritePlan

__all__ = [
    "MULTI_VALUED",
    "Accepted",
    "CloseMemory",
    "NewMemory",
    "Reinforce",
    "WritePlan",
    "decide_writes",
    "is_forget_request",
    "memory_id_for",
    "same_value",
    "scope_key",
    "transcript_id",
]

#: Slots that hold several values at once: a new value is added beside the others, not instead.
MULTI_VALUED = frozenset({"user.likes", "user.dislikes", "user.allergy"})


def is_forget_request(c: Candidate) -> bool:
    """A retraction that asks for erasure ("forget ..."), not one that ends a fact."""
    return c.op is CandidateOp.RETRACT and (c.forget is not None or c.extra.get("rule", "").startswith("forget."))


def same_value(a: str, b: str) -> bool:
    """Values match when they differ only in case, spacing and punctuation."""
    return a == b or _norm(a) == _norm(b)


@lru_cache(maxsize=65_536)
def _norm(s: str) -> str:
    """``s`` without case, spacing and punctuation (cached: a slot's values meet every new one)."""
    return re.sub(r"[\W_]+", " ", s.casefold()).strip()


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
    slots = WorkingRecords(existing)
    produced: dict[tuple[str, str], str] = {}  # (episode, key) → memory id holding it
    for item in items:
        c = item.candidate
        if c.op is CandidateOp.RETRACT:
            if is_forget_request(c):
                plan.ops.append((Op.DELETE, erase_slot(plan, slots, c.key or "", scope_key)))
            else:
                plan.ops.append((Op.DELETE, end_records(plan, slots, item, now)))
            continue
        derived: tuple[str, ...] = ()
        if c.derived_from_key and (parent := produced.get((item.episode_id, c.derived_from_key))):
            derived = (parent,)
        op, mid = _assert(plan, slots, item, scope_key, now, derived)
        if c.key and mid:
            produced[(item.episode_id, c.key)] = mid
        plan.ops.append((op, mid))
    return plan


def _assert(
    plan: WritePlan, slots: WorkingRecords, item: Accepted, scope_key: str, now: datetime, derived: tuple[str, ...]
) -> tuple[Op, str | None]:
    c, t = item.candidate, item.valid_from
    pending = item.verdict.outcome is GateOutcome.PENDING
    # Events collect: a trip beside a move, a second appointment. Plans are events too: a new
    # job does not cancel the move said the day before.
    event = item.verdict.kind is MemoryKind.EPISODIC and (c.extractor == "open" or c.plan)
    if event or (c.key and is_multi_valued(c.key)):
        return _collect(plan, slots, item, scope_key, now, derived)
    if c.key is None or pending or c.key in MULTI_VALUED:
        status = MemoryStatus.PENDING_CONFIRMATION if pending else MemoryStatus.ACTIVE
        twin = next(
            (
                m
                for m in slots.records.values()
                if m.key == c.key
                and m.status is status
                and m.retracted_at is None
                and m.kind is item.verdict.kind
                and same_value(m.value, c.value)
                and same_value(m.text, c.text)
                and (c.key is not None or m.valid_from == item.valid_from)
            ),  # a keyless twin is the same event
            None,
        )
        if twin is not None:
            return reinforce(plan, slots, twin, item)
        new = new_record(item, scope_key, status, derived)
        plan.new.append(new)
        slots.put(as_view(new, now))
        return Op.ADD, new.memory_id

    chain = slots.chain(c.key, trusted=item.verdict.trusted)
    holder = next((m for m in reversed(chain) if m.valid_from <= t and (m.valid_to is None or t < m.valid_to)), None)
    if holder is not None and _restates(holder, c):
        return reinforce(plan, slots, holder, item)
    if not chain:
        new = new_record(item, scope_key, MemoryStatus.ACTIVE, derived)
        plan.new.append(new)
        slots.put(as_view(new, now))
        return Op.ADD, new.memory_id

    new = new_record(item, scope_key, MemoryStatus.ACTIVE, derived)
    later = [m for m in chain if m.valid_from > t]
    if holder is None and not later:
        # After the slot's last claim was ended ("I gave up the cello" ... "I'm back on the
        # cello"): the slot holds again, with nothing to supersede.
        plan.new.append(new)
        slots.put(as_view(new, now))
        return Op.ADD, new.memory_id
    if holder is None:
        # Earlier than the next stored claim: history that the next claim already closes.
        first = later[0]
        if same_value(first.value, c.value):  # the same value, said earlier: it held since then
            return Op.UPDATE, revise(plan, slots, first, now, valid_from=t, evidence=c.evidence).memory_id
        new.valid_to, new.superseded_by = first.valid_from, first.memory_id
        new.status, new.superseded_at = MemoryStatus.SUPERSEDED, now
    elif holder.valid_to is None:
        # The usual update: the current claim ends where the new one begins.
        if c.key.startswith(KEY_PREFIX) and (kept := still_holds(c.key, c.value, holder.value, holder.text)):
            new.text += f"{STILL}{kept})"  # what the later tool result does not restate still holds
        plan.closes.append(CloseMemory(holder.memory_id, t, new.memory_id))
        new.supersedes = holder.memory_id
        slots.put(
            with_changes(
                holder, valid_to=t, superseded_by=new.memory_id, superseded_at=now, status=MemoryStatus.SUPERSEDED
            )
        )
    elif (succ := next((m for m in chain if m.valid_from == holder.valid_to), None)) is not None and same_value(
        succ.value, c.value
    ):
        # A late statement of the next record's value: that value began earlier.
        moved = revise(plan, slots, succ, now, valid_from=t, evidence=c.evidence)
        revise(plan, slots, holder, now, valid_to=t, superseded_by=moved.memory_id)
        return Op.UPDATE, moved.memory_id
    else:
        # A late correction inside a closed interval: shrink the holder by re-recording it.
        revised = NewMemory.from_view(
            holder,
            memory_id=memory_id_for(holder.memory_id, "revised", t.isoformat()),
            status=MemoryStatus.SUPERSEDED,
            valid_to=t,
            superseded_by=new.memory_id,
            superseded_at=now,
            revises=holder.memory_id,
        )
        new.valid_to, new.superseded_by = holder.valid_to, holder.superseded_by
        new.status, new.superseded_at = MemoryStatus.SUPERSEDED, now
        plan.revised.append(holder.memory_id)
        plan.new.append(revised)
        slots.put(with_changes(holder, retracted_at=now))
        slots.put(as_view(revised, now))
    plan.new.append(new)
    slots.put(as_view(new, now))
    return Op.UPDATE, new.memory_id


def _restates(m: MemoryView, c: Candidate) -> bool:
    """The candidate says again what ``m`` holds (other words count for the open extractor)."""
    if same_value(m.value, c.value):
        return True
    return "open" in (c.extractor, m.extractor) and values_agree(m.value, c.value)


def _collect(
    plan: WritePlan, slots: WorkingRecords, item: Accepted, scope_key: str, now: datetime, derived: tuple[str, ...]
) -> tuple[Op, str | None]:
    """A value beside the slot's others (a second language, another trip); a restatement of a
    current one reinforces it. An event restated without a date of its own is the same event."""
    c = item.candidate
    pending = item.verdict.outcome is GateOutcome.PENDING
    status = MemoryStatus.PENDING_CONFIRMATION if pending else MemoryStatus.ACTIVE
    event = item.verdict.kind is MemoryKind.EPISODIC
    twin = next(
        (
            m
            for m in slots.records.values()
            if m.key == c.key
            and m.status is status
            and m.retracted_at is None
            and m.valid_to is None
            and m.trusted == item.verdict.trusted
            and _restates(m, c)
            and (
                not event
                or (c.event_at == m.event_at or None in (c.event_at, m.event_at) if c.plan else False)
                or c.valid_from is None
                or m.valid_from == item.valid_from
            )
        ),
        None,
    )
    if twin is not None:
        return reinforce(plan, slots, twin, item)
    new = new_record(item, scope_key, status, derived)
    if c.plan and (kind := _one_at_a_time(c.value)):
        # One move and one new job at a time: "I'm moving to Madrid instead" replaces the
        # current plan to move somewhere else, not the trips beside it. Said before a plan of
        # its kind that is already stored (a late message), it was replaced by that one.
        same = [
            m
            for m in slots.records.values()
            if m.key == c.key
            and m.retracted_at is None
            and m.status is not MemoryStatus.DELETED
            and _one_at_a_time(m.value) == kind
        ]
        if later := sorted((m for m in same if m.valid_from > item.valid_from), key=lambda m: m.valid_from):
            new.valid_to, new.superseded_by = later[0].valid_from, later[0].memory_id
            new.status, new.superseded_at = MemoryStatus.SUPERSEDED, now
        for m in same:
            if m.status is MemoryStatus.ACTIVE and m.valid_to is None and m.valid_from <= item.valid_from:
                plan.closes.append(CloseMemory(m.memory_id, item.valid_from, new.memory_id))
                new.supersedes = m.memory_id
                slots.put(
                    with_changes(
                        m,
                        valid_to=item.valid_from,
                        superseded_by=new.memory_id,
                        superseded_at=now,
                        status=MemoryStatus.SUPERSEDED,
                    )
                )
    plan.new.append(new)
    slots.put(as_view(new, now))
    return (Op.UPDATE if new.supersedes else Op.ADD), new.memory_id


#: Plans a person has one of at a time (the value's verb, as the rules extractor writes it).
_SINGLE_PLANS = ("move to ", "start at ")


def _one_at_a_time(value: str) -> str | None:
    """The kind of a plan one holds one of at a time ("move to Lisbon" → "move to "), else None."""
    return next((k for k in _SINGLE_PLANS if value.casefold().startswith(k)), None)
