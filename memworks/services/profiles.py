"""The injected profile, rebuilt after a change to a user's records: one place that knows its cap and token unit."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlmodel import Session

from memworks.models.tables import Profile
from memworks.services.deps import Deps
from memworks.store import profiles


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
