"""A question naming an identifier that nothing in the scope holds ("What's the status of order
77001?") asks about something never stored: no record answers it, however like the question an
other order's result reads ("order_cancel 90114: status=cancelled")."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["unheard_ids"]

#: An order, ticket or booking number: four digits or more, or three after a letter prefix
#: ("SUP-5521", "HB-771"). A year ("in 2023") is a time, not an identifier.
_ID = re.compile(r"(?<![\w.,:])(?:(?P<prefix>[A-Za-z]{1,6})-?)?(?P<digits>\d{3,})(?![\w.,:]\d)")
_YEAR = re.compile(r"^(?:19|20)\d\d$")


def unheard_ids(question: str, unseen: Iterable[str]) -> list[str]:
    """The identifiers of ``question`` whose digits no record of the scope holds (``unseen``: the
    question's index terms that no record has)."""
    gone = set(unseen)
    out = []
    for m in _ID.finditer(question):
        digits = m["digits"]
        if not m["prefix"] and (len(digits) < 4 or _YEAR.match(digits)):
            continue
        if digits in gone:
            out.append(m.group(0))
    return out
