"""Statements met sentence by sentence: a turn of several things says each in a sentence of its own.

A whole turn's vector blurs its sentences: "rent's £1,800 a month, so £600 each. front room's
bigger though" and a later "renewal's through: £1,890 a month from 1 June" are far apart as turns
(cosine < 0.45) though two of their sentences are about the same rent. So two statements are as
close as their closest sentences (:func:`closeness`), and when the whole earlier turn is neither
changed nor restated, each of its sentences is decided against the later turn's (:func:`part_decision`):
the learned pair model was trained on sentences, and this is where it reads them. A sentence-level
closing ends only that sentence of the earlier turn (:class:`PartDecision`); its other sentences
still hold. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memworks.pipelines.claims.decision import Decision, DecisionModel, decide_all
from memworks.pipelines.claims.features import ClaimText, cue_acts_on
from memworks.pipelines.claims.reading import read_words
from memworks.pipelines.text.spans import split_speaker

__all__ = ["PartDecision", "closest_views", "closeness_to", "part_decision"]

_CLOSING = (Decision.CHANGED, Decision.ENDED)
#: Tenses in which a sentence tells a state that holds (and so can stop holding).
_STATES = frozenset({"present", "perfect"})


@dataclass(frozen=True)
class PartDecision:
    """What one sentence of the later statement (``said``) does to one of the earlier one's (``part``)."""

    decision: Decision
    probability: float
    #: The earlier statement's sentence it acts on.
    part: str
    #: The later statement's sentence (or whole text) that acts.
    said: str


def _matrix(views: Sequence[ClaimText]) -> npt.NDArray[np.float32]:
    return np.vstack([v.vector for v in views])


def closest_views(new: npt.NDArray[np.float32], pool: Sequence[npt.NDArray[np.float32]]) -> npt.NDArray[np.float32]:
    """(len(pool), rows of ``new``): each of ``pool`` (a statement's views, one per row: whole,
    then each sentence) at its closest to each row of ``new``, in one product."""
    starts = np.cumsum([0, *(len(r) for r in pool[:-1])])
    result: npt.NDArray[np.float32] = np.maximum.reduceat(np.vstack(pool) @ new.T, starts, axis=0)
    return result


def closeness_to(new: Sequence[ClaimText], pool: Sequence[Sequence[ClaimText]]) -> npt.NDArray[np.float64]:
    """How close each of ``pool`` is to ``new``: the cosine of their closest views (a statement
    whole, then each of its sentences)."""
    if not pool:
        return np.zeros(0)
    best: npt.NDArray[np.float64] = (
        closest_views(_matrix(new), [_matrix(o) for o in pool]).max(axis=1).astype(np.float64)
    )
    return best


def _tense(part: ClaimText) -> str:
    """The sentence's tense; of a sentence carrying its turn's "Name: ", read from its words
    without it (the parse takes the name for the sentence's root and reads no tense)."""
    prefix, body = split_speaker(part.text)
    return read_words(body).tense if prefix else part.reading.tense


def part_decision(
    late: Sequence[ClaimText], early: Sequence[ClaimText], *, model: DecisionModel | None, min_cosine: float
) -> PartDecision | None:
    """The surest closing, else restatement, that one of the later statement's sentences
    (``late``: its sentences, or itself whole) makes of one of the earlier one's (``early``),
    among sentence pairs at least ``min_cosine`` alike. A closing needs the later sentence's cue
    to act on a thing the earlier one said, as a whole turn's does."""
    found: list[PartDecision] = []
    for said in late:
        near = [p for p in early if float(np.dot(said.vector, p.vector)) >= min_cosine]
        for part, (d, p) in zip(near, decide_all(said, near, model), strict=True):
            # Only a state told as holding stops holding ("I have a PureGym membership"); an event
            # told as done stays done ("I went to the support group on Monday").
            closes = d in _CLOSING and _tense(part) in _STATES and cue_acts_on(said, part)
            if closes or d is Decision.RESTATED:
                found.append(PartDecision(d, p, part.text, said.text))
    closing = [f for f in found if f.decision in _CLOSING]
    pick = closing or found
    return max(pick, key=lambda f: f.probability) if pick else None
