"""The injected profile: rebuilt after a change to a user's records, and read, for one question
when one is asked: one place that knows its cap, its token unit and its embedder."""

from __future__ import annotations

import json
from collections.abc import Collection
from datetime import datetime
from typing import Any

import numpy as np
from sqlmodel import Session

from memworks.errors import InvalidInput
from memworks.models.schemas import Scope
from memworks.models.tables import Profile
from memworks.pipelines.consolidation import Profile as ProfileBlock
from memworks.pipelines.consolidation import fit_lines, profile_lines, select_profile
from memworks.services.deps import Deps
from memworks.services.retrieval import MAX_QUERY_CHARS
from memworks.store import profiles
from memworks.store.sql.db import session_scope


def rebuild_profile(
    deps: Deps, session: Session, tenant: str, user: str, now: datetime, exclude: Collection[str] = ()
) -> Profile | None:
    """Rebuild ``user``'s profile from their active records (minus ``exclude``) in ``session``.

    The cap (``profile_max_tokens``) is counted in the embedding model's tokens. Returns the
    stored profile, or None when no record qualifies (the old one is dropped either way).
    """
    return profiles.rebuild(
        session,
        tenant_id=tenant,
        user_id=user,
        count_tokens=deps.count_tokens,
        max_tokens=deps.settings.profile_max_tokens,
        now=now,
        exclude=exclude,
    )


def read_profile(deps: Deps, scope: Scope, *, query: str | None = None, now: datetime) -> dict[str, Any]:
    """The user's injected profile: the block, its token count, and the record each line cites.

    Without ``query``, the stored profile (rebuilt after every write). With one, the profile for
    that question, built from the user's current records: all of it when it fits the cap,
    else the lines that bear on the question (:func:`~memworks.pipelines.consolidation.select_profile`),
    constraints first. Each line names its ``tier`` (``constraint``, ``preference`` or ``fact``).

    Raises:
        InvalidInput: naming ``scope`` without a user, or ``query`` when it is not a non-empty
            string of at most :data:`~memworks.services.retrieval.MAX_QUERY_CHARS` characters.
    """
    if not isinstance(scope, Scope) or scope.user_id is None:
        raise InvalidInput("profile needs a scope with a user: Scope(tenant_id=..., user_id=...)", field="scope")
    if query is not None and (not isinstance(query, str) or not query.strip()):
        raise InvalidInput("query must be a non-empty string, or left out for the stored profile", field="query")
    if query is not None and len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"query must be at most {MAX_QUERY_CHARS} characters, got {len(query)}: ask a shorter question",
            field="query",
        )
    base = {"tenant_id": scope.tenant_id, "user_id": scope.user_id}
    if query is None:
        with session_scope(deps.engine, write=False) as s:
            row = profiles.get(s, tenant_id=scope.tenant_id, user_id=scope.user_id)
        if row is None:
            return base | {"text": "", "tokens": 0, "lines": []}
        return base | {
            "text": row.text,
            "tokens": row.tokens,
            "lines": json.loads(row.lines_json),
            "built_at": row.built_at,
        }
    block = _for_question(deps, scope.tenant_id, scope.user_id, query, now)
    lines = [{"memory_id": ln.memory_id, "text": ln.text, "tier": profiles.TIER_NAMES[ln.tier]} for ln in block.lines]
    return base | {"text": block.text, "tokens": block.tokens, "lines": lines, "built_at": now, "query": query}


def _for_question(deps: Deps, tenant: str, user: str, query: str, now: datetime) -> ProfileBlock:
    cap, count = deps.settings.profile_max_tokens, deps.count_tokens
    with session_scope(deps.engine, write=False) as s:
        lines = profile_lines(profiles.current_records(s, tenant_id=tenant, user_id=user), now=now)
        whole = fit_lines(lines, count_tokens=count, max_tokens=cap)
        if len(whole.lines) == len(lines):
            return whole  # everything fits: no line needs choosing
        vectors = profiles.line_vectors(s, memory_ids=[ln.memory_id for ln in lines], model=deps.embedder.name)
    # Lines the vector projection does not hold (another model, not indexed yet) are embedded here.
    missing = [ln for ln in lines if ln.memory_id not in vectors]
    embedded = deps.embedder.embed([query, *(ln.text for ln in missing)])
    vectors.update((ln.memory_id, v) for ln, v in zip(missing, embedded[1:], strict=True))
    similarity = [float(np.dot(vectors[ln.memory_id], embedded[0])) for ln in lines]
    return select_profile(lines, similarity, count_tokens=count, max_tokens=cap)
