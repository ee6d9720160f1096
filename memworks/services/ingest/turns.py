"""Stored episodes as extractors read them: the turn and the speaker its metadata names."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable

from memworks.models.drafts import Turn
from memworks.models.tables import Episode
from memworks.pipelines.text.people import is_own_name

__all__ = ["MAX_SPEAKER_CHARS", "speakers", "to_turn"]

#: Longest speaker name taken from an episode's metadata (it becomes part of record keys).
MAX_SPEAKER_CHARS = 60


def to_turn(e: Episode, peers: Collection[str] = ()) -> Turn:
    """The episode as an extractor sees it, with the speaker a multi-party conversation names
    in its metadata (``{"speaker": "Caroline"}``: her first-person statements are about her). A
    speaker named as the user id's own user is the user (:func:`.is_own_name`, ``peers``: the
    other speakers known in its scope)."""
    speaker = _speaker(e.metadata_json)
    if speaker is not None and is_own_name(speaker, e.user_id, peers):
        # The user's own words; a leading "Dev: " naming them is no part of what they said.
        said = re.sub(rf"^\s*{re.escape(speaker)}\s*:\s*", "", e.content, flags=re.I) or e.content
        return Turn(episode_id=e.episode_id, role=e.role, source=e.source, content=said, occurred_at=e.occurred_at)
    return Turn(
        episode_id=e.episode_id,
        role=e.role,
        source=e.source,
        content=e.content,
        occurred_at=e.occurred_at,
        speaker=speaker,
    )


def speakers(rows: Iterable[Episode]) -> dict[tuple[str, str], set[str]]:
    """The named speakers of ``rows``, by scope (tenant, user)."""
    out: dict[tuple[str, str], set[str]] = {}
    for e in rows:
        if (who := _speaker(e.metadata_json)) is not None:
            out.setdefault((e.tenant_id, e.user_id or ""), set()).add(who)
    return out


def _speaker(metadata_json: str) -> str | None:
    try:
        meta = json.loads(metadata_json or "{}")
    except ValueError:
        return None
    speaker = meta.get("speaker") if isinstance(meta, dict) else None
    if not isinstance(speaker, str):
        return None
    return speaker.strip()[:MAX_SPEAKER_CHARS] or None
