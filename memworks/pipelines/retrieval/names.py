"""The people a question names, and the question without a name."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["named_subjects", "without_name"]


def named_subjects(text: str, subjects: Iterable[str]) -> list[str]:
    """``subjects`` the text names by their first name, as a capitalised word ("Caroline's" names Caroline)."""
    out = []
    for s in subjects:
        first = s.split()[0] if s.split() else ""
        if len(first) >= 2 and first[0].isupper() and re.search(rf"\b{re.escape(first)}\b", text):
            out.append(s)
    return out


def without_name(text: str, subject: str) -> str:
    """``text`` with ``subject``'s name (whole, or first name, and its possessive) taken out.

    Whether some record means what a question naming someone asks is judged without the name:
    with it, any record that repeats the name ("Omar's sister is named Leila") looks like an
    answer to "Where did Omar grow up?". (The ranking keeps the name: its model learnt so.)
    """
    names = [subject, *subject.split()[:1]]
    for name in dict.fromkeys(n for n in names if n):
        text = re.sub(rf"\b{re.escape(name)}(?:['\u2019]s?)?(?!\w)", " ", text)
    return " ".join(text.split())
