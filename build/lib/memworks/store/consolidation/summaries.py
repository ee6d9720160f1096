"""Consolidation's session summaries of one user scope: which are due, and writing them.

Split in two so a tenant's run can embed the summaries of many users in one call before it
writes any (:func:`index_texts`), then write each user's in that user's own transaction
(:func:`write`): the embedder batches texts of similar length together, and a user's handful
of summaries alone pads each batch to its longest text (a fifth more model time at 10k
memories). Nothing else a run does is embedded: dedup compares the vectors the index holds.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

import numpy as np
import numpy.typing as npt
from sqlalchemy import select
from sqlmodel import Session, col

from memworks.models.drafts import Turn
from memworks.models.enums import TRUSTED_SOURCES, EpisodeState, MemoryKind, MemoryStatus, Relation
from memworks.models.tables import Episode, Lineage, Memory
from memworks.pipelines.consolidation import SummaryDraft, summarize_sessions
from memworks.pipelines.ingest.record_ids import scope_key, transcript_id
from memworks.pipelines.ingest.slots import index_text
from memworks.pipelines.ingest.supersession import memory_id_for
from memworks.pipelines.protocols import Embedder
from memworks.pipelines.text.spans import spans
from memworks.store import memories
from memworks.store.episodes import fingerprint
from memworks.store.indexing import index_memories
from memworks.store.sql.db import insert_rows


def _key(d: SummaryDraft) -> str:
    return f"summary.session.{d.session_id}"


def due(session: Session, *, tenant_id: str, user_id: str) -> dict[str, SummaryDraft]:
    """Itemised delta summaries of sessions' verified episodes not summarised yet, by the id
    of the record each would be (drafts already stored are left out)."""
    # Columns, not ORM objects: nothing here changes an episode.
    eps = session.execute(
        select(
            col(Episode.episode_id),
            col(Episode.session_id),
            col(Episode.role),
            col(Episode.source),
            col(Episode.content),
            col(Episode.occurred_at),
        ).where(
            col(Episode.tenant_id) == tenant_id,
            col(Episode.user_id) == user_id,
            col(Episode.tombstoned_at).is_(None),
            col(Episode.state) == EpisodeState.PROCESSED,
            col(Episode.source).in_([s.value for s in TRUSTED_SOURCES]),
        )
    ).all()
    if not eps:
        return {}
    # Derived memory obeys the gate: only turns whose transcript the gate kept and that still
    # stand (not superseded, deleted or pending) are summarised.
    standing = _standing_turns(session, tenant_id=tenant_id, user_id=user_id, episode_ids=[e[0] for e in eps])
    eps = [e for e in eps if e[0] in standing]
    if not eps:
        return {}
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
    rows = session.execute(
        select(col(Memory.memory_id), col(Memory.text), col(Memory.status)).where(
            col(Memory.tenant_id) == tenant_id,
            col(Memory.user_id) == user_id,
            col(Memory.extractor).notin_(["transcript", "summary"]),
            col(Memory.status) != MemoryStatus.DELETED,
        )
    ).all()
    texts = {mid: text for mid, text, status in rows if status == MemoryStatus.ACTIVE}
    had_facts: set[str] = set()  # turns that gave a fact, current or not: their words are no item
    for mid, evs in memories.evidence_of(session, tenant_id=tenant_id, ids=[r[0] for r in rows]).items():
        had_facts.update(evs)
        if mid in texts:
            for eid in evs:
                facts[eid].append(texts[mid])
    by_session: dict[str, list[Turn]] = defaultdict(list)
    for eid, sid, role, source, content, occurred_at in eps:
        by_session[sid].append(Turn(episode_id=eid, role=role, source=source, content=content, occurred_at=occurred_at))
    drafts = summarize_sessions(by_session, facts, summarised, had_facts=had_facts)
    ids = {memory_id_for(tenant_id, user_id, "summary", d.session_id, *d.episode_ids): d for d in drafts}
    have = {
        m
        for chunk in memories.chunks(list(ids))
        for m in session.scalars(select(col(Memory.memory_id)).where(col(Memory.memory_id).in_(chunk)))
    }
    return {mid: d for mid, d in ids.items() if mid not in have}


def _standing_turns(session: Session, *, tenant_id: str, user_id: str, episode_ids: list[str]) -> set[str]:
    """The episodes of ``episode_ids`` whose transcript record is active and trusted."""
    scope = scope_key(tenant_id, user_id)
    by_record = {transcript_id(scope, e): e for e in episode_ids}
    return {
        by_record[m]
        for chunk in memories.chunks(list(by_record))
        for m in session.scalars(
            select(col(Memory.memory_id)).where(
                col(Memory.memory_id).in_(chunk),
                col(Memory.status) == MemoryStatus.ACTIVE,
                col(Memory.trusted).is_(True),
            )
        )
    }


def index_texts(drafts: dict[str, SummaryDraft]) -> list[str]:
    """What indexing the summaries of ``drafts`` will embed: each one's index text and its
    sentences (as :func:`memworks.store.indexing.index_memories` derives them; a text this
    misses is embedded when the summary is written, so a difference costs time, not truth)."""
    texts = [index_text(_key(d), d.text) for d in drafts.values()]
    return list(dict.fromkeys([*texts, *(x for t in texts for x in spans(t))]))


def write(
    session: Session,
    *,
    tenant_id: str,
    user_id: str,
    embedder: Embedder,
    now: datetime,
    vectors: dict[str, npt.NDArray[np.float32]] | None = None,
) -> int:
    """Store and index the summaries due now (see :func:`due`); how many. ``vectors``: texts
    embedded ahead (by :func:`index_texts`)."""
    drafts = due(session, tenant_id=tenant_id, user_id=user_id)
    new_rows, edges = [], []
    for mid, d in drafts.items():
        new_rows.append(
            Memory(
                memory_id=mid,
                tenant_id=tenant_id,
                user_id=user_id,
                kind=MemoryKind.EPISODIC,
                key=_key(d),
                value=d.text,
                text=d.text,
                fingerprint=fingerprint(d.text),
                source=d.source,
                confidence=0.9,
                trusted=d.source in TRUSTED_SOURCES,
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
        insert_rows(session, Lineage, edges)
    index_memories(session, new_rows, embedder, dict(vectors or {}), fresh=True)
    return len(new_rows)
