"""What the names of a tool result's fields say of them: when the result was updated, and what was
said of a status rather than of the object (see :func:`~.results.still_holds`). Pure."""

from __future__ import annotations

import re

__all__ = ["STAMP_NAMES", "STATE_NAMES", "shares_a_word"]

#: The names of when a result was updated or checked: each result is a later one.
STAMP_NAMES = re.compile(r"^(?:last_)?(?:updated|modified|changed|checked|refreshed|synced)(?:_at|_on)?$|^as_of$")
#: The names of what was said of a status, not of the object: notes on it, what was expected
#: under it ("note=fraud check before QR code is issued", "expected_payout=3-5 working days").
STATE_NAMES = re.compile(
    r"^(?:notes?|comments?|remarks?|reason|message|last_update|next_steps?|eta|(?:expected|est|estimated|due)(?:_\w+)?)$"
)
#: Words of field names that say nothing of what a field is about.
_NAME_NOISE = frozenset({"id", "at", "on", "date", "time", "no", "number", "usd", "gbp", "eur", "amount", "value"})


def shares_a_word(name: str, names: set[str]) -> bool:
    """``name`` shares a word, other than :data:`_NAME_NOISE`, with one of ``names``."""
    mine = set(re.split(r"[_.\- ]+", name)) - _NAME_NOISE
    return any(mine & set(re.split(r"[_.\- ]+", n)) for n in names if n != name)
