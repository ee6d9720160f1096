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

import numpy as np
import numpy.typing as npt

from memworks.errors import InvalidInput
from memworks.models.schemas import ProfileOut, RetrieveResult, Scope
from memworks.models.validation import MAX_QUERY_CHARS, check_query, check_time
from memworks.pipelines.retrieval.ranking import RankPolicy
from memworks.services.deps import Deps, utcnow
from memworks.services.profiles import for_question
from memworks.store import versions
from memworks.store.projections.cache import cache_key
from memworks.store.retrieval.search import search
from memworks.store.sql.db import session_scope

__all__ = ["MAX_K", "MAX_QUERY_CHARS", "retrieve"]

#: Most hits one read may ask for.
MAX_K = 100


def retrieve(
    deps: Deps,
    scope: Scope,
    query: str,
    *,
    as_of: datetime | str | None = None,
    known_at: datetime | str | None = None,
    k: int = 5,
    asked_at: datetime | str | None = None,
    include_profile: bool = False,
    now: datetime | None = None,
    policy: RankPolicy | None = None,
    cache_ttl_s: float | None = None,
) -> RetrieveResult:
    """Hits with provenance for ``query`` in ``scope``, or an explicit abstention.

    ``as_of``, ``known_at`` and ``asked_at`` are aware datetimes or ISO 8601 strings with an
    offset; ``asked_at`` (default ``now``) is when the question is asked, and a period it names
    ("last year", "in May") resolves against it. With ``include_profile`` (a scope with a user),
    the result also carries the user's present profile for the question
    (:func:`~memworks.services.profiles.for_question`), chosen with the same question embedding.
    ``policy`` and ``cache_ttl_s`` default to the settings' (an evaluation compares other stages
    on the same store with them).

    Raises:
        InvalidInput: naming the field that is wrong; nothing is read.
    """
    valid_at, believed_at = check_time(as_of, "as_of"), check_time(known_at, "known_at")
    asked_time = check_time(asked_at, "asked_at")
    _check(scope, query, k, include_profile)
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
        query=json.dumps([query, asked.date().isoformat(), stages, include_profile]),
        as_of=valid_at.isoformat() if valid_at else None,
        known_at=believed_at.isoformat() if believed_at else None,
        k=k,
        versions=ver,
    )
    # Present reads also depend on the clock (expiry): cached ones live for the TTL only.
    if (cached := deps.cache.get(key)) is not None:
        return RetrieveResult.model_validate_json(cached)

    def profile_for(qvec: npt.NDArray[np.float32]) -> ProfileOut:
        return for_question(deps, scope, query, now=now, qvec=qvec, version=ver)

    with session_scope(deps.engine, write=False) as s:
        # The question is embedded there, in one batch with the other texts the read embeds.
        result = search(
            s,
            scope,
            query,
            None,
            as_of=valid_at,
            known_at=believed_at,
            k=k,
            embedder=deps.embedder,
            policy=policy,
            now=now,
            version=ver,
            asked_at=asked,
            profile_for=profile_for if include_profile else None,
        )
    ttl = deps.settings.cache_ttl_s if cache_ttl_s is None else cache_ttl_s
    deps.cache.put(key, result.model_dump_json(), ttl_s=ttl, tenant_id=scope.tenant_id)
    return result


def _check(scope: object, query: str, k: int, include_profile: bool) -> None:
    if not isinstance(scope, Scope):
        raise InvalidInput("scope is required: retrieve(Scope(tenant_id=..., user_id=...), query)", field="scope")
    check_query(query)
    if not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise InvalidInput(f"k must be between 1 and {MAX_K}, got {k}", field="k")
    if not isinstance(include_profile, bool):
        raise InvalidInput(f"include_profile must be true or false, got {include_profile!r}", field="include_profile")
    if include_profile and scope.user_id is None:
        msg = "include_profile needs a scope with a user: a profile is one user's"
        raise InvalidInput(msg, field="include_profile")
