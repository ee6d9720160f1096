"""Words of a short question that nothing stored uses or means: a question about something never said.

"What is my cat's name?" once the cat is erased: every record still matches "name", but "cat"
is used by no record of the scope and meant by no candidate. :func:`unknown_words` finds such
words (the store measures how close each candidate's sentences are to each of the question's
words and word pairs, :func:`phrases`, and to what is left of the question, :func:`residue`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

from memworks.pipelines.text.terms import terms

if TYPE_CHECKING:
    from memworks.pipelines.retrieval.ranker import Question, Signals

__all__ = ["phrases", "residue", "unknown_words"]

#: Words that name no thing: pronouns left where the user's own name was read as "I" ("What was
#: Dev taking for his back?"), question words, and "how much".
_NO_THING = frozenset("he him his she her hers they them their theirs it its whose whom much many".split())
#: Verbs that frame what is asked ("What database does it use?", "What car do I drive?"): never the thing unheard of.
_FRAME_VERBS = frozenset("use used using build built run running live living drive drove work".split())
#: Nouns that name where the question is asked from, not what it asks about ("Which ORM did the
#: project use?", "What does the family calendar show?"): the user's own work, home and people,
#: which a store about them rarely names as such.
_FRAME_NOUNS = frozenset(
    "project repo repository codebase app application service system team company family kids children "
    "household account code".split()
)


def phrases(words: Sequence[tuple[str, str]]) -> list[str]:
    """A short question's words, then its adjacent pairs ("family members"): embedded to find
    each word's meaning in a record that does not use it."""
    ws = [w for w, _ in words]
    return ws + [f"{a} {b}" for a, b in pairwise(ws)]


def residue(text: str, unseen: Iterable[str]) -> str:
    """``text`` without its words that some record uses (their terms not in ``unseen``): what
    is left asks about the thing unheard of, in the question's own frame ("What medication do
    I take?" -> "What medication do I"); "What's my cat's name?" loses the "name" that every
    "User's name is ..." record would match."""
    gone = set(unseen)
    kept = [w for w in re.findall(r"[\w']+", text) if not (t := terms(w)) or t[0] in gone]
    return " ".join(kept)


def unknown_words(
    q: Question, sig: Signals, *, min_similarity: float, min_residue: float | None = None, residue_step: float = 0.0
) -> list[str]:
    """Words of a short question that no record of the scope uses and no candidate means
    (the word, or a pair it is in, at ``min_similarity`` or more): a question about a thing the
    store has never heard of ("What is my cat's name?" once the cat is erased).

    With ``min_residue``: none when a candidate is that close to the question's :func:`residue`
    (the vector after the phrases'): one word alone says little to the embedder ("exercise" and
    "I do yoga at Triyoga" 0.33), the question around it says more ("Where do I exercise" 0.48).
    Each further word nothing means raises that bar by ``residue_step`` (more evidence of a thing never said).
    """
    n = len(q.words)
    if not any(t in sig.unseen for _, t in q.words):
        return []
    sims = (sig.phrase_vectors @ sig.vectors.T).max(axis=1) if len(sig.phrase_vectors) and len(sig.vectors) else None
    out: list[str] = []
    framing: list[str] = []
    for j, (word, term) in enumerate(q.words):
        if term not in sig.unseen or word.casefold() in _NO_THING:
            continue
        near = [j, *(n + k for k in (j - 1, j) if 0 <= k < n - 1)]
        if sims is None or not any(k < len(sims) and sims[k] >= min_similarity for k in near):
            frame = any(w in _FRAME_VERBS | _FRAME_NOUNS for w in (word, word.removesuffix("s")))
            (framing if frame else out).append(word)
    # A frame verb is no evidence of its own, but adds to the thing's when that is unheard of too.
    out += framing if out else []
    rest = len(phrases(q.words))
    if out and min_residue is not None and sims is not None and len(sims) > rest:
        if sims[rest] >= min_residue + residue_step * (len(out) - 1):
            return []
    return out
