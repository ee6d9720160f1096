"""Whether a text names a stored value: said ("penicillin gives me hives"), or said to deny it ("I'm
not allergic to penicillin"), a standing preference's value ("avoids dairy") by its thing. Pure."""

from __future__ import annotations

import re

from memworks.pipelines.claims.reading import stem

__all__ = ["STANCE", "head_said", "mostly_said", "names", "said_in"]


def names(text: str, value: str) -> bool:
    """``text`` names ``value`` (3 characters or more, as a whole word) without denying it
    ("I'm not allergic to penicillin" names penicillin to deny it)."""
    folded = _fold(text)
    if (m := _found(folded, value)) is None:
        return False
    before = " ".join(folded[: m.start()].split()[-_NEGATION_REACH:])
    # "I can't have penicillin" keeps away from it, as "I'm allergic to penicillin" does: no denial.
    return not _NEGATION.search(_CANNOT_TAKE.sub(" ", before))


#: Words before a named value within which a negation denies it (count).
_NEGATION_REACH = 4
_NEGATION = re.compile(r"\b(?:not|no|never|n't|nor|without)\b|n't\b")
_CANNOT_TAKE = re.compile(
    r"\b(?:can't|cannot|can not|mustn't|must not|shouldn't)\s+(?:have|eat|take|drink|touch|use|be given)\b"
)
#: The lean of a standing preference's value, before its thing ("avoids dairy").
STANCE = re.compile(r"^(?:avoids|prefers)\s+")


def said_in(text: str, value: str) -> bool:
    """``text`` names ``value`` (3 characters or more, as a whole word), denied or not; a stance's
    value ("avoids shellfish") by its thing."""
    stance = STANCE.match(value)
    return _found(_fold(text), value[stance.end() :] if stance else value) is not None


def _found(folded: str, value: str) -> re.Match[str] | None:
    return re.search(rf"\b{re.escape(_fold(value))}\b", folded) if len(value) >= 3 else None


def _fold(s: str) -> str:
    return " ".join(s.replace("\u2019", "'").split()).casefold()


#: Words of a standing preference's value that say its lean, not its thing.
_STANCE_WORDS = frozenset({"avoid", "prefer"})


def mostly_said(text: str, value: str) -> bool:
    """Half of ``value``'s content words at least are in ``text``, in some form ("prefers keeping
    functions short" in "keep functions short", 'coeliac disease' in "I'm coeliac")."""
    words = {stem(w) for w in re.findall(r"[a-z]+", value.lower()) if len(w) > 2} - _STANCE_WORDS
    said = {stem(w) for w in re.findall(r"[a-z]+", text.lower())}
    return bool(words) and 2 * len(words & said) >= len(words)


def head_said(text: str, value: str) -> bool:
    """``value``'s last content word (its head: "points" of 'short answers in bullet points') is in
    ``text``, in some form: "light mode in the terminal" does not say 'dark mode in the editor'
    again, though half of its words are the same."""
    words = [w for w in re.findall(r"[a-z]+", value.lower()) if len(w) > 2]
    return bool(words) and stem(words[-1]) in {stem(w) for w in re.findall(r"[a-z]+", text.lower())}
