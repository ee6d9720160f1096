"""``memworks eval locomo``: does retrieval find the turns a LoCoMo answer rests on, and does
it decline what the named person never said?

Each conversation is replayed session by session, in date order, into a fresh embedded store
through the public facade (one scope per conversation), then every question is asked with
``retrieve`` (asked the day after the last session). A hit traces back to dialogue ids through
its evidence episodes, so recall is measured against the dataset's gold evidence ids, per
question category. BM25 over the same turn texts (``bm25s``) runs beside it as the baseline;
with ``compare``, the read path's own stages too (dense only, fused), on the same stores.
Metrics, tables and the plot: :mod:`memworks_tools.evaluation.locomo.report`.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from memworks_tools.evaluation import keyed as keyed_records
from memworks_tools.evaluation.locomo.data import Conversation as Conversation
from memworks_tools.evaluation.locomo.data import Question as Question
from memworks_tools.evaluation.locomo.data import Turn as Turn
from memworks_tools.evaluation.locomo.data import episode_id_for as episode_id_for
from memworks_tools.evaluation.locomo.data import load as load
from memworks_tools.evaluation.locomo.data import parse_conversation as parse_conversation
from memworks_tools.evaluation.locomo.data import parse_session_date as parse_session_date
from memworks_tools.evaluation.locomo.data import split_evidence as split_evidence
from memworks_tools.evaluation.locomo.report import (
    ADVERSARIAL as ADVERSARIAL,
)
from memworks_tools.evaluation.locomo.report import (
    BUDGET_K as BUDGET_K,
)
from memworks_tools.evaluation.locomo.report import (
    CATEGORIES as CATEGORIES,
)
from memworks_tools.evaluation.locomo.report import (
    SESSION_K as SESSION_K,
)
from memworks_tools.evaluation.locomo.report import (
    Tally as Tally,
)
from memworks_tools.evaluation.locomo.report import plot as draw
from memworks_tools.evaluation.locomo.report import (
    print_report,
    report,
)
from memworks_tools.evaluation.locomo.report import (
    recall_at as recall_at,
)
from memworks_tools.evaluation.locomo.report import (
    session_of as session_of,
)

TENANT = "locomo"
#: Hits asked for per question (the largest k scored).
DEPTH = 20
METHOD = (
    "Each LoCoMo conversation replayed session by session in date order (one drain per session) into an embedded "
    "memworks store of its own (SQLite, stub broker, open extractor, default retrieval settings), one scope per "
    "conversation (tenant locomo, user = sample_id); every turn an episode (role user, source user) whose "
    "content is 'Speaker: text', plus ' [shares a photo of <blip_caption>]' when the turn has an image; session "
    "dates parsed as UTC, turns one second apart. Each question asked once with retrieve(k=20); a hit counts for "
    "the dialogue ids of its evidence episodes. Baseline: BM25 (bm25s, Lucene variant, k1=1.5, b=0.75, English "
    "stop words, Snowball stems) over the same turn texts of the same conversation, top 20. Recall@k = share of "
    "a question's gold evidence ids among the ids the top k hits trace back to; session_hit@5 = share of "
    "questions whose top 5 include a turn of a gold evidence session; chars@10 = characters of hit text in the "
    "top 10, averaged over all questions. Evidence ids are normalised ('D:11:26' -> 'D11:26', several ids in one "
    "string split); ids absent from the conversation are dropped (bad_evidence) and questions left without "
    "evidence are not scored for recall or session hits (no_evidence). Not answered: retrieve abstained (no hit) "
    "or flagged every hit as about someone other than the person asked about (subject_mismatch); recall still "
    "counts whatever hits came back. Questions are asked at the last session's time plus one day (asked_at). "
    "Latency: each memworks retrieve call timed end to end (query embedding included, read cache bypassed by "
    "distinct questions). Compared systems (--compare) read the same stores with the same candidates: dense = "
    "whole-text cosine only; fused = reciprocal rank fusion of BM25 and whole-text cosine (k=10) with the "
    "similarity floors; memworks = fused candidates re-scored by sentence spans, neighbours, time and subject, "
    "ranked by the learned model."
)


def traced(evidence: Iterable[Sequence[str]], back: Mapping[str, str]) -> list[str]:
    """Dialogue ids that hits' evidence episodes trace back to, unique, in rank order."""
    return list(dict.fromkeys(back[e] for ev in evidence for e in ev if e in back))


# -- the BM25 baseline --------------------------------------------------------------------


class BM25Baseline:
    """BM25 over one conversation's turn texts: the lexical baseline memworks must beat."""

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s  # type: ignore[import-untyped]
        import snowballstemmer  # type: ignore[import-untyped]

        self._stemmer = snowballstemmer.stemmer("english")
        self._bm25 = bm25s
        corpus = bm25s.tokenize(list(texts), stopwords="en", stemmer=self._stemmer.stemWords, show_progress=False)
        self._retriever = bm25s.BM25()
        self._retriever.index(corpus, show_progress=False)
        self._vocab = corpus.vocab
        self._n = len(texts)

    def search(self, query: str, k: int) -> list[int]:
        """Indices of the best ``k`` texts, best first (ties by position)."""
        tokens = self._bm25.tokenize(
            [query], stopwords="en", stemmer=self._stemmer.stemWords, return_ids=False, show_progress=False
        )[0]
        known = [t for t in tokens if t in self._vocab]
        if not known:
            return []
        scores = self._retriever.get_scores(known)
        order = sorted(range(self._n), key=lambda i: (-float(scores[i]), i))
        return [i for i in order[:k] if scores[i] > 0]


# -- the run ------------------------------------------------------------------------------

#: Systems read from the same stores with ``compare``: name -> RankPolicy overrides.
COMPARED: Mapping[str, Mapping[str, Any]] = {
    "dense": {"ranker": "dense", "spans": False, "neighbors": False, "time": False, "subjects": False, "latest": False},
    "fused": {
        "ranker": "fusion",
        "spans": False,
        "neighbors": False,
        "time": False,
        "subjects": False,
        "latest": False,
    },
}


def run(
    path: Path,
    *,
    limit: int | None = None,
    conversations: Sequence[str] | None = None,
    ks: Sequence[int] = (1, 5, 10, 20),
    compare: bool = False,
    out: Callable[[str], None] = print,
    progress: bool = False,
) -> dict[str, Any]:
    """Replay LoCoMo conversations into memworks and score retrieval against BM25.

    Args:
        path: the LoCoMo JSON file (a list of conversations).
        limit: replay only the first ``limit`` conversations.
        conversations: replay only these sample ids.
        ks: the recall depths (at most 20).
        compare: also score the read path's earlier stages (:data:`COMPARED`) on the same stores.
        out: where report lines go.
        progress: also report each conversation as it finishes.

    Returns:
        Per category (``"1"``..``"5"``) the question count and each system's metrics
        (``not_answered`` among them); the abstention precision and recall on category 5;
        retrieve latency percentiles; counts; a description of the method.
    """
    from memworks.client import Memworks
    from memworks.config import Settings

    ks = tuple(sorted(set(ks)))
    if not ks or ks[0] < 1 or ks[-1] > DEPTH:
        raise ValueError(f"ks must lie between 1 and {DEPTH}")
    chosen = load(path, limit=limit)
    if conversations:
        unknown = set(conversations) - {c.sample_id for c in chosen}
        if unknown:
            raise ValueError(f"no conversation {', '.join(sorted(unknown))} in {path}")
        chosen = [c for c in chosen if c.sample_id in set(conversations)]
    systems = ("memworks", "bm25", *(COMPARED if compare else ()))
    tallies = {c: {s: Tally(ks) for s in systems} for c in CATEGORIES}
    counts = {c: {"n": 0, "no_evidence": 0, "bad_evidence": 0} for c in CATEGORIES}
    latencies: list[float] = []
    keyed: list[tuple[int, int]] = []
    records: dict[str, list[keyed_records.Record]] = {}
    with tempfile.TemporaryDirectory(prefix="memworks-locomo-") as tmp:
        for conv in chosen:
            # A store of its own per conversation: what one conversation costs does not depend
            # on how many were replayed before it.
            settings = Settings(
                database_url=f"sqlite:///{Path(tmp) / conv.sample_id}.db", broker_url="stub://", cache_url="memory"
            )
            with Memworks(settings) as mw:
                t0 = time.perf_counter()
                _replay(mw, conv)
                records[conv.sample_id] = keyed_records.keyed_records(mw, TENANT, conv.sample_id)
                keyed.append(keyed_records.keyed_turns(records[conv.sample_id], [t.episode_id for t in conv.turns]))
                t1 = time.perf_counter()
                _ask(mw, conv, tallies, counts, latencies, systems)
            if progress:
                out(
                    f"  {conv.sample_id}: {len(conv.turns)} turns replayed in {t1 - t0:.1f}s, "
                    f"{len(conv.questions)} questions in {time.perf_counter() - t1:.1f}s"
                )
    result = report(chosen, tallies, counts, latencies, METHOD)
    turn_of = {t.episode_id: f"{c.sample_id}:{t.dia_id}" for c in chosen for t in c.turns}
    result["keyed_records"] = {
        **keyed_records.keyed_share(keyed),
        "precision": keyed_records.precision_report(records, turn_of),
    }
    print_report(result, ks, out)
    out(keyed_records.keyed_line(result["keyed_records"]))
    out(keyed_records.precision_line(result["keyed_records"]["precision"]))
    return result


def _replay(mw: Any, conv: Conversation) -> None:
    episodes = [
        {
            "episode_id": t.episode_id,
            "tenant_id": TENANT,
            "user_id": conv.sample_id,
            "session_id": f"{conv.sample_id}-S{t.session}",
            "turn": t.index,
            "role": "user",
            "source": "user",
            "content": t.content,
            "occurred_at": t.occurred_at.isoformat(),
            "metadata": {"dia_id": t.dia_id, "speaker": t.speaker},
        }
        for t in conv.turns
    ]
    # One session at a time, each processed before the next, as a live agent would write them.
    for session in dict.fromkeys(t.session for t in conv.turns):
        mw.enqueue_episodes([e for e, t in zip(episodes, conv.turns, strict=True) if t.session == session])
        mw.drain()


def asked_at(conv: Conversation) -> datetime:
    """When the questions are asked: the day after the conversation's last session."""
    return conv.turns[-1].occurred_at + timedelta(days=1)


def _ask(
    mw: Any,
    conv: Conversation,
    tallies: dict[int, dict[str, Tally]],
    counts: dict[int, dict[str, int]],
    latencies: list[float],
    systems: Sequence[str],
) -> None:
    from dataclasses import replace

    from memworks.models.schemas import Scope
    from memworks.services.retrieval import retrieve
    from memworks.workers.runtime import utcnow

    scope = Scope(tenant_id=TENANT, user_id=conv.sample_id)
    back = {t.episode_id: t.dia_id for t in conv.turns}
    bm25 = BM25Baseline([t.content for t in conv.turns])
    when = asked_at(conv)
    rt = mw.runtime
    for q in conv.questions:
        c = counts[q.category]
        c["n"] += 1
        c["bad_evidence"] += len(q.bad_evidence)
        c["no_evidence"] += not q.evidence
        t0 = time.perf_counter()
        res = mw.retrieve(scope, q.question, k=DEPTH, asked_at=when)
        latencies.append((time.perf_counter() - t0) * 1000)
        _count(tallies[q.category]["memworks"], q, res, back)
        for name in systems:
            if name in COMPARED:
                other = retrieve(
                    rt,
                    scope,
                    q.question,
                    k=DEPTH,
                    asked_at=when,
                    now=utcnow(),
                    policy=replace(rt.policy, **COMPARED[name]),
                    cache_ttl_s=0,
                )
                _count(tallies[q.category][name], q, other, back)
        top = [conv.turns[i] for i in bm25.search(q.question, DEPTH)]
        tallies[q.category]["bm25"].add(q.evidence, [[t.dia_id] for t in top], [t.content for t in top])


def _count(tally: Tally, q: Question, res: Any, back: Mapping[str, str]) -> None:
    tally.add(
        q.evidence,
        [traced([h.evidence], back) for h in res.hits],
        [h.text for h in res.hits],
        answered=not (res.abstained or res.subject_mismatch),
    )


def plot(result: Mapping[str, Any], path: Path) -> Path:
    """The report's plot (:func:`memworks_tools.evaluation.locomo.report.plot`)."""
    return draw(result, path)
