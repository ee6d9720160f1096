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
from sqlalchemy import insert, select, update
from sqlmodel import Session, col

from memworks.models.drafts import MemoryView, Turn
from memworks.models.enums import TRUSTED_SOURCES, EpisodeState, MemoryKind, MemoryStatus, Relation, Source
from memworks.models.tables import Episode, Eviction, LexicalDoc, Lineage, Memory, Outcome, VectorEntry
from memworks.pipelines.consolidation import (
    ForgettingPolicy,
    decayed_attention,
    find_duplicate_groups,
    select_evictions,
    select_expired,
    summarize_sessions,
)
from memworks.pipelines.protocols import Embedder
from memworks.pipelines.supersession import memory_id_for
from memworks.store import memories, profiles, versions
from memworks.store.episodes import fingerprint
from memworks.store.indexing import index_memories
from memworks.store.projections import lexical, vector

#: Every count a run reports, zero when a step found nothing to do.
STEPS = ("expired", "evicted", "groups", "merged", "blocked_merges", "summaries", "repairs", "profile_tokens")


@dataclass(frozen=True)
class Knobs:
    """What a consolidation run needs besides the session."""

    forgetting: ForgettingPolicy
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
    """Active records past ``expires_at`` become expired (a forgetting, recorded)."""
    q = select(Memory).where(col(Memory.status) == MemoryStatus.ACTIVE, col(Memory.expires_at) <= now)
    if tenant_id is not None:
        q = q.where(col(Memory.tenant_id) == tenant_id)
    rows = list(session.scalars(q))
    _forget(session, rows, {r.memory_id: "ttl: expired" for r in rows}, now)
    return len(rows)


def _forget(session: Session, rows: list[Memory], reasons: dict[str, str], now: datetime) -> None:
    for r in rows:
        r.status = MemoryStatus.EXPIRED
        session.add(r)
        session.add(
            Eviction(
                memory_id=r.memory_id, tenant_id=r.tenant_id, user_id=r.user_id, reason=reasons[r.memory_id], at=now
            )
        )
    for tenant, user in {(r.tenant_id, r.user_id) for r in rows}:
        versions.bump(session, tenant_id=tenant, user_id=user)


def _load(session: Session, tenant_id: str, user_id: str) -> tuple[dict[str, Memory], list[MemoryView]]:
    rows = {
        r.memory_id: r
        for r in session.scalars(
            select(Memory).where(col(Memory.tenant_id) == tenant_id, col(Memory.user_id) == user_id)
        )
    }
    return rows, memories.views(session, tenant_id=tenant_id, rows=list(rows.values()))


def consolidate_user(session: Session, *, tenant_id: str, user_id: str, knobs: Knobs, now: datetime) -> dict[str, int]:
    """One user's consolidation, in the caller's transaction. Returns counts per step."""
    counts: dict[str, int] = defaultdict(int, {k: 0 for k in STEPS})
    rows, views = _load(session, tenant_id, user_id)

    _merge(session, rows, views, knobs, now, counts)
    counts["summaries"] = _summarise(session, tenant_id, user_id, knobs, now)
    # Forget last, so the cap also counts what this run added.
    rows, views = _load(session, tenant_id, user_id)
    # Attention decays with time since the last retrieval: computed when judged, never stored,
    # and it never touches truth.
    judged = [
        v.model_copy(update={"attention": decayed_attention(v.attention, v.last_retrieved_at, now, knobs.forgetting)})
        if v.last_retrieved_at is not None
        else v
        for v in views
    ]
    expired = select_expired(views, now)
    evicted = [(m, r) for m, r in select_evictions(judged, now=now, policy=knobs.forgetting) if m not in expired]
    reasons = {m: "ttl: expired" for m in expired} | dict(evicted)
    _forget(session, [rows[m] for m in reasons], reasons, now)
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
    if any(counts[k] for k in ("merged", "summaries", "repairs")):  # forgetting bumps on its own
        versions.bump(session, tenant_id=tenant_id, user_id=user_id)  # cached reads of the scope are stale
    return dict(counts)


def _vectors(session: Session, ids: list[str]) -> dict[str, np.ndarray]:
    out = {}
    for i in range(0, len(ids), 500):
        for mid, raw in session.execute(
            select(col(VectorEntry.memory_id), col(VectorEntry.vector)).where(
                col(VectorEntry.memory_id).in_(ids[i : i + 500])
            )
        ):
            out[mid] = np.frombuffer(raw, dtype=np.float32)
    return out


def _merge(
    session: Session,
    rows: dict[str, Memory],
    views: list[MemoryView],
    knobs: Knobs,
    now: datetime,
    counts: dict[str, int],
) -> None:
    """Near-duplicates of a slot, and restatements in other words inside one slot, become one
    record holding all their evidence (lineage ``consolidated_from`` to each merged record)."""
    live = [
        v for v in views if v.status is MemoryStatus.ACTIVE and v.kind in (MemoryKind.SEMANTIC, MemoryKind.PROCEDURAL)
    ]
    groups = find_duplicate_groups(
        live, _vectors(session, [v.memory_id for v in live]), threshold=knobs.dedup_threshold
    )
    tenant = next(iter(rows.values())).tenant_id if rows else ""
    for g in groups:
        counts["groups"] += 1
        counts["blocked_merges"] += len(g.blocked)
        if not g.merged:
            continue
        rep = rows[g.representative]
        rep.confidence = g.confidence
        session.add(rep)
        have = set(next(v.evidence for v in views if v.memory_id == rep.memory_id))
        for e in g.evidence:
            if e not in have:
                session.add(
                    Lineage(
                        tenant_id=tenant,
                        child_id=rep.memory_id,
                        parent_type="episode",
                        parent_id=e,
                        relation=Relation.REINFORCED_BY,
                        created_at=now,
                    )
                )
        for mid in g.merged:
            r = rows[mid]
            r.status, r.superseded_by, r.superseded_at, r.retracted_at = (
                MemoryStatus.SUPERSEDED,
                rep.memory_id,
                now,
                now,
            )
            session.add(r)
            session.add(
                Lineage(
                    tenant_id=tenant,
                    child_id=rep.memory_id,
                    parent_type="memory",
                    parent_id=mid,
                    relation=Relation.CONSOLIDATED_FROM,
                    created_at=now,
                )
            )
            counts["merged"] += 1
    session.flush()


def _summarise(session: Session, tenant_id: str, user_id: str, knobs: Knobs, now: datetime) -> int:
    """Itemised delta summaries of sessions' verified episodes not summarised yet."""
    eps = list(
        session.scalars(
            select(Episode).where(
                col(Episode.tenant_id) == tenant_id,
                col(Episode.user_id) == user_id,
                col(Episode.tombstoned_at).is_(None),
                col(Episode.state) == EpisodeState.PROCESSED,
                col(Episode.source).in_([s.value for s in TRUSTED_SOURCES]),
            )
        )
    )
    if not eps:
        return 0
    # The user's summaries first (scope index), then their parents by child id: a lineage
    # query led by the tenant reads every edge of the tenant, once per user.
    summaries = list(
        session.scalars(
            select(col(Memory.memory_id)).where(
                col(Memory.tenant_id) == tenant_id,
                col(Memory.user_id) == user_id,
                col(Memory.extractor) == "summary",
                col(Memory.status) != MemoryStatus.DELETED,
            )
        )
    )
    summarised = {
        p
        for chunk in memories.chunks(summaries)
        for t, p in session.execute(
            select(col(Lineage.tenant_id), col(Lineage.parent_id)).where(
                col(Lineage.child_id).in_(chunk),
                col(Lineage.relation) == Relation.CONSOLIDATED_FROM,
                col(Lineage.parent_type) == "episode",
            )
        )
        if t == tenant_id
    }
    facts: dict[str, list[str]] = defaultdict(list)
    active = list(
        session.scalars(
            select(Memory).where(
                col(Memory.tenant_id) == tenant_id,
                col(Memory.user_id) == user_id,
                col(Memory.status) == MemoryStatus.ACTIVE,
                col(Memory.extractor).notin_(["transcript", "summary"]),
            )
        )
    )
    texts = {m.memory_id: m.text for m in active}
    for mid, evs in memories.evidence_of(session, tenant_id=tenant_id, ids=list(texts)).items():
        for eid in evs:
            facts[eid].append(texts[mid])
    by_session: dict[str, list[Turn]] = defaultdict(list)
    for ep in eps:
        by_session[ep.session_id].append(
            Turn(
                episode_id=ep.episode_id, role=ep.role, source=ep.source, content=ep.content, occurred_at=ep.occurred_at
            )
        )
    drafts = summarize_sessions(by_session, facts, summarised)
    ids = {d: memory_id_for(tenant_id, user_id, "summary", d.session_id, *d.episode_ids) for d in drafts}
    have = {
        m
        for chunk in memories.chunks(list(ids.values()))
        for m in session.scalars(select(col(Memory.memory_id)).where(col(Memory.memory_id).in_(chunk)))
    }
    new_rows, edges = [], []
    for d, mid in ids.items():
        if mid in have:
            continue
        new_rows.append(
            Memory(
                memory_id=mid,
                tenant_id=tenant_id,
                user_id=user_id,
                kind=MemoryKind.EPISODIC,
                key=f"summary.session.{d.session_id}",
                value=d.text,
                text=d.text,
                fingerprint=fingerprint(d.text),
                source=Source.USER,
                confidence=0.9,
                trusted=True,
                status=MemoryStatus.ACTIVE,
                extractor="summary",
                valid_from=d.valid_from,
                valid_to=None,
                recorded_at=now,
            )
        )
        edges += [
            {
                "tenant_id": tenant_id,
                "child_id": mid,
                "parent_type": "episode",
                "parent_id": e,
                "relation": Relation.CONSOLIDATED_FROM,
                "created_at": now,
            }
            for e in d.episode_ids
        ]
    session.add_all(new_rows)
    session.flush()
    if edges:  # one multi-row insert, not an ORM object per edge
        session.execute(insert(Lineage), edges)
    index_memories(session, new_rows, knobs.embedder, fresh=True)
    return len(new_rows)


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
    from memworks.models.tables import ConsolidationRun

    session.execute(
        update(ConsolidationRun)
        .where(col(ConsolidationRun.id) == run_id)
        .values(counts_json=json.dumps(counts), status=status, duration_ms=duration_ms, finished_at=now)
    )
