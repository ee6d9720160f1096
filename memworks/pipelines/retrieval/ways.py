"""Questions that ask the way someone gets somewhere, and statements that give one.

"How do I get to work?" asks for a way of travelling; the embedder puts the statements that share
its destination ("I work as an actuary in the City", 0.25) above the one that answers it ("I take
the Northern line into work", 0.23). The answer's type says it: a statement that names a way to
travel (a mode, or a verb of travelling) answers, one that only names the place does not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["WAY_MIN_SIMILARITY", "answering_ways", "asked_before", "asks_way", "says_way", "ways_first"]

#: "How do I get to work?", "How does Keiko get to the office?", "How do you commute?".
_ASKS = re.compile(
    r"\bhow\s+(?:do|does|did|will|would|can|should)\s+(?:\w+\s+){1,2}?"
    r"(?:get|go|travel|commute|come|make\s+it)\b(?:\s+(?:to|into|in)\b|\s*\?|\s+(?:there|home|back)\b)",
    re.IGNORECASE,
)
#: Ways of travelling: a mode ("the Northern line", "the 86 bus", "a bike ride") or a verb of one.
_WAY = re.compile(
    r"\b(?:trains?|tube|bus|buses|tram|metro|subway|underground|overground|ferry|boat|bike|bicycle|"
    r"car|taxi|cab|uber|shuttle|coach|scooter|streetcar|(?:\w+\s+)?line|commut(?:e|es|ed|ing)|"
    # a verb of travelling, going somewhere ("I cycle to school"; not "needs walking twice a day")
    r"(?:cycl|bik|walk|driv|rid)(?:e|es|s|ed|ing)?\s+(?:\w+\s+){0,3}?(?:to|into|over|along|across|through)"
    # ... or in ("I'm cycling in now"; not "driving in the rain")
    r"|(?:cycl|bik|walk|driv)(?:e|es|s|ed|ing)?\s+in\b(?!\s+(?:the|a|an|my|our|his|her|their|this|that)\b)"
    r"|drove\s+(?:\w+\s+){0,3}?(?:to|into))\b",
    re.IGNORECASE,
)


def asks_way(question: str) -> bool:
    """Whether ``question`` asks how someone gets somewhere."""
    return _ASKS.search(question) is not None


_BEFORE = re.compile(r"\b(?:did|was|were|used\s+to|before|previously)\b", re.IGNORECASE)


def asked_before(question: str) -> bool:
    """Whether ``question`` asks about a past way ("How did I get to work before the move?")."""
    return _BEFORE.search(question) is not None


def says_way(text: str) -> bool:
    """Whether ``text`` names a way of travelling."""
    return _WAY.search(text) is not None


#: Least similarity to the question for a statement naming a way to count as an answer (below it,
#: "I drove to the beach last summer" answers no question of getting to work).
WAY_MIN_SIMILARITY = 0.08


def answering_ways(sims: npt.NDArray[np.float64], texts: Sequence[str]) -> npt.NDArray[np.bool_]:
    """The candidates that name a way of travelling and are like the question at least a little."""
    if len(texts) != len(sims):
        return np.zeros(len(sims), dtype=np.bool_)
    return np.array([says_way(t) for t in texts], dtype=np.bool_) & (sims >= WAY_MIN_SIMILARITY)


def ways_first(score: npt.NDArray[np.float64], way: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    """The candidates in ``way`` (:func:`answering_ways`) above the rest, in their own order."""
    if not len(score) or len(way) != len(score) or not way.any():
        return score
    return np.where(way, score + float(score.max()), score)
