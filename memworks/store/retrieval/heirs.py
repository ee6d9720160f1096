"""What took the place of the records a present question means best.

"What book am I reading?" means "I'm reading Piranesi" best, but that statement was closed by
"Finished Piranesi, now I'm on Klara and the Sun", which the embedder finds little like the
question. The record that closed it (by a pair decision or a slot's supersession) is where its
answer went: in a present read it answers as well as the record it replaced. Not the next value
of the same slot (a tool's later result about an order): that one is measured on its own words.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import aliased
from sqlmodel import Session, col

from memworks.models.tables import Memory
from memworks.store.projections.vector import Scores

__all__ = ["HEIR_MIN_SIMILARITY", "HEIR_SCAN", "heirs"]

#: Closed records looked at: the few closest to the question.
HEIR_SCAN = 5
#: Least similarity (best sentence) of a closed record to the question for its heir to inherit it.
HEIR_MIN_SIMILARITY = 0.45
#: Most supersessions followed from a closed record to the one holding now.
_HOPS = 3
#: The record that closed another.
_by = aliased(Memory)


def heirs(s: Session, scores: Scores) -> dict[str, float]:
    """The live records that replaced the closed records closest to the question, each with the
    best similarity of those it replaced (its own is kept where higher, by the caller)."""
    e = scores.matrix
    if not e.ids or not len(e.live):
        return {}
    closed = np.flatnonzero(~e.live)
    if not len(closed):
        return {}
    sims = scores.best[closed]
    picked = [int(closed[i]) for i in np.argsort(-sims)[:HEIR_SCAN] if sims[i] >= HEIR_MIN_SIMILARITY]
    inherited: dict[str, float] = {}
    frontier = {e.ids[i]: float(scores.best[i]) for i in picked}
    for _ in range(_HOPS):
        if not frontier:
            break
        # Each closed record, what closed it, and both keys: one round trip per hop.
        rows = s.execute(
            select(col(Memory.memory_id), col(Memory.superseded_by), col(Memory.key), col(_by.key))
            .join(_by, col(_by.memory_id) == col(Memory.superseded_by))
            .where(col(Memory.memory_id).in_(list(frontier)))
        ).all()
        nxt: dict[str, float] = {}
        for mid, by, key, by_key in rows:
            if (i := e.index.get(by)) is None or (key is not None and by_key == key):
                continue
            sim = frontier[mid]
            if e.live[i]:
                inherited[by] = max(inherited.get(by, 0.0), sim)
            else:
                nxt[by] = max(nxt.get(by, 0.0), sim)
        frontier = nxt
    return inherited
