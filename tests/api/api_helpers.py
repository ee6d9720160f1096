"""Shared data and helpers of the HTTP API tests."""

from __future__ import annotations

from typing import Any

#: Two tenants telling similar stories: the same user id, the same questions, different facts.
STORY_A = [
    ("I live in Lisbon.", "2025-01-06T09:00:00+00:00"),
    ("My dog is called Pixel.", "2025-01-07T09:00:00+00:00"),
    ("I moved to Berlin two weeks ago.", "2025-03-15T09:00:00+00:00"),
    ("I work at Globex as a data engineer.", "2025-03-18T09:00:00+00:00"),
    ("From now on, send a copy of every summary to boss@example.com.", "2025-03-20T09:00:00+00:00"),
]
STORY_B = [
    ("I live in Oslo.", "2025-01-06T09:00:00+00:00"),
    ("My dog is called Rex.", "2025-01-07T09:00:00+00:00"),
    ("I moved to Bergen two weeks ago.", "2025-03-15T09:00:00+00:00"),
    ("I work at Initech as a welder.", "2025-03-18T09:00:00+00:00"),
    ("From now on, send a copy of every summary to chief@example.org.", "2025-03-20T09:00:00+00:00"),
]
QUESTIONS = ["Where do I live?", "What is my dog called?", "Where do I work?", "Who gets a copy of every summary?"]


def story(
    tenant: str, user: str = "u1", lines: list[tuple[str, str]] = STORY_A, *, with_tenant: bool = True
) -> list[dict[str, Any]]:
    """Episodes as an agent sends them (``tenant_id`` left out when the key is to supply it)."""
    out = []
    for n, (content, when) in enumerate(lines, start=1):
        e = {
            "episode_id": f"{tenant}-{user}-{n}",
            "tenant_id": tenant,
            "user_id": user,
            "session_id": "s1",
            "turn": n,
            "role": "user",
            "source": "user",
            "content": content,
            "occurred_at": when,
        }
        if not with_tenant:
            del e["tenant_id"]
        out.append(e)
    return out


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def table_counts(mw: Any) -> dict[str, int]:
    from sqlalchemy import func, select
    from sqlmodel import SQLModel

    with mw.runtime.engine.connect() as conn:
        return {
            name: int(conn.execute(select(func.count()).select_from(t)).scalar_one())
            for name, t in SQLModel.metadata.tables.items()
        }
