"""``memworks eval locomo``: does retrieval find the turns a LoCoMo answer rests on?

Each conversation is replayed session by session, in date order, into a fresh embedded store
through the public facade (one scope per conversation), then every question is asked with
``retrieve``. A hit traces back to dialogue ids through its evidence episodes, so recall is
measured against the dataset's gold evidence ids, per question category. BM25 over the same
turn texts (``bm25s``) runs beside it as the baseline.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memworks_tools.evaluation import keyed as keyed_records

TENANT = "locomo"
#: Category ids of the dataset (per its task_eval code) and their names.
CATEGORIES: Mapping[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
#: The unanswerable category: the right answer is "not mentioned".
ADVERSARIAL = 5
#: Hits asked for per question (the largest k scored).
DEPTH = 20
#: Rank depth of the session-hit and text-budget metrics.
SESSION_K, BUDGET_K = 5, 10
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
    "evidence are not scored for recall or session hits (no_evidence). Abstention: retrieve returned no hit."
)


_SESSION = re.compile(r"session_(\d+)")
_DIA = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


@dataclass(frozen=True)
class Turn:
    """One dialogue turn, ready to replay."""

    dia_id: str
    episode_id: str
    session: int
    index: int
    speaker: str
    content: str
    occurred_at: datetime


@dataclass(frozen=True)
class Question:
    question: str
    category: int
    #: Gold dialogue ids that exist in the conversation, normalised, in the dataset's order.
    evidence: tuple[str, ...]
    #: Evidence entries dropped: malformed, or naming no turn of the conversation.
    bad_evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


# -- parsing ------------------------------------------------------------------------------


def parse_session_date(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` as an aware UTC datetime.

    Raises:
        ValueError: the text is not in that form.
    """
    clean = " ".join(text.replace(",", " , ").split()).replace(" ,", ",")
    return datetime.strptime(clean, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def split_evidence(raw: Iterable[str]) -> tuple[list[str], list[str]]:
    """Normalised dialogue ids and the entries that are not ids at all.

    Handles the dataset's quirks: several ids in one string (``"D8:6; D9:17"``), an extra
    colon (``"D:11:26"`` → ``D11:26``), stray whitespace, leading zeros.
    """
    ids: list[str] = []
    bad: list[str] = []
    for entry in raw:
        for piece in re.split(r"[;,]", str(entry)):
            piece = piece.strip()
            if not piece:
                continue
            if m := _DIA.fullmatch(piece):
                ids.append(f"D{int(m[1])}:{int(m[2])}")
            else:
                bad.append(piece)
    return list(dict.fromkeys(ids)), bad


def episode_id_for(sample_id: str, dia_id: str) -> str:
    """An episode id memworks accepts for a dialogue id (``conv-26``, ``D8:6`` → ``conv-26-D8-6``)."""
    return f"{sample_id}-{dia_id.replace(':', '-')}"


def _content(turn: Mapping[str, Any]) -> str:
    text = " ".join(str(turn.get("text") or "").split())
    if caption := " ".join(str(turn.get("blip_caption") or "").split()):
        text = f"{text} [shares a photo of {caption}]".strip()
    return f"{turn['speaker']}: {text}" if text else ""


def parse_conversation(sample: Mapping[str, Any]) -> Conversation:
    """One LoCoMo sample as turns in date order and questions with checked evidence."""
    sid = str(sample["sample_id"])
    conv = sample["conversation"]
    sessions = []
    for key, turns in conv.items():
        m = _SESSION.fullmatch(key)
        if m and isinstance(turns, list) and f"{key}_date_time" in conv:
            sessions.append((parse_session_date(conv[f"{key}_date_time"]), int(m[1]), turns))
    out: list[Turn] = []
    for start, n, turns in sorted(sessions, key=lambda s: (s[0], s[1])):
        for i, t in enumerate(turns):
            if content := _content(t):
                out.append(
                    Turn(
                        t["dia_id"],
                        episode_id_for(sid, t["dia_id"]),
                        n,
                        i,
                        str(t["speaker"]),
                        content,
                        start + timedelta(seconds=i),
                    )
                )
    known = {t.dia_id for t in out}
    questions = []
    for q in sample.get("qa", []):
        ids, bad = split_evidence(q.get("evidence") or [])
        questions.append(
            Question(
                str(q["question"]),
                int(q["category"]),
                tuple(i for i in ids if i in known),
                tuple(bad + [i for i in ids if i not in known]),
            )
        )
    return Conversation(sid, tuple(out), tuple(questions))


def load(path: Path, *, limit: int | None = None) -> list[Conversation]:
    """The conversations of a LoCoMo JSON file (the first ``limit`` of them)."""
    data = json.loads(Path(path).read_text())
    return [parse_conversation(s) for s in data[:limit]]


# -- metrics ------------------------------------------------------------------------------


def session_of(dia_id: str) -> int:
    return int(dia_id[1:].split(":", 1)[0])


def recall_at(gold: Sequence[str], hits: Sequence[Sequence[str]], k: int) -> float:
    """Share of ``gold`` ids among the dialogue ids that the first ``k`` hits trace back to.

    ``hits[i]`` holds the dialogue ids of hit ``i`` (a transcript traces to one turn, a fact
    to each turn it was read from). No gold ids scores 0.
    """
    found = {d for ids in hits[:k] for d in ids}
    return len(set(gold) & found) / len(gold) if gold else 0.0


def traced(evidence: Iterable[Sequence[str]], back: Mapping[str, str]) -> list[str]:
    """Dialogue ids that hits' evidence episodes trace back to, unique, in rank order."""
    return list(dict.fromkeys(back[e] for ev in evidence for e in ev if e in back))


@dataclass
class Tally:
    """Running sums of one system's metrics over one category."""

    ks: tuple[int, ...]
    scored: int = 0
    asked: int = 0
    recall: dict[int, float] = field(default_factory=dict)
    session_hits: int = 0
    chars: int = 0

    def add(self, gold: Sequence[str], hits: Sequence[Sequence[str]], texts: Sequence[str]) -> None:
        """Count one question: ``hits[i]`` = dialogue ids of hit i, ``texts[i]`` its text."""
        self.asked += 1
        self.chars += sum(len(t) for t in texts[:BUDGET_K])
        if not gold:
            return
        self.scored += 1
        for k in self.ks:
            self.recall[k] = self.recall.get(k, 0.0) + recall_at(gold, hits, k)
        sessions = {session_of(g) for g in gold}
        self.session_hits += any(session_of(d) in sessions for ids in hits[:SESSION_K] for d in ids)

    def summary(self) -> dict[str, float]:
        n = self.scored or 1
        out = {f"recall@{k}": round(self.recall.get(k, 0.0) / n, 4) for k in self.ks}
        out[f"session_hit@{SESSION_K}"] = round(self.session_hits / n, 4)
        out[f"chars@{BUDGET_K}"] = round(self.chars / (self.asked or 1), 1)
        return out


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


def run(
    path: Path,
    *,
    limit: int | None = None,
    ks: Sequence[int] = (1, 5, 10, 20),
    out: Callable[[str], None] = print,
    progress: bool = False,
) -> dict[str, Any]:
    """Replay LoCoMo conversations into memworks and score retrieval against BM25.

    Args:
        path: the LoCoMo JSON file (a list of conversations).
        limit: replay only the first ``limit`` conversations.
        ks: the recall depths (at most 20).
        out: where report lines go.
        progress: also report each conversation as it finishes.

    Returns:
        Per category (``"1"``..``"5"``) the question count and both systems' metrics; the
        abstention precision and recall on category 5; counts; a description of the method.
    """
    from memworks.client import Memworks
    from memworks.config import Settings

    ks = tuple(sorted(set(ks)))
    if not ks or ks[0] < 1 or ks[-1] > DEPTH:
        raise ValueError(f"ks must lie between 1 and {DEPTH}")
    conversations = load(path, limit=limit)
    systems = ("memworks", "bm25")
    tallies = {c: {s: Tally(ks) for s in systems} for c in CATEGORIES}
    counts = {c: {"n": 0, "no_evidence": 0, "bad_evidence": 0} for c in CATEGORIES}
    abstained: dict[int, int] = {c: 0 for c in CATEGORIES}
    keyed: list[tuple[int, int]] = []
    with tempfile.TemporaryDirectory(prefix="memworks-locomo-") as tmp:
        for conv in conversations:
            # A store of its own per conversation: what one conversation costs does not depend
            # on how many were replayed before it.
            settings = Settings(database_url=f"sqlite:///{Path(tmp) / conv.sample_id}.db", broker_url="stub://")
            with Memworks(settings) as mw:
                t0 = time.perf_counter()
                _replay(mw, conv)
                keyed.append(keyed_records.keyed_turns(mw, TENANT, conv.sample_id, [t.episode_id for t in conv.turns]))
                t1 = time.perf_counter()
                _ask(mw, conv, tallies, counts, abstained)
            if progress:
                out(
                    f"  {conv.sample_id}: {len(conv.turns)} turns replayed in {t1 - t0:.1f}s, "
                    f"{len(conv.questions)} questions in {time.perf_counter() - t1:.1f}s"
                )
    result = _report(conversations, tallies, counts, abstained)
    result["keyed_records"] = keyed_records.keyed_share(keyed)
    _print(result, ks, out)
    out(keyed_records.keyed_line(result["keyed_records"]))
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


def _ask(
    mw: Any,
    conv: Conversation,
    tallies: dict[int, dict[str, Tally]],
    counts: dict[int, dict[str, int]],
    abstained: dict[int, int],
) -> None:
    from memworks.models.schemas import Scope

    scope = Scope(tenant_id=TENANT, user_id=conv.sample_id)
    back = {t.episode_id: t.dia_id for t in conv.turns}
    bm25 = BM25Baseline([t.content for t in conv.turns])
    for q in conv.questions:
        c = counts[q.category]
        c["n"] += 1
        c["bad_evidence"] += len(q.bad_evidence)
        c["no_evidence"] += not q.evidence
        res = mw.retrieve(scope, q.question, k=DEPTH)
        abstained[q.category] += res.abstained
        tallies[q.category]["memworks"].add(
            q.evidence, [traced([h.evidence], back) for h in res.hits], [h.text for h in res.hits]
        )
        top = [conv.turns[i] for i in bm25.search(q.question, DEPTH)]
        tallies[q.category]["bm25"].add(q.evidence, [[t.dia_id] for t in top], [t.content for t in top])


def _report(
    conversations: Sequence[Conversation],
    tallies: dict[int, dict[str, Tally]],
    counts: dict[int, dict[str, int]],
    abstained: dict[int, int],
) -> dict[str, Any]:
    total_abstained = sum(abstained.values())
    adversarial = counts[ADVERSARIAL]["n"]
    categories = {
        str(c): {
            "name": CATEGORIES[c],
            **counts[c],
            "scored": tallies[c]["memworks"].scored,
            "abstained": abstained[c],
            **{s: t.summary() for s, t in tallies[c].items()},
        }
        for c in CATEGORIES
    }
    return {
        "categories": categories,
        "abstention": {
            "precision": round(abstained[ADVERSARIAL] / total_abstained, 4) if total_abstained else 0.0,
            "recall": round(abstained[ADVERSARIAL] / adversarial, 4) if adversarial else 0.0,
            "abstained": total_abstained,
        },
        "conversations": len(conversations),
        "questions": sum(c["n"] for c in counts.values()),
        "turns": sum(len(c.turns) for c in conversations),
        "bad_evidence": sum(c["bad_evidence"] for c in counts.values()),
        "no_evidence": sum(c["no_evidence"] for c in counts.values()),
        "method": METHOD,
    }


def _print(result: Mapping[str, Any], ks: Sequence[int], out: Callable[[str], None]) -> None:
    cols = [f"recall@{k}" for k in ks] + [f"session_hit@{SESSION_K}", f"chars@{BUDGET_K}"]
    out(f"{'category':<16}{'n':>5}  {'system':<9}" + "".join(f"{c:>15}" for c in cols))
    for key, cat in result["categories"].items():
        for system in ("memworks", "bm25"):
            m = cat[system]
            label = f"{key} {cat['name']}" if system == "memworks" else ""
            n = str(cat["scored"]) if system == "memworks" else ""
            out(f"{label:<16}{n:>5}  {system:<9}" + "".join(f"{m[c]:>15}" for c in cols))
    a = result["abstention"]
    out(
        f"abstention on category {ADVERSARIAL}: precision {a['precision']:.2f}, recall {a['recall']:.2f} "
        f"({a['abstained']} abstentions over {result['questions']} questions)"
    )


def plot(result: Mapping[str, Any], path: Path) -> Path:
    """Recall@10 per category, memworks beside BM25, as a PNG."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib.pyplot as plt

    cats = [c for c, v in result["categories"].items() if v["scored"]]
    names = [f"{c} {result['categories'][c]['name']}" for c in cats]
    fig, ax = plt.subplots(figsize=(7.2, 4))
    width = 0.38
    for i, (system, colour) in enumerate((("memworks", "tab:blue"), ("bm25", "tab:grey"))):
        values = [result["categories"][c][system]["recall@10"] for c in cats]
        xs = [x + (i - 0.5) * width for x in range(len(cats))]
        bars = ax.bar(xs, values, width, label=system, color=colour)
        ax.bar_label(bars, labels=[f"{v:.2f}" for v in values], fontsize=8)
    ax.set_xticks(range(len(cats)), names)
    ax.set_ylabel("evidence recall@10")
    ax.set_ylim(0, 1.05)
    ax.set_title(
        f"LoCoMo evidence retrieval ({result['conversations']} conversations, {result['questions']} questions)"
    )
    ax.legend(loc="upper right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
