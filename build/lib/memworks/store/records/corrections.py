"""A person's own controls over a record: see its provenance, confirm it, correct it."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlmodel import Session, col

from memworks.errors import InvalidInput, NotFound
from memworks.models.drafts import Candidate
from memworks.models.enums import MemoryStatus, Role, Source
from memworks.models.schemas import EpisodeIn, MemoryOut, Scope
from memworks.models.tables import GateDecision, Lineage, Memory
from memworks.pipelines.gate import judge
from memworks.pipelines.ingest import Judged
from memworks.pipelines.ingest.supersession import Accepted, decide_writes, scope_key
from memworks.store import audit, episodes, memories, versions


def get_visible(session: Session, *, scope: Scope, memory_id: str) -> Memory:
    """The record, if the scope may see it; otherwise NotFound (existence does not leak)."""
    row = session.get(Memory, memory_id)
    if (
        row is None
        or row.tenant_id != scope.tenant_id
        or row.status is MemoryStatus.DELETED
        or (scope.user_id is not None and row.user_id not in (scope.user_id, None))
    ):
        raise NotFound(f"no memory {memory_id!r}")
    return row


def provenance(session: Session, *, scope: Scope, memory_id: str) -> dict[str, Any]:
    """A record with its evidence episodes, lineage edges and the gate decisions that made it."""
    row = get_visible(session, scope=scope, memory_id=memory_id)
    out = memories.list_by_ids(session, tenant_id=scope.tenant_id, ids=[memory_id])[0]
    edges = session.execute(
        select(col(Lineage.parent_type), col(Lineage.parent_id), col(Lineage.relation)).where(
            col(Lineage.tenant_id) == row.tenant_id, col(Lineage.child_id) == memory_id
        )
    ).all()
    decisions = session.scalars(select(GateDecision).where(col(GateDecision.memory_id) == memory_id)).all()
    eps = [
        {
            "episode_id": e.episode_id,
            "role": e.role,
            "source": e.source,
            "content": e.content,
            "occurred_at": e.occurred_at,
            "tombstoned": e.tombstoned_at is not None,
        }
        for e in episodes.by_client_ids(session, tenant_id=row.tenant_id, user_id=row.user_id, ids=out.evidence)
    ]
    return {
        "memory": out,
        "evidence_episodes": eps,
        "lineage": [{"parent_type": t, "parent_id": p, "relation": r} for t, p, r in edges],
        "gate": [
            {"outcome": d.outcome, "reason": d.reason, "extractor": d.extractor, "decided_at": d.decided_at}
            for d in decisions
        ],
    }


def confirm(session: Session, *, scope: Scope, memory_id: str, now: datetime) -> MemoryOut:
    """A pending outward-action preference becomes active: the user said yes."""
    row = get_visible(session, scope=scope, memory_id=memory_id)
    if row.status is not MemoryStatus.PENDING_CONFIRMATION:
        raise InvalidInput(f"memory {memory_id!r} is {row.status}, not pending confirmation", field="status")
    row.status, row.last_verified_at = MemoryStatus.ACTIVE, now
    session.add(row)
    versions.bump(session, tenant_id=row.tenant_id, user_id=row.user_id)
    session.flush()
    return memories.list_by_ids(session, tenant_id=row.tenant_id, ids=[memory_id])[0]


def correct(session: Session, *, scope: Scope, memory_id: str, value: str, now: datetime) -> tuple[list[Memory], str]:
    """The user's correction supersedes the record (never an in-place edit).

    The correction passes the write gate like any user-sourced candidate, judged before
    anything is written; its verdict is audited. The correction is itself an episode (source
    ``user``), so the new record has provenance like any other; returns the new rows (for the
    indexes) and the new record's id.

    Raises:
        InvalidInput: naming ``value`` when it is empty, too long or refused by the gate
            (with the gate's reason); naming ``memory_id`` when the record cannot be corrected.
    """
    old = get_visible(session, scope=scope, memory_id=memory_id)
    value = value.strip()
    if not value or len(value) > 500:
        raise InvalidInput("value must be 1 to 500 characters", field="value")
    if old.key is None or old.user_id is None or old.status is not MemoryStatus.ACTIVE:
        raise InvalidInput("only an active keyed record of a user can be corrected", field="memory_id")
    eid = f"correction-{uuid.uuid4().hex}"
    text = old.text.replace(old.value, value) if old.value and old.value in old.text else f"{old.key}: {value}"
    # The record rests on the correction episode alone: the statement it corrects is not its
    # evidence, so erasing that statement leaves the user's correction standing.
    cand = Candidate(
        key=old.key,
        value=value,
        text=text,
        kind=old.kind,
        confidence=1.0,
        evidence=(eid,),
        source=Source.USER,
        extractor="correction",
    )
    verdict = judge(cand)
    if not verdict.accepted:
        raise InvalidInput(f"the write gate refused the correction: {verdict.reason}", field="value")
    ep = EpisodeIn(
        episode_id=eid,
        tenant_id=old.tenant_id,
        user_id=old.user_id,
        session_id="corrections",
        turn=0,
        role=Role.USER,
        source=Source.USER,
        content=f"Correction of {old.key}: {value}",
        occurred_at=now,
    )
    ids, _ = episodes.insert_episodes(session, episodes=[ep], now=now)
    episodes.mark_processed(session, ids=ids, now=now)
    existing = memories.load_slots(session, tenant_id=old.tenant_id, user_id=old.user_id, keys=[old.key])
    plan = decide_writes(
        [Accepted(cand, verdict, eid, now)], existing, scope_key=scope_key(old.tenant_id, old.user_id), now=now
    )
    rows = memories.apply_plan(session, plan=plan, tenant_id=old.tenant_id, user_id=old.user_id, now=now)
    audit.record_decisions(
        session, now=now, decided=[(old.tenant_id, old.user_id, eid, [Judged(cand, verdict)], {0: plan.ops[0]})]
    )
    versions.bump(session, tenant_id=old.tenant_id, user_id=old.user_id)
    new_id = plan.ops[0][1] or memory_id
    return rows, new_id
