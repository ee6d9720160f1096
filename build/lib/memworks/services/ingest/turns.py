"""Stored episodes as extractors read them: the turn and the speaker its metadata names."""

from __future__ import annotations

import json

from memworks.models.drafts import Turn
from memworks.models.tables import Episode

__all__ = ["MAX_SPEAKER_CHARS", "to_turn"]

#: Longest speaker name taken from an episode's metadata (it becomes part of record keys).
MAX_SPEAKER_CHARS = 60


def to_turn(e: Episode) -> Turn:
    """The episode as an extractor sees it, with the speaker a multi-party conversation names
    in its metadata (``{"speaker": "Caroline"}``: her first-person statements are about her)."""
    return Turn(
        episode_id=e.episode_id,
        role=e.role,
        source=e.source,
        content=e.content,
        occurred_at=e.occurred_at,
        speaker=_speaker(e.metadata_json),
    )


def _speaker(metadata_json: str) -> str | None:
    try:
        meta = json.loads(metadata_json or "{}")
    except ValueError:
        return None
    speaker = meta.get("speaker") if isinstance(meta, dict) else None
    if not isinstance(speaker, str):
        return None
    return speaker.strip()[:MAX_SPEAKER_CHARS] or None
