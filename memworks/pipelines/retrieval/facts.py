"""Facts beside the turns they were read from: a fact stands for its turn where it holds the part
of the turn the question asks about, and a named person's fact gives way to their turns that
mean the question better without the name."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from memworks.models.enums import Role
from memworks.pipelines.retrieval.latest.now import out_of_top
from memworks.pipelines.retrieval.possessor import below_holders

__all__ = [
    "FACT_TURN_GAP",
    "LIFT_MAX_GAP",
    "below_copied_turns",
    "below_others",
    "below_others_facts",
    "below_others_words",
    "facts_meet_turns",
    "lift_facts",
]

#: How much less like the question (cosine) a fact may be than the turn it was read from and
#: still stand for it (:func:`lift_facts`): a relevant fact is usually as close as its turn or
#: closer ("Omar is learning piano" 0.54, its turn 0.30); one about another thing the turn said
#: falls 0.13-0.17 below it ("User's name is Kwame" under "I'm Kwame, I work at Aviva").
LIFT_MAX_GAP = 0.1
#: How much better a turn of the person named must mean the question (name left out) for their
#: fact to rank below it (:func:`facts_meet_turns`).
FACT_TURN_GAP = 0.05
#: How far below the turn it gives way to a fact scores (just below: it keeps its place among the rest).
_BELOW = 0.999


def lift_facts(
    p: npt.NDArray[np.float64],
    source: npt.NDArray[np.int64],
    sims: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """A fact stands for the turn it was read from: it scores at least as that turn does (and,
    by its kind's prior, ranks just above it). ``source[i]``: the turn's position, or -1.

    With ``sims`` (each candidate's similarity to the question), only for the part of the turn
    it holds: a fact much less like the question than its turn is about something else the turn
    said ("Who do I work for?": "I'm Kwame, I work at Aviva" lifts "User's name is Kwame" no more).
    """
    if len(source) != len(p):
        return p
    out = p.copy()
    has = source >= 0
    if sims is not None and len(sims) == len(p):
        has &= sims >= sims[np.where(has, source, 0)] - LIFT_MAX_GAP
    out[has] = np.maximum(p[has], p[source[has]])
    return out


def facts_meet_turns(
    score: npt.NDArray[np.float64],
    facts: npt.NDArray[np.bool_],
    unnamed: npt.NDArray[np.float64],
    theirs: Sequence[bool],
    whole: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """For a question naming someone: a fact of theirs ranks just below the best of their turns
    that mean the question better, the name left out of both sides (``unnamed``). A short fact
    holds the name in a few words, so its similarity is mostly the name's ("What does Keiko do
    for work?": "Keiko lives in Astoria" 0.70, "I'm opening my own stall at Smorgasburg" 0.26).

    With ``whole`` (each candidate's similarity by its whole index text), a fact is judged by it:
    its slot's words, a sentence of their own beside the fact, mean any question of their kind
    about anyone ("(home, where I live, city)" and "What does do for work now?" 0.24; the whole
    fact "Keiko's home city is Astoria. (home, ...)" 0.11)."""
    if len(facts) != len(score):
        return score
    if whole is not None and len(whole) == len(score):
        unnamed = np.where(facts, np.minimum(unnamed, whole), unnamed)
    out = score.copy()
    turns = [j for j in range(len(score)) if theirs[j] and not facts[j]]
    for i in range(len(score)):
        if not (facts[i] and theirs[i]):
            continue
        better = [score[j] for j in turns if unnamed[j] > unnamed[i] + FACT_TURN_GAP]
        if better and max(better) < score[i]:
            out[i] = max(better) * _BELOW
    return out


def below_copied_turns(
    score: npt.NDArray[np.float64],
    source: npt.NDArray[np.int64],
    values: Sequence[str],
    texts: Sequence[str],
    summary: Sequence[bool],
) -> npt.NDArray[np.float64]:
    """A turn whose whole text a fact read from it holds word for word (a verified tool's result
    is its keyed record's value) leaves the top: the same words twice take a place an answer of
    something else could have. ``source[i]``: the position of the turn fact ``i`` was read from, or -1."""
    n = len(score)
    if not len(source) == len(values) == len(texts) == n:
        return score
    copied = {int(j) for i, j in enumerate(source) if j >= 0 and _same(values[i], texts[j])}
    return out_of_top(score, copied, summary)


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def below_others_facts(
    score: npt.NDArray[np.float64],
    keys: Sequence[str | None],
    who: Sequence[str | None],
    named: str | None,
    summary: Sequence[bool],
) -> npt.NDArray[np.float64]:
    """For a question naming someone (``named``; None: the user, named by their own name): a
    fact about another person leaves the top ("What does Ngozi do for work?" is not answered by
    Lars's 'Freelance Sound Engineer'). Only a person's keyed fact (``person.*``) is judged: its
    subject is what the record says it is about, where a turn's is only who spoke it (Ngozi may
    well speak of Lars) and a tool's result names whoever it lists."""
    n = len(score)
    if len(keys) != n or len(who) != n or len(summary) != n:
        return score
    asked = (named or "").casefold()
    others = {
        i
        for i, (k, w) in enumerate(zip(keys, who, strict=True))
        if (k or "").startswith("person.") and w and w.casefold() != asked
    }
    return out_of_top(score, others, summary)


#: Who says no one's news in a chat of people: a tool's result, the assistant's or the system's words.
_NO_ONE = frozenset({Role.ASSISTANT.value, Role.TOOL.value, Role.SYSTEM.value})


def below_others_words(score: npt.NDArray[np.float64], who: Sequence[str | None]) -> npt.NDArray[np.float64]:
    """For a question naming the user by their own name in a chat of several: what another
    person said ranks below what the user said ("What does Ngozi do for work?" in Ngozi's store
    is answered by her "clinical pharmacist at St James's", not by Lars's "what are you doing
    instead?"). ``who``: who said each candidate (a name, a role, or None when unknown); unknown
    speakers, tools and the assistant are kept.

    Not for a question naming another person: in a chat of two named people each speaks of the
    other unnamed ("that's great you went!"), and LoCoMo's single-hop recall fell with it."""
    if len(who) != len(score):
        return score
    return below_holders(score, [w is None or w in _NO_ONE or w == Role.USER.value for w in who])


def below_others(
    score: npt.NDArray[np.float64],
    keys: Sequence[str | None],
    who: Sequence[str | None],
    named: str | None,
    summary: Sequence[bool],
) -> npt.NDArray[np.float64]:
    """For a question naming someone (``named``; None: the user, by their own name): another
    person's keyed facts below the person's own (:func:`below_others_facts`), and for the user,
    another person's words too (:func:`below_others_words`)."""
    if named is None:
        score = below_others_words(score, who)
    return below_others_facts(score, keys, who, named, summary)
