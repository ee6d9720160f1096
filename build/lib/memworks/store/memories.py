"""Memory rows and their lineage: load slots, apply write plans, list with evidence."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, Row, bindparam, or_, select, update
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, SQLModel, col

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus, Relation
from memworks.models.schemas import MemoryOut, Scope
from memworks.models.tables import Lineage, Memory
from memworks.pipelines.consolidation import EvictionPolicy, expires_at_for
from memworks.pipelines.ingest.supersession import WritePlan
from memworks.store.episodes import fingerprint
from memworks.store.sql.db import insert_rows

_EVIDENCE = (Relation.EXTRACTED_FROM, Relation.REINFORCED_BY, Relation.CONSOLIDATED_FROM)
# Lineage lookups by child id check the tenant and order the edges in Python, not in SQL, so
# the child index is SQLite's only good plan. Given a tenant term, its planner took the
# tenant-leading parent index and read every edge of the tenant per call when one tenant held
# most rows (30× slower consolidation at 100k memories in one tenant); given ORDER BY id, it
# could scan the whole table in id order to skip a sort (0.6 s per deletion plan in a 1M store).


def scope_clause(scope: Scope) -> list[ColumnElement[bool]]:
    """Rows a scope may see: the user's own and the tenant-wide ones."""
    user = (
        col(Memory.user_id).is_(None)
        if scope.user_id is None
        else or_(col(Memory.user_id) == scope.user_id, col(Memory.user_id).is_(None))
    )
    return [col(Memory.tenant_id) == scope.tenant_id, user]


def lineage_edges(
    session: Session, *, tenant_id: str, ids: Iterable[str], relations: Sequence[Relation]
) -> list[tuple[Relation, str, str, str]]:
    """(relation, parent type, child, parent) of the edges from ``ids``, oldest first."""
    rows = [
        r
        for chunk in chunks(list(ids))
        for r in session.execute(
            select(
                col(Lineage.id),
                col(Lineage.tenant_id),
                col(Lineage.relation),
                col(Lineage.parent_type),
                col(Lineage.child_id),
                col(Lineage.parent_id),
            ).where(col(Lineage.child_id).in_(chunk), col(Lineage.relation).in_(relations))
        )
    ]
    return [(rel, ptype, child, parent) for _, tenant, rel, ptype, child, parent in sorted(rows) if tenant == tenant_id]


def _lineage(edges: Iterable[tuple[Relation, str, str, str]]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(evidence episodes, derived-from records) by child id."""
    evidence: dict[str, list[str]] = defaultdict(list)
    derived: dict[str, list[str]] = defaultdict(list)
    for rel, ptype, child, parent in edges:
        if rel == Relation.DERIVED_FROM:
            derived[child].append(parent)
        elif ptype == "episode" and parent not in evidence[child]:
            evidence[child].append(parent)
    return evidence, derived


def evidence_of(session: Session, *, tenant_id: str, ids: Iterable[str]) -> dict[str, list[str]]:
    """Episode ids each memory rests on, oldest edge first."""
    return _lineage(lineage_edges(session, tenant_id=tenant_id, ids=ids, relations=_EVIDENCE))[0]


#: What a view copies from its row (the rest, evidence and derivations, comes from the lineage).
_ROW_FIELDS = tuple(f for f in MemoryView.model_fields if f not in ("evidence", "derived_from"))


def to_view(row: Memory, evidence: Sequence[str], derived: Sequence[str] = ()) -> MemoryView:
    """The row as pipelines see it, with the episodes it rests on and the records it came from."""
    fields = {f: getattr(row, f) for f in _ROW_FIELDS}
    return MemoryView(**fields, evidence=tuple(evidence), derived_from=tuple(derived))


def views(session: Session, *, tenant_id: str, rows: Sequence[Memory]) -> list[MemoryView]:
    """``rows`` with their evidence and derivations (one lineage query per 500 rows)."""
    edges = lineage_edges(
        session, tenant_id=tenant_id, ids=[r.memory_id for r in rows], relations=(*_EVIDENCE, Relation.DERIVED_FROM)
    )
    ev, der = _lineage(edges)
    return [to_view(r, ev.get(r.memory_id, ()), der.get(r.memory_id, ())) for r in rows]


def load_slots(
    session: Session,
    *,
    tenant_id: str,
    user_id: str,
    keys: Iterable[str],
    texts: Iterable[str] = (),
    prefixes: Iterable[str] = (),
) -> list[MemoryView]:
    """Every non-deleted record of the user's slots ``keys`` and of the slots under one of
    ``prefixes`` (``user.instrument`` → ``user.instrument.learning``: a retraction of a slot
    family), plus records derived from them, plus keyless records with one of ``texts`` (a
    restated event is found in any batch)."""
    keys = sorted(set(keys))
    prints = sorted({fingerprint(t) for t in texts})
    if not keys and not prints:
        return []
    live = [
        col(Memory.tenant_id) == tenant_id,
        col(Memory.user_id) == user_id,
        col(Memory.status) != MemoryStatus.DELETED,
    ]
    rows = list(session.scalars(select(Memory).where(*live, col(Memory.key).in_(keys)))) if keys else []
    for p in sorted(set(prefixes)):
        rows += [
            r
            for r in session.scalars(select(Memory).where(*live, col(Memory.key).startswith(p + ".", autoescape=True)))
            if r.key not in keys
        ]
    for chunk in chunks(prints):
        rows += session.scalars(
            select(Memory).where(*live, col(Memory.key).is_(None), col(Memory.fingerprint).in_(chunk))
        )
    ids = [r.memory_id for r in rows]
    child_ids = {
        c
        for chunk in chunks(ids)
        for c in session.scalars(
            select(col(Lineage.child_id)).where(
                col(Lineage.tenant_id) == tenant_id,
                col(Lineage.parent_type) == "memory",
                col(Lineage.parent_id).in_(chunk),
                col(Lineage.relation) == Relation.DERIVED_FROM,
            )
        )
    } - set(ids)
    if child_ids:
        rows += session.scalars(
            select(Memory).where(col(Memory.memory_id).in_(child_ids), col(Memory.status) != MemoryStatus.DELETED)
        ).all()
    return views(session, tenant_id=tenant_id, rows=rows)


def keyed_records(session: Session, *, tenant_id: str, user_id: str) -> list[MemoryView]:
    """The user's keyed records, history included (deleted ones never): what a forget request's
    topic is matched against. No lineage is loaded (matching reads keys and values only)."""
    rows = session.scalars(
        select(Memory).where(
            col(Memory.tenant_id) == tenant_id,
            col(Memory.user_id) == user_id,
            col(Memory.key).is_not(None),
            col(Memory.status) != MemoryStatus.DELETED,
        )
    )
    return [to_view(r, ()) for r in rows]


def apply_plan(
    session: Session,
    *,
    plan: WritePlan,
    tenant_id: str,
    user_id: str,
    now: datetime,
    eviction: EvictionPolicy | None = None,
) -> list[Memory]:
    """Write ``plan`` in the caller's transaction. Returns the new rows (for projections).

    ``eviction`` sets each new record's ``expires_at`` from its kind's TTL.
    """
    edges: list[Lineage] = []

    def edge(child: str, ptype: str, parent: str, rel: Relation) -> None:
        edges.append(
            Lineage(
                tenant_id=tenant_id, child_id=child, parent_type=ptype, parent_id=parent, relation=rel, created_at=now
            )
        )

    existing = set(
        session.scalars(select(col(Memory.memory_id)).where(col(Memory.memory_id).in_([n.memory_id for n in plan.new])))
    )
    new_rows: list[Memory] = []
    for n in plan.new:
        if n.memory_id in existing:  # a replay of work already written
            continue
        new_rows.append(
            Memory(
                memory_id=n.memory_id,
                tenant_id=tenant_id,
                user_id=user_id,
                kind=n.kind,
                key=n.key,
                value=n.value,
                text=n.text,
                fingerprint=fingerprint(n.text),
                source=n.source,
                confidence=n.confidence,
                trusted=n.trusted,
                status=n.status,
                extractor=n.extractor,
                valid_from=n.valid_from,
                valid_to=n.valid_to,
                recorded_at=now,
                superseded_at=n.superseded_at,
                superseded_by=n.superseded_by,
                event_at=n.event_at,
                expires_at=expires_at_for(n.kind, now, eviction) if eviction else None,
            )
        )
        first, *rest = n.evidence or ("",)
        if first:
            edge(n.memory_id, "episode", first, Relation.EXTRACTED_FROM)
        for e in rest:
            edge(n.memory_id, "episode", e, Relation.REINFORCED_BY)
        for parent in n.derived_from:
            edge(n.memory_id, "memory", parent, Relation.DERIVED_FROM)
        if n.supersedes:
            edge(n.memory_id, "memory", n.supersedes, Relation.SUPERSEDES)
        if n.revises:
            edge(n.memory_id, "memory", n.revises, Relation.REVISES)
    session.add_all(new_rows)
    session.flush()  # closes below point at the new rows
    _close_and_reinforce(session, plan, now)
    for r in plan.reinforces:
        for e in r.evidence:
            edge(r.memory_id, "episode", e, Relation.REINFORCED_BY)
    if plan.revised:
        session.execute(
            update(Memory)
            .where(col(Memory.memory_id).in_(plan.revised), col(Memory.retracted_at).is_(None))
            .values(retracted_at=now)
        )
    if plan.deleted:
        session.execute(
            update(Memory)
            .where(col(Memory.memory_id).in_(plan.deleted), col(Memory.status) != MemoryStatus.DELETED)
            .values(status=MemoryStatus.DELETED, retracted_at=now)
        )
    _add_edges(session, edges)
    return new_rows


def _close_and_reinforce(session: Session, plan: WritePlan, now: datetime) -> None:
    """The plan's closes and reinforcements, one executemany each.

    Plain table statements: an ORM UPDATE matches its criteria against every object the session
    holds, which a message's write (all its users' new rows) made the costliest part of ingest.
    The rows' objects in the session are expired instead, so a later read sees the new values.
    """
    t = SQLModel.metadata.tables[Memory.__tablename__]
    if plan.closes:
        session.execute(
            update(t)
            .where(t.c.memory_id == bindparam("close_id"), t.c.valid_to.is_(None))
            .values(
                valid_to=bindparam("close_to"),
                superseded_by=bindparam("close_by"),
                superseded_at=now,
                status=MemoryStatus.SUPERSEDED,
            ),
            [{"close_id": c.memory_id, "close_to": c.valid_to, "close_by": c.superseded_by} for c in plan.closes],
        )
    if plan.reinforces:
        session.execute(
            update(t).where(t.c.memory_id == bindparam("r_id")).values(confidence=bindparam("r_confidence")),
            [{"r_id": r.memory_id, "r_confidence": r.confidence} for r in plan.reinforces],
        )
        if earlier := [r for r in plan.reinforces if r.valid_from is not None]:
            session.execute(
                update(t)
                .where(t.c.memory_id == bindparam("r_id"), t.c.valid_from > bindparam("r_from"))
                .values(valid_from=bindparam("r_from")),
                [{"r_id": r.memory_id, "r_from": r.valid_from} for r in earlier],
            )
    for mid in {c.memory_id for c in plan.closes} | {r.memory_id for r in plan.reinforces}:
        if (obj := session.identity_map.get(identity_key(Memory, mid))) is not None:
            session.expire(obj)


def _add_edges(session: Session, edges: Sequence[Lineage]) -> None:
    """Insert lineage edges that are not there yet (a replay adds nothing twice)."""
    if not edges:
        return
    children = {e.child_id for e in edges}
    have = {
        (c, t, p, r)
        for chunk in chunks(list(children))
        for c, t, p, r in session.execute(
            select(
                col(Lineage.child_id), col(Lineage.parent_type), col(Lineage.parent_id), col(Lineage.relation)
            ).where(col(Lineage.child_id).in_(chunk))
        )
    }
    fresh = []
    for e in edges:
        k = (e.child_id, e.parent_type, e.parent_id, e.relation)
        if k not in have:
            have.add(k)
            fresh.append(e.model_dump(exclude={"id"}))
    if fresh:  # one multi-row insert, not an ORM object per edge
        insert_rows(session, Lineage, fresh)


def list_memories(session: Session, *, scope: Scope, include_history: bool) -> list[MemoryOut]:
    """A scope's memories with every clock and their evidence; deleted ones never."""
    q = select(Memory).where(*scope_clause(scope), col(Memory.status) != MemoryStatus.DELETED)
    if not include_history:
        q = q.where(
            col(Memory.status).in_([MemoryStatus.ACTIVE, MemoryStatus.PENDING_CONFIRMATION]),
            col(Memory.retracted_at).is_(None),
        )
    order = (
        col(Memory.key).asc().nulls_first(),
        col(Memory.valid_from),
        col(Memory.recorded_at),
        col(Memory.memory_id),
    )
    rows = session.scalars(q.order_by(*order)).all()
    ev = evidence_of(session, tenant_id=scope.tenant_id, ids=[r.memory_id for r in rows])
    return [MemoryOut(**r.model_dump(), evidence=ev.get(r.memory_id, [])) for r in rows]


def holds_any(session: Session, *, scope: Scope) -> bool:
    """Whether ``scope`` holds any record at all, history included (deleted ones never)."""
    q = select(col(Memory.memory_id)).where(*scope_clause(scope), col(Memory.status) != MemoryStatus.DELETED)
    return session.scalar(q.limit(1)) is not None


def rank_fields(session: Session, *, ids: Sequence[str]) -> list[Row[tuple[str, MemoryKind, str, float]]]:
    """What ranking reads of each record (``memory_id``, ``kind``, ``extractor``, ``confidence``)."""
    fields = (col(Memory.memory_id), col(Memory.kind), col(Memory.extractor), col(Memory.confidence))
    return [r for chunk in chunks(list(ids)) for r in session.execute(select(*fields).where(fields[0].in_(chunk)))]


def get_rows(session: Session, *, ids: Sequence[str]) -> list[Memory]:
    return [
        r
        for chunk in chunks(list(ids))
        for r in session.scalars(select(Memory).where(col(Memory.memory_id).in_(chunk)))
    ]


def chunks(items: list[str], size: int = 500) -> Iterable[list[str]]:
    """``items`` in lists of at most ``size`` (bounded IN lists)."""
    for i in range(0, len(items), size):
        yield items[i : i + size]


def list_by_ids(session: Session, *, tenant_id: str, ids: Sequence[str]) -> list[MemoryOut]:
    rows = get_rows(session, ids=ids)
    ev = evidence_of(session, tenant_id=tenant_id, ids=[r.memory_id for r in rows])
    return [MemoryOut(**r.model_dump(), evidence=ev.get(r.memory_id, [])) for r in rows]
