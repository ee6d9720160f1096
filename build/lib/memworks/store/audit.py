"""Audit rows: gate decisions, job runs, rejected input."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlmodel import Session, col

from memworks.models.enums import Op
from memworks.models.tables import GateDecision, JobRun, RejectedInput
from memworks.pipelines.ingest import Judged
from memworks.pipelines.ingest.supersession import memory_id_for
from memworks.store.sql.db import insert_rows

#: One episode's gate decisions: (tenant, user, episode id, what was judged, the write op and
#: record id of each accepted candidate by its index in ``judged``).
Decided = tuple[str, str, str, Sequence[Judged], Mapping[int, tuple[Op, str | None]]]


def record_decisions(session: Session, *, decided: Sequence[Decided], now: datetime) -> None:
    """One row per candidate of each episode's decisions, any scopes, written in one batch.

    Ids are deterministic, so a replay writes nothing twice.
    """
    rows = []
    for tenant_id, user_id, episode_id, judged, ops in decided:
        for i, j in enumerate(judged):
            c = j.candidate
            op, mid = ops.get(i, (None, None))
            rows.append(
                {
                    "decision_id": memory_id_for(
                        tenant_id, user_id, episode_id, "gate", str(i), c.extractor, c.key or "", c.text
                    ),
                    "tenant_id": tenant_id,
                    "user_id": user_id,
                    "episode_id": episode_id,
                    "extractor": c.extractor,
                    "kind": j.verdict.kind,
                    "key": c.key,
                    "candidate_text": c.text or c.value,
                    "source": c.source,
                    "outcome": j.verdict.outcome,
                    "reason": j.verdict.reason,
                    "op": op.value if op else None,
                    "memory_id": mid,
                    "decided_at": now,
                }
            )
    ids = [r["decision_id"] for r in rows]
    have: set[str] = set()
    for i in range(0, len(ids), 500):
        have |= set(
            session.scalars(
                select(col(GateDecision.decision_id)).where(col(GateDecision.decision_id).in_(ids[i : i + 500]))
            )
        )
    if fresh := [r for r in rows if r["decision_id"] not in have]:  # one multi-row insert
        insert_rows(session, GateDecision, fresh)


def record_job(
    session: Session,
    *,
    actor: str,
    message_id: str,
    outcome: str,
    started_at: datetime,
    duration_ms: float,
    tenant_id: str | None = None,
    scope: str = "",
    counts: Mapping[str, Any] | None = None,
    error: str | None = None,
) -> None:
    session.add(
        JobRun(
            actor=actor,
            message_id=message_id,
            tenant_id=tenant_id,
            scope=scope[:400],
            counts_json=json.dumps(dict(counts or {}), default=str),
            outcome=outcome,
            error=error,
            duration_ms=duration_ms,
            started_at=started_at,
        )
    )


def record_rejected(
    session: Session,
    *,
    kind: str,
    payload: Any,
    reason: str,
    now: datetime,
    field: str | None = None,
    tenant_id: str | None = None,
    reference: str = "",
) -> None:
    body = payload if isinstance(payload, str) else json.dumps(payload, default=str, ensure_ascii=False)
    session.add(
        RejectedInput(
            kind=kind,
            tenant_id=tenant_id,
            reference=reference[:400],
            payload=body,
            reason=reason,
            field=field,
            received_at=now,
        )
    )
