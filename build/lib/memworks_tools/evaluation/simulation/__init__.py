"""``memworks eval simulation``: which memory design still knows a fact after it changed?

The store simulation of a published set-up. One user has ``n_facts`` facts ("my favourite
drink at work"), each with 6 possible values. Over ``n_sessions`` daily sessions,
``per_session`` distinct facts are mentioned per session (200 × 10 = 2,000 mentions). A
mention states the fact's current value; a quarter of the mentions change that value first
(a fact's first mention never does: it introduces the value). Afterwards every fact is asked
for (a) its current value and (b) its value before its last change (only facts that changed
count for b). Five designs answer:

* ``top1`` / ``top5_newest`` / ``top20_newest``: every mention text is kept; the question is
  embedded (all-MiniLM-L6-v2, the store's own embedder) and answered by the most similar
  mention, or by the newest of the 5 / 20 most similar. History: reading the retrieved
  mentions in time order, the last value that differs from the newest one (``top1``: the
  most similar mention to the history question; it has no notion of time).
* ``update_in_place``: a key → value map overwritten by each mention. It has no history, so
  it answers the history question with the only value it has (right only by accident).
* ``bitemporal``: memworks itself, through the public facade on a fresh SQLite store.

How the bitemporal store is driven (the honest route): the rules extractor understands
"my favourite <thing> is <value>" for any thing (key ``user.favorite.<thing>``), so every
mention is a real user episode with its session's time, sent ``sessions_per_write`` sessions
at a time (``Memworks.enqueue_episodes``, one extraction message, then ``drain``), and goes
through extraction, the gate, supersession, the SQL write and indexing unchanged. Current
value = the key's active record. History = the record valid just before the active record's
``valid_from`` (the store's own last change), read as of one second earlier. With
``retrieval=True`` the row ``bitemporal_retrieve`` asks the same two questions in free text
through ``Memworks.retrieve`` (``as_of`` for history) and takes the best hit of the fact's
key; it is off by default because 200 reads double the run time. ``store_checks`` counts
chains that break the store's invariants (not exactly one active record, gaps between
intervals, not one record per run of equal recorded values, days on which the value valid at
noon is not the one last said).

``shuffle_writes=True`` delivers the writes in a seeded random order (as late or retried
messages and parallel workers do), for the store and for ``update_in_place`` alike; the
top-k designs read event times, so delivery order does not matter to them.

Extraction errors (``error_rate``): with that probability a mention is recorded with a wrong
value (one of the other 5). The rules extractor cannot be made to err, so the error is put in
the mention text itself: every design receives the same corrupted stream, and for the store
it is exactly what a faulty extractor would have written. The truth is what the user meant.
Corruption draws come from their own random stream, so the set of corrupted mentions grows
with ``error_rate`` and the mention stream is otherwise identical across error rates.

Everything is deterministic for a given ``seed`` (``random.Random``; ties in similarity go
to the older mention).
"""

from __future__ import annotations

import os
import random
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memworks_tools.evaluation.simulation.store import MAX_BATCH, TENANT, USER, Answers, bitemporal
from memworks_tools.evaluation.simulation.stream import (
    CHANGE_RATE,
    LEADS,
    N_VALUES,
    START,
    Fact,
    Mention,
    Truth,
    make_facts,
    make_mentions,
)

__all__ = [
    "CHANGE_RATE",
    "DESIGNS",
    "LEADS",
    "N_VALUES",
    "REFERENCE",
    "START",
    "TARGETS",
    "TENANT",
    "USER",
    "Fact",
    "Mention",
    "Truth",
    "make_facts",
    "make_mentions",
    "plot",
    "run",
    "sweep",
]

#: The openings of mentions, under the name this module first gave them.
_LEADS = LEADS
DESIGNS = ("top1", "top5_newest", "top20_newest", "update_in_place", "bitemporal")
#: The published results for the same set-up (accuracy; history only where reported).
REFERENCE: dict[str, dict[str, float]] = {
    "top1": {"current": 0.31},
    "top5_newest": {"current": 0.61},
    "top20_newest": {"current": 0.88},
    "update_in_place": {"current": 0.92},
    "bitemporal": {"current": 0.92, "history": 0.85},
}
#: What memworks should reach at 0% extraction error.
TARGETS = {"bitemporal": {"current": 0.95, "history": 0.90}}


# --- the designs ----------------------------------------------------------------------------


def _top_k(sims: npt.NDArray[np.float32], mentions: Sequence[Mention], k: int) -> list[Mention]:
    """The ``k`` most similar mentions, oldest first; equal similarity prefers the older one."""
    order = np.argsort(-sims, kind="stable")[:k]
    return [mentions[int(j)] for j in sorted(order)]


def _newest_and_before(hits: Sequence[Mention]) -> tuple[str, str | None]:
    """The newest retrieved value, and the last value before it that differs (history)."""
    newest = hits[-1].value
    before = next((m.value for m in reversed(hits) if m.value != newest), None)
    return newest, before


def _vector_designs(facts: Sequence[Fact], mentions: Sequence[Mention]) -> dict[str, Answers]:
    """(current, history) answers per fact for the three embedding designs."""
    from memworks.adapters.embedder import get_embedder

    emb = get_embedder("minilm")
    questions = [q for f in facts for q in (f.question, f.history_question)]
    texts = list(dict.fromkeys([m.text for m in mentions] + questions))
    vecs = dict(zip(texts, emb.embed(texts), strict=True))
    matrix = np.stack([vecs[m.text] for m in mentions])
    out: dict[str, Answers] = defaultdict(list)
    for f in facts:
        now_sims, then_sims = matrix @ vecs[f.question], matrix @ vecs[f.history_question]
        out["top1"].append((_top_k(now_sims, mentions, 1)[0].value, _top_k(then_sims, mentions, 1)[0].value))
        for k in (5, 20):
            now, _ = _newest_and_before(_top_k(now_sims, mentions, k))
            _, then = _newest_and_before(_top_k(then_sims, mentions, k))
            out[f"top{k}_newest"].append((now, then))
    return out


def _writes(mentions: Sequence[Mention], sessions_per_write: int, shuffle_seed: int | None) -> list[list[Mention]]:
    """The mentions as delivered: ``sessions_per_write`` sessions a write, shuffled when seeded."""
    sessions = sorted({m.session for m in mentions})
    chunks = [set(sessions[i : i + sessions_per_write]) for i in range(0, len(sessions), sessions_per_write)]
    writes = [[m for m in mentions if m.session in chunk] for chunk in chunks]
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(writes)
    return writes


def _update_in_place(facts: Sequence[Fact], writes: Sequence[Sequence[Mention]]) -> Answers:
    """Each write overwrites the key, in delivery order."""
    kv: dict[int, str] = {}
    for m in (m for w in writes for m in w):
        kv[m.fact] = m.value
    return [(kv.get(i), kv.get(i)) for i in range(len(facts))]


# --- scoring and entry points ---------------------------------------------------------------


def _score(answers: Answers, truth: Truth) -> dict[str, float]:
    current = sum(a[0] == t for a, t in zip(answers, truth.current, strict=True)) / len(truth.current)
    asked = [(a[1], p) for a, p in zip(answers, truth.previous, strict=True) if p is not None]
    history = sum(a == p for a, p in asked) / len(asked) if asked else 0.0
    return {"current": round(current, 4), "history": round(history, 4)}


def run(
    *,
    error_rate: float = 0.0,
    seed: int = 7,
    n_facts: int = 100,
    n_sessions: int = 200,
    per_session: int = 10,
    sessions_per_write: int = 10,
    shuffle_writes: bool = False,
    retrieval: bool = False,
    out: Callable[[str], None] = print,
    progress: bool = False,
) -> dict[str, Any]:
    """Simulate the sessions, ask every design, score against the truth.

    Returns:
        ``rows`` (design → current / history accuracy; the five designs, plus
        ``bitemporal_retrieve`` with ``retrieval``), the set-up, the stream's counts, the
        store's consistency checks, the published ``reference`` and memworks' ``targets``.
        The same arguments give the same result.

    Raises:
        ValueError: a parameter is out of range (at most 100 facts, ``per_session`` at most
            ``n_facts``, a write at most 1,000 episodes).
    """
    if not 1 <= sessions_per_write * per_session <= MAX_BATCH:
        raise ValueError(f"sessions_per_write × per_session must be between 1 and {MAX_BATCH}")
    started = time.perf_counter()
    facts = make_facts(n_facts, seed)
    mentions, truth = make_mentions(
        facts, n_sessions=n_sessions, per_session=per_session, error_rate=error_rate, seed=seed
    )
    writes = _writes(mentions, sessions_per_write, seed + 3 if shuffle_writes else None)
    answers = _vector_designs(facts, mentions)
    answers["update_in_place"] = _update_in_place(facts, writes)
    store_answers, checks = bitemporal(facts, mentions, writes, retrieval, out, progress)
    answers.update(store_answers)
    rows = {d: _score(answers[d], truth) for d in (*DESIGNS, *(["bitemporal_retrieve"] if retrieval else []))}
    for d, r in rows.items():
        out(f"  error {error_rate:.2f}  {d:<20} current {r['current']:.2f}  history {r['history']:.2f}")
    out(f"error {error_rate:.2f}: {len(mentions)} mentions simulated in {time.perf_counter() - started:.1f} s")
    return {
        "rows": rows,
        "error_rate": error_rate,
        "seed": seed,
        "n_facts": n_facts,
        "n_sessions": n_sessions,
        "mentions_per_session": per_session,
        "sessions_per_write": sessions_per_write,
        "shuffle_writes": shuffle_writes,
        "n_mentions": len(mentions),
        "n_changes": sum(m.changed for m in mentions),
        "n_corrupted": sum(m.corrupted for m in mentions),
        "n_history_questions": sum(p is not None for p in truth.previous),
        "store_checks": checks,
        "reference": REFERENCE,
        "targets": TARGETS,
    }


def sweep(
    error_rates: Sequence[float] = (0.0, 0.05, 0.10, 0.20),
    *,
    seed: int = 7,
    n_facts: int = 100,
    n_sessions: int = 200,
    per_session: int = 10,
    sessions_per_write: int = 10,
    shuffle_writes: bool = False,
    retrieval: bool = False,
    out: Callable[[str], None] = print,
    progress: bool = False,
) -> dict[str, Any]:
    """:func:`run` once per extraction error rate, keyed ``"0.05"``; shows how designs degrade."""
    return {
        "by_error_rate": {
            f"{e:.2f}": run(
                error_rate=e,
                seed=seed,
                n_facts=n_facts,
                n_sessions=n_sessions,
                per_session=per_session,
                sessions_per_write=sessions_per_write,
                shuffle_writes=shuffle_writes,
                retrieval=retrieval,
                out=out,
                progress=progress,
            )
            for e in error_rates
        },
        "reference": REFERENCE,
        "targets": TARGETS,
    }


def plot(results: list[dict[str, Any]], path: Path) -> Path:
    """Current and history accuracy per design as grouped bars, one group per error rate (PNG)."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    designs = list(results[0]["rows"])
    width = 0.8 / len(designs)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, question in zip(axes, ("current", "history"), strict=True):
        for j, d in enumerate(designs):
            xs = [i + (j - (len(designs) - 1) / 2) * width for i in range(len(results))]
            ax.bar(xs, [r["rows"][d][question] for r in results], width, label=d)
        ax.set_xticks(range(len(results)), [f"{r['error_rate']:.0%} errors" for r in results])
        ax.set_title(f"{question} value")
        ax.set_ylim(0, 1.05)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("accuracy")
    axes[1].legend(loc="upper right", fontsize=8)
    n = results[0]
    fig.suptitle(f"Store simulation: {n['n_facts']} facts, {n['n_mentions']} mentions, {n['n_changes']} changes")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
