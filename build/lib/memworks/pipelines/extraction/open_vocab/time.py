"""Relative times of open-vocabulary statements, resolved against the episode time.

Three readers, the earliest expression in the clause wins:

1. :func:`memworks.pipelines.extraction.dates.timeparse.find_time` (days, weekdays, months, "N units
   ago", "last/next weekend", "next October", ...);
2. rules for what it and dateparser both miss: seasons ("last summer", "next spring", "this
   winter"), holidays ("last Christmas", "on Thanksgiving", "Black Friday"), "this/earlier
   this week|month|year", "the week before last", "N weekends ago";
3. dateparser 1.5.0, only on time phrases the parse isolated ("a fortnight ago"), English
   only, relative to the anchor, never over whole sentences (it reads "We" as Wednesday).

Seasons are meteorological and northern: spring from 1 March, summer 1 June, autumn 1
September, winter 1 December. "last <season>" is the latest one that has ended, "next" the
first one that has not begun, "this" the one of the anchor's year (the coming one in a future
sentence). Every result carries its granularity, which decides how the date is written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from memworks.pipelines.extraction.dates.timeparse import find_time, upcoming_at
from memworks.pipelines.extraction.open_vocab.lexicon import SEASONS

__all__ = ["TimeRead", "read_time", "written"]

_MONTH_NAMES = ("January February March April May June July August September October November December").split()


@dataclass(frozen=True, slots=True)
class TimeRead:
    """A resolved time: the day it starts, the words it was read from, its granularity."""

    when: datetime
    phrase: str
    #: "day" | "weekend" | "week" | "month" | "season" | "year"
    granularity: str


def written(t: TimeRead) -> str:
    """The resolved time in words ("on 7 May 2023", "in April 2023", "in summer 2022")."""
    d = t.when.date()
    if t.granularity == "year":
        return f"in {d.year}"
    if t.granularity == "season":
        name = next(s for s, m in SEASONS.items() if m == d.month and s != "fall")
        return f"in {name} {d.year}" if name != "winter" else f"in winter {d.year}-{(d.year + 1) % 100:02d}"
    if t.granularity == "month":
        return f"in {_MONTH_NAMES[d.month - 1]} {d.year}"
    if t.granularity == "weekend":
        return f"on the weekend of {d.day} {_MONTH_NAMES[d.month - 1]} {d.year}"
    if t.granularity == "week":
        return f"in the week of {d.day} {_MONTH_NAMES[d.month - 1]} {d.year}"
    return f"on {d.day} {_MONTH_NAMES[d.month - 1]} {d.year}"


def _day(anchor: datetime, d: date) -> datetime:
    return datetime.combine(d, time(), tzinfo=anchor.tzinfo)


def _granularity(phrase: str) -> str:
    p = phrase.lower()
    if re.search(r"\b(?:years?|decades?)\b|\b(?:19|20)\d\d\b(?!\s*[-/])", p) and not re.search(
        r"\b(?:" + "|".join(m.lower() for m in _MONTH_NAMES) + r")\b", p
    ):
        return "year"
    if re.search(r"\bmonths?\b", p) or (
        re.search(r"\b(?:" + "|".join(m.lower()[:3] for m in _MONTH_NAMES) + r")[a-z]*\b", p)
        and not re.search(r"\d{1,2}(?:st|nd|rd|th)?\b", p)
    ):
        return "month"
    if "weekend" in p:
        return "weekend"
    if re.search(r"\bweeks?\b", p) and not re.search(r"\bweeks?\s+ago\b", p):
        return "week"
    return "day"


# --- seasons and holidays --------------------------------------------------------------------

_SEASON = re.compile(
    r"\b(?:(?P<mod>last|this|next|past|coming|the)\s+)?(?P<s>spring|summer|autumn|fall|winter)\b", re.IGNORECASE
)


def _season(m: re.Match[str], anchor: datetime, future: bool) -> datetime | None:
    mod, month = (m["mod"] or "").lower(), SEASONS[m["s"].lower()]
    if not mod:
        return None  # "I love summer" names no time
    today = anchor.date()
    starts = [date(y, month, 1) for y in range(today.year - 2, today.year + 2)]
    current = max(s for s in starts if s <= today)
    in_it = today < _add_months(current, 3)
    if mod in ("last", "past"):
        return _day(anchor, current if not in_it else date(current.year - 1, month, 1))
    if mod in ("next", "coming"):
        return _day(anchor, min(s for s in starts if s > today))
    if in_it:
        return _day(anchor, current)
    if future or mod == "the":
        return _day(anchor, min(s for s in starts if s > today)) if future else _day(anchor, current)
    return _day(anchor, date(today.year, month, 1) if month <= today.month else current)


def _add_months(d: date, n: int) -> date:
    y, m = divmod(d.year * 12 + d.month - 1 + n, 12)
    return date(y, m + 1, 1)


def _easter(year: int) -> date:
    """Western Easter Sunday (the anonymous Gregorian algorithm)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l_) // 451
    month, day = divmod(h + l_ - 7 * m + 114, 31)
    return date(year, month, day + 1)


def _thanksgiving(year: int) -> date:
    first = date(year, 11, 1)
    return first + timedelta(days=(3 - first.weekday()) % 7 + 21)


_SMALL = {"two": 2, "three": 3, "four": 4}
_HOLIDAYS = {
    "christmas eve": lambda y: date(y, 12, 24),
    "christmas": lambda y: date(y, 12, 25),
    "xmas": lambda y: date(y, 12, 25),
    "new year's eve": lambda y: date(y, 12, 31),
    "new years eve": lambda y: date(y, 12, 31),
    "new year's day": lambda y: date(y, 1, 1),
    "new year's": lambda y: date(y, 1, 1),
    "halloween": lambda y: date(y, 10, 31),
    "valentine's day": lambda y: date(y, 2, 14),
    "valentines day": lambda y: date(y, 2, 14),
    "fourth of july": lambda y: date(y, 7, 4),
    "independence day": lambda y: date(y, 7, 4),
    "thanksgiving": _thanksgiving,
    "black friday": lambda y: _thanksgiving(y) + timedelta(days=1),
    "easter": _easter,
}
_HOLIDAY = re.compile(
    r"\b(?:(?P<n>a|one|two|three|\d{1,2})\s+(?P<unit>days?|weeks?)\s+(?P<dir>before|after)\s+)?"
    r"(?:(?P<mod>last|this|next|past|on|at|over|for|during)\s+)?(?P<h>"
    + "|".join(re.escape(h).replace("'", "'?").replace(r"\ ", r"\s+") for h in sorted(_HOLIDAYS, key=len, reverse=True))
    + r")\b",
    re.IGNORECASE,
)


def _holiday(m: re.Match[str], anchor: datetime, future: bool) -> datetime | None:
    name = " ".join(m["h"].lower().replace("'", "").split())
    fn = next(f for k, f in _HOLIDAYS.items() if k.replace("'", "") == name)
    mod, today = (m["mod"] or "").lower(), anchor.date()
    shift = timedelta()
    if m["n"]:  # "a week before Black Friday"
        n = 1 if m["n"].lower() in ("a", "one") else _SMALL.get(m["n"].lower()) or int(m["n"])
        shift = timedelta(days=n * (7 if m["unit"].lower().startswith("w") else 1))
        shift = -shift if m["dir"].lower() == "before" else shift
    days = [fn(y) + shift for y in range(today.year - 1, today.year + 2)]
    if mod == "next" or (future and mod != "last"):
        return _day(anchor, min(d for d in days if d > today))
    if mod in ("last", "past"):
        return _day(anchor, max(d for d in days if d < today))
    if mod == "this":
        return _day(anchor, next(d for d in days if d.year == today.year))
    return _day(anchor, max(d for d in days if d <= today))


_THIS = re.compile(r"\b(?P<early>earlier\s+|early\s+)?this\s+(?P<p>week|month|year)\b", re.IGNORECASE)


def _this_period(m: re.Match[str], anchor: datetime, future: bool) -> datetime | None:
    today, p = anchor.date(), m["p"].lower()
    if p == "week":
        return _day(anchor, today - timedelta(days=today.weekday()))
    return _day(anchor, date(today.year, today.month if p == "month" else 1, 1))


_BEFORE_LAST = re.compile(r"\bthe\s+(?P<p>week|month|year)\s+before\s+last\b", re.IGNORECASE)
_WEEKENDS_AGO = re.compile(r"\b(?P<n>two|three|four|\d)\s+weekends\s+ago\b", re.IGNORECASE)


def _before_last(m: re.Match[str], anchor: datetime, future: bool) -> datetime | None:
    today, p = anchor.date(), m["p"].lower()
    if p == "week":
        return _day(anchor, today - timedelta(days=today.weekday() + 14))
    if p == "month":
        return _day(anchor, _add_months(today, -2))
    return _day(anchor, date(today.year - 2, 1, 1))


def _weekends_ago(m: re.Match[str], anchor: datetime, future: bool) -> datetime | None:
    n = int(m["n"]) if m["n"].isdigit() else _SMALL[m["n"].lower()]
    today = anchor.date()
    back = (today.weekday() - 5) % 7 or 7
    return _day(anchor, today - timedelta(days=back + 7 * (n - 1)))


_OWN = (
    (_SEASON, _season, "season"),
    (_HOLIDAY, _holiday, "day"),
    (_THIS, _this_period, ""),
    (_BEFORE_LAST, _before_last, ""),
    (_WEEKENDS_AGO, _weekends_ago, "weekend"),
)


# --- the reader ------------------------------------------------------------------------------

_DAY_NAMES = {d[:3].lower(): d for d in ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")}
_ABBREVIATED_DAY = re.compile(
    r"\b(?P<mod>last|next|this|on|past|coming)\s+(?P<day>mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\b\.?", re.IGNORECASE
)


def read_time(
    text: str, anchor: datetime, *, phrases: Sequence[str] = (), future: bool | None = None
) -> TimeRead | None:
    """The first time expression of ``text`` resolved against ``anchor``, or None.

    Args:
        text: the clause (not the whole turn: a time belongs to the clause that says it).
        anchor: the episode's ``occurred_at``.
        phrases: time phrases the parse isolated, tried with dateparser when nothing else reads.
        future: read ambiguous dates ("in June", "on Tuesday") as coming (True) or past (False);
            by default each one from the tense of its clause in ``text`` (see ``timeparse``).
    """
    original = text
    text = _ABBREVIATED_DAY.sub(lambda m: f"{m['mod']} {_DAY_NAMES[m['day'].lower()[:3]]}", text)
    if text != original:  # "last Tues" → "last Tuesday", read, then named as written
        read = read_time(text, anchor, phrases=phrases, future=future)
        short = _ABBREVIATED_DAY.search(original)
        if read is None or short is None:
            return None
        full = f"{short['mod']} {_DAY_NAMES[short['day'].lower()[:3]]}"
        return TimeRead(read.when, read.phrase.replace(full, short[0].rstrip(".")), read.granularity)
    hits: list[tuple[int, TimeRead]] = []
    if found := find_time(text, anchor, future=future):
        hits.append((text.find(found.phrase), TimeRead(found.when, found.phrase, _granularity(found.phrase))))
    for rx, resolve, granularity in _OWN:
        for m in rx.finditer(text):
            upcoming = future if future is not None else bool(upcoming_at(text, m.start(), m.end()))
            if (when := resolve(m, anchor, upcoming)) is not None:
                hits.append((m.start(), TimeRead(when, m[0].strip(), granularity or _granularity(m[0]))))
                break
    if hits:
        return min(hits, key=lambda h: (h[0], -len(h[1].phrase)))[1]
    for phrase in phrases:
        at = max(text.find(phrase), 0)
        upcoming = future if future is not None else bool(upcoming_at(text, at, at + len(phrase)))
        if when := _dateparser(phrase, anchor, upcoming):
            return TimeRead(when, phrase, _granularity(phrase))
    return None


def _dateparser(phrase: str, anchor: datetime, future: bool) -> datetime | None:
    import dateparser  # type: ignore[import-untyped]

    settings = {
        "RELATIVE_BASE": anchor.replace(tzinfo=None),
        "PREFER_DATES_FROM": "future" if future else "past",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    got = dateparser.parse(phrase, languages=["en"], settings=settings)
    if not isinstance(got, datetime) or abs((got - anchor.replace(tzinfo=None)).days) > 366 * 30:
        return None
    return _day(anchor, got.date())
