"""Time in questions and records: the period a question names, whether it asks *when*, and the
event time a record's words give.

Pure: the question time (``asked_at``) and a record's anchor arrive as arguments. Expressions
are found by :mod:`memworks.pipelines.extraction.dates.timeparse` (the extractor's reader, so a
question and a record agree on what "last May" means); this module adds the width of the
period ("in May 2023" is the whole month, "on 8 May 2023" one day) and before/after bounds.
"""

from __future__ import annotations

import re
from calendar import monthrange
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from memworks.pipelines.extraction.dates.timeparse import TimeMatch, find_time, find_times
from memworks.pipelines.text.spans import TITLES, split_speaker
from memworks.pipelines.text.terms import terms

__all__ = [
    "MAX_PHRASES",
    "TimeRange",
    "answer_time",
    "asks_when",
    "event_time",
    "interval_match",
    "question_range",
    "range_match",
]

#: How far back "recently" reaches (days).
RECENT_DAYS = 30
#: Most time expressions read from one question (a question names one period, two at most).
MAX_PHRASES = 8

_WHEN = re.compile(
    r"^\s*(?:when\b|what\s+(?:date|day|year|month|time)\b|which\s+(?:date|day|year|month|week)\b"
    r"|(?:in|on)\s+(?:which|what)\s+(?:date|day|year|month)\b|how\s+long\s+ago\b|since\s+when\b"
    r"|how\s+long\s+(?:has|have|had|did|was|were)\b)",
    re.IGNORECASE,
)
_RECENT = re.compile(r"\b(?:recently|lately|these\s+days|nowadays)\b", re.IGNORECASE)
_JUST_BEFORE = re.compile(r"\b(?:before|prior\s+to)\s+(?:the\s+)?$", re.IGNORECASE)
_JUST_AFTER = re.compile(r"\bafter\s+(?:the\s+)?$", re.IGNORECASE)
_UNTIL = re.compile(r"\b(?:until|till|by|as\s+of)\s+(?:the\s+)?$", re.IGNORECASE)
_SINCE = re.compile(r"\b(?:since|from)\s+(?:the\s+)?$", re.IGNORECASE)
_DAY_WORDS = re.compile(
    r"\b(?:\d{1,2}(?:st|nd|rd|th)?\b|today|tonight|yesterday|tomorrow|last\s+night|morning|afternoon|evening"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d{4}[-/]\d{1,2}[-/]\d{1,2})",
    re.IGNORECASE,
)
_WEEK = re.compile(r"\bweek(?:end)?s?\b", re.IGNORECASE)
_MONTH_WORDS = re.compile(
    r"\b(?:months?|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_YEAR_WORDS = re.compile(r"\b(?:years?|decades?|(?:19|20)\d\d)\b", re.IGNORECASE)


@dataclass(frozen=True)
class TimeRange:
    """A half-open period ``[start, end)`` a question names, and the words it was read from."""

    start: datetime
    end: datetime
    phrase: str

    @property
    def days(self) -> float:
        return max((self.end - self.start).total_seconds() / 86400, 1.0)


def asks_when(query: str) -> bool:
    """The question asks for a time ("When did…", "What year…", "How long ago…")."""
    return _WHEN.search(query) is not None


def question_range(query: str, asked_at: datetime) -> TimeRange | None:
    """The period ``query`` names, resolved against the time it was asked, or None.

    "in May 2023" → that month; "on 8 May 2023" → that day; "last year" → the previous calendar
    year; "two weeks ago" → about that week; "recently" → the last 30 days; "before June 2023" →
    everything up to June 2023. A past reading is preferred: questions ask about what happened.
    """
    found = _most_specific(query, asked_at)
    if found is None:
        if _RECENT.search(query):
            return TimeRange(asked_at - timedelta(days=RECENT_DAYS), asked_at + timedelta(days=1), "recently")
        return None
    start, end = _period(found.when, found.phrase)
    at = query.find(found.phrase)
    # The words leading up to the expression, and its own leading preposition ("since 2016").
    before = query[:at] if at >= 0 else ""
    lead = found.phrase.split()[0].lower() + " "
    near = max(timedelta(days=7), end - start)
    tz = asked_at.tzinfo
    if _JUST_BEFORE.search(before):  # "the weekend before 4 October": shortly before
        return TimeRange(start - near, end, found.phrase)
    if _JUST_AFTER.search(before):
        return TimeRange(start, end + near, found.phrase)
    if _UNTIL.search(before) or _UNTIL.match(lead):  # "as of September 2023": everything up to then
        return TimeRange(datetime.min.replace(tzinfo=tz), end, found.phrase)
    if _SINCE.search(before) or _SINCE.match(lead):
        return TimeRange(start, datetime.max.replace(tzinfo=tz), found.phrase)
    return TimeRange(start, end, found.phrase)


def _most_specific(query: str, asked_at: datetime) -> TimeMatch | None:
    """Of the first :data:`MAX_PHRASES` time expressions in ``query``, the first that names a
    year, else the first ("the Monday before July 24, 2023" is about July 2023, not the last Monday).

    Each expression is looked for after the one before, over the rest of the text: at most
    :data:`MAX_PHRASES` passes, so the cost grows linearly with the question's length.
    """
    first = found = find_time(query, asked_at)
    text, read = query, 1
    while found is not None:
        if _YEAR.search(found.phrase):
            return found
        if read >= MAX_PHRASES:
            break
        text = text[text.find(found.phrase) + len(found.phrase) :]
        found, read = find_time(text, asked_at), read + 1
    return first


def _period(when: datetime, phrase: str) -> tuple[datetime, datetime]:
    """The calendar period around ``when`` that ``phrase`` names (day, week, month or year)."""
    day = datetime.combine(when.date(), time(), tzinfo=when.tzinfo)
    if _DAY_WORDS.search(phrase) and not _WEEK.search(phrase):
        return day, day + timedelta(days=1)
    if _WEEK.search(phrase):
        return day - timedelta(days=3), day + timedelta(days=4)
    if _MONTH_WORDS.search(phrase):
        first = day.replace(day=1)
        return first, first + timedelta(days=monthrange(first.year, first.month)[1])
    if _YEAR_WORDS.search(phrase):
        return day.replace(month=1, day=1), day.replace(year=day.year + 1, month=1, day=1)
    return day, day + timedelta(days=1)


def event_time(text: str, anchor: datetime) -> datetime | None:
    """When the event a record tells of happened, read from its words ("yesterday" said on
    8 May → 7 May), or None when its words name no time (the record's own time stands)."""
    _, body = split_speaker(text)
    found = find_time(body, anchor)
    return found.when if found else None


def interval_match(r: TimeRange, start: datetime, end: datetime | None) -> float:
    """:func:`range_match` for a state that held over ``[start, end)`` (``end`` None: still
    holds): 1 when it held at some time in the period."""
    if start < r.end and (end is None or end > r.start):
        return 1.0
    return range_match(r, end if end is not None and end <= r.start else start)


def range_match(r: TimeRange, t: datetime) -> float:
    """1 inside the period, falling linearly to 0 one period-width outside it."""
    if r.start <= t < r.end:
        return 1.0
    gap = (r.start - t) if t < r.start else (t - r.end)
    return max(0.0, 1.0 - gap.total_seconds() / 86400 / r.days)


#: A sentence ends at its stop, but not at a title's or an initial's ("Dr. Feldman", "K. Le Guin").
_SENTENCE_BREAK = re.compile("".join(rf"(?<!\b{t})" for t in TITLES) + r"(?<!\b[A-Z])[.!?]+(?=\s)|\n")
#: Question words that tell no event: pronouns, and "again".
_NOT_ASKED = frozenset({"her", "his", "him", "she", "he", "they", "them", "their", "it", "its", "our", "your", "again"})
#: Where a sentence's clauses part: punctuation, and the words that begin another clause.
_CLAUSE_BREAK = re.compile(r"[,;:()\u2014\u2013]|\s-\s|\b(?:and|but|so|which|while|because|though|then)\b", re.I)
_WORD = re.compile(r"[\w'-]+")


def _part(breaks: re.Pattern[str], text: str, lo: int, hi: int, at: int) -> tuple[int, int]:
    """The stretch of ``text[lo:hi]`` between two ``breaks`` that holds position ``at``."""
    start, end = lo, hi
    for m in breaks.finditer(text, lo, hi):
        if m.end() <= at:
            start = m.end()
        elif m.start() > at:
            end = m.start()
            break
    return start, end


def answer_time(text: str, question: str, anchor: datetime) -> datetime | None:
    """Of the several times a record's words name, the one told of what ``question`` asks
    ("When does Jonas go on parental leave?" of "I'll write the deploy job today. I'm on parental
    leave from Monday 26 May"), or None when they name fewer than two or none beside its words.

    A time is told of the question's words in its own clause ("launch is locked for Monday 2
    June", not "the demo of the api is Tuesday the 20th"), else in its sentence, nearer the
    better. A later word of the question weighs more: the event asked of comes after whose it
    is ("walkies-api launch", "Ren's volcano project due").
    """
    _, body = split_speaker(text)
    times = find_times(body, anchor)
    if len(times) < 2:
        return None
    asked = [t for t in dict.fromkeys(terms(question)) if t not in _NOT_ASKED]
    weight = {t: float(i + 1) for i, t in enumerate(asked)}
    words = [(m.start(), t) for m in _WORD.finditer(body) for t in terms(m[0]) if t in weight]
    best, best_score = None, (0.0, 0.0)
    for start, end, when in times:
        sentence = _part(_SENTENCE_BREAK, body, 0, len(body), start)
        lo, hi = _part(_CLAUSE_BREAK, body, *sentence, start)
        own = {t for at, t in words if lo <= at < hi and not start <= at < end}
        near = sum(
            weight[t] / (1 + len(_WORD.findall(body[min(at, end) : max(at, start)])))
            for at, t in words
            if sentence[0] <= at < sentence[1] and not start <= at < end
        )
        score = (sum(weight[t] for t in own), near)
        if score > best_score:
            best, best_score = when, score
    return best
