"""``memworks eval longmemeval``: temporal reasoning, knowledge updates and abstention on real questions.

Each question's haystack sessions are replayed, in date order, into a scope of its own: user turns
as the user's words, assistant turns as model inference (kept as untrusted transcripts, never
durable facts). A deterministic reader then answers from what memworks returns:

* temporal questions of a known form ("which ... first, A or B", "how many days between A and
  B", "how many days before A did I B", "how many months ago did I A", "what was the date on
  which I A"): each event is looked up with ``retrieve``; the retrieved sentence that names most
  of the event's terms and holds a time expression is dated with memworks' own time parser,
  anchored at the record's ``valid_from``. A second reader uses ``valid_from`` alone, which is
  what the records themselves carry. Other forms are reported as not handled, and fail.
* knowledge updates: the newer value must be current and the older one closed (superseded,
  ``valid_to`` set) in ``memories(include_history=True)``.
* abstention (``_abs``): memworks abstains, or the reader finds no retrieved, dated sentence for
  some event of the question (graded as abstained).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from memworks_tools.evaluation.longmemeval.data import TENANT, Case, episodes_for, load, parse_case, parse_date
from memworks_tools.evaluation.longmemeval.reader import (
    Dated,
    date_event,
    grade_temporal,
    question_form,
    sentences,
    supported,
)

__all__ = [
    "METHOD",
    "READ_K",
    "SESSION_K",
    "TENANT",
    "Case",
    "Dated",
    "date_event",
    "episodes_for",
    "grade_temporal",
    "load",
    "parse_case",
    "parse_date",
    "question_form",
    "run",
    "sentences",
    "supported",
]

#: Hits read per event lookup.
READ_K = 10
#: Rank depth at which a question's retrieval must reach an answer session.
SESSION_K = 5
METHOD = (
    "Each question's haystack sessions replayed in date order into a scope of its own (embedded store, rules "
    "extractor): user turns role user / source user, assistant turns role assistant / source model_inference "
    "(untrusted transcripts, never retrieved in present reads); session dates as UTC, turns one second apart. "
    "Temporal questions of five forms are answered deterministically: each event phrase is looked up with "
    "retrieve(k=10); the retrieved sentence (or sentence pair) with a time expression that holds more than half "
    "of the phrase's index terms (most terms first, then single sentences, then rank) is dated with memworks' "
    "timeparse anchored at the record's "
    "valid_from. Day counts pass within one day; 'which first' passes when the earlier event is the option the "
    "answer names. The valid_from reader takes the best-matching record's valid_from instead. Knowledge "
    "updates pass when an active keyed record holds the new value and a superseded one of the same key has "
    "valid_to set. Abstention passes when retrieve abstains or some event has no supported dated sentence."
)


def run(paths: Sequence[Path], *, out: Callable[[str], None] = print) -> dict[str, Any]:
    """Replay LongMemEval questions into memworks and grade each deterministically.

    Returns:
        ``temporal`` (``n``, ``correct``, ``accuracy``) for the text-date reader and
        ``temporal_valid_from`` for the valid_from reader, ``knowledge_update``,
        ``abstention``, and every case with its verdict and reason.
    """
    from memworks.client import Memworks
    from memworks.config import Settings

    cases = load(paths)
    results = []
    with tempfile.TemporaryDirectory(prefix="memworks-longmemeval-") as tmp:
        settings = Settings(database_url=f"sqlite:///{Path(tmp) / 'longmemeval.db'}", broker_url="stub://")
        with Memworks(settings) as mw:
            for case in cases:
                for batch in episodes_for(case):
                    mw.enqueue_episodes(batch)
                    mw.drain()
                results.append(_judge(mw, case))
                r = results[-1]
                out(f"  {'PASS' if r['passed'] else 'FAIL'} {case.question_id:<20} {r['kind']:<16} {r['reason']}")
    report: dict[str, Any] = {
        "temporal": _score(r for r in results if r["kind"] == "temporal"),
        "temporal_valid_from": _score(
            {"passed": r["valid_from_reader"]["passed"]} for r in results if r["kind"] == "temporal"
        ),
        "knowledge_update": _score(r for r in results if r["kind"] == "knowledge_update"),
        "abstention": _score(r for r in results if r["kind"] == "abstention"),
        "cases": results,
        "method": METHOD,
    }
    for name in ("temporal", "temporal_valid_from", "knowledge_update", "abstention"):
        s = report[name]
        out(f"{name}: {s['correct']}/{s['n']} ({s['accuracy']:.2f})")
    return report


def _score(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    passed = [bool(r["passed"]) for r in rows]
    return {
        "n": len(passed),
        "correct": sum(passed),
        "accuracy": round(sum(passed) / len(passed), 4) if passed else 0.0,
    }


def _judge(mw: Any, case: Case) -> dict[str, Any]:
    from memworks.models.schemas import Scope

    scope = Scope(tenant_id=TENANT, user_id=case.question_id)
    res = mw.retrieve(scope, case.question, k=READ_K, asked_at=case.question_date)
    sessions = {f"{case.question_id}-{sid}-" for sid in case.answer_session_ids}
    session_hit = any(e.startswith(tuple(sessions)) for h in res.hits[:SESSION_K] for e in h.evidence)
    row: dict[str, Any] = {
        "question_id": case.question_id,
        "question_type": case.question_type,
        "question": case.question,
        "answer": case.answer,
        "abstained": res.abstained,
        f"session_hit@{SESSION_K}": session_hit,
    }
    if case.abstention:
        row["kind"] = "abstention"
        row.update(_abstention(mw, scope, case, res.abstained))
    elif case.question_type == "knowledge-update":
        row["kind"] = "knowledge_update"
        row.update(_knowledge_update(mw, scope, case, res))
    elif case.question_type == "temporal-reasoning":
        row["kind"] = "temporal"
        row.update(_temporal(mw, scope, case, text_dates=True))
        row["valid_from_reader"] = _temporal(mw, scope, case, text_dates=False)
    else:
        row.update(kind="other", passed=False, reason=f"question type {case.question_type!r} is not graded")
    return row


def _lookup(mw: Any, scope: Any, phrase: str, *, text_dates: bool) -> Dated | None:
    hits = mw.retrieve(scope, phrase, k=READ_K).hits
    return date_event(phrase, hits, text_dates=text_dates)


def _temporal(mw: Any, scope: Any, case: Case, *, text_dates: bool) -> dict[str, Any]:
    parsed = question_form(case.question)
    if parsed is None:
        return {
            "passed": False,
            "form": None,
            "predicted": None,
            "reason": "question form not handled by the deterministic reader",
        }
    form, phrases = parsed
    events = [_lookup(mw, scope, p, text_dates=text_dates) for p in phrases]
    found = [e for e in events if e is not None]
    evidence = [
        {"phrase": e.phrase, "date": str(e.when.date()), "sentence": e.sentence[:200], "rank": e.rank} for e in found
    ]
    missing = [p for p, e in zip(phrases, events, strict=True) if e is None]
    if missing:
        return {
            "passed": False,
            "form": form,
            "predicted": None,
            "events": evidence,
            "reason": f"no retrieved sentence supports and dates {missing[0]!r}",
        }
    passed, predicted, reason = grade_temporal(case, form, found)
    return {"passed": passed, "form": form, "predicted": predicted, "events": evidence, "reason": reason}


def _abstention(mw: Any, scope: Any, case: Case, abstained: bool) -> dict[str, Any]:
    if abstained:
        return {"passed": True, "predicted": "abstained", "reason": "retrieve abstained"}
    parsed = question_form(case.question)
    if parsed is None:
        return {"passed": False, "predicted": None, "reason": "retrieve answered and the question form is not handled"}
    events = {p: _lookup(mw, scope, p, text_dates=True) for p in parsed[1]}
    missing = [p for p, e in events.items() if e is None]
    if missing:
        return {
            "passed": True,
            "predicted": "abstained",
            "reason": f"retrieve answered, but no retrieved sentence supports and dates {missing[0]!r}: "
            "graded as abstained",
        }
    dated = ", ".join(f"{p!r} on {e.when.date()}" for p, e in events.items() if e is not None)
    return {"passed": False, "predicted": dated, "reason": f"answered an unanswerable question: {dated}"}


def _answer_values(answer: str) -> list[str]:
    return re.findall(r"\d+(?::\d+)+", answer) or [answer.split("(")[0].strip()]


def _knowledge_update(mw: Any, scope: Any, case: Case, res: Any) -> dict[str, Any]:
    values = _answer_values(case.answer)
    history = mw.memories(scope, include_history=True)
    keyed = [m for m in history if m.key]
    keys = sorted({m.key for m in keyed})
    current = [m for m in keyed if m.status == "active" and any(v in m.value or v in m.text for v in values)]
    closed = [
        m for m in keyed if m.status == "superseded" and m.valid_to is not None and any(m.key == c.key for c in current)
    ]
    rank = next((i for i, h in enumerate(res.hits) if any(v in h.text for v in values)), None)
    seen = (
        f"retrieve ranks the new value {values[0]!r} at hit {rank + 1}"
        if rank is not None
        else (f"no retrieved hit holds {values[0]!r}")
    )
    row: dict[str, Any] = {
        "keys": keys,
        "top_hits": [f"{h.valid_from:%Y-%m-%d %H:%M} {h.text[:160]}" for h in res.hits[:3]],
    }
    if current and closed:
        now, old = current[0], closed[0]
        return row | {
            "passed": True,
            "predicted": now.value,
            "reason": f"{now.key} = {now.value!r} current, {old.value!r} closed at {old.valid_to}; {seen}",
        }
    if current:
        why = f"{current[0].key} holds the new value but no older value of it was closed"
    else:
        why = (
            f"no keyed record holds {values[0]!r} (keys in this scope: {', '.join(keys) or 'none'}): the update is "
            "not tracked in a slot, so nothing can be superseded"
        )
    predicted = res.hits[rank].text[:200] if rank is not None else None
    return row | {"passed": False, "predicted": predicted, "reason": f"{why}; {seen}"}
