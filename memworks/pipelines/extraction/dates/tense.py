"""The tense a time expression is said in: of something to come, of something done, or unknown.

A date without a year ("August 29", "the 21st", "this Sunday") names the next such day when it
is said of something to come ("are getting married on August 29", "I start there on April 13",
"the party is on the 21st", "I've got a dentist appointment on November 3") and the last one when
said of something done ("we went on March 3", "I moved there on May 5", "I've been growing them
since February 20th"). A present tense with a date is a schedule, so it counts as to come.

What counts is the clause that holds the expression, and in it the tense-bearing word nearest
before the expression, else the nearest after: "I accepted the offer. I start on April 13" is to
come, "she told me the party is on the 21st" too, "on May 3 we went hiking" is done. A clause
with no such word takes the nearest one of the whole text, looking after it first (a fronted
"On May 3, we went ..."), then before it.

Words only, no parse: the extractors and the read of a stored transcript share it, and it must
stay linear on any input (tokens are scanned once).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Tense", "read_tense", "tense_at"]

#: "upcoming" (future, plan or present schedule) or "past".
Tense = str
UPCOMING: Tense = "upcoming"
PAST: Tense = "past"

_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?")
# Clause ends: sentence ends, commas, dashes, and the conjunctions that start a new clause.
_CLAUSE_END = re.compile(
    r"[.!?;:,\n\u2013\u2014]|\s-\s|\b(?:and|but|so|because|while|though|although|whereas|when)\b", re.IGNORECASE
)

_FUTURE_WORDS = frozenset(
    "will shall won't gonna soon upcoming tomorrow next scheduled planned booked later tonight".split()
)
_TO_FUTURE = frozenset("going about plan plans planning intend intends intending hoping set due".split())
# Verbs of entering something ("signed up for", "registered for", "enrolled in"): done now, about
# an event to come.
_ENTERED = frozenset("signed registered enrolled entered".split())
_BE_PRESENT = frozenset("am is are isn't aren't ain't".split())
_PAST_WORDS = frozenset(
    "was wasn't were weren't did didn't had hadn't ago yesterday last "
    "went came got met took saw made left began ran flew drove rode ate drank spent bought gave told "
    "said found thought knew heard felt kept brought sent built paid lost won wrote sat stood became "
    "fell swam sang slept woke wore caught taught sold held forgot chose broke spoke threw grew drew "
    "understood gotten been gone done seen taken given known written eaten flown driven".split()
)
# "since March 3" starts before now whatever the tense: "I've been ... since February 20th".
_SINCE = re.compile(r"\bsince\s*$", re.IGNORECASE)
# "they've moved us to Monday the 21st", "pushed the launch back to June": the day a thing is
# put off or brought to is the plan now, whatever the tense of the putting.
_RESCHEDULED = re.compile(
    r"\b(?:moved|pushed|postponed|rescheduled|delayed|changed|bumped|put|brought|shifted|slipped|slid|pulled)\b"
    r"(?:[ \t]{1,3}[\w']{1,20}){0,3}[ \t]{1,3}(?:to|till|until|for)[ \t]{1,3}(?:the[ \t]{1,3})?$",
    re.IGNORECASE,
)
# Words ending in "-ed" that are no past tense.
_NOT_PAST_ED = frozenset(
    "need indeed speed seed feed bed red wed shed hundred sacred naked wicked weed bleed breed greed "
    "proceed succeed exceed embed bred fed led shared tired excited scared bored interested "
    "worried married engaged invited supposed".split()
)
_SUBJECTS = frozenset("i we you they".split())
_THIRD = frozenset("he she it".split())
# "it's on", "what's on": the clitic is "is"; after a name ("Pablo's wedding") it is a possessive.
_S_IS = frozenset("it he she that there here what who which this everything everyone nothing".split())
_BE_OR_GET = frozenset("am is are was were be been being get gets getting got".split())
_HAVE = frozenset("have has 've".split())
_ADVERBS = frozenset(
    "also just really still only finally actually officially usually already now then so very "
    "not never always all both even too super definitely".split()
)
_MODALS = frozenset("would could should might must may can can't couldn't wouldn't shouldn't".split())
# Third-person verbs of a timetable: "the course starts on May 3", "it takes place on ...".
_SCHEDULE_VERBS = frozenset(
    "starts begins opens ends closes leaves arrives lands departs happens takes kicks falls runs "
    "finishes returns comes goes gets".split()
)
# Present verbs that recall or judge rather than schedule: "I remember May 3" is no plan.
_NOT_SCHEDULE = frozenset("remember recall miss think guess know mean believe love hate wish".split())


@dataclass(frozen=True, slots=True)
class _Word:
    start: int
    text: str  # lowercased, curly apostrophes made straight
    base: str  # without its clitic ("we're" -> "we")
    clitic: str  # "'re", "'s", "'ve", "'ll", "'m", "'d" or ""


def _words(text: str) -> list[_Word]:
    out = []
    for m in _TOKEN.finditer(text.lower().replace("\u2019", "'")):
        base, _, rest = m[0].partition("'")
        clitic = f"'{rest}" if rest and rest not in ("t",) else ""
        out.append(_Word(m.start(), m[0], base if clitic else m[0], clitic))
    return out


def _subject_before(words: Sequence[_Word], i: int) -> _Word | None:
    """The word before ``i`` once adverbs are skipped ("we also fly" -> "we")."""
    j = i - 1
    while j >= 0 and (words[j].text in _ADVERBS or words[j].text.endswith("ly")) and i - j < 3:
        j -= 1
    return words[j] if j >= 0 else None


def _kind(words: Sequence[_Word], i: int) -> Tense | None:
    w = words[i]
    t, nxt = w.text, words[i + 1].text if i + 1 < len(words) else ""
    prev = _subject_before(words, i)
    p = prev.text if prev else ""
    if w.clitic == "'ll" or t in _FUTURE_WORDS or (t in _TO_FUTURE and nxt in ("to", "on")):
        return UPCOMING
    if w.clitic in ("'m", "'re") or t in _BE_PRESENT or (w.clitic == "'s" and w.base in _S_IS):
        return UPCOMING
    if t == "got" and prev is not None and (p in _HAVE or prev.clitic in ("'ve", "'s")):
        return UPCOMING  # "I've got an appointment on ...": present possession
    if t in _ENTERED and any(w.text in ("up", "for", "in", "into") for w in words[i + 1 : i + 4]):
        return UPCOMING  # "signed us up for the half marathon on 27 September": what is entered is to come
    if t in ("called", "named") and p not in _SUBJECTS | _THIRD:
        return None  # "a tabby called Mango": a name given, no past
    if t in _PAST_WORDS or (t == "used" and nxt == "to"):
        return PAST
    if t.endswith("ed") and len(t) > 3 and t not in _NOT_PAST_ED:
        before = [words[j] for j in range(max(0, i - 2), i)]
        if any(b.text in _BE_OR_GET or b.clitic in ("'m", "'re", "'s") for b in before):
            return None  # "we're invited", "I'm so excited": the be-verb carries the tense
        return PAST  # "moved", and the perfect "I've moved" alike
    if t in _SCHEDULE_VERBS:
        return UPCOMING
    if t in _MODALS or t in _NOT_SCHEDULE or t.rstrip("s") in _NOT_SCHEDULE:
        return None
    if p in _SUBJECTS and not w.clitic and t.isalpha():
        return UPCOMING  # "I start", "we fly": a present tense with a date is a schedule
    if p in _THIRD and t.endswith("s"):
        return UPCOMING
    return None


def read_tense(text: str) -> list[tuple[int, Tense]]:
    """Every tense-bearing word of ``text``: (its offset, its tense), in order. A weekday's short
    name is no verb ("moving sat 23 may")."""
    words = _words(text)
    return [
        (w.start, k)
        for i, w in enumerate(words)
        if (k := _kind(words, i)) is not None and not (w.text == "sat" and _DAY_AFTER.match(text, w.start + 3))
    ]


#: A day after a word: "sat 23 may", "sat the 9th".
_DAY_AFTER = re.compile(r"[ \t]{1,3}(?:the[ \t]{1,3})?\d")


def tense_at(text: str, start: int, end: int, marks: Sequence[tuple[int, Tense]] | None = None) -> Tense | None:
    """The tense the words ``text[start:end]`` are said in (see the module docstring), or None.

    Args:
        text: the sentence or turn holding the expression.
        start, end: the expression's offsets in ``text``.
        marks: ``read_tense(text)`` when the caller already has it.
    """
    if _SINCE.search(text[max(0, start - 12) : start]) or text[start:end].lower().startswith("since"):
        return PAST
    if _RESCHEDULED.search(text[max(0, start - 80) : start]):
        return UPCOMING
    marks = read_tense(text) if marks is None else marks
    if not marks:
        return None
    lo = max((m.end() for m in _CLAUSE_END.finditer(text, 0, start)), default=0)
    after = _CLAUSE_END.search(text, end)
    hi = after.start() if after else len(text)
    left = [k for pos, k in marks if lo <= pos < start]
    if left:
        return left[-1]
    right = [k for pos, k in marks if end <= pos < hi]
    if right:
        return right[0]
    later = [k for pos, k in marks if pos >= end]
    earlier = [k for pos, k in marks if pos < start]
    return later[0] if later else earlier[-1] if earlier else None
