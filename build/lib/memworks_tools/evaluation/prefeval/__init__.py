"""``memworks eval prefeval``: do a user's standing preferences reach the agent when the
question never names them?

PrefEval (Zhao et al., ICLR 2025): a user states a preference ("I can't eat spicy food"), many
unrelated turns later asks a question that a good answer must bend to it ("What should I try in
Bangkok?"). Here each of :data:`USERS` users states one preference per topic, then holds ``N``
distractor user turns from PrefEval's own distractor conversations, then asks every topic's
question. For each N a fresh embedded store (SQLite, stub broker, default settings) is filled
through the public facade and asked with ``retrieve(k=5)`` and ``profile(query=question)``.

The preference is **in context** when a top-5 hit or a line of the query's profile rests on the
preference's episode (the records' evidence episode ids). BM25 (``bm25s``) and a dense-only
search (the store's embedding model, cosine) over the same turns run beside it. The topics of
:data:`~.data.HELD_OUT` are reported apart: they were never looked at while tuning.
Metrics, tables and the plot: :mod:`.report`.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from memworks_tools.evaluation.locomo import BM25Baseline
from memworks_tools.evaluation.prefeval.data import (
    HELD_OUT,
    Plan,
    load_inter_turns,
    load_topics,
    plan_users,
)
from memworks_tools.evaluation.prefeval.report import (
    Tally,
    false_positives,
    is_preference_key,
    met_targets,
    plot,
    print_report,
    summary,
)

__all__ = ["DISTRACTOR_COUNTS", "METHOD", "USERS", "met_targets", "plot", "run"]

TENANT = "prefeval"
#: Users per run (each states one preference per topic).
USERS = 8
#: Distractor user turns per user, one store per count.
DISTRACTOR_COUNTS = (10, 100, 300)
#: Hits asked of each system per question.
K = 5
#: A profile cap too small for a user's ten preferences (tokens): what choosing by the question buys.
TIGHT_TOKENS = 120
START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
METHOD = (
    "Per distractor count N, a fresh embedded store (SQLite, stub broker, default settings: open extractor, "
    "MiniLM embedder, learned ranker, 300-token profile). Each of 8 users states one preference per topic (the "
    "first session, one user turn each, in a shuffled order; the item per topic chosen by a seeded generator), "
    "then N distractor turns: the user-role turns of PrefEval's inter_turns.json conversations, stored as the "
    "user's own words (role user, source user), conversation by conversation in a per-user shuffled order; turns "
    "one minute apart. Then every topic's question is asked once with retrieve(k=5) and profile(query=question), "
    "a day after the last turn. In context = a top-5 hit or a profile line whose record's evidence episodes "
    "include the preference's episode; top1 = the first hit does; abstained = retrieve returned no hit. "
    "Baselines over the same turns of the same user: BM25 (bm25s, Lucene, k1=1.5, b=0.75, English stop words, "
    "Snowball stems) and dense only (cosine of the store's embedding model), top 5. Abstained = retrieve "
    "returned no hit and no line of the question's profile rests on the preference (retrieve's own abstentions "
    "are reported beside it). Tight: the same stores read with a 120-token profile cap, the question's profile "
    "against the fixed-order one. Extraction: share of "
    "preference episodes that some current preference record cites; false positives: preference records "
    "(keys user.pref.*, user.allergy, user.diet, user.condition.*, user.likes, user.dislikes) that cite a "
    "distractor episode. Held-out topics are reported apart."
)


def run(
    data: Path,
    *,
    counts: Sequence[int] = DISTRACTOR_COUNTS,
    users: int = USERS,
    seed: int = 0,
    out: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Run PrefEval at each distractor count; returns per count and topic group every system's rates."""
    from memworks.client import Memworks
    from memworks.config import Settings

    topics = load_topics(data)
    conversations = load_inter_turns(data)
    runs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="memworks-prefeval-") as tmp:
        for n in counts:
            t0 = time.perf_counter()
            plans = plan_users(topics, conversations, users=users, distractors=n, seed=seed)
            settings = Settings(database_url=f"sqlite:///{Path(tmp) / f'n{n}.db'}", broker_url="stub://")
            settings = settings.model_copy(update={"cache_url": "memory"})
            with Memworks(settings) as mw:
                for plan in plans:
                    _replay(mw, plan)
                t1 = time.perf_counter()
                tallies, records = _ask(mw, plans)
            # The same store read with a cap too small for every preference: the question picks.
            with Memworks(settings.model_copy(update={"profile_max_tokens": TIGHT_TOKENS})) as tight:
                _ask_tight(tight, plans, tallies, records)
            runs[str(n)] = summary(tallies) | {
                "false_positives": false_positives(records, plans),
                "seconds": {"ingest": round(t1 - t0, 1), "ask": round(time.perf_counter() - t1, 1)},
            }
            out(f"  N={n}: {users} users stored in {t1 - t0:.0f} s, asked in {time.perf_counter() - t1:.0f} s")
    sweep = extraction_sweep(topics, load_inter_turns(data, roles=("user", "assistant")))
    result = {
        "suite": "prefeval",
        "users": users,
        "topics": sorted(topics),
        "held_out": list(HELD_OUT),
        "distractor_source": "user turns of inter_turns.json, stored as source user",
        "runs": runs,
        "extraction": sweep,
        "method": METHOD,
    }
    print_report(result, out)
    return result


def extraction_sweep(
    topics: dict[str, list[Any]], conversations: Sequence[Sequence[tuple[str, str]]]
) -> dict[str, Any]:
    """Every preference statement of every topic, and every distractor turn, through the open
    extractor and the write gate, without a store: the share of statements that leave a
    preference record (dev and held-out apart), and the preference records distractors leave
    (user turns, and assistant turns read as if the user had said them)."""
    from memworks.models.drafts import Turn
    from memworks.models.enums import Role, Source
    from memworks.pipelines.ingest import judge_episode
    from memworks.services.deps import open_extractor

    extractor = open_extractor()

    def kept(texts: Sequence[str]) -> list[list[str]]:
        turns = [
            Turn(episode_id=f"x{i}", role=Role.USER, source=Source.USER, content=t, occurred_at=START)
            for i, t in enumerate(texts)
        ]
        warm = getattr(extractor, "warm", None)
        if callable(warm):
            warm(turns)  # one parse of the batch
        out = []
        for t in turns:
            judged = judge_episode(t, extractor=extractor, context=()).judged
            out.append([j.candidate.text for j in judged if j.verdict.accepted and is_preference_key(j.candidate.key)])
        return out

    groups: dict[str, Any] = {}
    for name, items in sorted(topics.items()):
        found = kept([it.preference for it in items])
        group = groups.setdefault("held_out" if name in HELD_OUT else "dev", {"statements": 0, "recorded": 0})
        group["statements"] += len(items)
        group["recorded"] += sum(1 for f in found if f)
    for g in groups.values():
        g["share"] = round(g["recorded"] / g["statements"], 4)
    distractors: dict[str, Any] = {}
    for role in ("user", "assistant"):
        texts = [c for conv in conversations for r, c in conv if r == role]
        found = kept(texts)
        distractors[role] = {
            "turns": len(texts),
            "records": sum(len(f) for f in found),
            "examples": [x for f in found for x in f][:10],
        }
    return {"statements": groups, "distractors": distractors}


def _replay(mw: Any, plan: Plan) -> None:
    episodes = [
        {
            "episode_id": t.episode_id,
            "tenant_id": TENANT,
            "user_id": plan.user_id,
            "session_id": t.session,
            "turn": i,
            "role": "user",
            "source": "user",
            "content": t.content,
            "occurred_at": (START + timedelta(minutes=i)).isoformat(),
        }
        for i, t in enumerate(plan.turns)
    ]
    mw.enqueue_episodes(episodes)
    mw.drain()


def _ask(mw: Any, plans: Sequence[Plan]) -> tuple[dict[str, dict[str, Tally]], dict[str, list[Any]]]:
    from memworks.models.schemas import Scope

    tallies: dict[str, dict[str, Tally]] = {}
    records: dict[str, list[Any]] = {}
    embed = _Embeddings(mw.runtime.embedder)
    for plan in plans:
        scope = Scope(tenant_id=TENANT, user_id=plan.user_id)
        current = mw.memories(scope)
        records[plan.user_id] = current
        evidence = {m.memory_id: set(m.evidence) for m in current}
        stated = {e for m in current if is_preference_key(m.key) for e in m.evidence}
        texts = [t.content for t in plan.turns]
        ids = [t.episode_id for t in plan.turns]
        bm25 = BM25Baseline(texts)
        vectors = embed(texts)
        static = mw.profile(scope)
        asked = START + timedelta(minutes=len(plan.turns), days=1)
        for item in plan.items:
            group = "held_out" if item.topic in HELD_OUT else "dev"
            tally = tallies.setdefault(group, {})
            episode = plan.preference_episode(item.topic)
            res = mw.retrieve(scope, item.question, k=K, asked_at=asked)
            prof = mw.profile(scope, query=item.question)
            hits = [episode in h.evidence for h in res.hits]
            in_profile = any(episode in evidence.get(ln["memory_id"], ()) for ln in prof["lines"])
            in_static = any(episode in evidence.get(ln["memory_id"], ()) for ln in static["lines"])
            tally.setdefault("memworks", Tally()).add(
                hits,
                abstained=res.abstained and not in_profile,
                retrieve_abstained=res.abstained,
                profile=in_profile,
                static=in_static,
                tokens=int(prof["tokens"]),
                static_tokens=int(static["tokens"]),
                extracted=episode in stated,
            )
            top = bm25.search(item.question, K)
            tally.setdefault("bm25", Tally()).add([ids[i] == episode for i in top])
            q = embed([item.question])[0]
            order = np.argsort(-(vectors @ q), kind="stable")[:K]
            tally.setdefault("dense", Tally()).add([ids[int(i)] == episode for i in order])
    return tallies, records


def _ask_tight(mw: Any, plans: Sequence[Plan], tallies: dict[str, dict[str, Tally]], records: Any) -> None:
    """Each question's profile under :data:`TIGHT_TOKENS`, and the fixed-order profile under the same cap."""
    from memworks.models.schemas import Scope
    from memworks.pipelines.consolidation import fit_lines, profile_lines
    from memworks.store import profiles
    from memworks.store.sql.db import session_scope
    from memworks.workers.runtime import utcnow

    rt = mw.runtime
    for plan in plans:
        scope = Scope(tenant_id=TENANT, user_id=plan.user_id)
        evidence = {m.memory_id: set(m.evidence) for m in records[plan.user_id]}
        with session_scope(rt.engine, write=False) as s:
            lines = profile_lines(profiles.current_records(s, tenant_id=TENANT, user_id=plan.user_id), now=utcnow())
        fixed = fit_lines(lines, count_tokens=rt.count_tokens, max_tokens=TIGHT_TOKENS)
        for item in plan.items:
            episode = plan.preference_episode(item.topic)
            prof = mw.profile(scope, query=item.question)
            tallies["held_out" if item.topic in HELD_OUT else "dev"]["memworks"].add_tight(
                picked=any(episode in evidence.get(ln["memory_id"], ()) for ln in prof["lines"]),
                fixed=any(episode in evidence.get(ln.memory_id, ()) for ln in fixed.lines),
                tokens=int(prof["tokens"]),
            )


class _Embeddings:
    """The store's embedder over raw turn texts, each text embedded once per run."""

    def __init__(self, embedder: Any) -> None:
        self.embedder, self.cache = embedder, dict[str, np.ndarray]()

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo:
            self.cache.update(zip(todo, np.asarray(self.embedder.embed(todo), dtype=np.float32), strict=True))
        return np.stack([self.cache[t] for t in texts])
