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
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from memworks.pipelines.claims.decision import Decision, DecisionModel, decide_all
from memworks.pipelines.claims.features import ClaimText, cue_acts_on

if TYPE_CHECKING:
    from memworks.pipelines.claims.govern import Statement

__all__ = ["PartDecision", "closeness", "closeness_to", "part_decision", "views"]

_CLOSING = (Decision.CHANGED, Decision.ENDED)


@dataclass(frozen=True)
class PartDecision:
    """What one sentence of the later statement (``said``) does to one of the earlier one's (``part``)."""

    decision: Decision
    probability: float
    #: The earlier statement's sentence it acts on.
    part: str
    #: The later statement's sentence (or whole text) that acts.
    said: str


def views(st: Statement) -> tuple[ClaimText, ...]:
    """The statement whole, then each of its sentences (a turn of one has none of its own)."""
    return (st.claim, *st.parts)


def _matrix(st: Statement) -> npt.NDArray[np.float32]:
    return np.vstack([v.vector for v in views(st)])


def closeness(a: Statement, b: Statement) -> float:
    """The cosine of the two statements' closest views (whole or sentence)."""
    return float(np.max(_matrix(a) @ _matrix(b).T))


def closeness_to(new: Statement, pool: Sequence[Statement]) -> npt.NDArray[np.float64]:
    """:func:`closeness` of ``new`` to each of ``pool`` (same vector size), in one product."""
    if not pool:
        return np.zeros(0)
    rows = [_matrix(o) for o in pool]
    starts = np.cumsum([0, *(len(r) for r in rows[:-1])])
    best = (np.vstack(rows) @ _matrix(new).T).max(axis=1)
    return np.maximum.reduceat(best, starts).astype(np.float64)


def part_decision(
    late: Statement, early: Statement, *, model: DecisionModel | None, min_cosine: float
) -> PartDecision | None:
    """The surest closing, else restatement, that a sentence of ``late`` makes of a sentence of
    ``early`` (a turn of several), among sentence pairs at least ``min_cosine`` alike. A closing
    needs the later sentence's cue to act on a thing the earlier one said, as a whole turn's does."""
    if not early.parts:
        return None
    found: list[PartDecision] = []
    for said in late.parts or (late.claim,):
        near = [p for p in early.parts if float(np.dot(said.vector, p.vector)) >= min_cosine]
        for part, (d, p) in zip(near, decide_all(said, near, model), strict=True):
            if (d in _CLOSING and cue_acts_on(said, part)) or d is Decision.RESTATED:
                found.append(PartDecision(d, p, part.text, said.text))
    closing = [f for f in found if f.decision in _CLOSING]
    pick = closing or found
    return max(pick, key=lambda f: f.probability) if pick else None
