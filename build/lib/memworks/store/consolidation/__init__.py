"""Sleep-time consolidation of one user scope: forget, merge, summarise, profile, repair.

Each step is idempotent, so a run that dies half way is simply run again: expired records are
already expired, merged ones already retracted, summarised episodes already have a summary.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt
from sqlalchemy import ColumnElement, func, select, update
from sqlmodel import Session, col

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus, Relation
from memworks.models.tables import ConsolidationRun, Eviction, LexicalDoc, Lineage, Memory, Outcome, VectorEntry
from memworks.pipelines.consolidation import (
    EvictionPolicy,
    decayed_attention,
    find_duplicate_groups,
    select_evictions,
    select_expired,
)
from memworks.pipelines.protocols import Embedder
from memworks.store import memories, profiles, versions
from memworks.store.consolidation import summaries
from memworks.store.indexing import index_memories
from memworks.store.projections import lexical, vector
from memworks.store.sql.db import insert_rows

#: Every count a run reports, zero when a step found nothing to do.
STEPS = ("expired", "evicted", "groups", "merged", "blocked_merges", "summaries", "repairs", "profile_tokens")


@dataclass(frozen=True)
class Knobs:
    """What a consolidation run needs besides the session."""

    eviction: EvictionPolicy
    dedup_threshold: float
    profile_max_tokens: int
    embedder: Embedder
    count_tokens: Callable[[str], int]


def tenants(session: Session) -> list[str]:
    """Every tenant with memories or outcomes."""
    found = set(session.scalars(select(col(Memory.tenant_id)).distinct()))
    found |= set(session.scalars(select(col(Outcome.tenant_id)).distinct()))
    return sorted(found)


def users(session: Session, *, tenant_id: str) -> list[str]:
    return sorted(
        u
        for u in session.scalars(select(col(Memory.user_id)).distinct().where(col(Memory.tenant_id) == tenant_id))
        if u is not None
    )


def expire_due(session: Session, *, now: datetime, tenant_id: str | None = None) -> int:
    """Active records past ``expires_at`` become expired (an eviction, recorded)."""
    q = select(col(Memory.memory_id), col(Memory.tenant_id), col(Memory.user_id)).where(
        col(Memory.status) == MemoryStatus.ACTIVE, col(Memory.expires_at) <= now
    )
    if tenant_id is not None:
        q = q.where(col(Memory.tenant_id) == tenant_id)
    rows = [(m, t, u) for m, t, u in session.execute(q)]
    _forget(session, rows, {m: "ttl: expired" for m, _, _ in rows}, now)
    return len(rows)


def _forget(session: Session, rows: list[tuple[str, str, str | None]], reasons: dict[str, str], now: datetime) -> None:
    """``rows`` (memory id, tenant, user) become expired, each with its eviction record."""
    if not rows:
        return
    ids = [m for m, _, _ in rows]
    for chunk in memories.chunks(ids):
        session.execute(
            update(Memory).where(col(Memory.memory_id).in_(chunk)).values(status=MemoryStatus.EXPIRED),
            execution_options={"synchronize_session": False},
        )
    insert_rows(
        session,
        Eviction,
        [{"memory_id": m, "tenant_id": t, "user_id": u, "reason": reasons[m], "at": now} for m, t, u in rows],
    )
    for tenant, user in {(t, u) for _, t, u in rows}:
        versions.bump(session, tenant_id=tenant, user_id=user)


#: Kinds dedup merges (facts and procedures; events and transcripts stay as they are).
_DEDUP_KINDS = (MemoryKind.SEMANTIC, MemoryKind.PROCEDURAL)
#: What a consolidation reads of a live record: every field of :class:`MemoryView` but its lineage.
_VIEW_FIELDS = tuple(f for f in MemoryView.model_fields if f not in ("evidence", "derived_from"))
_VIEW_COLUMNS = tuple(col(getattr(Memory, f)) for f in _VIEW_FIELDS)


def _live(session: Session, tenant_id: str, user_id: str, *where: ColumnElement[bool]) -> list[MemoryView]:
    """The user's active records (those also matching ``where``) as views, without lineage.

    Only active rows: dedup and eviction judge nothing else (history rows are neither merged,
    expired nor evicted), and a user's history outgrows their live records. Columns, not ORM
    objects, and views built unvalidated from typed columns: loading every row of a user as
    ORM objects and validated views, twice, was a third of a run at 100k memories.
    """
    return [
        MemoryView.model_construct(**dict(zip(_VIEW_FIELDS, r, strict=True)))
        for r in session.execute(
            select(*_VIEW_COLUMNS).where(
                col(Memory.tenant_id) == tenant_id,
                col(Memory.user_id) == user_id,
                col(Memory.status) == MemoryStatus.ACTIVE,
                *where,
            )
        )
    ]


def _to_forget(session: Session, tenant_id: str, user_id: str, knobs: Knobs, now: datetime) -> list[MemoryView]:
    """What eviction must see: every live record when the user is over capacity, else only
    the records due to expire (below the cap :func:`select_evictions` evicts nothing, so the
    others cannot change its answer, and a user's transcripts are most of their records)."""
    live = session.scalar(
        select(func.count())
        .select_from(Memory)
        .where(
            col(Memory.tenant_id) == tenant_id,
            col(Memory.user_id) == user_id,
            col(Memory.status) == MemoryStatus.ACTIVE,
            col(Memory.retracted_at).is_(None),
        )
    )
    if (live or 0) > knobs.eviction.max_records:
        return _live(session, tenant_id, user_id)
    return _live(session, tenant_id, user_id, col(Memory.expires_at) <= now)


#: The counts of the dedup step.
MERGE_STEPS = ("groups", "merged", "blocked_merges")


def merge_user(session: Session, *, tenant_id: str, user_id: str, knobs: Knobs, now: datetime) -> dict[str, int]:
    """A run's first step alone, in the caller's transaction: dedup (counts of ``MERGE_STEPS``).

    Then :func:`consolidate_user` with ``merged=True`` does the rest. Summaries cite the facts
    that survive the merge, so their texts are known only after it.
    """
    counts = dict.fromkeys(MERGE_STEPS, 0)
    _merge(session, tenant_id, user_id, knobs, now, counts)
    if counts["merged"]:
        versions.bump(session, tenant_id=tenant_id, user_id=user_id)  # cached reads of the scope are stale
    return counts


def consolidate_user(
    session: Session,
    *,
    tenant_id: str,
    user_id: str,
    knobs: Knobs,
    now: datetime,
    vectors: dict[str, npt.NDArray[np.float32]] | None = None,
    merged: bool = False,
) -> dict[str, int]:
    """One user's consolidation, in the caller's transaction. Returns counts per step.

    ``merged``: dedup already ran (:func:`merge_user`, in a transaction of its own) and is
    not run again; its counts are then 0 here. ``vectors``: embeddings by text computed ahead
    (:func:`memworks.store.consolidation.summaries.index_texts`); a summary text missing from it is
    embedded here.
    """
    counts: dict[str, int] = defaultdict(int, {k: 0 for k in STEPS})

    if not merged:
        _merge(session, tenant_id, user_id, knobs, now, counts)
    counts["summaries"] = summaries.write(
        session, tenant_id=tenant_id, user_id=user_id, embedder=knobs.embedder, now=now, vectors=vectors
    )
    # Forget last, so the cap also counts what this run added.
    views = _to_forget(session, tenant_id, user_id, knobs, now)
    # Attention decays with time since the last retrieval: computed when judged, never stored,
    # and it never touches truth.
    judged = [
        v.model_copy(update={"attention": decayed_attention(v.attention, v.last_retrieved_at, now, knobs.eviction)})
        if v.last_retrieved_at is not None
        else v
        for v in views
    ]
    expired = select_expired(views, now)
    evicted = [(m, r) for m, r in select_evictions(judged, now=now, policy=knobs.eviction) if m not in expired]
    reasons = {m: "ttl: expired" for m in expired} | dict(evicted)
    _forget(session, [(m, tenant_id, user_id) for m in reasons], reasons, now)
    counts["expired"], counts["evicted"] = len(expired), len(evicted)

    counts["repairs"] = _repair(session, tenant_id, user_id, knobs)
    profile = profiles.rebuild(
        session,
        tenant_id=tenant_id,
        user_id=user_id,
        count_tokens=knobs.count_tokens,
        max_tokens=knobs.profile_max_tokens,
        now=now,
    )
    counts["profile_tokens"] = profile.tokens if profile else 0
    if any(counts[k] for k in ("merged", "summaries", "repairs")):  # eviction bumps on its own
        versions.bump(session, tenant_id=tenant_id, user_id=user_id)  # cached reads of the scope are stale
    return dict(counts)


def _vectors(session: Session, ids: list[str]) -> dict[str, np.ndarray]:
    """The stored embeddings of ``ids``: dedup compares what the vector index holds, never re-embeds."""
    out = {}
    for chunk in memories.chunks(ids):
        for mid, raw in session.execute(
            select(col(VectorEntry.memory_id), col(VectorEntry.vector)).where(col(VectorEntry.memory_id).in_(chunk))
        ):
            out[mid] = np.frombuffer(raw, dtype=np.float32)
    return out


def _merge(session: Session, tenant_id: str, user_id: str, knobs: Knobs, now: datetime, counts: dict[str, int]) -> None:
    """Near-duplicates of a slot, and restatements in other words inside one slot, become one
    record holding all their evidence (lineage ``consolidated_from`` to each merged record)."""
    live = _live(session, tenant_id, user_id, col(Memory.kind).in_(_DEDUP_KINDS))
    ids = [v.memory_id for v in live]
    # Lineage is read for the dedup candidates only (not for transcripts or the eviction pass).
    evidence = memories.evidence_of(session, tenant_id=tenant_id, ids=ids)
    live = [v.model_copy(update={"evidence": tuple(evidence.get(v.memory_id, ()))}) for v in live]
    groups = find_duplicate_groups(live, _vectors(session, ids), threshold=knobs.dedup_threshold)
    by_id = {v.memory_id: v for v in live}
    reps: list[dict[str, object]] = []
    retired: list[dict[str, object]] = []
    edges: list[dict[str, object]] = []

    def edge(child: str, ptype: str, parent: str, rel: Relation) -> None:
        edges.append(dict(tenant_id=tenant_id, child_id=child, parent_type=ptype, parent_id=parent, relation=rel))
        edges[-1]["created_at"] = now

    for g in groups:
        counts["groups"] += 1
        counts["blocked_merges"] += len(g.blocked)
        if not g.merged:
            continue
        rep = by_id[g.representative]
        if g.confidence != rep.confidence:
            reps.append({"memory_id": rep.memory_id, "confidence": g.confidence})
        have = set(rep.evidence)
        for e in g.evidence:
            if e not in have:
                edge(rep.memory_id, "episode", e, Relation.REINFORCED_BY)
        for mid in g.merged:
            retired.append(dict(memory_id=mid, status=MemoryStatus.SUPERSEDED, superseded_by=rep.memory_id))
            retired[-1] |= dict(superseded_at=now, retracted_at=now)
            edge(rep.memory_id, "memory", mid, Relation.CONSOLIDATED_FROM)
            counts["merged"] += 1
    # Bulk statements (UPDATE by primary key, one multi-row INSERT), not an ORM object per row.
    for changes in (reps, retired):
        if changes:
            session.execute(update(Memory), changes)
    if edges:
        insert_rows(session, Lineage, edges)


def _repair(session: Session, tenant_id: str, user_id: str, knobs: Knobs) -> int:
    """Make the indexes agree with SQL: no entry for a deleted record, one for every live one."""
    statuses = dict(
        session.execute(
            select(col(Memory.memory_id), col(Memory.status)).where(
                col(Memory.tenant_id) == tenant_id, col(Memory.user_id) == user_id
            )
        ).all()
    )
    indexed_lex = set(
        session.scalars(
            select(col(LexicalDoc.memory_id)).where(
                col(LexicalDoc.tenant_id) == tenant_id, col(LexicalDoc.user_id) == user_id
            )
        )
    )
    indexed_vec = set(
        session.scalars(
            select(col(VectorEntry.memory_id)).where(
                col(VectorEntry.tenant_id) == tenant_id, col(VectorEntry.user_id) == user_id
            )
        )
    )
    retired = {m for m, s in statuses.items() if s is MemoryStatus.DELETED}
    stale = sorted(((indexed_lex | indexed_vec) & retired) | ((indexed_lex | indexed_vec) - set(statuses)))
    missing = sorted(
        m
        for m, s in statuses.items()
        if s is not MemoryStatus.DELETED and (m not in indexed_lex or m not in indexed_vec)
    )
    if stale:
        lexical.purge(session, stale)
        vector.purge(session, stale)
    if missing:
        rows = memories.get_rows(session, ids=missing)
        lexical.purge(session, missing)
        vector.purge(session, missing)
        index_memories(session, rows, knobs.embedder)
    return len(stale) + len(missing)


def mark_run(
    session: Session, *, run_id: int, counts: dict[str, int], status: str, duration_ms: float, now: datetime
) -> None:
    session.execute(
        update(ConsolidationRun)
        .where(col(ConsolidationRun.id) == run_id)
        .values(counts_json=json.dumps(counts), status=status, duration_ms=duration_ms, finished_at=now)
    )


def latest_run(session: Session, *, tenant_id: str) -> ConsolidationRun | None:
    """The tenant's most recent consolidation run."""
    return session.scalars(
        select(ConsolidationRun)
        .where(col(ConsolidationRun.tenant_id) == tenant_id)
        .order_by(col(ConsolidationRun.id).desc())
        .limit(1)
    ).first()
