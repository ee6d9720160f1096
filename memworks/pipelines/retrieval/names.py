"""The people a question names, and the question without a name."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["as_user", "named_subjects", "without_name"]


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


#: An auxiliary before the user's name, as it is said before "I" ("does Tomasz" -> "do I").
_AUX_FOR_I = {"does": "do", "is": "am", "has": "have", "was": "was", "did": "did", "can": "can", "will": "will"}
_AUX = "|".join(_AUX_FOR_I)
_PREPOSITIONS = "to|for|with|about|from|at|of|by|on|without|near|like"


def as_user(text: str, names: Iterable[str]) -> str:
    """``text`` in the first person where it names the scope's user by one of ``names`` ("What
    car does Tomasz have?" -> "What car do I have?"), so that it reads as the user's own questions
    do and meets the records that speak of "User"; unchanged when it names none of them."""
    # A name is matched as it is written (capitalised), or in any case in a question typed all in
    # lower case: a user called Will or May is not every "will" and "may".
    casual = text == text.lower()
    for name in sorted({n for n in names if len(n) >= 2}, key=len, reverse=True):
        n = f"(?i:{re.escape(name)})" if casual else re.escape(name)
        if not re.search(rf"\b{n}\b", text):
            continue
        text = re.sub(rf"\b{n}['\u2019]s(?!\w)", "my", text)
        text = re.sub(rf"\b(?i:({_AUX}))\s+{n}\b", _aux_i, text)
        text = re.sub(rf"\b(?i:({_PREPOSITIONS}))\s+{n}\b", r"\1 me", text)
        text = re.sub(rf"\b{n}\b", "I", text)
    return text


def _aux_i(m: re.Match[str]) -> str:
    aux = _AUX_FOR_I[m[1].lower()]
    return f"{aux.capitalize() if m[1][0].isupper() else aux} I"
