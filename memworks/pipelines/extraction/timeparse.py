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
in N days/weeks/... , N weeks from now          anchor + N
for (the past) N years                          anchor - N, only in present-perfect sentences
                                                ("I've lived here for 3 years")
last/next week|month|year, past week            anchor -/+ 7 days, 1 month, 1 year (same day)
last/this/next weekend                          the Saturday of that weekend
last/next Tuesday                               strictly before / after the anchor day
on Tuesday, Tuesday, this Tuesday               past occurrence, or next one when the
                                                sentence has a future marker
in/since/during/by/last/next March              most recent March (past tense) or the next
                                                one (future tense), first of the month
March 2023, in March 2023                       2023-03-01
5 May 2022, 5th of May 2022, May 5th, 2022      that day
May 5th, 5 May                                  most recent past (or next future) such day
in/since/during/from 2019                       2019-01-01
2023-05-07, 2023/05/07                          that day
==============================================  ==============================================

When several expressions occur, the earliest wins; of overlapping matches the one reaching
furthest wins ("in March 2023" beats "in March").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

__all__ = ["TimeMatch", "find_time", "has_future_marker", "resolve_time"]

_MONTHS: dict[str, int] = {
    "january": 1,
    "jan": 1,
    "february": 2,
    "feb": 2,
    "march": 3,
    "mar": 3,
    "april": 4,
    "apr": 4,
    "may": 5,
    "june": 6,
    "jun": 6,
    "july": 7,
    "jul": 7,
    "august": 8,
    "aug": 8,
    "september": 9,
    "sept": 9,
    "sep": 9,
    "october": 10,
    "oct": 10,
    "november": 11,
    "nov": 11,
    "december": 12,
    "dec": 12,
}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS: dict[str, int] = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
    "several": 3,
}

# Longest alternatives first so "a couple of" is not read as "a".
_NUM = "(?P<n>\\d+|" + "|".join(sorted((k.replace(" ", r"\s+") for k in _NUMBERS), key=len, reverse=True)) + ")"
_UNIT = r"(?P<unit>minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|months?|years?|yrs?|decades?)"
_MON = "(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + ")"
_ANON_NUM, _ANON_UNIT = _NUM.replace("?P<n>", "?:"), _UNIT.replace("?P<unit>", "?:")
_WD = "(?P<wd>" + "|".join(_WEEKDAYS) + ")"
_DAY = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<y>(?:19|20)\d\d)"

_FUTURE = re.compile(
    r"\b(?:will|shall|gonna|tomorrow|soon|upcoming|this\s+coming"
    r"|(?:i|we|you|he|she|they|it)'ll"
    r"|(?:going|about)\s+to|plan(?:s|ning)?\s+(?:to|on)|intend(?:s|ing)?\s+to"
    r"|scheduled\s+to|set\s+to\s+(?:start|move|join|begin)"
    r"|later\s+this\s+(?:week|month|year)"
    r"|next\s+(?:week|month|year|weekend|" + "|".join(_WEEKDAYS) + "|" + "|".join(_MONTHS) + ")"
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


def resolve_time(text: str, anchor: datetime) -> datetime | None:
    """The first time expression in ``text`` resolved against ``anchor``, or None."""
    found = find_time(text, anchor)
    return found.when if found else None


def find_time(text: str, anchor: datetime) -> TimeMatch | None:
    """Like :func:`resolve_time` but also returns the phrase that was matched."""
    future = has_future_marker(text)
    perfect = _PERFECT.search(text) is not None
    hits: list[tuple[int, int, datetime]] = []
    for rule in _RULES:
        if rule.perfect_only and not perfect:
            continue
        for m in rule.pattern.finditer(text):
            when = rule.resolve(m, anchor, future)
            if when is not None:
                hits.append((m.start(), m.end(), when))
                break
    if not hits:
        return None
    hits.sort(key=lambda h: (h[0], -h[1]))
    start, end, when = hits[0]
    for s, e, w in hits[1:]:
        if s < end and e > end:  # an overlapping, longer reading ("in March 2023")
            end, when = e, w
    return TimeMatch(when=when, phrase=text[start:end].strip())


# --- arithmetic -----------------------------------------------------------------------------


def _at_day(anchor: datetime, day: date) -> datetime:
    return datetime.combine(day, time(), tzinfo=anchor.tzinfo)


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
        return _at_day(anchor, _add_months(today, sign * n * 120))
    if u.startswith(("d", "w")):
        return _at_day(anchor, today + timedelta(days=sign * n * (7 if u[0] == "w" else 1)))
    return _at_day(anchor, _add_months(today, sign * n * (12 if u[0] == "y" else 1)))


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[" ".join(word.lower().split())]


def _date(anchor: datetime, year: int, month: int, day: int) -> datetime | None:
    try:
        return _at_day(anchor, date(year, month, day))
    except ValueError:
        return None


def _nearest_date(anchor: datetime, month: int, day: int, future: bool) -> datetime | None:
    """The given day-of-year at or before the anchor (past) or after it (future)."""
    today = anchor.date()
    for year in (today.year, today.year + 1) if future else (today.year, today.year - 1):
        try:
            d = date(year, month, day)
        except ValueError:
            continue
        if (d > today) if future else (d <= today):
            return _at_day(anchor, d)
    return None


def _weekday(anchor: datetime, wd: int, mode: str) -> datetime:
    today = anchor.date()
    back = (today.weekday() - wd) % 7
    ahead = (wd - today.weekday()) % 7
    delta = {
        "last": -(back or 7),
        "next": ahead or 7,
        "this_past": -back,
        "this_future": ahead,
    }[mode]
    return _at_day(anchor, today + timedelta(days=delta))


# --- rules ----------------------------------------------------------------------------------

_Resolver = Callable[[re.Match[str], datetime, bool], datetime | None]


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
        lambda m, a, f: _at_day(a, a.date() + timedelta(days=words[" ".join(m[0].lower().split())])),
    )


def _relative_period(m: re.Match[str], anchor: datetime, future: bool) -> datetime | None:
    mod, period = m["mod"].lower(), m["period"].lower()
    sign = 1 if mod == "next" else -1
    if period == "weekend":
        sat = _weekday(anchor, 5, "next" if sign > 0 else "last")
        if sign < 0 and anchor.date().weekday() == 6:  # Sunday: yesterday is *this* weekend
            sat -= timedelta(days=7)
        return sat
    return _shift(anchor, 1, period, sign)


def _weekday_rule(m: re.Match[str], anchor: datetime, future: bool) -> datetime | None:
    mod = (m["mod"] or "").lower().split()
    wd = _WEEKDAYS.index(m["wd"].lower())
    if mod[:1] in (["last"], ["past"]):
        return _weekday(anchor, wd, "last")
    if mod[:1] in (["next"], ["coming"]) or mod[-1:] == ["coming"]:
        return _weekday(anchor, wd, "next")
    if mod[:1] == ["this"]:
        return _weekday(anchor, wd, "this_future" if future else "this_past")
    return _weekday(anchor, wd, "next" if future else "last")


def _month_rule(m: re.Match[str], anchor: datetime, future: bool) -> datetime | None:
    prep, mon = m["prep"].lower(), m["mon"]
    if mon == "may" and prep in ("this", "by"):  # "this may take a while"
        return None
    month, today = _MONTHS[mon.lower()], anchor.date()
    if prep == "last":
        year = today.year if month < today.month else today.year - 1
    elif prep == "next" or (future and prep != "this"):
        year = today.year if month > today.month else today.year + 1
    else:
        year = today.year if month <= today.month else today.year - 1
    return _date(anchor, year, month, 1)


def _ago(m: re.Match[str], a: datetime, f: bool) -> datetime | None:
    return _shift(a, _number(m["n"]), m["unit"], -1)


def _ahead(m: re.Match[str], a: datetime, f: bool) -> datetime | None:
    return _shift(a, _number(m["n"]), m["unit"], 1)


def _ymd(m: re.Match[str], a: datetime, f: bool) -> datetime | None:
    return _date(a, int(m["y"]), _MONTHS[m["mon"].lower()] if m["mon"] else int(m["m"]), int(m["d"]))


def _md(m: re.Match[str], a: datetime, f: bool) -> datetime | None:
    return _nearest_date(a, _MONTHS[m["mon"].lower()], int(m["d"]), f)


def _my(m: re.Match[str], a: datetime, f: bool) -> datetime | None:
    return _date(a, int(m["y"]), _MONTHS[m["mon"].lower()], 1)


def _y(m: re.Match[str], a: datetime, f: bool) -> datetime | None:
    return _date(a, int(m["y"]), 1, 1)


_FIXED_DAYS = {
    "today": 0,
    "tonight": 0,
    "this morning": 0,
    "this afternoon": 0,
    "this evening": 0,
    "earlier today": 0,
    "yesterday": -1,
    "last night": -1,
    "the day before yesterday": -2,
    "tomorrow": 1,
    "the day after tomorrow": 2,
}
_PREP = r"(?P<prep>in|since|during|from|by|until|till|last|next|this|early|mid|late|around)"
_RULES: tuple[_Rule, ...] = (
    _rule(r"\b(?P<y>\d{4})[-/](?P<m>\d{1,2})[-/](?P<d>\d{1,2})\b(?P<mon>)", _ymd),
    _rule(rf"\b{_DAY}(?:\s+of)?\s+{_MON}\b,?\s+{_YEAR}\b", _ymd),
    _rule(rf"\b{_MON}\s+{_DAY},?\s+{_YEAR}\b", _ymd),
    _rule(rf"\b{_DAY}(?:\s+of)?\s+{_MON}\b", _md),
    _rule(rf"\b{_MON}\s+{_DAY}\b(?!\s*(?:[:.]\d|am\b|pm\b|%))", _md),
    _rule(rf"\b{_MON},?\s+{_YEAR}\b", _my),
    _rule(rf"\b{_PREP}[\s-]+{_MON}\b", _month_rule),
    _rule(
        rf"\b(?:in|since|from|during|by|until|till|around|of|early|mid|late)[\s-]+{_YEAR}\b(?![-/]\d)",
        _y,
    ),
    _fixed_days(_FIXED_DAYS),
    _rule(rf"\b{_NUM}\s+{_UNIT}\s+(?:ago|back)\b", _ago),
    _rule(rf"\b(?:in|within)\s+(?:about\s+|around\s+|roughly\s+)?{_NUM}\s+{_UNIT}\b", _ahead),
    _rule(rf"\b{_NUM}\s+{_UNIT}\s+from\s+now\b", _ahead),
    _rule(rf"\bfor\s+(?:the\s+(?:past|last)\s+)?{_NUM}\s+{_UNIT}\b", _ago, perfect_only=True),
    _rule(r"\b(?P<mod>last|next|past)\s+(?P<period>week|month|year|weekend)\b", _relative_period),
    _rule(r"\bthis\s+weekend\b", lambda m, a, f: _weekday(a, 5, "this_future")),
    _rule(
        rf"\b(?:(?P<mod>last|next|this\s+coming|this|coming|past|on)\s+)?{_WD}\b",
        _weekday_rule,
    ),
)
