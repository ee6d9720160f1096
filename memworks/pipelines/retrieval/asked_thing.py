"""The thing a "which"/"what" question asks for ("Which terminal do we fly from?" → terminal).

When no record of the scope uses the thing's word and none means it (a terminal, an airline, a
licence nobody mentioned), the question is about something never said, however close in topic the
records are ("the flight is booked", "the app is built with Flask"): their many words make them
near any question about their subject, and only the thing asked for tells them apart.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["MAX_WORDS", "THING_MIN_SIMILARITY", "asked_thing", "thing_name"]

_WORD = re.compile(r"[\w'-]+")
#: Words after "which"/"what" before the thing: the verb of the question and determiners.
_LEAD = frozenset("'s is was are were the a an my our your his her their its this that these those".split())
#: Words that end the thing's name: verbs, prepositions and pronouns.
_END = frozenset(
    """do does did is are was were has have had will would can could should shall may might must am be been
    for of in on at to from by with about into than that which who whom whose when where i we you he she they
    it me us him them there here""".split()
)
#: Things that stand for the answer's form, not its topic: the thing is what follows "of" ("the
#: name of the engineer", "what kind of room").
_FORM = frozenset({"name", "names", "kind", "kinds", "sort", "type", "types"})
#: Things any record may answer in words of its own (a time, a result, what happened).
_ANY = frozenset(
    """time times date dates day days year years month months way ways one ones thing things result results
    outcome status state stage progress happening going plan plans news update latest else""".split()
)
#: Cosine (a candidate's best sentence to the thing's word, when no record of the scope uses that
#: word) below which nothing said is about it. On the shipped conversations, questions about
#: things never said 0.15-0.45, answered ones from 0.21 (not_stale checks, which pass either way,
#: from 0.21 too): the bar takes the five below 0.21 and no answered one.
THING_MIN_SIMILARITY = 0.21
#: Most words of a thing's name ("minimum test coverage"): a longer run has run into a clause
#: ("... coverage CI enforces").
MAX_WORDS = 3


def _thing(words: Sequence[str], start: int) -> tuple[list[str], int]:
    i = start
    while i < len(words) and (words[i] in _LEAD or words[i].endswith("'s")):
        i += 1
    run: list[str] = []
    # ... up to a verb: a listed one, or a past tense ("Which bank issued the card?").
    while i < len(words) and words[i] not in _END and not (len(words[i]) > 4 and words[i].endswith("ed")):
        run.append(words[i])
        i += 1
    return run[:MAX_WORDS], i


def asked_thing(question: str) -> str | None:
    """The head word of the thing a "which"/"what" question asks for ("Which AWS region is it
    in?" → "region"; "What was the name of the engineer?" → "engineer"), None when it asks for
    no named thing ("What should we cook?") or for a time, a date or a result."""
    name = thing_name(question)
    return name.split()[-1] if name else None


def thing_name(question: str) -> str | None:
    """The words naming the thing :func:`asked_thing` asks for, its head last ("Which operating
    systems ...?" → "operating systems"; "What CI system ...?" → "ci system")."""
    words = [w.casefold() for w in _WORD.findall(question.replace("\u2019", "'"))]
    at = next((i for i, w in enumerate(words) if w in ("which", "what", "what's")), None)
    if at is None:
        return None
    run, end = _thing(words, at + 1)
    if run and run[-1] in _FORM and end < len(words) and words[end] == "of":
        run, _ = _thing(words, end + 1)
    head = run[-1] if run else None
    if head is None or head in _ANY or head in _FORM or len(head) < 3:
        return None
    return " ".join(run)
