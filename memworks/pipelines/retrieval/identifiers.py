"""A question naming an identifier that nothing in the scope holds ("What's the status of order
77001?") asks about something never stored: no record answers it, however like the question an
other order's result reads ("order_cancel 90114: status=cancelled")."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from memworks.pipelines.retrieval.possessor import below_holders

__all__ = ["holding_ids", "ids_first", "keyed_by_ids", "unheard_ids"]

#: An order, ticket or booking number: four digits or more, or three after a letter prefix
#: ("SUP-5521", "HB-771"). A year ("in 2023") is a time, not an identifier.
_ID = re.compile(r"(?<![\w.,:])(?:(?P<prefix>[A-Za-z]{1,6})-?)?(?P<digits>\d{3,})(?![\w.,:]\d)")
_YEAR = re.compile(r"^(?:19|20)\d\d$")


def _ids(question: str) -> list[re.Match[str]]:
    return [
        m for m in _ID.finditer(question) if m["prefix"] or (len(m["digits"]) >= 4 and not _YEAR.match(m["digits"]))
    ]


def holding_ids(question: str, texts: Sequence[str]) -> list[bool]:
    """Which of ``texts`` hold an identifier the question names ("Is ticket TCK-51877 still
    open?"): another ticket's result, however like the question it reads, is about another
    ticket. Empty when the question names none."""
    found = [m["digits"] for m in _ids(question)]
    if not found:
        return []
    pattern = re.compile(rf"(?<!\d)(?:{'|'.join(map(re.escape, found))})(?!\d)")
    return [pattern.search(t) is not None for t in texts]


def keyed_by_ids(question: str, keys: Sequence[str | None]) -> list[bool]:
    """Which of ``keys`` file a tool's result under an identifier the question names
    (``tool.apt-6090`` for "When is appointment APT-6090?"): the appointment's own latest result
    answers before the move that booked it, which also holds its number. Empty when the question
    names none."""
    found = [m["digits"] for m in _ids(question)]
    if not found:
        return []
    pattern = re.compile(rf"^tool\.(?:[a-z]*[-_]?)?(?:{'|'.join(map(re.escape, found))})$")
    return [k is not None and pattern.match(k) is not None for k in keys]


def unheard_ids(question: str, unseen: Iterable[str]) -> list[str]:
    """The identifiers of ``question`` whose digits no record of the scope holds (``unseen``: the
    question's index terms that no record has)."""
    gone = set(unseen)
    return [m.group(0) for m in _ids(question) if m["digits"] in gone]


def ids_first(
    score: npt.NDArray[np.float64], question: str, texts: Sequence[str], keys: Sequence[str | None]
) -> npt.NDArray[np.float64]:
    """The records holding an identifier the question names before the others, and of those the
    record filed under it before one that names it in passing."""
    if held := holding_ids(question, texts):
        score = below_holders(score, held)
        if len(keys) == len(score) and any(own := keyed_by_ids(question, keys)):
            score = below_holders(score, own)
    return score
