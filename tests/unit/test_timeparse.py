"""Time expressions resolved against a fixed anchor: Saturday 2024-06-15 10:30 UTC."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from memworks.pipelines.extraction.dates.timeparse import find_time, find_times, has_future_marker, resolve_time

ANCHOR = datetime(2024, 6, 15, 10, 30, tzinfo=UTC)  # a Saturday


def day(y: int, m: int, d: int, hh: int = 0, mm: int = 0) -> datetime:
    return datetime(y, m, d, hh, mm, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # fixed days
        ("yesterday", day(2024, 6, 14)),
        ("I moved in yesterday.", day(2024, 6, 14)),
        ("Yesterday I joined Acme", day(2024, 6, 14)),
        ("today", day(2024, 6, 15)),
        ("I started today lol", day(2024, 6, 15)),
        ("tonight", day(2024, 6, 15)),
        ("this morning", day(2024, 6, 15)),
        ("earlier today", day(2024, 6, 15)),
        ("last night", day(2024, 6, 14)),
        ("we got back LAST NIGHT", day(2024, 6, 14)),
        ("the day before yesterday", day(2024, 6, 13)),
        ("tomorrow", day(2024, 6, 16)),
        ("the day after tomorrow", day(2024, 6, 17)),
        # N units ago
        ("2 days ago", day(2024, 6, 13)),
        ("two days ago", day(2024, 6, 13)),
        ("a couple of days ago", day(2024, 6, 13)),
        ("a couple days ago", day(2024, 6, 13)),
        ("a few days ago", day(2024, 6, 12)),
        ("several days ago", day(2024, 6, 12)),
        ("a week ago", day(2024, 6, 8)),
        ("two weeks ago", day(2024, 6, 1)),
        ("I moved to Berlin two weeks ago", day(2024, 6, 1)),
        ("three weeks ago", day(2024, 5, 25)),
        ("a month ago", day(2024, 5, 15)),
        ("an year ago", day(2023, 6, 15)),
        ("six months ago", day(2023, 12, 15)),
        ("18 months ago", day(2022, 12, 15)),
        ("a year ago", day(2023, 6, 15)),
        ("10 years ago", day(2014, 6, 15)),
        ("twenty years ago", day(2004, 6, 15)),
        ("a decade ago", day(2014, 6, 15)),
        ("a few years back", day(2021, 6, 15)),
        ("5 yrs ago", day(2019, 6, 15)),
        # sub-day keeps the anchor's clock
        ("5 hours ago", day(2024, 6, 15, 5, 30)),
        ("an hour ago", day(2024, 6, 15, 9, 30)),
        ("30 minutes ago", day(2024, 6, 15, 10, 0)),
        ("20 mins ago", day(2024, 6, 15, 10, 10)),
        # in N units (future)
        ("in 3 days", day(2024, 6, 18)),
        ("in two weeks", day(2024, 6, 29)),
        ("in a fortnight", day(2024, 6, 29)),
        ("we got back a fortnight ago", day(2024, 6, 1)),
        ("in a week", day(2024, 6, 22)),
        ("in a month", day(2024, 7, 15)),
        ("in a couple of months", day(2024, 8, 15)),
        ("in about two weeks", day(2024, 6, 29)),
        ("2 weeks from now", day(2024, 6, 29)),
        ("in a year", day(2025, 6, 15)),
        ("in 2 hours", day(2024, 6, 15, 12, 30)),
        # last / next periods
        ("last week", day(2024, 6, 8)),
        ("next week", day(2024, 6, 22)),
        ("past week", day(2024, 6, 8)),
        ("last month", day(2024, 5, 15)),
        ("next month", day(2024, 7, 15)),
        ("last year", day(2023, 6, 15)),
        ("next year", day(2025, 6, 15)),
        ("last weekend", day(2024, 6, 8)),
        ("next weekend", day(2024, 6, 22)),
        ("this weekend", day(2024, 6, 15)),
        # weekdays (anchor is a Saturday)
        ("last Tuesday", day(2024, 6, 11)),
        ("on Tuesday", day(2024, 6, 11)),
        ("I started Tuesday", day(2024, 6, 11)),
        ("last saturday", day(2024, 6, 8)),
        ("on Saturday", day(2024, 6, 8)),
        ("last Friday", day(2024, 6, 14)),
        ("next Friday", day(2024, 6, 21)),
        ("next Saturday", day(2024, 6, 22)),
        ("I'll call you on Monday", day(2024, 6, 17)),
        ("I'm moving on Friday", day(2024, 6, 21)),
        ("this Monday", day(2024, 6, 17)),  # the coming one unless said in the past tense
        ("I saw her this Monday", day(2024, 6, 10)),
        ("this coming Monday", day(2024, 6, 17)),
        ("past Sunday", day(2024, 6, 9)),
        # months
        ("in March 2023", day(2023, 3, 1)),
        ("March 2023", day(2023, 3, 1)),
        ("in Sept 2021", day(2021, 9, 1)),
        ("in march", day(2024, 3, 1)),
        ("in June", day(2024, 6, 1)),
        # No tense: the nearer July (two weeks ahead, not eleven months back), as for a day.
        ("in July", day(2024, 7, 1)),
        ("prob mid July", day(2024, 7, 1)),
        ("in February", day(2024, 2, 1)),
        ("this July", day(2024, 7, 1)),
        ("since January", day(2024, 1, 1)),
        ("last March", day(2024, 3, 1)),
        ("last July", day(2023, 7, 1)),
        ("next March", day(2025, 3, 1)),
        ("mid-March", day(2024, 3, 1)),
        ("I'm going to move to Paris in March", day(2025, 3, 1)),
        ("I'm moving in July", day(2024, 7, 1)),
        ("I will start in June", day(2025, 6, 1)),
        # day + month (+ year)
        ("on 5 May 2022", day(2022, 5, 5)),
        ("5th of May 2022", day(2022, 5, 5)),
        ("May 5, 2022", day(2022, 5, 5)),
        ("May 5th 2022", day(2022, 5, 5)),
        ("May 5th", day(2024, 5, 5)),
        ("on 5 May", day(2024, 5, 5)),
        # No tense: the nearer one (19 days ahead, not 347 back).
        ("on July 4th", day(2024, 7, 4)),
        ("on 20 March", day(2024, 3, 20)),
        ("I'm flying out on July 4th", day(2024, 7, 4)),
        ("June 15", day(2024, 6, 15)),
        ("feb 29", day(2024, 2, 29)),
        ("on the 3rd of January", day(2024, 1, 3)),
        # ISO dates and years
        ("2023-05-07", day(2023, 5, 7)),
        ("on 2023/05/07", day(2023, 5, 7)),
        ("in 2023-05-07", day(2023, 5, 7)),
        ("since 2019", day(2019, 1, 1)),
        ("in 2020", day(2020, 1, 1)),
        ("back in 2015", day(2015, 1, 1)),
        ("since mid-2019", day(2019, 1, 1)),
        # durations in present-perfect sentences
        ("I've lived here for 3 years", day(2021, 6, 15)),
        ("I have been vegan for two months", day(2024, 4, 15)),
        ("we've been living in Oslo for the past 5 years", day(2019, 6, 15)),
        # the earliest expression wins; the longest of overlapping ones
        ("in March 2023, two weeks after the wedding", day(2023, 3, 1)),
        ("yesterday, not last week", day(2024, 6, 14)),
    ],
)
def test_resolves(text: str, expected: datetime) -> None:
    assert resolve_time(text, ANCHOR) == expected


@pytest.mark.parametrize(
    "text",
    [
        "hello there",
        "I live in Lisbon",
        "I have 3 cats",
        "this may take a while",
        "I may go, I may not",
        "version 2.5 of the app",
        "I work 3 days a week",
        "I work there for 3 days a week",
        "Feb 30",
        "2023-13-01",
        "the sun came out",
        "I sat down",
        "for a while",
        "recently",
        "",
    ],
)
def test_no_time(text: str) -> None:
    assert resolve_time(text, ANCHOR) is None


def test_phrase_is_reported() -> None:
    found = find_time("I moved to Berlin two weeks ago, loving it", ANCHOR)
    assert found is not None
    assert found.phrase == "two weeks ago"
    assert found.when == day(2024, 6, 1)


def test_keeps_anchor_timezone_and_handles_dst() -> None:
    lisbon = ZoneInfo("Europe/Lisbon")
    anchor = datetime(2024, 3, 31, 12, 0, tzinfo=lisbon)  # clocks went forward at 01:00 that day
    got = resolve_time("yesterday", anchor)
    assert got == datetime(2024, 3, 30, 0, 0, tzinfo=lisbon)
    assert got is not None and got.tzinfo is lisbon
    assert got.utcoffset() != anchor.utcoffset()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a month ago", datetime(2024, 2, 29, tzinfo=UTC)),
        ("last month", datetime(2024, 2, 29, tzinfo=UTC)),
        ("in a month", datetime(2024, 4, 30, tzinfo=UTC)),
        ("a year ago", datetime(2023, 3, 31, tzinfo=UTC)),
    ],
)
def test_month_arithmetic_clamps(text: str, expected: datetime) -> None:
    assert resolve_time(text, datetime(2024, 3, 31, 9, 0, tzinfo=UTC)) == expected


def test_sunday_last_weekend_is_the_previous_one() -> None:
    sunday = datetime(2024, 6, 16, 9, 0, tzinfo=UTC)
    assert resolve_time("last weekend", sunday) == day(2024, 6, 8)


@pytest.mark.parametrize(
    ("text", "future"),
    [
        ("I'm moving to Tokyo next week", True),
        ("I'm transferring to Tokyo", True),
        ("I will start at Google", True),
        ("we're going to relocate", True),
        ("I'll be there tomorrow", True),
        ("we are planning to move", True),
        ("I plan on leaving", True),
        ("gonna quit soon", True),
        ("in two weeks", True),
        ("next Friday works", True),
        ("two weeks from now", True),
        ("I'm about to join Acme", True),
        ("I moved to Berlin two weeks ago", False),
        ("I live in Lisbon", False),
        ("I planned to move but didn't", False),
        ("from now on answer in bullet points", False),
        ("last week was busy", False),
        ("I used to live in Madrid", False),
        ("I'm living in Porto", False),
    ],
)
def test_future_marker(text: str, future: bool) -> None:
    assert has_future_marker(text) is future


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Said of something to come: the next such day on or after the anchor (Sat 2024-06-15).
        ("Marta and Joaquin are getting married on May 29, and we're invited!", day(2025, 5, 29)),
        ("My brother's wedding is on September 8, in Cadiz.", day(2024, 9, 8)),
        ("The course starts on June 3", day(2025, 6, 3)),
        ("I accepted an offer. I start there on June 20.", day(2024, 6, 20)),
        ("I've got a dentist appointment on November 3 at 9:30.", day(2024, 11, 3)),
        ("The conference was moved, it's on October 12 now.", day(2024, 10, 12)),
        ("She told me the party is on March 2", day(2025, 3, 2)),
        ("The race is June 15", day(2024, 6, 15)),  # today is on or after today
        # Said of something done: the last such day on or before the anchor.
        ("We went to Porto on September 8", day(2023, 9, 8)),
        ("I moved here on June 20", day(2023, 6, 20)),
        ("On May 29, we got married", day(2024, 5, 29)),
        ("I was so excited on June 20", day(2023, 6, 20)),
        ("I'm glad we finally met on June 20", day(2023, 6, 20)),
        ("I've been starting seeds since February 20th - tomatoes are doing well", day(2024, 2, 20)),
        ("I'm planning to plant soon. I've been growing them since June 20", day(2023, 6, 20)),
        ("It's been raining on June 20", day(2023, 6, 20)),
        # "this Sunday": the coming one (or today), the past one in a past-tense clause.
        ("The half marathon is this Sunday, I'm nervous.", day(2024, 6, 16)),
        ("I ran a half marathon this Sunday", day(2024, 6, 9)),
        ("The party is this Saturday", day(2024, 6, 15)),
        # A day of the month alone: this month's or the nearest month's.
        ("My mum's birthday party is on the 21st, I'm in charge of the cake.", day(2024, 6, 21)),
        ("The rent is due by the 1st.", day(2024, 7, 1)),
        ("We met on the 21st", day(2024, 5, 21)),
        ("We're leaving on the 31st", day(2024, 7, 31)),  # June has no 31st
        ("I paid it on the 10th", day(2024, 6, 10)),
        # Entering something is done now, the thing entered is to come.
        ("Cian signed us both up for the half marathon on 27 September", day(2024, 9, 27)),
        ("I've signed up for a half marathon in the Dales on 11 October, god help me", day(2024, 10, 11)),
        ("I registered for the Berlin marathon on September 29.", day(2024, 9, 29)),
        ("I signed the lease on June 3", day(2024, 6, 3)),
        # A weekday with its date is that date; a span of days begins on its first.
        ("save the date: my 30th is Saturday 19 September, party at ours", day(2024, 9, 19)),
        ("the gig is on Friday, October 4", day(2024, 10, 4)),
        # A weekday picks the year it falls on: said of something done, still that year.
        ("we went on Saturday 17 June", day(2023, 6, 17)),
        ("moving sat 6 july", day(2024, 7, 6)),
        ("the launch slipped to July 2", day(2024, 7, 2)),
        ("so Lisbon is now the 19th to the 23rd of June", day(2024, 6, 19)),
        ("we're away 24-28 June", day(2024, 6, 24)),
        # A routine of weekdays names no day: the date after it does.
        ("I run Tuesday and Thursday evenings, and the race is on 11 October", day(2024, 10, 11)),
    ],
)
def test_a_date_without_a_year_follows_the_tense_of_its_clause(text: str, expected: datetime) -> None:
    """Given a month-day or weekday with no year, when the clause saying it is about the future or
    a schedule (present tense), the next occurrence is meant; when it is past, the last one."""
    assert resolve_time(text, ANCHOR) == expected


@pytest.mark.parametrize(
    "text",
    ["I live on the 3rd floor", "art of the 21st century", "she came 2nd in the race", "on the 40th"],
)
def test_an_ordinal_that_is_no_day_of_the_month(text: str) -> None:
    assert resolve_time(text, ANCHOR) is None


def test_an_explicit_tense_overrides_the_words() -> None:
    """Given a caller that knows the tense (a parse), its reading wins over the words'."""
    assert resolve_time("the wedding on May 29", ANCHOR, future=True) == day(2025, 5, 29)
    assert resolve_time("the wedding is on May 29", ANCHOR, future=False) == day(2024, 5, 29)


@pytest.mark.parametrize(
    "text",
    [
        "I play bass in a covers band on Friday nights.",
        "We do the big shop on Sunday mornings.",
        "I run with the club every Tuesday.",
        "The kids have swimming each Thursday afternoon.",
        "I see my mum every other Sunday.",
    ],
)
def test_a_weekday_said_of_a_habit_names_no_day(text: str) -> None:
    assert find_time(text, ANCHOR) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We met on Friday night at the bar.", day(2024, 6, 14)),
        ("I'm seeing the dentist on Tuesday morning.", day(2024, 6, 18)),
    ],
)
def test_one_weekday_with_its_part_of_the_day_is_still_that_day(text: str, expected: datetime) -> None:
    found = find_time(text, ANCHOR)
    assert found is not None and found.when.date() == expected.date()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a week runs Monday to Sunday: the anchor's is 10-16 June, the next 17-23 June
        ("oh can you note I've got the dentist thursday next week at 4:15", day(2024, 6, 20)),
        ("I saw him Wednesday this week", day(2024, 6, 12)),
        ("the party is Friday week", day(2024, 6, 28)),
        ("I'm away on the field trip the monday after next, two nights", day(2024, 6, 24)),
        ("we get the keys a week tomorrow", day(2024, 6, 23)),
        ("see you a fortnight on Friday", day(2024, 7, 5)),
        ("two weeks today we fly", day(2024, 6, 29)),
        # a weekday with its day of the month: the nearest date that is both
        ("the gig is on Monday the 21st", day(2024, 10, 21)),
        ("we went to the coast on Friday the 7th", day(2024, 6, 7)),
        # the day a thing is moved to is the plan now, whatever the tense of the moving
        ("they cancelled the saturday flight so they've moved us to monday the 21st", day(2024, 10, 21)),
        ("they pushed the launch back to June 3", day(2025, 6, 3)),
        # a name given is no past: the clause's own words decide
        ("we're adopting a tabby called Mango, bringing her home this sunday", day(2024, 6, 16)),
    ],
)
def test_a_weekday_placed_by_its_week_or_its_date(text: str, expected: datetime) -> None:
    found = find_time(text, ANCHOR)
    assert found is not None and found.when.date() == expected.date()


@pytest.mark.parametrize(
    "text",
    ["ryanair cancelled the saturday flight", "arriving on the saturday, can you sort the spare room"],
)
def test_a_weekday_after_the_refers_to_a_day_told_elsewhere(text: str) -> None:
    assert find_time(text, ANCHOR) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("moving day is the last saturday of april", day(2025, 4, 26)),
        ("we met on the first Monday in June", day(2024, 6, 3)),
        ("the course starts on the second Tuesday of September", day(2024, 9, 10)),
    ],
)
def test_the_nth_weekday_of_a_month(text: str, expected: datetime) -> None:
    found = find_time(text, ANCHOR)
    assert found is not None and found.when.date() == expected.date()


def test_over_the_weekend_is_the_past_one_or_the_coming_one_by_tense() -> None:
    monday = datetime(2026, 3, 16, 9, 0, tzinfo=UTC)
    assert resolve_time("Cutover went smoothly over the weekend.", monday) == day(2026, 3, 14)
    assert resolve_time("We'll finish the move over the weekend.", monday) == day(2026, 3, 21)


def test_every_time_a_text_names_in_order_and_the_first_is_find_times() -> None:
    text = "investor demo of the new api is tuesday the 20th, and launch is locked for monday 2 june, in March 2027"
    anchor = datetime(2025, 5, 8, tzinfo=UTC)
    found = find_times(text, anchor)
    assert [w.date() for _, _, w in found] == [
        day(2025, 5, 20).date(),
        day(2025, 6, 2).date(),
        day(2027, 3, 1).date(),
    ]
    assert [text[s:e] for s, e, _ in found][1:] == ["2 june", "in March 2027"]  # the longest reading
    first = find_time(text, anchor)
    assert first is not None and first.when == found[0][2]
    assert find_times("hello there", anchor) == []
