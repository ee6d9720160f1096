"""Retrieval: check the read, answer it from the read cache or the store, and say what it found.

The one home of the read use case. The facade, the API, the MCP server and the evaluations call
:func:`retrieve`; it validates once (naming the field that is wrong), reads the scope's version,
answers from the read cache when the same question was asked of the same version, and otherwise
opens a read-only session and lets :func:`memworks.store.retrieval.search.search` filter by scope and
time, measure and rank. A read writes nothing: the caller records the hits' attention off the
read path (:mod:`memworks.services.attention`).
"""

from __future__ import annotations

import json
from datetime import datetime

from memworks.errors import InvalidInput
from memworks.models.schemas import RetrieveResult, Scope
from memworks.models.validation import check_time
from memworks.pipelines.retrieval.ranking import RankPolicy
from memworks.services.deps import Deps, utcnow
from memworks.store import versions
from memworks.store.projections.cache import cache_key
from memworks.store.retrieval.search import search
from memworks.store.sql.db import session_scope

__all__ = ["MAX_K", "MAX_QUERY_CHARS", "retrieve"]

#: Most hits one read may ask for.
MAX_K = 100
#: Longest question one read may ask (characters): a question, not a document; reading it
#: (its periods, names and words) then costs a bounded amount on every door.
MAX_QUERY_CHARS = 1000


def retrieve(
    deps: Deps,
    scope: Scope,
    query: str,
    *,
    as_of: datetime | str | None = None,
    known_at: datetime | str | None = None,
    k: int = 5,
    asked_at: datetime | str | None = None,
    now: datetime | None = None,
    policy: RankPolicy | None = None,
    cache_ttl_s: float | None = None,
) -> RetrieveResult:
    """Hits with provenance for ``query`` in ``scope``, or an explicit abstention.

    ``as_of``, ``known_at`` and ``asked_at`` are aware datetimes or ISO 8601 strings with an
    offset; ``asked_at`` (default ``now``) is when the question is asked, and a period it names
    ("last year", "in May") resolves against it. ``policy`` and ``cache_ttl_s`` default to the
    settings' (an evaluation compares other stages on the same store with them).

    Raises:
        InvalidInput: naming the field that is wrong; nothing is read.
    """
    valid_at, believed_at = check_time(as_of, "as_of"), check_time(known_at, "known_at")
    asked_time = check_time(asked_at, "asked_at")
    _check(scope, query, k)
    now = now or utcnow()
    asked = asked_time or now
    policy = policy or deps.policy
    with session_scope(deps.engine, write=False) as s:
        ver = versions.read(s, tenant_id=scope.tenant_id, user_id=scope.user_id)
    # The answer also depends on the day it is asked (periods resolve against it) and the stages.
    stages = [policy.ranker, policy.spans, policy.neighbors, policy.time, policy.subjects, policy.latest]
    key = cache_key(
        tenant_id=scope.tenant_id,
        user_id=scope.user_id,
        query=json.dumps([query, asked.date().isoformat(), stages]),
        as_of=valid_at.isoformat() if valid_at else None,
        known_at=believed_at.isoformat() if believed_at else None,
        k=k,
        versions=ver,
    )
    # Present reads also depend on the clock (expiry): cached ones live for the TTL only.
    if (cached := deps.cache.get(key)) is not None:
        return RetrieveResult.model_validate_json(cached)
    qvec = deps.embedder.embed([query])[0]
    with session_scope(deps.engine, write=False) as s:
        result = search(
            s,
            scope,
            query,
            qvec,
            as_of=valid_at,
            known_at=believed_at,
            k=k,
            embedder=deps.embedder,
            policy=policy,
            now=now,
            version=ver,
            asked_at=asked,
        )
    ttl = deps.settings.cache_ttl_s if cache_ttl_s is None else cache_ttl_s
    deps.cache.put(key, result.model_dump_json(), ttl_s=ttl, tenant_id=scope.tenant_id)
    return result


def _check(scope: object, query: str, k: int) -> None:
    if not isinstance(scope, Scope):
        raise InvalidInput("scope is required: retrieve(Scope(tenant_id=..., user_id=...), query)", field="scope")
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query must be a non-empty string", field="query")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"query must be at most {MAX_QUERY_CHARS} characters, got {len(query)}: ask a shorter question",
            field="query",
        )
    if not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise InvalidInput(f"k must be between 1 and {MAX_K}, got {k}", field="k")
