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
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from memworks.client import Memworks
    from memworks.models.schemas import MemoryOut

TENANT = "eval-simulation"
USER = "sim-user"
#: Start of the simulated calendar; session ``s`` happens ``s`` days later.
START = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)
#: Share of (non-first) mentions that change the fact's value before stating it.
CHANGE_RATE = 0.25
#: Values per fact.
N_VALUES = 6
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
#: How far before the active record's valid_from the history question is asked.
_BEFORE = timedelta(seconds=1)
#: Episodes per extraction message (the settings' maximum): one write is one message.
_MAX_BATCH = 1000
#: (current, history) answer per fact; None when a design has no answer.
Answers = list[tuple[str | None, str | None]]

# 20 things × 5 settings = 100 facts; each fact draws its 6 values from its thing's pool.
_THINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("colour", ("red", "blue", "green", "yellow", "purple", "orange", "teal", "silver")),
    (
        "drink",
        (
            "green tea",
            "black coffee",
            "orange juice",
            "lemonade",
            "hot chocolate",
            "sparkling water",
            "iced tea",
            "ginger beer",
        ),
    ),
    (
        "snack",
        (
            "popcorn",
            "salted almonds",
            "dark chocolate",
            "pretzels",
            "rice crackers",
            "trail mix",
            "dried apricots",
            "cheese straws",
        ),
    ),
    ("fruit", ("mango", "banana", "cherry", "kiwi", "peach", "pineapple", "plum", "watermelon")),
    ("music genre", ("jazz", "blues", "reggae", "techno", "folk", "opera", "funk", "bluegrass")),
    ("sport", ("tennis", "football", "cycling", "swimming", "rowing", "climbing", "badminton", "volleyball")),
    ("flower", ("tulip", "rose", "sunflower", "lily", "orchid", "daisy", "lavender", "peony")),
    ("board game", ("chess", "scrabble", "monopoly", "backgammon", "checkers", "mahjong", "dominoes", "cluedo")),
    (
        "dessert",
        ("tiramisu", "cheesecake", "apple pie", "panna cotta", "baklava", "brownies", "creme brulee", "lemon tart"),
    ),
    ("soup", ("minestrone", "tomato soup", "miso soup", "gazpacho", "lentil soup", "borscht", "pho", "chowder")),
    ("cheese", ("brie", "cheddar", "gouda", "feta", "gruyere", "manchego", "stilton", "halloumi")),
    ("pasta", ("fusilli", "penne", "spaghetti", "rigatoni", "farfalle", "linguine", "orzo", "tagliatelle")),
    ("breakfast", ("porridge", "pancakes", "granola", "scrambled eggs", "croissants", "waffles", "bagels", "muesli")),
    (
        "podcast topic",
        ("history", "science", "comedy", "true crime", "economics", "philosophy", "football", "technology"),
    ),
    (
        "film genre",
        ("comedy", "thriller", "western", "documentary", "musical", "horror", "animation", "science fiction"),
    ),
    ("card game", ("poker", "bridge", "rummy", "solitaire", "cribbage", "canasta", "hearts", "blackjack")),
    ("tree", ("oak", "birch", "maple", "willow", "cedar", "pine", "chestnut", "beech")),
    ("bird", ("robin", "heron", "owl", "kingfisher", "swallow", "wren", "magpie", "sparrow")),
    ("spice", ("cinnamon", "cumin", "paprika", "saffron", "nutmeg", "cardamom", "turmeric", "ginger")),
    ("tea", ("earl grey", "chamomile", "peppermint", "jasmine", "rooibos", "oolong", "darjeeling", "matcha")),
)
_SETTINGS = ("in summer", "in winter", "on weekends", "at work", "on holiday")
#: Ways a mention opens; all are fillers the rules extractor peels off.
_LEADS = ("", "By the way, ", "Just so you know, ", "Quick update: ", "Oh and ", "For the record, ")


@dataclass(frozen=True)
class Fact:
    """One fact about the user: ``topic`` names it, ``values`` are its possible values."""

    topic: str
    values: tuple[str, ...]

    @property
    def key(self) -> str:
        """The slot the rules extractor files ``my favourite <topic> is ...`` under."""
        return "user.favorite." + self.topic.replace(" ", "_")

    def says(self, value: str, lead: str = "") -> str:
        text = f"{lead}my favourite {self.topic} is {value}."
        return text[0].upper() + text[1:]

    @property
    def question(self) -> str:
        return f"What is my favourite {self.topic}?"

    @property
    def history_question(self) -> str:
        return f"What was my favourite {self.topic} before I last changed it?"


@dataclass(frozen=True)
class Mention:
    """One mention as recorded: ``value`` is what was recorded, ``meant`` what the user said."""

    session: int
    turn: int
    fact: int
    meant: str
    value: str
    changed: bool
    text: str
    at: datetime

    @property
    def corrupted(self) -> bool:
        return self.value != self.meant


@dataclass(frozen=True)
class Truth:
    """What each fact really is at the end, and what it was before its last change."""

    current: list[str]
    previous: list[str | None]


def make_facts(n_facts: int, seed: int) -> list[Fact]:
    """``n_facts`` (at most 100) facts with their 6 values, deterministic from ``seed``."""
    combos = [(thing, pool, setting) for thing, pool in _THINGS for setting in _SETTINGS]
    if not 1 <= n_facts <= len(combos):
        raise ValueError(f"n_facts must be between 1 and {len(combos)}, got {n_facts}")
    rng = random.Random(seed)
    rng.shuffle(combos)
    return [Fact(f"{thing} {setting}", tuple(rng.sample(pool, N_VALUES))) for thing, pool, setting in combos[:n_facts]]


def make_mentions(
    facts: Sequence[Fact], *, n_sessions: int, per_session: int, error_rate: float, seed: int
) -> tuple[list[Mention], Truth]:
    """The mention stream (corrupted at ``error_rate``) and the truth it was drawn from."""
    if not 0 <= error_rate <= 1:
        raise ValueError(f"error_rate must be between 0 and 1, got {error_rate}")
    if not 1 <= per_session <= len(facts):
        raise ValueError(f"per_session must be between 1 and the number of facts ({len(facts)}), got {per_session}")
    rng = random.Random(seed + 1)
    errors = random.Random(seed + 2)  # own stream: the true mentions do not depend on error_rate
    state = [rng.choice(f.values) for f in facts]
    seen: set[int] = set()
    previous: list[str | None] = [None] * len(facts)
    out: list[Mention] = []
    for s in range(n_sessions):
        for t, i in enumerate(rng.sample(range(len(facts)), per_session)):
            fact, change, lead = facts[i], rng.random() < CHANGE_RATE, rng.choice(_LEADS)
            changed = change and i in seen
            if changed:
                previous[i] = state[i]
                state[i] = rng.choice([v for v in fact.values if v != state[i]])
            seen.add(i)
            wrong, draw = errors.choice([v for v in fact.values if v != state[i]]), errors.random()
            value = wrong if draw < error_rate else state[i]
            at = START + timedelta(days=s, minutes=t)
            out.append(Mention(s, t, i, state[i], value, changed, fact.says(value, lead), at))
    return out, Truth(current=list(state), previous=previous)


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


def _bitemporal(
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
            database_url=f"sqlite:///{Path(tmp) / 'sim.db'}", broker_url="stub://", ingest_batch_size=_MAX_BATCH
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
    if not 1 <= sessions_per_write * per_session <= _MAX_BATCH:
        raise ValueError(f"sessions_per_write × per_session must be between 1 and {_MAX_BATCH}")
    started = time.perf_counter()
    facts = make_facts(n_facts, seed)
    mentions, truth = make_mentions(
        facts, n_sessions=n_sessions, per_session=per_session, error_rate=error_rate, seed=seed
    )
    writes = _writes(mentions, sessions_per_write, seed + 3 if shuffle_writes else None)
    answers = _vector_designs(facts, mentions)
    answers["update_in_place"] = _update_in_place(facts, writes)
    store_answers, checks = _bitemporal(facts, mentions, writes, retrieval, out, progress)
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
