"""Grading of ``memworks eval probes``, by rule and never by a model: normalised string or set
match against the answer key, abstention where the key says so, and nothing of another scope in
what a design put into its context. Also the cue reader that answers from lines of text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from memworks_tools.evaluation.probes.cases import Question

__all__ = ["Counter", "Got", "Reply", "grade", "matches", "mentions", "read_lines"]

Got = str | tuple[str, ...] | None
#: Counts the tokens of a text.
Counter = Callable[[str], int]


def _norm(s: str) -> str:
    s = re.sub(r"[^\w/ ]+", " ", s.casefold().replace("-", " "))
    return re.sub(r"^(?:the|a|an)\s+", "", " ".join(s.split()))


def _spellings(item: str) -> set[str]:
    return {_norm(a) for a in item.split("|")}


@cache
def _word(value: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(value)}(?!\w)", re.IGNORECASE)


def mentions(text: str, values: Iterable[str]) -> bool:
    """Does ``text`` name any of ``values`` (whole words, any case)?"""
    return any(_word(v).search(text) for v in values)


def matches(expect: str | tuple[str, ...] | None, got: Got) -> bool:
    """The answer key's rule: abstain, one answer (any listed spelling), or exactly the set."""
    if expect is None or got is None:
        return expect is None and got is None
    if isinstance(expect, str):
        return isinstance(got, str) and _norm(got) in _spellings(expect)
    wanted = [_spellings(e) for e in expect]
    given = {_norm(g) for g in ((got,) if isinstance(got, str) else got)}
    return all(any(g in w for w in wanted) for g in given) and all(w & given for w in wanted)


@dataclass
class Reply:
    """A design's answer, what it cost, and every text it put into the context."""

    got: Got
    tokens: int
    seen: list[str] = field(default_factory=list)
    #: memworks: how many hits the retrieval returned (0 is the store's own abstention).
    hits: int | None = None


def grade(q: Question, reply: Reply) -> bool:
    """Right answer, and (isolation) nothing of the other scope in the context."""
    return matches(q.expect, reply.got) and not any(mentions(t, q.not_values) for t in reply.seen)


def read_lines(q: Question, texts: Sequence[str], *, newest_first: bool) -> Got:
    """The cue reader: the first line (in the given order) a cue matches; all of them for a set."""
    cues = [re.compile(c) for c in q.cues]
    found = [m["a"] for t in texts for c in cues for m in c.finditer(t)]
    if q.many:
        return tuple(dict.fromkeys(found)) or None
    for t in reversed(texts) if newest_first else texts:
        for c in cues:
            if m := c.search(t):
                return m["a"]
    return None
