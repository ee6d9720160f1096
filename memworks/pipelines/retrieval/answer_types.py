"""The kind of answer a question asks for, and whether a text holds one of that kind.

"What is the name of my dentist?" asks for a name, "How much are we paying for the house?" for
a sum, "What coverage percentage does CI enforce?" for a percentage. A record about the dentist
that names no one ("I've got the dentist thursday at 4:15") or about the house that states no
sum does not answer it, however close its topic: when no candidate holds an answer of the kind
asked, the question is about something never said. Only kinds whose answers have a written form
are read; any other question is left to the ranker's floor.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["KIND_CHECKED", "KIND_SHARE", "answer_kind", "holds_answer", "kind_answered"]

#: The candidates looked at for an answer of the kind asked for: at most this many of the best,
#: each at least this share of the best one's probability.
KIND_CHECKED, KIND_SHARE = 5, 0.1

_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("percent", re.compile(r"\bpercent(?:age)?\b|%", re.I)),
    (
        "sum",
        re.compile(
            r"\bhow\s+much\b.{0,60}\b(?:cost|costs|pay|paid|paying|price|spend|spent|spending|charge|charged|rent"
            r"|salary|earn|earns|owe|worth|fee|bill)\b|\bhow\s+much\s+(?:is|was|does|did)\b|\bwhat(?:'s|\s+is|\s+was)\s+"
            r"(?:the\s+|my\s+|our\s+|their\s+)?(?:price|cost|rent|salary|fee)\b",
            re.I,
        ),
    ),
    ("name", re.compile(r"\bname\s+of\b|\bwhat(?:'s|\s+is|\s+was|\s+are)\s+(?:[\w']+\s+){1,3}names?\b", re.I)),
)
_PERCENT = re.compile(r"\d\s?(?:%|percent\b|per\s+cent\b)", re.I)
_SUM = re.compile(
    r"[$£€¥]\s?\d|\d\s?(?:k\b|grand\b|quid\b|bucks\b|pounds?\b|dollars?\b|euros?\b|eur\b|usd\b|gbp\b|p/?m\b)"
    r"|\b(?:eur|usd|gbp|cad|aud|chf)\s?\d|_(?:gbp|eur|usd|cad)\b|\b(?:price|cost|rent|salary|fee|amount)\w*\W{1,3}\d",
    re.I,
)
#: Capitalised words that are no one's name.
_NOT_NAMES = frozenset(
    """i i'm i've i'd i'll monday tuesday wednesday thursday friday saturday sunday january february march april
    may june july august september october november december user ok okay hi hey""".split()
)
# A name said in lower case: "called pepper", "my dentist is dr okafor", "her name's bia".
_NAMED = re.compile(r"\b(?:called|named|(?:dr|mr|mrs)\.?|(?:my|his|her|their|its)\s+name(?:'s|\s+is))\s+[a-z]", re.I)


def answer_kind(question: str) -> str | None:
    """``percent``, ``sum`` or ``name`` when the question asks for an answer of that kind."""
    return next((kind for kind, rx in _KINDS if rx.search(question)), None)


def holds_answer(kind: str, text: str, question: str) -> bool:
    """Whether ``text`` holds an answer of ``kind`` to ``question``: a percentage, a sum of
    money, or a name that the question does not already say."""
    if kind == "percent":
        return _PERCENT.search(text) is not None
    if kind == "sum":
        return _SUM.search(text) is not None
    asked = {w.removesuffix("'s").casefold() for w in re.findall(r"[\w'-]+", question)}
    if _NAMED.search(text):
        return True
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        words = re.findall(r"[\w'-]+", sentence)[1:]  # a sentence's first word is capitalised anyway
        for w in words:
            bare = w.removesuffix("'s").casefold()
            if w[:1].isupper() and bare not in asked and bare not in _NOT_NAMES and not w.isupper():
                return True
    return False


def kind_answered(
    kind: str,
    question: str,
    p: npt.NDArray[np.float64],
    texts: Sequence[str],
    keys: Sequence[str | None],
    summary: Sequence[bool],
    source: npt.NDArray[np.int64],
) -> bool:
    """Whether one of the best candidates (by ``p``) holds an answer of ``kind``. Summaries name
    everything they sum up (the records they rest on answer for them), and the user's own name
    answers no question of someone else's ("the name of my dentist"); a fact stands for the turn
    it was read from (``source``: "Nadia got a cat." for "... a black rescue called Pepper")."""
    mine = "my name" in question.lower()
    own = [i for i in np.argsort(-p, kind="stable") if not summary[i] and (keys[i] != "user.name" or mine)]
    if not own:
        return True
    best = [i for i in own[:KIND_CHECKED] if p[i] >= KIND_SHARE * p[own[0]]]
    return any(
        holds_answer(kind, texts[i], question) or (source[i] >= 0 and holds_answer(kind, texts[source[i]], question))
        for i in best
    )
