"""How much of a replayed conversation becomes governed memory: the share of turns that yield
keyed records (facts, preferences, events with a slot), not only a transcript."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memworks.models.schemas import Scope


def keyed_turns(mw: Any, tenant_id: str, user_id: str, episode_ids: Sequence[str]) -> tuple[int, int]:
    """(turns that yield a keyed record, turns) among ``episode_ids`` replayed into the scope.

    A turn counts when it is evidence of a keyed record (history included), not only of its
    transcript, a session summary or a pending forget request.
    """
    rows = mw.memories(Scope(tenant_id=tenant_id, user_id=user_id), include_history=True)
    facts = {
        e
        for m in rows
        if m.key and not m.key.startswith("summary.") and not m.key.endswith(".forget_request")
        for e in m.evidence
    }
    return sum(1 for e in episode_ids if e in facts), len(episode_ids)


def keyed_share(per_conversation: Sequence[tuple[int, int]]) -> dict[str, float | int]:
    """The share of turns that yield keyed records, over every conversation replayed."""
    keyed, turns = sum(k for k, _ in per_conversation), sum(n for _, n in per_conversation)
    return {"turns": turns, "turns_with_keyed_records": keyed, "share": round(keyed / turns, 4) if turns else 0.0}


def keyed_line(k: Mapping[str, float | int]) -> str:
    """The report line."""
    return f"keyed records: {k['turns_with_keyed_records']} of {k['turns']} turns yield one (share {k['share']:.3f})"
