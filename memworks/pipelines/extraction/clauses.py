"""Segmentation for the ``rules`` extractor: a turn's text → the clauses its patterns match.

Contractions are expanded, the text is split into sentences and clauses ("... and work in
London" gets its "I" back), and fillers, "remember that", hedges, politeness and standing
markers are peeled off the front of each clause, so that every statement pattern can be
anchored at its start. Questions and conditional sentences yield no clause.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from memworks.pipelines.extraction.vocabulary import NAME_BLOCK

__all__ = ["ABBREVIATIONS", "CONDITIONAL", "STANDING_TAIL", "Clause", "clauses_of"]

_I = re.IGNORECASE


@dataclass(frozen=True, slots=True)
class Clause:
    """A statement ready for matching; ``raw`` keeps the original words for time parsing."""

    text: str
    raw: str
    casual: bool
    hedged: bool = False
    standing: bool = False


# --- patterns -------------------------------------------------------------------------------

SENT_END = re.compile(r"(?<![.!?;])[.!?;]+(?=\s|$)|\n+")
ABBREVIATIONS = frozenset("st dr mr mrs ms prof jr sr e.g i.e etc vs d.c u.s mt ft no".split())
_FIRST = r"(?:i|i'm|i've|i'd|i'll|we|we're|we've|my|our|please|from\s+now\s+on|always|btw)\b"
_QUESTION = r"(?:do|does|did|can|could|would|should|is|are|what|where|when|why|how|who|which)\b"
CLAUSE_SPLIT = re.compile(
    rf"(?<!\s)\s*[,:\u2013\u2014]\s*(?:(?:and|but|so|also|now|then|plus|though|although)\s+)?"
    rf"(?=(?:{_FIRST}|{_QUESTION}))"
    rf"|(?<!\s)\s+(?:and|but|so|because|cause|cuz|though|although|while|whereas|plus|then)\s+"
    rf"(?:also\s+|now\s+|then\s+)?(?={_FIRST})"
    r"|(?<!\s)\s+-\s+",
    _I,
)
#: "... and work in London": the subject is left out, the splitter puts "I" back (only when the
#: clause before it is the speaker's own: "I" or "we").
ELLIPSIS = re.compile(
    r"(?<!\s)(?:(?:\s*,)?\s+and\s+(?:also\s+|then\s+|now\s+)?|\s*,\s+)(?=(?:live|work|moved|relocated|joined|started"
    r"|have|got|prefer|keep|grew|was|am|will|plan|planning|quit|left|don't|do\s+not|never"
    r"|no\s+longer|just|recently|currently)\b)",
    _I,
)
_FIRST_PERSON = re.compile(r"^(?:i|we)\b", _I)
#: A sentence that opens on a past-tense verb of the speaker's own doings leaves its "I" out, as
#: notes and chat do ("Started at Sparkwise yesterday", "Joined Acme last week"); only the verbs
#: the statement patterns read, and never a question (those are skipped before this).
DROPPED_SUBJECT = re.compile(
    r"^(?:started|joined|moved|relocated|quit|left|got|accepted|switched|cancell?ed|stopped|began)\s+(?!(?:to|by|up)\b)",
    _I,
)
FILLER = re.compile(
    r"^(?:oh\s+and|oh\s+also|(?:hey|hi|hello|hiya)(?:\s+there)?|oh|ok|okay|so|well|also|and|but|ha|hah"
    # a topic named before the clause: "work wise I'm ...", "money-wise we're ..."
    r"|[a-z]{2,20}[\s-]?wise"
    r"|anyway|anyways|actually|btw|by\s+the\s+way|fyi|just\s+fyi|just\s+so\s+you\s+know"
    r"|for\s+context|for\s+the\s+record|for\s+reference|as\s+you\s+know|yeah|yes|yep"
    r"|no(?!\s+(?:longer|need))|nope|um|uh|hmm|lol|haha|now|then|plus|ps|side\s+note|basically|like"
    r"|honestly|literally|alright|right|sure|cool|great|note\s+to\s+self"
    r"|quick\s+note|heads\s+up|update|quick\s+update|incidentally|just\s+to\s+let\s+you\s+know"
    # news announced before it is told: "other news, got the job at ...", "big news: we're buying"
    r"|(?:other|more|big|some|good|bad|great|exciting)\s+news(?:\s+(?:though|tho|btw))?"
    r"|just\s+letting\s+you\s+know|i\s+wanted\s+to\s+(?:say|mention|let\s+you\s+know)(?:\s+that)?"
    r"|i\s+should\s+(?:mention|say)(?:\s+that)?|you\s+should\s+know(?:\s+that)?)\b[\s,:!.\-]*",
    _I,
)
REMEMBER = re.compile(
    r"^(?:please\s+)?(?:(?:remember|note|keep\s+in\s+mind|make\s+a\s+note|take\s+note|bear\s+in"
    r"\s+mind|don't\s+forget|do\s+not\s+forget)(?:\s+(?:that|of\s+this))?"
    r"|(?:save|store|record|memorize)\s+that)\b[\s,:]*",
    _I,
)
HEDGE_LEAD = re.compile(
    r"^(?:i\s+think|i\s+guess|i\s+suppose|i\s+believe|i\s+reckon|probably|maybe|perhaps"
    r"|i\s+would\s+say|(?:i\s+am\s+)?not\s+sure\s+but|(?:i\s+am\s+)?pretty\s+sure|if\s+i\s+remember"
    r"\s+correctly|iirc|kinda|kind\s+of|sort\s+of)\b[\s,]*",
    _I,
)
HEDGE_ANY = re.compile(
    r"\b(?:think|guess|suppose|reckon|probably|maybe|perhaps|mostly|kinda|kind\s+of|sort\s+of"
    r"|possibly|i\s+believe|not\s+sure)\b",
    _I,
)
_STANDING = (
    r"from\s+now\s+on|from\s+here\s+on(?:\s+out)?|going\s+forward|moving\s+forward"
    r"|in\s+(?:the\s+)?future|henceforth|by\s+default|as\s+a\s+rule|every\s+time"
)
STANDING_LEAD = re.compile(rf"^(?:{_STANDING})\b[\s,:]*", _I)
STANDING_TAIL = re.compile(rf"(?<![\s,])[\s,]*\b(?:{_STANDING})$", _I)
TRAILING = re.compile(
    r"(?<![\s,])[\s,]*(?:\b(?:please|thanks|thank\s+you|thx|btw|by\s+the\s+way|lol|haha|ok|okay|as\s+well"
    r"|too)|[:;]-?[)(DP])$",
    _I,
)
POLITE = re.compile(
    r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+|kindly\s+)?|please\s+|kindly\s+"
    r"|i\s+(?:want|need)\s+you\s+to\s+|i\s+would\s+like\s+you\s+to\s+|make\s+sure\s+(?:to|you)\s+)",
    _I,
)
INTERROGATIVE = re.compile(
    r"^(?:do(?!\s+not\b)|does|did|should|shall|would|could|can|is|are|am|was|were|what|what's"
    r"|whats|where|where's|when|why|how|which|who|who's|whose|have\s+you|has|had|will\s+you"
    r"|isn't|aren't|wouldn't|shouldn't|couldn't)\b",
    _I,
)
CONDITIONAL = re.compile(
    r"^(?:if|unless|suppose|supposing|imagine|what\s+if|assuming|in\s+case|hypothetically"
    r"|were\s+i|had\s+i|should\s+i|let'?s\s+say|say)\b",
    _I,
)


# --- splitting ------------------------------------------------------------------------------

# Contractions are expanded so that patterns only need to know "i am", "we have", ...
_SPELLING = tuple(
    (re.compile(pattern, re.IGNORECASE), repl)
    for pattern, repl in (
        (r"[\u2018\u2019`\u00b4]", "'"),
        (r"\bim\b", "i am"),
        (r"\bive\b", "i have"),
        (r"\bdont\b", "don't"),
        (r"\bi'm\b", "i am"),
        (r"\bi've\b", "i have"),
        (r"\bi'll\b", "i will"),
        (r"\bi'd\b", "i would"),
        (r"\bwe're\b", "we are"),
        (r"\bwe've\b", "we have"),
        (r"\bwe'll\b", "we will"),
        (r"\bwe'd\b", "we would"),
    )
)


def _sentences(text: str) -> Iterator[tuple[str, bool]]:
    start = 0
    for m in SENT_END.finditer(text):
        # Only the word before the stop matters: a bounded look keeps long runs of "A. A. A." linear.
        words = text[max(start, m.start() - 16) : m.start()].split()
        if m[0].startswith(".") and words and words[-1].lower().rstrip(".") in ABBREVIATIONS:
            continue  # "St. Louis", "e.g. Lisbon"
        if m[0] == "." and words and _initial(words[-1].rsplit(".", 1)[-1], text, m.end()):
            continue  # "Ursula K. Le Guin", "J. R. R. Tolkien"
        yield text[start : m.start()].strip(), "?" in m[0]
        start = m.end()
    yield text[start:].strip(), False


def _initial(word: str, text: str, after: int) -> bool:
    """A capital letter alone before "." and a capitalised word is a name's initial, not the end
    of a sentence ("Ursula K. Le Guin", "J. R. R. Tolkien")."""
    return len(word) == 1 and word.isupper() and text[after : after + 8].lstrip()[:1].isupper()


#: Rounds of peeling per clause (count). Each round scans the clause's end, so "hi hi hi ..."
#: repeated for 100 KB would cost quadratic time; no real sentence stacks this many fillers.
_MAX_PEELS = 8


def _peel(text: str) -> tuple[str, bool, bool, bool]:
    """Strip fillers, hedges, standing markers and politeness; report which were present."""
    hedged = standing = polite = False
    for _ in range(_MAX_PEELS):
        before = text
        text = REMEMBER.sub("", FILLER.sub("", text, count=1), count=1)
        for rx in (HEDGE_LEAD, STANDING_LEAD, POLITE):
            if m := rx.match(text):
                hedged |= rx is HEDGE_LEAD
                standing |= rx is STANDING_LEAD
                polite |= rx is POLITE
                text = text[m.end() :]
        tail = TRAILING.sub("", text)
        standing |= bool(STANDING_TAIL.search(tail))
        text = STANDING_TAIL.sub("", tail).strip(" ,.;:!?\"'")
        if text == before:
            break
    return text, hedged, standing, polite


_IGNORED_CAPITALS = re.compile(r"(?:^|[.!?]\s+|\n)\s*\S+|\bI(?:'[a-z]+)?\b")


def _casual(content: str) -> bool:
    """True for writers who never capitalise a name (sentence starts and "I" do not count)."""
    return not any(ch.isupper() for ch in _IGNORED_CAPITALS.sub(" ", content))


def clauses_of(content: str) -> Iterator[Clause]:
    """The statements of a turn, one per clause, peeled and ready for matching."""
    casual = _casual(content)
    text = content
    for rx, repl in _SPELLING:
        text = rx.sub(repl, text)
    for sentence, question in _sentences(text):
        if not sentence or CONDITIONAL.match(_peel(sentence)[0]):
            continue
        pieces: list[str] = []
        for part in CLAUSE_SPLIT.split(sentence):
            first, *rest = ELLIPSIS.split(part)
            if rest and not _FIRST_PERSON.match(_peel(first)[0]):
                first, rest = part, []  # "Inês changed jobs and moved to Oslo": the left-out subject is hers
            if pieces and not _peel(pieces[-1])[0]:  # "From now on, | always cc ..." is one clause
                first = f"{pieces.pop()}, {first}"
            pieces += [first, *(f"I {r}" for r in rest)]
        for i, raw in enumerate(pieces):
            body, hedged, standing, polite = _peel(raw)
            if i == 0 and DROPPED_SUBJECT.match(body):  # "Started at Sparkwise yesterday": the diarist's "I"
                body = f"I {body[0].lower()}{body[1:]}"
            asks = question and i == len(pieces) - 1 and not polite
            if not body or asks or INTERROGATIVE.match(body):
                continue
            hedged |= bool(HEDGE_ANY.search(body))
            for said in _appositions(body):
                yield Clause(text=said, raw=raw, casual=casual, hedged=hedged, standing=standing)


#: "I'm Rosa, staff nurse at Wythenshawe": a name, then what its bearer is.
_NAME_THEN_WHAT = re.compile(r"^(?P<me>i\s+am\s+[A-Za-z][a-z'-]+),\s+(?P<what>(?:an?\s+|the\s+)?[a-z].+)$", re.I)


def _appositions(body: str) -> list[str]:
    """A self-introduction with its apposition ("i am rosa, staff nurse on the cardiology ward")
    as two statements, each of the speaker: the name, and what they are."""
    m = _NAME_THEN_WHAT.match(body)
    if not m or m["me"].split()[-1].lower() in NAME_BLOCK:  # "i am sorry, the meeting ran late"
        return [body]
    return [m["me"], f"i am {m['what']}"]
