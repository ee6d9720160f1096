"""The deterministic reader of ``memworks eval longmemeval``: the temporal question forms it
handles, the dating of an event phrase from retrieved hits (memworks' own time parser, anchored
at a hit's ``valid_from``), and the grading of a temporal answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memworks.pipelines.extraction.clauses import ABBREVIATIONS
from memworks.pipelines.extraction.dates.timeparse import find_time, resolve_time
from memworks.pipelines.text.terms import terms
from memworks_tools.evaluation.longmemeval.data import Case

__all__ = ["Dated", "date_event", "grade_temporal", "question_form", "sentences", "supported"]

_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("order", re.compile(r"\bfirst\b[^,]*,\s*(?:the\s+)?(.+?)\s+or\s+(?:the\s+)?(.+?)\?*$", re.I)),
    (
        "days_between",
        re.compile(r"\bhow many days (?:had |have )?passed between (?:the )?(.+?) and (?:the )?(.+?)\?*$", re.I),
    ),
    ("days_before", re.compile(r"\bhow many days before (?:the )?(.+?) did i (.+?)\?*$", re.I)),
    ("months_ago", re.compile(r"\bhow many months ago did i (.+?)\?*$", re.I)),
    ("date_of", re.compile(r"\bwhat was the date on which i (.+?)\?*$", re.I)),
)
_NUMBER_WORDS = {
    w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())
}


@dataclass(frozen=True)
class Dated:
    """An event phrase located in a retrieved record and dated."""

    phrase: str
    when: datetime
    sentence: str
    memory_id: str
    rank: int
    overlap: int


def question_form(question: str) -> tuple[str, tuple[str, ...]] | None:
    """The temporal question's form and its event phrases, or None for forms not handled."""
    for form, rx in _FORMS:
        if m := rx.search(question.strip()):
            return form, tuple(p.strip(" '\"") for p in m.groups())
    return None


def sentences(text: str) -> list[str]:
    """``text`` split into sentences; "St. Mary's" and "e.g." do not end one."""
    out, start = [], 0
    for m in re.finditer(r"[.!?]+(?=\s|$)|\n+", text):
        words = text[start : m.start()].split()
        if m[0] == "." and words and words[-1].lower() in ABBREVIATIONS:
            continue
        out.append(text[start : m.end()].strip())
        start = m.end()
    out.append(text[start:].strip())
    return [x for x in out if x]


def supported(phrase_terms: set[str], overlap: int) -> bool:
    """A sentence supports an event phrase when it holds more than half of the phrase's terms."""
    return bool(phrase_terms) and overlap > len(phrase_terms) / 2


def date_event(phrase: str, hits: Sequence[Any], *, text_dates: bool = True) -> Dated | None:
    """Locate ``phrase`` in retrieved ``hits`` (best first) and date it, or None.

    A span is one sentence, or a sentence and the next one ("I got the Dell XPS 13. I ordered
    it on January 28th."). The span holding most of the phrase's terms wins, then the shorter
    span, then the better-ranked hit, then the earlier span. With ``text_dates`` only spans
    with a time expression count, dated by memworks' time parser (its first sentence that has
    one, anchored at the hit's ``valid_from``); without, the hit's ``valid_from`` is the date.
    """
    want = set(terms(phrase))
    best: tuple[int, int, int, int] | None = None
    found: Dated | None = None
    for rank, hit in enumerate(hits):
        parts = sentences(hit.text)
        for si in range(len(parts)):
            for width in (1, 2):
                if si + width > len(parts):
                    continue
                span = " ".join(parts[si : si + width])
                overlap = len(want & set(terms(span)))
                key = (-overlap, width, rank, si)
                if not supported(want, overlap) or (best is not None and key >= best):
                    continue
                # Each sentence is parsed on its own: a future marker in one ("I'll need ...")
                # must not turn the next one's "January 28th" into next year's.
                when: datetime | None = hit.valid_from
                if text_dates:
                    found_at = (find_time(p, hit.valid_from) for p in parts[si : si + width])
                    when = next((t.when for t in found_at if t is not None), None)
                if when is None:
                    continue
                best = key
                found = Dated(phrase, when, span, hit.memory_id, rank, overlap)
    return found


def _number(text: str) -> int | None:
    if m := re.search(r"\d+", text):
        return int(m[0])
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in _NUMBER_WORDS:
            return _NUMBER_WORDS[word]
    return None


def _option_named(answer: str, options: Sequence[str]) -> int | None:
    said = set(terms(answer))
    scores = [len(said & set(terms(o))) for o in options]
    top = max(scores)
    return scores.index(top) if top and scores.count(top) == 1 else None


def grade_temporal(case: Case, form: str, events: Sequence[Dated]) -> tuple[bool, str, str]:
    """(passed, predicted answer, reason) for a temporal question whose events are all dated."""
    if form == "order":
        a, b = events
        if a.when.date() == b.when.date():
            return False, "", f"both events dated {a.when.date()}: order unknown"
        first = 0 if a.when < b.when else 1
        gold = _option_named(case.answer, [e.phrase for e in events])
        if gold is None:
            return False, events[first].phrase, f"the answer {case.answer!r} names neither option clearly"
        dates = f"{a.when.date()} vs {b.when.date()}"
        return first == gold, events[first].phrase, f"{dates}; answer names {events[gold].phrase!r}"
    if form in ("days_between", "days_before"):
        days = abs((events[1].when.date() - events[0].when.date()).days)
        gold_days = _number(case.answer)
        ok = gold_days is not None and abs(days - gold_days) <= 1
        return ok, f"{days} days", f"{events[0].when.date()} → {events[1].when.date()} = {days} days, gold {gold_days}"
    if form == "months_ago":
        when, asked = events[0].when, case.question_date
        months = (asked.year - when.year) * 12 + asked.month - when.month
        gold_months = _number(case.answer)
        return gold_months == months, f"{months} months", f"{when.date()} → {asked.date()}, gold {gold_months}"
    when = events[0].when
    gold_when = resolve_time(case.answer, case.question_date)
    if gold_when is None:
        return False, str(when.date()), f"the answer {case.answer!r} holds no date"
    ok = abs((when.date() - gold_when.date()).days) <= 1
    return ok, str(when.date()), f"dated {when.date()}, gold {gold_when.date()}"
