"""Deletion probes of ``memworks eval probes``: capture what a deletion must erase, then look for
it in every place the subject's data can live — memory rows, episodes, lexical postings, vector
entries, the read cache, the profile, gate decisions and rejected payloads, dead letters.

This grader reads SQL itself, outside ``store``, on purpose: it must not trust the product's
own checks.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlmodel import col

from memworks.models.enums import MemoryStatus
from memworks.models.tables import (
    DeletionRequest,
    Episode,
    GateDecision,
    LexicalDoc,
    LexicalPosting,
    Memory,
    Profile,
    RejectedInput,
    VectorEntry,
)
from memworks.pipelines.text.terms import terms
from memworks.store.projections.cache import cache_prefix
from memworks.store.sql.db import session_scope
from memworks_tools.evaluation.probes.cases import Deletion
from memworks_tools.evaluation.probes.grading import mentions

if TYPE_CHECKING:
    from memworks.client import Memworks

__all__ = ["Needles", "capture", "erased", "manifests_of", "residue", "retraction_requests"]


@dataclass
class Needles:
    """What a deletion must leave nowhere: values, and the ids and fingerprints that held them."""

    tenant: str
    user: str
    values: tuple[str, ...]
    whole_subject: bool = False
    memory_ids: set[str] = field(default_factory=set)
    episode_ids: set[str] = field(default_factory=set)
    fingerprints: set[str] = field(default_factory=set)


def capture(mw: Memworks, tenant: str, user: str, values: Sequence[str], *, whole_subject: bool = False) -> Needles:
    """Before a deletion: every record and episode of the subject that names a value (all, for a whole subject)."""
    n = Needles(tenant, user, tuple(values), whole_subject)
    with session_scope(mw.runtime.engine, write=False) as s:
        mems = s.execute(
            select(col(Memory.memory_id), col(Memory.value), col(Memory.text), col(Memory.fingerprint)).where(
                col(Memory.tenant_id) == tenant, col(Memory.user_id) == user
            )
        ).all()
        eps = s.execute(
            select(col(Episode.episode_id), col(Episode.content), col(Episode.content_fingerprint)).where(
                col(Episode.tenant_id) == tenant, col(Episode.user_id) == user
            )
        ).all()
    for mid, value, text, fp in mems:
        if whole_subject or mentions(f"{value}\n{text}", values):
            n.memory_ids.add(mid)
            n.fingerprints.add(fp)
    for eid, content, fp in eps:
        if whole_subject or mentions(content, values):
            n.episode_ids.add(eid)
            n.fingerprints.add(fp)
    return n


def _in(column: Any, items: Collection[str]) -> Any:
    return column.in_(sorted(items))


def residue(mw: Memworks, n: Needles) -> dict[str, int]:
    """After a deletion: what is left of the needles, per projection (all zeros means erased)."""
    t, u, vals = n.tenant, n.user, n.values
    out: dict[str, int] = {}
    with session_scope(mw.runtime.engine, write=False) as s:
        rows = s.execute(
            select(col(Memory.memory_id), col(Memory.value), col(Memory.text), col(Memory.status)).where(
                col(Memory.tenant_id) == t, col(Memory.user_id) == u
            )
        ).all()
        out["memory_rows"] = sum(
            1
            for mid, value, text, status in rows
            if mentions(f"{value}\n{text}", vals)
            or ((n.whole_subject or mid in n.memory_ids) and (value or text or status != MemoryStatus.DELETED))
        )
        eps = s.execute(
            select(
                col(Episode.episode_id), col(Episode.content), col(Episode.metadata_json), col(Episode.tombstoned_at)
            ).where(col(Episode.tenant_id) == t, col(Episode.user_id) == u)
        ).all()
        out["episodes"] = sum(
            1
            for eid, content, meta, tomb in eps
            if mentions(f"{content}\n{meta}", vals)
            or ((n.whole_subject or eid in n.episode_ids) and (content or tomb is None))
        )
        out["lexical_index"] = _lexical(s, n)
        vec = select(func.count()).select_from(VectorEntry)
        mine_v = (col(VectorEntry.tenant_id) == t, col(VectorEntry.user_id) == u)
        if n.whole_subject:
            out["vector_index"] = int(s.scalar(vec.where(*mine_v)) or 0)
        else:
            by_id = s.scalar(vec.where(_in(col(VectorEntry.memory_id), n.memory_ids))) or 0
            by_print = s.scalar(vec.where(*mine_v, _in(col(VectorEntry.fingerprint), n.fingerprints))) or 0
            out["vector_index"] = int(by_id + by_print)
        prof = s.get(Profile, (t, u))
        out["profile"] = int(
            prof is not None
            and (n.whole_subject or mentions(prof.text, vals) or any(i in prof.lines_json for i in n.memory_ids))
        )
        gates = s.execute(
            select(col(GateDecision.episode_id), col(GateDecision.memory_id), col(GateDecision.candidate_text)).where(
                col(GateDecision.tenant_id) == t, col(GateDecision.user_id) == u
            )
        ).all()
        out["audit_log"] = sum(
            1
            for eid, mid, text in gates
            if mentions(text, vals) or (text and (n.whole_subject or eid in n.episode_ids or mid in n.memory_ids))
        )
        rejected = s.execute(
            select(col(RejectedInput.reference), col(RejectedInput.payload)).where(col(RejectedInput.tenant_id) == t)
        ).all()
        out["rejected_input"] = sum(
            1 for ref, payload in rejected if mentions(payload, vals) or (payload and ref in n.episode_ids)
        )
    needles = [*vals, *n.memory_ids, *n.episode_ids]
    prefix = cache_prefix(t, u)
    out["read_cache"] = sum(
        1
        for key, value in mw.runtime.cache.entries(t)
        if any(i in value for i in n.memory_ids)
        or (key.startswith(prefix) and (mentions(value, vals) or (n.whole_subject and json.loads(value).get("hits"))))
    )
    out["dead_letters"] = sum(1 for d in mw.dead_letters() if mentions(json.dumps(d, default=str), needles))
    return out


def _lexical(s: Any, n: Needles) -> int:
    docs = select(func.count()).select_from(LexicalDoc)
    posts = select(func.count()).select_from(LexicalPosting)
    if n.whole_subject:
        return int(
            s.scalar(docs.where(col(LexicalDoc.tenant_id) == n.tenant, col(LexicalDoc.user_id) == n.user))
            + s.scalar(posts.where(col(LexicalPosting.tenant_id) == n.tenant, col(LexicalPosting.user_id) == n.user))
        )
    left = int(
        s.scalar(docs.where(_in(col(LexicalDoc.memory_id), n.memory_ids)))
        + s.scalar(posts.where(_in(col(LexicalPosting.memory_id), n.memory_ids)))
    )
    # A document of the subject that still holds every term of an erased value.
    for value in n.values:
        vt = set(terms(value))
        if vt:
            q = (
                select(col(LexicalPosting.memory_id))
                .where(
                    col(LexicalPosting.tenant_id) == n.tenant,
                    col(LexicalPosting.user_id) == n.user,
                    _in(col(LexicalPosting.term), vt),
                )
                .group_by(col(LexicalPosting.memory_id))
                .having(func.count(func.distinct(col(LexicalPosting.term))) == len(vt))
            )
            left += len(s.execute(q).all())
    return left


def manifests_of(mw: Memworks, rids: Sequence[str]) -> list[dict[str, Any]]:
    """Each request's manifest status and the targets still open."""
    # Request ids are random: left out so that the report is the same on every run.
    return [
        {"status": m.status, "open_targets": sorted(k for k, v in m.targets.items() if v.state != "CLOSED")}
        for m in (mw.manifest(rid) for rid in rids)
    ]


def erased(left: dict[str, int], manifests: Sequence[dict[str, Any]]) -> bool:
    """A deletion probe passes: its requests completed and no projection holds anything of it."""
    return bool(manifests) and all(m["status"] == "complete" for m in manifests) and not any(left.values())


def retraction_requests(mw: Memworks, d: Deletion) -> list[str]:
    """The deletion requests the user's own retractions raised for ``d``'s keys, oldest first."""
    with session_scope(mw.runtime.engine, write=False) as s:
        rows = s.execute(
            select(col(DeletionRequest.request_id), col(DeletionRequest.keys_json))
            .where(
                col(DeletionRequest.tenant_id) == d.tenant,
                col(DeletionRequest.user_id) == d.user,
                col(DeletionRequest.requested_by).startswith("retraction"),
            )
            .order_by(col(DeletionRequest.created_at))
        ).all()
    return [rid for rid, keys in rows if set(json.loads(keys)) & set(d.keys)]
