"""Audit text as a projection of a subject: gate decisions and rejected input.

The audit keeps that a decision was made and by which rule, not the words it was about. Erasure
blanks a decision's candidate text and key, and reduces its reason to the rule it names (the
gate's reasons may quote the text they judged); a rejected payload referring to an erased
episode loses its payload, and its reason is reduced the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlmodel import Session, col

from memworks.models.tables import GateDecision, RejectedInput
from memworks.pipelines.deletion import scrub_reason
from memworks.store.episodes import fingerprint
from memworks.store.projections.base import Evidence

#: Rows per IN (...) list.
CHUNK = 500


def _chunks(items: Sequence[str]) -> Iterable[Sequence[str]]:
    return (items[i : i + CHUNK] for i in range(0, len(items), CHUNK))


def _planned(tenant_id: str, user_id: str, episode_ids: Sequence[str], memory_ids: Sequence[str]) -> list[Any]:
    """Decisions on the planned episodes (ids are per user) and on the planned records."""
    out = [
        and_(
            col(GateDecision.tenant_id) == tenant_id,
            col(GateDecision.user_id) == user_id,
            col(GateDecision.episode_id).in_(c),
        )
        for c in _chunks(episode_ids)
    ]
    out += [
        and_(col(GateDecision.tenant_id) == tenant_id, col(GateDecision.memory_id).in_(c)) for c in _chunks(memory_ids)
    ]
    return out


def _copies(
    session: Session, tenant_id: str, user_id: str, planned: set[str], prints: set[str]
) -> list[tuple[str, str]]:
    """(id, reason) of the subject's other decisions whose candidate text is a planned text."""
    if not prints:
        return []
    rows = session.execute(
        select(col(GateDecision.decision_id), col(GateDecision.candidate_text), col(GateDecision.reason)).where(
            col(GateDecision.tenant_id) == tenant_id,
            col(GateDecision.user_id) == user_id,
            col(GateDecision.candidate_text) != "",
        )
    )
    return [(d, reason) for d, text, reason in rows if d not in planned and fingerprint(text) in prints]


def _gate_residue(
    session: Session,
    tenant_id: str,
    user_id: str,
    episode_ids: Sequence[str],
    memory_ids: Sequence[str],
    prints: Sequence[str],
) -> dict[str, str]:
    """Decision id → reason of every decision still holding the subject's text or a quoting reason."""
    planned: set[str] = set()
    dirty: dict[str, str] = {}
    for where in _planned(tenant_id, user_id, episode_ids, memory_ids):
        for did, text, reason in session.execute(
            select(col(GateDecision.decision_id), col(GateDecision.candidate_text), col(GateDecision.reason)).where(
                where
            )
        ):
            planned.add(did)
            if text or reason != scrub_reason(reason):
                dirty[did] = reason
    for did, reason in _copies(session, tenant_id, user_id, planned, set(prints)):
        dirty[did] = reason
    return dirty


def purge_gate(
    session: Session,
    *,
    tenant_id: str,
    user_id: str,
    episode_ids: Sequence[str],
    memory_ids: Sequence[str],
    fingerprints: Sequence[str],
) -> int:
    doomed = _gate_residue(session, tenant_id, user_id, episode_ids, memory_ids, fingerprints)
    for did, reason in doomed.items():
        session.execute(
            update(GateDecision)
            .where(col(GateDecision.decision_id) == did)
            .values(candidate_text="", key=None, reason=scrub_reason(reason))
        )
    return len(doomed)


def gate_absent(
    session: Session,
    *,
    tenant_id: str,
    user_id: str,
    episode_ids: Sequence[str],
    memory_ids: Sequence[str],
    fingerprints: Sequence[str],
) -> Evidence:
    left = _gate_residue(session, tenant_id, user_id, episode_ids, memory_ids, fingerprints)
    return Evidence(
        "audit_log",
        len(left),
        [
            "gate_decision of the planned episodes and records holding candidate text or a reason that quotes",
            f"gate_decision of the subject outside the plan by candidate-text fingerprint ({len(fingerprints)})",
        ],
        datetime.now(UTC),
    )


# -- rejected input -------------------------------------------------------------------------


def _rejected(session: Session, tenant_id: str, episode_ids: Sequence[str]) -> list[tuple[int, str, str]]:
    # A rejection names its episode by id alone (no user): one of another user's under the same
    # id loses its payload too, which holds nothing but that id.
    return [
        (int(i), str(payload), str(reason))
        for c in _chunks(episode_ids)
        for i, payload, reason in session.execute(
            select(col(RejectedInput.id), col(RejectedInput.payload), col(RejectedInput.reason)).where(
                col(RejectedInput.tenant_id) == tenant_id,
                col(RejectedInput.reference).in_(c),
                or_(
                    col(RejectedInput.payload) != "",
                    col(RejectedInput.reason).contains("'"),
                    col(RejectedInput.reason).contains('"'),
                ),
            )
        )
    ]


def purge_rejected(session: Session, *, tenant_id: str, episode_ids: Sequence[str]) -> int:
    rows = [r for r in _rejected(session, tenant_id, episode_ids) if r[1] or r[2] != scrub_reason(r[2])]
    for rid, _, reason in rows:
        session.execute(
            update(RejectedInput).where(col(RejectedInput.id) == rid).values(payload="", reason=scrub_reason(reason))
        )
    return len(rows)


def rejected_absent(session: Session, *, tenant_id: str, episode_ids: Sequence[str]) -> Evidence:
    left = [r for r in _rejected(session, tenant_id, episode_ids) if r[1] or r[2] != scrub_reason(r[2])]
    return Evidence(
        "audit_log",
        len(left),
        ["rejected_input referring to the planned episodes holding a payload or a reason that quotes"],
        datetime.now(UTC),
    )
