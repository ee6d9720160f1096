"""Summaries in a read: a session summary ranks below the current records it summarises.

It says nothing they do not, and they carry the time, the key and the history. Pure: numpy only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["SUMMARY_BELOW_TOP", "below_parts"]

#: How many records a summary of candidates never outranks.
SUMMARY_BELOW_TOP = 3
#: How far below its best record a summary scores (just below: it keeps its place among the rest).
_BELOW = 0.999


def below_parts(
    score: npt.NDArray[np.float64], parts: Sequence[tuple[int, ...]], sims: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """A summary never outranks its own current records: it scores just below the best of them.
    It says nothing they do not, and they carry the time, the key and the history ("What's my
    landlord's name?" reads the landlord's record, not the session's summary). Nor does it take
    a place in the top 3 from another record: what it repeats is there already ("What is Omar's
    role at his practice?": the session's recap of his job title does not push "The practice made
    me project lead" out). A summary none of whose records is a candidate keeps its score.
    """
    if not parts:
        return score
    out = score.copy()
    records = sorted((float(score[j]) for j, mine in enumerate(parts) if not mine), reverse=True)
    cap = records[SUMMARY_BELOW_TOP - 1] * _BELOW if len(records) >= SUMMARY_BELOW_TOP else np.inf
    for i, mine in enumerate(parts):
        if mine:
            out[i] = min(score[i], max(score[t] for t in mine) * _BELOW, cap)
    return out
