"""A question naming an identifier that nothing in the scope holds ("What's the status of order
77001?") asks about something never stored: no record answers it, however like the question an
other order's result reads ("order_cancel 90114: status=cancelled")."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import numpy.typing as npt

from memworks.pipelines.retrieval.asked_thing import thing_name
from memworks.pipelines.retrieval.possessor import below_holders

__all__ = ["holding_ids", "ids_first", "keyed_by_ids", "unheard_ids", "unheard_names"]

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


#: A name written in a question: a capitalised word, or one with capitals inside ("GraphQL",
#: "Node.js", "Wi-Fi"), not its first word.
_NAME = re.compile(r"(?<=\s)(?:[A-Z][\w.'-]*[\w]|[a-z]+[A-Z][\w.-]*)")
#: Capitalised words that name no thing: times, and the speaker's own "I".
_NOT_NAMES = frozenset(
    """i i'm i've i'd monday tuesday wednesday thursday friday saturday sunday january february march april may
    june july august september october november december christmas easter""".split()
)
#: The words of a name as :func:`~memworks.pipelines.retrieval.asked_thing.thing_name` splits them.
_WORD = re.compile(r"[\w'-]+")


def unheard_names(
    question: str,
    unseen: Iterable[str],
    people: Iterable[str | None],
    texts: Sequence[str],
    terms_of: Callable[[str], Iterable[str]],
) -> list[str]:
    """The names ``question`` writes that no record of the scope holds ("Which Kubernetes
    namespace is prod in?" where Kubernetes was never said; ``unseen``: the question's index terms
    no record has, as ``terms_of`` reads a word). Left out: ``people`` (whom the records are about
    or said by: a speaker is known by name though no text holds it), and a name that begins a
    word of the candidates' ``texts`` ("HTTP" of "httpx", "Node" of "node.js")."""
    gone = set(unseen)
    known = {p.casefold() for p in people if p}
    asked = (thing_name(question) or "").split()
    out = []
    for m in _NAME.finditer(question):
        word = m[0].removesuffix("'s").rstrip(".")
        if word.casefold() in _NOT_NAMES or word.casefold() in known:
            continue
        if not set(_WORD.findall(word.casefold())) & set(asked):
            continue  # only a name of the thing asked for: "What should I try in Bangkok?" asks advice
        if not (said := list(terms_of(word))) or not all(t in gone for t in said):
            continue
        begins = re.compile(rf"(?<!\w){re.escape(word)}", re.IGNORECASE)
        if not any(begins.search(t) for t in texts):
            out.append(word)
    return out
