"""Transcripts that state nothing current any more leave present reads (history keeps them)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime

from sqlalchemy import bindparam, func, select, update
from sqlmodel import Session, col

from memworks.models.enums import MemoryStatus, Relation
from memworks.models.tables import Lineage, Memory
from memworks.pipelines.ingest.supersession import scope_key, transcript_id
from memworks.store.memories import chunks, evidence_of, get_rows, lineage_edges
from memworks.store.records.claims import reopen_copies

__all__ = ["retire_transcripts", "supersede_transcripts"]


def _ended(row: Memory) -> bool:
    return (
        row.retracted_at is not None
        or row.valid_to is not None
        or row.status in (MemoryStatus.SUPERSEDED, MemoryStatus.EXPIRED, MemoryStatus.DELETED)
    )


def retire_transcripts(session: Session, *, tenant_id: str, user_id: str, ended: Sequence[str], now: datetime) -> int:
    """Mark superseded each active transcript whose every keyed statement is no longer current.

    ``ended`` are records just superseded or ended. A transcript ("I live in Madrid.") whose
    statements all ended leaves present reads (status superseded, ``superseded_by`` the last
    statement's successor, ``valid_to`` when that statement ended), while ``as_of`` and
    ``known_at`` reads still find it. A transcript that also stated something still current
    stays. Returns how many were marked.
    """
    if not ended:
        return 0
    eps = {e for es in evidence_of(session, tenant_id=tenant_id, ids=ended).values() for e in es}
    edges = [
        (child, parent)
        for chunk in chunks(sorted(eps))
        for child, parent in session.execute(
            select(col(Lineage.child_id), col(Lineage.parent_id)).where(
                col(Lineage.tenant_id) == tenant_id,
                col(Lineage.parent_type) == "episode",
                col(Lineage.parent_id).in_(chunk),
                col(Lineage.relation).in_([Relation.EXTRACTED_FROM, Relation.REINFORCED_BY]),
            )
        )
    ]
    rows = {r.memory_id: r for r in get_rows(session, ids=sorted({c for c, _ in edges}))}
    # A derived record (a time zone from a city) is an inference, not something the turn said;
    # a revised one (its valid time corrected by a change that arrived late) is an old belief:
    # its revision speaks for the turn now.
    links = lineage_edges(session, tenant_id=tenant_id, ids=list(rows), relations=(Relation.DERIVED_FROM,))
    revisions = lineage_edges(session, tenant_id=tenant_id, ids=list(rows), relations=(Relation.REVISES,))
    inferred = {c for _, _, c, _ in links} | {p for _, _, _, p in revisions}
    stated: dict[str, list[Memory]] = defaultdict(list)
    for child, ep in edges:
        r = rows.get(child)
        if (
            r is not None
            and r.user_id == user_id
            and r.key is not None
            and r.extractor != "transcript"
            and child not in inferred
        ):
            stated[ep].append(r)
    key = scope_key(tenant_id, user_id)
    successors: dict[str, tuple[str | None, datetime | None]] = {}
    for ep, statements in stated.items():
        if statements and all(_ended(r) for r in statements):
            last = max(statements, key=lambda r: (r.valid_to or r.valid_from, r.recorded_at))
            successors[transcript_id(key, ep)] = (last.superseded_by, last.valid_to)
    # A turn that restated one of these transcripts after it stopped holding was no copy of it:
    # it holds again (and is judged below with its own statements), as had it come after.
    reopen_copies(session, tenant_id=tenant_id, closed=[(t, end) for t, (_, end) in successors.items() if end])
    return supersede_transcripts(session, successors=successors, now=now, retime=True)


def supersede_transcripts(
    session: Session,
    *,
    successors: Mapping[str, str | None | tuple[str | None, datetime | None]],
    now: datetime,
    retime: bool = False,
) -> int:
    """Mark the given active transcripts superseded (by the record named, if any).

    A value is the successor's id, or ``(successor, valid_to)``; without a ``valid_to`` (or
    one not after the transcript's start) the transcript never held as a fact: its valid time
    closes where it began. With ``retime``, a transcript already superseded takes a new end that
    is earlier: its statements' ends moved (an earlier change arrived after a later one), and the
    earliest closing wins whatever order the turns arrived in.
    """
    params = []
    for t in get_rows(session, ids=sorted(successors)):
        if t.extractor != "transcript" or t.status not in (
            (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED) if retime else (MemoryStatus.ACTIVE,)
        ):
            continue
        value = successors[t.memory_id]
        succ, valid_to = value if isinstance(value, tuple) else (value, None)
        end = valid_to if valid_to is not None and valid_to > t.valid_from else t.valid_from
        if t.status is MemoryStatus.SUPERSEDED:
            if t.valid_to is not None and t.valid_to <= end:
                continue  # the earliest closing wins, as for claims: what closed it first holds
            succ = t.superseded_by if succ is None else succ
        params.append({"mid": t.memory_id, "succ": succ, "end": end, "was": t.status})
    if params:  # one statement for all of them (executemany), not a round trip each
        session.connection().execute(
            update(Memory)
            .where(col(Memory.memory_id) == bindparam("mid"), col(Memory.status) == bindparam("was"))
            .values(
                status=MemoryStatus.SUPERSEDED,
                superseded_by=bindparam("succ"),
                superseded_at=func.coalesce(col(Memory.superseded_at), now),  # a retimed one keeps its time
                valid_to=bindparam("end"),
            ),
            params,
        )
    return len(params)
