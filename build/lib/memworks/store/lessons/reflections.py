"""Reflexion notes as memory rows: one episodic record per failure with feedback.

A note is an ordinary memory row in the reporting user's scope (tenant-wide when the outcome
names no user), indexed for retrieval, with a lineage edge to its outcome
(``parent_type="outcome"``, ``extracted_from``). A subject deletion therefore plans it like
any of the subject's records; the edge keeps the trace for audit.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import select
from sqlmodel import Session, col

from memworks.models.enums import MemoryKind, MemoryStatus, Relation, Source
from memworks.models.tables import Lineage, Memory, Outcome
from memworks.pipelines.consolidation import EvictionPolicy, expires_at_for
from memworks.pipelines.ingest.supersession import memory_id_for
from memworks.pipelines.lessons.reflection import reflect
from memworks.pipelines.protocols import Embedder
from memworks.store import versions
from memworks.store.episodes import fingerprint
from memworks.store.indexing import index_memories

#: The extractor name reflection notes carry (audit trail, and how to find them).
EXTRACTOR = "reflection"


def note_id(tenant_id: str, user_id: str | None, outcome_id: str) -> str:
    return memory_id_for(tenant_id, user_id or "", "reflection", outcome_id)


def _task(row: Outcome) -> str:
    if row.task_text:
        return row.task_text
    raw = json.loads(row.features_raw or "[]")
    return raw if isinstance(raw, str) else ", ".join(str(f) for f in raw)


def write_reflections(
    session: Session,
    *,
    tenant_id: str,
    task_type: str,
    embedder: Callable[[], Embedder],
    eviction: EvictionPolicy,
    now: datetime,
) -> tuple[int, int]:
    """Write the notes of the task type's failures with feedback that have none yet.

    ``embedder`` is called only when there is a note to index (loading a model costs time).
    Idempotent: a note's id derives from its outcome. Returns (written, refused).
    """
    rows = list(
        session.scalars(
            select(Outcome).where(
                col(Outcome.tenant_id) == tenant_id,
                col(Outcome.task_type) == task_type,
                col(Outcome.success).is_(False),
                col(Outcome.feedback).is_not(None),
                col(Outcome.tombstoned_at).is_(None),
            )
        )
    )
    ids = {r.outcome_id: note_id(tenant_id, r.user_id, r.outcome_id) for r in rows}
    have = set(session.scalars(select(col(Memory.memory_id)).where(col(Memory.memory_id).in_(list(ids.values())))))
    new: list[Memory] = []
    parents: list[str] = []
    refused = 0
    for r in rows:
        mid = ids[r.outcome_id]
        if mid in have:
            continue
        draft = reflect(
            task_type=task_type,
            task=_task(r),
            action_taken=r.action_taken,
            verified_action=r.verified_action,
            feedback=r.feedback or "",
        )
        if draft.refused:
            refused += 1
            continue
        have.add(mid)
        parents.append(r.outcome_id)
        new.append(
            Memory(
                memory_id=mid,
                tenant_id=tenant_id,
                user_id=r.user_id,
                kind=MemoryKind.EPISODIC,
                key=draft.key,
                value=draft.text,
                text=draft.text,
                fingerprint=fingerprint(draft.text),
                source=Source.VERIFIED_TOOL,
                confidence=0.8,
                trusted=True,
                status=MemoryStatus.ACTIVE,
                extractor=EXTRACTOR,
                valid_from=r.occurred_at,
                recorded_at=now,
                expires_at=expires_at_for(MemoryKind.EPISODIC, now, eviction),
            )
        )
    if not new:
        return 0, refused
    session.add_all(new)
    session.add_all(
        Lineage(
            tenant_id=tenant_id,
            child_id=m.memory_id,
            parent_type="outcome",
            parent_id=p,
            relation=Relation.EXTRACTED_FROM,
            created_at=now,
        )
        for m, p in zip(new, parents, strict=True)
    )
    session.flush()
    index_memories(session, new, embedder(), fresh=True)
    for user in sorted({m.user_id or "" for m in new}):
        versions.bump(session, tenant_id=tenant_id, user_id=user or None)
    return len(new), refused
