"""Find a time expression in a sentence and resolve it against an anchor (the episode time).

Pure and deterministic: no clock is read, everything is relative to ``anchor`` and keeps its
``tzinfo``. Day-level expressions resolve to local midnight of the day; ``N hours/minutes ago``
keeps the anchor's clock time.

Supported (case-insensitive):

==============================================  ==============================================
expression                                      resolves to
==============================================  ==============================================
today, tonight, this morning, earlier today     anchor day
yesterday, last night / the day before ...      anchor day - 1 / - 2
tomorrow / the day after tomorrow               anchor day + 1 / + 2
N minutes/hours/days/weeks/months/years ago     anchor - N (N: digits, one..fifty, a/an,
                                                "a couple of" = 2, "a few"/"several" = 3)
in N days/weeks/... , N weeks from now          anchor + N (a fortnight: two weeks)
for (the past) N years                          anchor - N, only in present-perfect sentences
                                                ("I've lived here for 3 years")
last/next week|month|year, past week            anchor -/+ 7 days, 1 month, 1 year (same day)
last/this/next weekend                          the Saturday of that weekend
over the weekend                                the coming or the past one, by its clause's tense
last/next Tuesday                               strictly before / after the anchor day
on Tuesday, Tuesday                             past occurrence, or next one when said of
                                                something to come
this Tuesday                                    the coming one (or today), the past one when
                                                said in the past tense
Thursday next week, Friday this week            that weekday of that week (weeks start Monday)
Thursday week, the Monday after next            the next one and a week
a week tomorrow, a fortnight on Friday          the day and that many weeks
Monday the 21st                                 the nearest 21st that is a Monday
the last Saturday of April                      that weekday of the month's nearest April
the Saturday flight, on the Saturday            nothing: a day told elsewhere (:mod:`.weekdays`)
in/since/during/by/last/next March              most recent March (past tense), the next (to
                                                come), else the nearer; first of the month
March 2023, in March 2023                       2023-03-01
5 May 2022, 5th of May 2022, May 5th, 2022      that day
May 5th, 5 May                                  the last such day on or before the anchor, or
                                                the next on or after it when to come
on/by/until the 21st                            that day of the anchor's month or a near one,
                                                the same way
in/since/during/from 2019                       2019-01-01
2023-05-07, 2023/05/07                          that day
==============================================  ==============================================

When several expressions occur, the earliest wins; of overlapping matches the one reaching
furthest wins ("in March 2023" beats "in March").

Whether an expression without a year is to come or past is read from the tense of its own
clause (:mod:`.tense`): "are getting married on August 29" said in June is this August, "we
went on March 3" said in June is this March. With no tense-bearing word, a future marker
anywhere in the text makes it to come; otherwise it is the nearer of the two ("the add-ons get
cancelled on 31 March", said on 16 March, is this March). A weekday named with the date picks the
year in which the day falls on it ("sat 23 may").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from memworks.pipelines.extraction.dates.tense import PAST, UPCOMING, read_tense, tense_at
from memworks.pipelines.extraction.dates.time_words import MONTHS, NUMBERS, WEEKDAYS
from memworks.pipelines.extraction.dates.weekdays import (
    NTH_WEEKDAY_RULE,
    ORD,
    WEEKDAY_RULE,
    WEEKS_AFTER_RULE,
    at_day,
    nth_weekday,
    weekday,
    weekday_rule,
    weeks_after,
)

__all__ = ["TimeMatch", "find_time", "find_times", "has_future_marker", "resolve_time", "upcoming_at"]

# Longest alternatives first so "a couple of" is not read as "a".
_NUM = "(?P<n>\\d+|" + "|".join(sorted((k.replace(" ", r"\s+") for k in NUMBERS), key=len, reverse=True)) + ")"
_UNIT = r"(?P<unit>minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|fortnights?|months?|years?|yrs?|decades?)"
_MON = "(?P<mon>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")"
_ANON_NUM, _ANON_UNIT = _NUM.replace("?P<n>", "?:"), _UNIT.replace("?P<unit>", "?:")
_DAY = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<y>(?:19|20)\d\d)"

_FUTURE = re.compile(
    r"\b(?:will|shall|gonna|tomorrow|soon|upcoming|this\s+coming"
    r"|(?:i|we|you|he|she|they|it)'ll"
    r"|(?:going|about)\s+to|plan(?:s|ning)?\s+(?:to|on)|intend(?:s|ing)?\s+to"
    r"|scheduled\s+to|set\s+to\s+(?:start|move|join|begin)"
    r"|later\s+this\s+(?:week|month|year)"
    r"|next\s+(?:week|month|year|weekend|" + "|".join(WEEKDAYS) + "|" + "|".join(MONTHS) + ")"
    rf"|in\s+{_ANON_NUM}\s+{_ANON_UNIT}|{_ANON_NUM}\s+{_ANON_UNIT}\s+from\s+now"
    r"|(?:'m|am|'re|are|is)\s+(?:\w+\s+)?(?:moving|relocating|transferring|starting|joining"
    r"|leaving|quitting|flying|travell?ing|heading|visiting))\b",
    re.IGNORECASE,
)
_PERFECT = re.compile(
    r"\b(?:'ve|have|has)\s+(?:\w+\s+)?(?:been|lived|worked|had|known|kept|owned|stayed)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class TimeMatch:
    """A resolved time expression and the words it was read from."""

    when: datetime
    phrase: str


def has_future_marker(text: str) -> bool:
    """True when the sentence talks about the future (a plan, not a current fact)."""
    return _FUTURE.search(text) is not None


def resolve_time(text: str, anchor: datetime, *, future: bool | None = None) -> datetime | None:
    """The first time expression in ``text`` resolved against ``anchor``, or None."""
    return found[0][2] if (found := _times(text, anchor, future, every=False)) else None


def find_time(text: str, anchor: datetime, *, future: bool | None = None) -> TimeMatch | None:
    """Like :func:`resolve_time` but also returns the phrase that was matched. ``future``: read
    every expression as to come (True) or past (False); by default by the tense of its clause."""
    if not (found := _times(text, anchor, future, every=False)):
        return None
    (start, end, when), *_ = found
    return TimeMatch(when=when, phrase=text[start:end].strip())


def find_times(text: str, anchor: datetime, *, future: bool | None = None) -> list[tuple[int, int, datetime]]:
    """Every time expression in ``text``, as (start, end, resolved time), in order; of
    overlapping matches the one reaching furthest ("in March 2023")."""
    return _times(text, anchor, future, every=True)


def _times(text: str, anchor: datetime, future: bool | None, *, every: bool) -> list[tuple[int, int, datetime]]:
    marked = has_future_marker(text)
    marks = read_tense(text) if future is None else []
    perfect = _PERFECT.search(text) is not None
    hits: list[tuple[int, int, datetime]] = []
    for rule in _RULES:
        if rule.perfect_only and not perfect:
            continue
        for m in rule.pattern.finditer(text):
            upcoming = future if future is not None else _upcoming(text, m, marks, marked)
            when = rule.resolve(m, anchor, upcoming)
            if when is not None:
                hits.append((m.start(), m.end(), when))
                if not every:  # the earliest is all that is asked for: a rule's first will do
                    break
    hits.sort(key=lambda h: (h[0], -h[1]))
    out: list[tuple[int, int, datetime]] = []
    for s, e, w in hits:
        if out and s < out[-1][1]:
            if e > out[-1][1]:  # an overlapping, longer reading ("in March 2023")
                out[-1] = (out[-1][0], e, w)
            continue
        if out and not every:
            break
        out.append((s, e, w))
    return out


def upcoming_at(text: str, start: int, end: int) -> bool | None:
    """Is ``text[start:end]`` said of something to come (True), past (False), or unknown (None)?"""
    tense = tense_at(text, start, end)
    if tense is not None:
        return tense == UPCOMING
    return True if has_future_marker(text) else None


def _upcoming(text: str, m: re.Match[str], marks: list[tuple[int, str]], marked: bool) -> bool | None:
    tense = tense_at(text, m.start(), m.end(), marks)
    if tense is not None:
        return tense != PAST
    return True if marked else None


# --- arithmetic -----------------------------------------------------------------------------


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    for dom in (day.day, 30, 29, 28):  # clamp Jan 31 + 1 month to Feb 28/29
        try:
            return date(year, month + 1, dom)
        except ValueError:
            continue
    raise AssertionError("unreachable")


def _shift(anchor: datetime, n: int, unit: str, sign: int) -> datetime:
    u = unit.lower()
    if u.startswith(("min", "h")):
        step = timedelta(minutes=n) if u.startswith("min") else timedelta(hours=n)
        return anchor + sign * step
    today = anchor.date()
    if u.startswith("dec"):
        return at_day(anchor, _add_months(today, sign * n * 120))
    if u.startswith(("d", "w", "f")):
        days = {"w": 7, "f": 14}.get(u[0], 1)  # a fortnight is two weeks
        return at_day(anchor, today + timedelta(days=sign * n * days))
    return at_day(anchor, _add_months(today, sign * n * (12 if u[0] == "y" else 1)))


def _number(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS[" ".join(word.lower().split())]


def _date(anchor: datetime, year: int, month: int, day: int) -> datetime | None:
    try:
        return at_day(anchor, date(year, month, day))
    except ValueError:
        return None


def _nearest_date(anchor: datetime, month: int, day: int, future: bool | None) -> datetime | None:
    """The given day-of-year on or before the anchor (past) or on or after it (to come); of the
    two, the closer when the tense is unknown ("the add-ons get cancelled on 31 March")."""
    if future is None:
        return _closer(anchor, _nearest_date(anchor, month, day, False), _nearest_date(anchor, month, day, True))
    today = anchor.date()
    # Feb 29 recurs every four years (eight across a skipped century year).
    years = range(today.year, today.year + 9) if future else range(today.year, today.year - 9, -1)
    for year in years:
        try:
            d = date(year, month, day)
        except ValueError:
            continue
        if (d >= today) if future else (d <= today):
            return at_day(anchor, d)
    return None


def _nearest_day_of_month(anchor: datetime, dom: int, future: bool | None) -> datetime | None:
    """The ``dom``-th of the anchor's month, or of the nearest month that has it, on or after
    the anchor (to come) or on or before it (past); the closer when the tense is unknown."""
    if future is None:
        return _closer(anchor, _nearest_day_of_month(anchor, dom, False), _nearest_day_of_month(anchor, dom, True))
    today = anchor.date()
    for step in range(4):  # the 31st is at most two months away
        month = _add_months(today.replace(day=1), step if future else -step)
        try:
            d = month.replace(day=dom)
        except ValueError:
            continue
        if (d >= today) if future else (d <= today):
            return at_day(anchor, d)
    return None


# --- rules ----------------------------------------------------------------------------------

# The third argument: said of something to come (True), past (False), or unknown (None).
_Resolver = Callable[[re.Match[str], datetime, bool | None], datetime | None]


@dataclass(frozen=True, slots=True)
class _Rule:
    pattern: re.Pattern[str]
    resolve: _Resolver
    perfect_only: bool = False


def _rule(regex: str, resolve: _Resolver, *, perfect_only: bool = False) -> _Rule:
    return _Rule(re.compile(regex, re.IGNORECASE), resolve, perfect_only)


def _fixed_days(words: dict[str, int]) -> _Rule:
    alternation = "|".join(k.replace(" ", r"\s+") for k in sorted(words, key=len, reverse=True))
    return _rule(
        rf"\b(?:{alternation})\b",
        lambda m, a, f: at_day(a, a.date() + timedelta(days=words[" ".join(m[0].lower().split())])),
    )


def _relative_period(m: re.Match[str], anchor: datetime, future: bool | None) -> datetime | None:
    mod, period = m["mod"].lower(), m["period"].lower()
    sign = 1 if mod == "next" else -1
    if period == "weekend":
        sat = weekday(anchor, 5, "next" if sign > 0 else "last")
        if sign < 0 and anchor.date().weekday() == 6:  # Sunday: yesterday is *this* weekend
            sat -= timedelta(days=7)
        return sat
    return _shift(anchor, 1, period, sign)


def _month_rule(m: re.Match[str], anchor: datetime, future: bool | None) -> datetime | None:
    prep, mon = m["prep"].lower(), m["mon"]
    if mon == "may" and prep in ("this", "by"):  # "this may take a while"
        return None
    month, today = MONTHS[mon.lower()], anchor.date()
    if future is None and prep not in ("last", "next", "this", "since"):  # "prob mid may", in April: the coming one
        return _closer(anchor, *(_date(anchor, y, month, 1) for y in range(today.year - 1, today.year + 2)))
    if prep == "last":
        year = today.year if month < today.month else today.year - 1
    elif prep == "next" or (future and prep != "this"):
        year = today.year if month > today.month else today.year + 1
    else:
        year = today.year if month <= today.month or prep == "this" else today.year - 1
    return _date(anchor, year, month, 1)


def _ago(m: re.Match[str], a: datetime, f: bool | None) -> datetime | None:
    return _shift(a, _number(m["n"]), m["unit"], -1)


def _ahead(m: re.Match[str], a: datetime, f: bool | None) -> datetime | None:
    return _shift(a, _number(m["n"]), m["unit"], 1)


def _ymd(m: re.Match[str], a: datetime, f: bool | None) -> datetime | None:
    return _date(a, int(m["y"]), MONTHS[m["mon"].lower()] if m["mon"] else int(m["m"]), int(m["d"]))


def _md(m: re.Match[str], a: datetime, f: bool | None) -> datetime | None:
    month, day = MONTHS[m["mon"].lower()], int(m["d"])
    if (named := _WEEKDAY_BEFORE.search(m.string[max(0, m.start() - 16) : m.start()])) is not None:
        # "sat 23 may": the year (of the anchor's and the two beside it) in which that day is
        # that weekday, nearest the anchor; a weekday that fits none of them is a slip.
        wd = _WEEKDAY_ABBR.index(named["wd"].lower()[:3])
        days = [_date(a, a.year + k, month, day) for k in (-1, 0, 1)]
        fits = [d for d in days if d is not None and d.weekday() == wd]
        if fits:
            return min(fits, key=lambda d: abs((d.date() - a.date()).days))
    return _nearest_date(a, month, day, f)


def _dom(m: re.Match[str], a: datetime, f: bool | None) -> datetime | None:
    dom = int(m["d"])
    follower = _FOLLOWER.match(m.string[m.end() : m.end() + 24].lstrip())
    if not 1 <= dom <= 31 or follower is None:
        return None  # "on the 3rd floor", "the 21st century"
    return _nearest_day_of_month(a, dom, f)


def _closer(anchor: datetime, *days: datetime | None) -> datetime | None:
    """Of ``days``, the one nearest ``anchor`` (the earlier on a tie)."""
    known = [d for d in days if d is not None]
    return min(known, key=lambda d: (abs((d.date() - anchor.date()).days), d)) if known else None


_WEEKDAY_ABBR, _WAY = tuple(w[:3] for w in WEEKDAYS), ("past", "future")
#: A weekday named just before a day and month ("Saturday 23 May", "sat, 23rd may").
_WEEKDAY_BEFORE = re.compile(
    r"\b(?P<wd>mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun|monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday)\.?,?[ \t]{1,3}(?:the[ \t]{1,3})?$",
    re.IGNORECASE,
)


def _my(m: re.Match[str], a: datetime, f: bool | None) -> datetime | None:
    return _date(a, int(m["y"]), MONTHS[m["mon"].lower()], 1)


def _y(m: re.Match[str], a: datetime, f: bool | None) -> datetime | None:
    return _date(a, int(m["y"]), 1, 1)


_FIXED_DAYS = {
    **dict.fromkeys(("today", "tonight", "this morning", "this afternoon", "this evening", "earlier today"), 0),
    **{"yesterday": -1, "last night": -1, "the day before yesterday": -2, "tomorrow": 1, "the day after tomorrow": 2},
}
# What may follow a bare day of the month ("on the 21st, I'm ...", "by the 3rd at noon"); a
# noun there makes it an ordinal of something else ("the 3rd floor").
_FOLLOWER = re.compile(
    r"(?:$|[^\w\s]|(?:at|and|or|but|so|in|for|to|when|because|with|this|next|until|till|then"
    r"|too|as|if|i|we|you|he|she|they|it|my|our|is|was|will|instead|already|now|again)\b)",
    re.IGNORECASE,
)
_PREP = r"(?P<prep>in|since|during|from|by|until|till|last|next|this|early|mid|late|around)"
_RULES: tuple[_Rule, ...] = (
    _rule(r"\b(?P<y>\d{4})[-/](?P<m>\d{1,2})[-/](?P<d>\d{1,2})\b(?P<mon>)", _ymd),
    _rule(rf"\b{_DAY}(?:\s+of)?\s+{_MON}\b,?\s+{_YEAR}\b", _ymd),
    _rule(rf"\b{_MON}\s+{_DAY},?\s+{_YEAR}\b", _ymd),
    # A span of days ("the 19th to the 23rd of June", "19-23 June") begins on its first.
    _rule(rf"\b(?:the\s+)?{_DAY}\s*(?:-|\u2013|to|until|till)\s*(?:the\s+)?{ORD}(?:\s+of)?\s+{_MON}\b", _md),
    _rule(rf"\b{_DAY}(?:\s+of)?\s+{_MON}\b", _md),
    _rule(rf"\b{_MON}\s+{_DAY}\b(?!\s*(?:[:.]\d|am\b|pm\b|%))", _md),
    _rule(rf"\b{_MON},?\s+{_YEAR}\b", _my),
    _rule(r"\b(?:on|by|until|till|before|after|from|since|for)\s+the\s+(?P<d>[0-3]?\d)(?:st|nd|rd|th)\b", _dom),
    _rule(rf"\b{_PREP}[\s-]+{_MON}\b", _month_rule),
    _rule(rf"\b(?:in|since|from|during|by|until|till|around|of|early|mid|late)[\s-]+{_YEAR}\b(?![-/]\d)", _y),
    _fixed_days(_FIXED_DAYS),
    _rule(rf"\b{_NUM}\s+{_UNIT}\s+(?:ago|back)\b", _ago),
    _rule(rf"\b(?:in|within)\s+(?:about\s+|around\s+|roughly\s+)?{_NUM}\s+{_UNIT}\b", _ahead),
    _rule(rf"\b{_NUM}\s+{_UNIT}\s+from\s+now\b", _ahead),
    _rule(rf"\bfor\s+(?:the\s+(?:past|last)\s+)?{_NUM}\s+{_UNIT}\b", _ago, perfect_only=True),
    _rule(r"\b(?P<mod>last|next|past)\s+(?P<period>week|month|year|weekend)\b", _relative_period),
    _rule(r"\bthis\s+weekend\b", lambda m, a, f: weekday(a, 5, "this_future")),
    _rule(r"\bover\s+the\s+weekend\b", lambda m, a, f: weekday(a, 5, f"this_{_WAY[bool(f)]}")),
    _rule(NTH_WEEKDAY_RULE, nth_weekday),
    _rule(WEEKS_AFTER_RULE, weeks_after),
    _rule(WEEKDAY_RULE, weekday_rule),
)
