"""The injected profile: rebuilt after a change to a user's records, and read, for one question
when one is asked: one place that knows its cap, its token unit and its embedder."""

from __future__ import annotations

import json
from collections.abc import Collection
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlmodel import Session

from memworks.errors import InvalidInput
from memworks.models.schemas import ProfileLineOut, ProfileOut, Scope
from memworks.models.tables import Profile
from memworks.models.validation import check_query
from memworks.pipelines.consolidation import Profile as ProfileBlock
from memworks.pipelines.consolidation import choose_lines, fit_lines
from memworks.services.deps import Deps
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
            string of at most :data:`~memworks.models.validation.MAX_QUERY_CHARS` characters.
    """
    if not isinstance(scope, Scope) or scope.user_id is None:
        raise InvalidInput("profile needs a scope with a user: Scope(tenant_id=..., user_id=...)", field="scope")
    if query is not None:
        check_query(query)
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
    out = for_question(deps, scope, query, now=now)
    return base | out.model_dump() | {"built_at": now, "query": query}


def for_question(
    deps: Deps,
    scope: Scope,
    query: str,
    *,
    now: datetime,
    qvec: npt.NDArray[np.float32] | None = None,
    version: tuple[int, int] | None = None,
) -> ProfileOut:
    """The profile for ``query``: all of the user's profile lines when they fit the cap, else the
    lines nearest the question, constraints first. ``qvec`` is the question's embedding and
    ``version`` the scope's, when the caller has them (a read embeds its question once)."""
    block = _for_question(deps, scope, query, now, qvec, version)
    tiers = profiles.TIER_NAMES
    lines = [ProfileLineOut(memory_id=ln.memory_id, text=ln.text, tier=tiers[ln.tier]) for ln in block.lines]
    return ProfileOut(text=block.text, tokens=block.tokens, lines=lines)


def _for_question(
    deps: Deps,
    scope: Scope,
    query: str,
    now: datetime,
    qvec: npt.NDArray[np.float32] | None,
    version: tuple[int, int] | None,
) -> ProfileBlock:
    cap, count, model = deps.settings.profile_max_tokens, deps.count_tokens, deps.embedder.name
    with session_scope(deps.engine, write=False) as s:
        held = profiles.held_lines(s, scope, version=version, now=now, model=model)
        if cap not in held.fits:
            whole = fit_lines(held.lines, count_tokens=count, max_tokens=cap)
            held.fits[cap] = whole if len(whole.lines) == len(held.lines) else None
        if (fits := held.fits[cap]) is not None:
            return fits  # everything fits: no line needs choosing
        # Lines the vector projection does not hold (another model, not indexed yet) are embedded.
        matrix = profiles.vectors(s, held, model=model, embed=deps.embedder.embed)
    if held.sizes is None:
        held.sizes = np.array([count(ln.text) for ln in held.lines], dtype=np.int64)
    if qvec is None:
        qvec = deps.embedder.embed([query])[0]
    similarity = matrix @ qvec.astype(np.float32)
    return choose_lines(held.lines, similarity, held.sizes, count_tokens=count, max_tokens=cap)
