"""The ``bitemporal`` design of ``memworks eval simulation``: memworks itself, driven through the
public facade on a fresh SQLite store, then asked by key (and, optionally, by free-text
retrieval), with the store's invariants checked on every chain.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memworks_tools.evaluation.simulation.stream import START, Fact, Mention

if TYPE_CHECKING:
    from memworks.client import Memworks
    from memworks.models.schemas import MemoryOut

__all__ = ["MAX_BATCH", "TENANT", "USER", "Answers", "bitemporal"]

TENANT = "eval-simulation"
USER = "sim-user"
#: How far before the active record's valid_from the history question is asked.
_BEFORE = timedelta(seconds=1)
#: Episodes per extraction message (the settings' maximum): one write is one message.
MAX_BATCH = 1000
#: (current, history) answer per fact; None when a design has no answer.
Answers = list[tuple[str | None, str | None]]


def bitemporal(
    facts: Sequence[Fact],
    mentions: Sequence[Mention],
    writes: Sequence[Sequence[Mention]],
    retrieval: bool,
    out: Callable[[str], None],
    progress: bool,
) -> tuple[dict[str, Answers], dict[str, int]]:
    """Answers from the real store (by key, and by free-text retrieval), plus store checks."""
    from memworks.client import Memworks
    from memworks.config import Settings

    with tempfile.TemporaryDirectory(prefix="memworks-eval-") as tmp:
        # One extraction message per write keeps each write in one transaction, in order.
        settings = Settings(
            database_url=f"sqlite:///{Path(tmp) / 'sim.db'}", broker_url="stub://", ingest_batch_size=MAX_BATCH
        )
        with Memworks(settings) as mw:
            for w, write in enumerate(writes):
                mw.enqueue_episodes([_episode(m) for m in write])
                mw.drain()
                if progress:
                    first, last = write[0].session + 1, write[-1].session + 1
                    out(f"  bitemporal: write {w + 1}/{len(writes)} (sessions {first}-{last})")
            return _ask_store(mw, facts, mentions, retrieval)


def _episode(m: Mention) -> dict[str, Any]:
    return {
        "episode_id": f"s{m.session:04d}-t{m.turn:02d}",
        "tenant_id": TENANT,
        "user_id": USER,
        "session_id": f"s{m.session:04d}",
        "turn": m.turn,
        "role": "user",
        "source": "user",
        "content": m.text,
        "occurred_at": m.at.isoformat(),
    }


def _ask_store(
    mw: Memworks, facts: Sequence[Fact], mentions: Sequence[Mention], retrieval: bool
) -> tuple[dict[str, Answers], dict[str, int]]:
    """Ask the store; count any chain that breaks the store's invariants along the way."""
    from memworks.models.enums import MemoryStatus
    from memworks.models.schemas import Scope

    scope = Scope(tenant_id=TENANT, user_id=USER)
    chains: dict[str, list[MemoryOut]] = defaultdict(list)
    for r in mw.memories(scope, include_history=True):
        if r.key and r.retracted_at is None:
            chains[r.key].append(r)
    checks = {
        "keys_stored": sum(1 for k in chains if k.startswith("user.favorite.")),
        "facts_without_one_active": 0,
        "history_without_one_holder": 0,
        "chains_with_gaps": 0,
        "chains_not_one_row_per_change": 0,
        "as_of_days_wrong": 0,
    }
    if retrieval:
        checks["retrieve_missed_key"] = 0
    answers: dict[str, Answers] = defaultdict(list)
    for i, f in enumerate(facts):
        chain = sorted(chains.get(f.key, []), key=lambda r: r.valid_from)
        checks["chains_with_gaps"] += any(a.valid_to != b.valid_from for a, b in zip(chain, chain[1:], strict=False))
        said = [m for m in mentions if m.fact == i]
        checks["chains_not_one_row_per_change"] += len(chain) != _runs([m.value for m in said])
        checks["as_of_days_wrong"] += _as_of_days_wrong(chain, said, mentions[-1].session)
        active = [r for r in chain if r.status is MemoryStatus.ACTIVE and r.valid_to is None]
        if len(active) != 1:
            checks["facts_without_one_active"] += 1
            answers["bitemporal"].append((None, None))
            if retrieval:
                answers["bitemporal_retrieve"].append((None, None))
            continue
        then = active[0].valid_from - _BEFORE
        holders = [r for r in chain if r.valid_from <= then and (r.valid_to is None or r.valid_to > then)]
        checks["history_without_one_holder"] += len(holders) > 1 or (len(holders) == 0 and len(chain) > 1)
        answers["bitemporal"].append((active[0].value, holders[0].value if len(holders) == 1 else None))
        if not retrieval:
            continue
        now_hit = _best_of_key(mw.retrieve(scope, f.question, k=10).hits, f.key)
        then_hit = _best_of_key(mw.retrieve(scope, f.history_question, as_of=then, k=10).hits, f.key)
        checks["retrieve_missed_key"] += (now_hit is None) + (then_hit is None and len(chain) > 1)
        answers["bitemporal_retrieve"].append((now_hit, then_hit))
    return answers, checks


def _runs(values: Sequence[str]) -> int:
    """Runs of equal values in a row: each should be one record."""
    return sum(1 for j, v in enumerate(values) if j == 0 or v != values[j - 1])


def _as_of_days_wrong(chain: Sequence[MemoryOut], said: Sequence[Mention], last_day: int) -> int:
    """Days (at noon, first mention to last session) whose valid value is not the last one said."""
    wrong, j = 0, 0
    for day in range(said[0].session if said else last_day + 1, last_day + 1):
        t = START + timedelta(days=day, hours=12)
        while j + 1 < len(said) and said[j + 1].at <= t:
            j += 1
        held = [r.value for r in chain if r.valid_from <= t and (r.valid_to is None or r.valid_to > t)]
        wrong += held != [said[j].value]
    return wrong


def _best_of_key(hits: Sequence[Any], key: str) -> str | None:
    return next((str(h.value) for h in hits if h.key == key), None)
