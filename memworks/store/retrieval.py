"""The read path: scope and time filters in the candidate queries, then rank or abstain."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine

from memworks.errors import InvalidInput
from memworks.models.schemas import HitOut, RetrieveResult, Scope
from memworks.pipelines.protocols import Embedder
from memworks.pipelines.ranking import RankPolicy, rank
from memworks.store import memories, versions
from memworks.store.db import session_scope
from memworks.store.filters import visible
from memworks.store.projections import lexical, vector
from memworks.store.projections.cache import ReadCache, cache_key

#: Most hits one read may ask for.
MAX_K = 100


def _check(scope: object, query: str, k: int, as_of: datetime | None, known_at: datetime | None) -> None:
    if not isinstance(scope, Scope):
        raise InvalidInput("scope is required: retrieve(Scope(tenant_id=..., user_id=...), query)", field="scope")
    if not query or not query.strip():
        raise InvalidInput("query must be a non-empty string", field="query")
    if not 1 <= k <= MAX_K:
        raise InvalidInput(f"k must be between 1 and {MAX_K}, got {k}", field="k")
    for name, t in (("as_of", as_of), ("known_at", known_at)):
        if t is not None and t.tzinfo is None:
            raise InvalidInput(f"{name} must carry a UTC offset (e.g. 2024-05-01T00:00:00+00:00)", field=name)


def retrieve(
    engine: Engine,
    *,
    scope: Scope,
    query: str,
    as_of: datetime | None,
    known_at: datetime | None,
    k: int,
    embedder: Embedder,
    cache: ReadCache,
    cache_ttl_s: float,
    policy: RankPolicy,
    now: datetime,
) -> RetrieveResult:
    """Hits with provenance for ``query`` in ``scope``, or an explicit abstention."""
    _check(scope, query, k, as_of, known_at)
    with session_scope(engine, write=False) as s:
        ver = versions.read(s, tenant_id=scope.tenant_id, user_id=scope.user_id)
    key = cache_key(
        tenant_id=scope.tenant_id,
        user_id=scope.user_id,
        query=query,
        as_of=as_of.isoformat() if as_of else None,
        known_at=known_at.isoformat() if known_at else None,
        k=k,
        versions=ver,
    )
    # Present reads also depend on the clock (expiry): cached ones live for the TTL only.
    if (cached := cache.get(key)) is not None:
        result = RetrieveResult.model_validate_json(cached)
    else:
        result = _search(engine, scope, query, as_of, known_at, k, embedder, policy, now, ver)
        cache.put(key, result.model_dump_json(), ttl_s=cache_ttl_s, tenant_id=scope.tenant_id)
    if result.hits:
        with session_scope(engine, write=True) as s:
            memories.touch_retrieved(s, ids=[h.memory_id for h in result.hits], now=now)
    return result


def _search(
    engine: Engine,
    scope: Scope,
    query: str,
    as_of: datetime | None,
    known_at: datetime | None,
    k: int,
    embedder: Embedder,
    policy: RankPolicy,
    now: datetime,
    version: tuple[int, int],
) -> RetrieveResult:
    qvec = embedder.embed([query])[0]
    where = visible(scope, now=now, as_of=as_of, known_at=known_at)
    with session_scope(engine, write=False) as s:
        present = as_of is None and known_at is None
        lex = lexical.search(s, scope=scope, query=query, where=where, version=version, present=present)
        sims = vector.search(s, scope=scope, query=qvec, where=where, also=lex, version=version, present=present)
        candidates = {c.memory_id: c for c in memories.rank_fields(s, ids=list(dict.fromkeys([*lex, *sims])))}
        ranked = rank(candidates, lex, sims, k=k, policy=policy)
        # Whole rows and evidence for the hits only, not for every candidate.
        top = [r.memory.memory_id for r in ranked]
        rows = {m.memory_id: m for m in memories.get_rows(s, ids=top)}
        evidence = memories.evidence_of(s, tenant_id=scope.tenant_id, ids=top)
    hits = []
    for r in ranked:
        m = rows[r.memory.memory_id]
        hits.append(
            HitOut(
                memory_id=m.memory_id,
                kind=m.kind,
                key=m.key,
                value=m.value,
                text=m.text,
                source=m.source,
                status=m.status,
                valid_from=m.valid_from,
                valid_to=m.valid_to,
                recorded_at=m.recorded_at,
                evidence=evidence.get(m.memory_id, []),
                score=round(r.score, 6),
                similarity=round(r.similarity, 4),
                event_at=m.event_at,
                superseded_by=m.superseded_by,
            )
        )
    return RetrieveResult(abstained=not hits, hits=hits)
