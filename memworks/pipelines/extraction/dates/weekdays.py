"""Which day a weekday names: "Tuesday", "this Sunday", "Thursday next week", "the Monday after
next", "Monday the 21st", "a week tomorrow".

A week runs Monday to Sunday, as in the calendars of the users who say "Thursday next week": it
is the Thursday of the week after the anchor's. A weekday with a day of the month and no month
("Monday the 21st") is the nearest such date that falls on that weekday. A weekday after "the"
("the Saturday flight", "arriving on the Saturday") refers to a day told elsewhere and names
none itself. Pure and deterministic, relative to the anchor only.
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import date, datetime, time, timedelta

from memworks.pipelines.extraction.dates.time_words import MONTHS, NUMBERS, WEEKDAYS

__all__ = [
    "NTH_WEEKDAY_RULE",
    "ORD",
    "WEEKDAY_RULE",
    "WEEKS_AFTER_RULE",
    "at_day",
    "nth_weekday",
    "weekday",
    "weekday_rule",
    "weeks_after",
]

_WD = "(?P<wd>" + "|".join(WEEKDAYS) + ")"
_MON = "(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")"
#: A day of the month, ordinal or not ("19", "19th").
ORD = r"[0-3]?\d(?:st|nd|rd|th)?"
_SP = "[ \t]{1,3}"  # bounded: a run of blanks must not make the scan quadratic

#: The weekday rule's pattern: an optional modifier, then the weekday.
WEEKDAY_RULE = rf"\b(?:(?P<mod>last|next|this\s+coming|this|coming|past|on)\s+)?{_WD}\b"
#: "a week tomorrow", "two weeks on Friday", "a fortnight today", "a week from Saturday".
WEEKS_AFTER_RULE = (
    r"\b(?P<n>a|one|two|three|\d)[ \t]{1,3}(?P<unit>weeks?|fortnights?)[ \t]{1,3}(?:on[ \t]{1,3}|from[ \t]{1,3})?"
    rf"(?P<base>today|tomorrow|{_WD})\b"
)
#: "the last Saturday of April", "the first Monday in June".
NTH_WEEKDAY_RULE = (
    r"\b(?P<nth>first|second|third|fourth|last|1st|2nd|3rd|4th)[ \t]{1,3}"
    rf"{_WD}[ \t]{{1,3}}(?:of|in)[ \t]{{1,3}}(?P<mon>{_MON})\b"
)
_NTH = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3, "last": -1}

#: A weekday said of a habit, not of one day: "on Friday nights", "every Tuesday evening".
_HABIT_AFTER = re.compile(
    r"[ \t](?:nights|mornings|evenings|afternoons|lunchtimes)\b"
    # "Tuesday and Thursday evenings", "Mondays and Wednesdays": days of a routine
    r"|[ \t](?:and|or|&)[ \t](?:" + "|".join(WEEKDAYS) + r")s?\b",
    re.IGNORECASE,
)
_HABIT_BEFORE = re.compile(r"\b(?:every|each)[ \t](?:other[ \t])?$", re.IGNORECASE)
# "Saturday 19 September", "Sat, September 19": the date says which Saturday.
_DATE_AFTER = re.compile(
    rf",?{_SP}(?:the{_SP})?(?:{ORD}(?:{_SP}of)?{_SP})?(?P<mon>{_MON})(?:{_SP}{ORD})?\b", re.IGNORECASE
)
# "Monday the 21st": the day of the month says which Monday.
_DOM_AFTER = re.compile(rf",?{_SP}the{_SP}(?P<d>[0-3]?\d)(?:st|nd|rd|th)\b", re.IGNORECASE)
# "Thursday next week", "Friday this week", "Thursday week": the week says which Thursday.
_WEEK_AFTER = re.compile(rf"{_SP}(?:(?P<which>next|this){_SP})?week\b", re.IGNORECASE)
_AFTER_NEXT = re.compile(rf"{_SP}after{_SP}next\b", re.IGNORECASE)
_THE_BEFORE = re.compile(r"\bthe[ \t]{1,3}$", re.IGNORECASE)


def at_day(anchor: datetime, day: date) -> datetime:
    """Local midnight of ``day`` in the anchor's time zone."""
    return datetime.combine(day, time(), tzinfo=anchor.tzinfo)


def weekday(anchor: datetime, wd: int, mode: str) -> datetime:
    """The weekday ``wd`` (Monday 0) strictly before (``last``) or after (``next``) the anchor's
    day, or on or before (``this_past``) or after (``this_future``) it."""
    today = anchor.date()
    back = (today.weekday() - wd) % 7
    ahead = (wd - today.weekday()) % 7
    delta = {
        "last": -(back or 7),
        "next": ahead or 7,
        "this_past": -back,
        "this_future": ahead,
    }[mode]
    return at_day(anchor, today + timedelta(days=delta))


def _of_week(anchor: datetime, wd: int, weeks: int) -> datetime:
    """Weekday ``wd`` of the week ``weeks`` after the anchor's (weeks start on Monday)."""
    monday = anchor.date() - timedelta(days=anchor.date().weekday())
    return at_day(anchor, monday + timedelta(days=7 * weeks + wd))


def _on_day_of_month(anchor: datetime, wd: int, dom: int, future: bool | None) -> datetime | None:
    """The nearest date that is the ``dom``-th of its month and falls on weekday ``wd``: to come
    unless said in the past tense (a date said with its weekday is mostly a plan)."""
    step = -1 if future is False else 1
    first = anchor.date().replace(day=1)
    for k in range(15):  # every pairing of a weekday with a day of the month recurs within 14 months
        index = first.year * 12 + first.month - 1 + step * k
        try:
            d = date(index // 12, index % 12 + 1, dom)
        except ValueError:
            continue
        if d.weekday() == wd and ((d >= anchor.date()) if step > 0 else (d <= anchor.date())):
            return at_day(anchor, d)
    return None


def weekday_rule(m: re.Match[str], anchor: datetime, future: bool | None) -> datetime | None:
    """The day a match of :data:`WEEKDAY_RULE` names (see the module docstring), or None."""
    text, end = m.string, m.end()
    mod = (m["mod"] or "").lower().split()
    wd = WEEKDAYS.index(m["wd"].lower())
    if _AFTER_NEXT.match(text, end):  # "the Monday after next"
        return weekday(anchor, wd, "next") + timedelta(days=7)
    if not mod and _THE_BEFORE.search(text, 0, m.start("wd")):
        return None  # "the Saturday flight": a day told elsewhere
    if mod in ([], ["on"]) and (_HABIT_AFTER.match(text, end) or _HABIT_BEFORE.search(text, 0, m.start("wd"))):
        return None  # a habit names no day
    if (d := _DATE_AFTER.match(text, end)) is not None and re.search(r"\d", d[0]):
        return None  # the date that follows is read on its own
    if mod in ([], ["on"]) and (d := _DOM_AFTER.match(text, end)) is not None:
        return _on_day_of_month(anchor, wd, int(d["d"]), future)
    if mod in ([], ["on"]) and (w := _WEEK_AFTER.match(text, end)) is not None:
        which = (w["which"] or "").lower()
        if which:
            return _of_week(anchor, wd, 1 if which == "next" else 0)
        return weekday(anchor, wd, "next") + timedelta(days=7)  # "Thursday week"
    if mod[:1] in (["last"], ["past"]):
        return weekday(anchor, wd, "last")
    if mod[:1] in (["next"], ["coming"]) or mod[-1:] == ["coming"]:
        return weekday(anchor, wd, "next")
    if mod[:1] == ["this"]:  # "this Sunday" is the coming one unless said in the past tense
        return weekday(anchor, wd, "this_past" if future is False else "this_future")
    return weekday(anchor, wd, "next" if future else "last")


def weeks_after(m: re.Match[str], anchor: datetime, future: bool | None) -> datetime | None:
    """The day a match of :data:`WEEKS_AFTER_RULE` names: its base day ("tomorrow", the coming
    Friday) and that many weeks (a fortnight is two)."""
    n = int(m["n"]) if m["n"].isdigit() else NUMBERS[m["n"].lower()]
    weeks = n * (2 if m["unit"].lower().startswith("fortnight") else 1)
    base = m["base"].lower()
    if base in ("today", "tomorrow"):
        start = at_day(anchor, anchor.date() + timedelta(days=1 if base == "tomorrow" else 0))
    else:
        start = weekday(anchor, WEEKDAYS.index(base), "next")
    return start + timedelta(days=7 * weeks)


def nth_weekday(m: re.Match[str], anchor: datetime, future: bool | None) -> datetime | None:
    """The day a match of :data:`NTH_WEEKDAY_RULE` names, in the month's next occurrence when
    said of something to come, else its last (the anchor's own month either way)."""
    month, wd, nth = MONTHS[m["mon"].lower()], WEEKDAYS.index(m["wd"].lower()), _NTH[m["nth"].lower()]
    today = anchor.date()
    if month == today.month:
        year = today.year
    elif future:
        year = today.year + (month < today.month)
    else:
        year = today.year - (month > today.month)
    days = [d for d in (date(year, month, n) for n in range(1, monthrange(year, month)[1] + 1)) if d.weekday() == wd]
    return at_day(anchor, days[nth])  # every month has at least four of each weekday
