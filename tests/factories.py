"""Small builders for test data."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def episode(
    n: int,
    content: str,
    *,
    when: str = "2025-01-06T09:00:00+00:00",
    tenant: str = "t1",
    user: str = "u1",
    source: str = "user",
    role: str = "user",
    session: str = "s1",
) -> dict[str, Any]:
    """An episode dict as an agent would send it."""
    return {
        "episode_id": f"{tenant}-{user}-{n}",
        "tenant_id": tenant,
        "user_id": user,
        "session_id": session,
        "turn": n,
        "role": role,
        "source": source,
        "content": content,
        "occurred_at": when,
    }


def at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC) if "T" not in day else datetime.fromisoformat(day)


def day_episode(n: int, day: str, content: str) -> dict[str, Any]:
    """User u1's turn ``n`` (episode ``u1-n``, a session of its own) said at 09:00 UTC on ``day``."""
    return {
        "episode_id": f"u1-{n}",
        "tenant_id": "t1",
        "user_id": "u1",
        "session_id": f"s{n}",
        "turn": n,
        "role": "user",
        "source": "user",
        "content": content,
        "occurred_at": f"{day}T09:00:00+00:00",
    }


def said_in_turn(mw: Any, turns: list[dict[str, Any]]) -> None:
    """Send ``turns`` to ``mw`` one at a time, each processed before the next is sent (as an agent
    reporting a conversation live would see them)."""
    for turn in turns:
        mw.enqueue_episodes([turn])
        mw.drain()
