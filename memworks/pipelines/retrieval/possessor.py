"""Whose thing a question asks about: "What's my dog's name?" asks the name of the user's dog.

A record that does not mention the dog answers something else, however much "name" it holds
("User's name is Maya"); when no candidate mentions it, nothing said answers the question. A
record that means it only by likeness and names another member of its kind does not mention it
either: the cat is no dog, the brother no sister, though an embedder puts each pair close.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from memworks.models.enums import Role
from memworks.pipelines.extraction.vocabulary import RELATIONS, SPECIES
from memworks.pipelines.text.terms import terms

__all__ = [
    "OWNED_MIN_SIMILARITY",
    "another_member",
    "below_holders",
    "holders",
    "known_names",
    "named_question",
    "others_only",
    "people_first",
    "owned_word",
    "possessor",
    "says_more",
]

#: Similarity of a candidate's best sentence to the owned thing's word at which it means the
#: thing without naming it ("border collie" for "dog").
OWNED_MIN_SIMILARITY = 0.3

#: "my dog's name", "my brother called", "my sister's wedding": the thing owned, then what of it.
_OWNED = re.compile(r"\bmy ([a-z][a-z-]*)(?:'s|\u2019s| called| named)(?!\w)", re.I)
_MY = re.compile(r"\b[Mm]y ([a-z][a-z-]*)\b")
#: Someone else's relative or animal whose name is asked ("What's the name of Nadia's cat?").
_THEIRS = re.compile(r"\b[A-Z][a-z]+(?:'s|\u2019s) ([a-z][a-z-]*)\b")
_ASKS_NAME = re.compile(r"\b(?:name|names|called|named)\b", re.I)
#: A fact that gives a thing's name ("User's wife is named Efua.", "User has a dog named Biscuit.").
_IS_NAMED = re.compile(r"\b(?:named|called)\s+[A-Z]")


#: Kinds whose members exclude each other: a person's relatives and a household's animals, from
#: the extractor's vocabularies (each word -> the member it names: "mum" -> mother, "puppy" ->
#: dog). A kind's general words name no one member, so they exclude none ("partner" may be the
#: wife, a "bird" the parrot).
_KINDS = {"relative": RELATIONS, "animal": SPECIES}
_GENERAL = frozenset({"partner", "spouse", "fiance", "bird", "fish"})
#: Each member's index terms -> (its kind, the member).
_MEMBER_OF: dict[str, tuple[str, str]] = {
    t: (kind, member)
    for kind, words in _KINDS.items()
    for word, member in words.items()
    if member not in _GENERAL
    for t in terms(word)
}


def another_member(owner: frozenset[str], words: frozenset[str]) -> bool:
    """``words`` name another member of the owned thing's kind and not the thing itself ("cat"
    for the dog a question asks about; "brother" for its sister)."""
    mine = {_MEMBER_OF[t] for t in owner if t in _MEMBER_OF}
    if not mine or owner & words:
        return False
    kinds = {kind for kind, _ in mine}
    theirs = {_MEMBER_OF[t] for t in words if t in _MEMBER_OF and _MEMBER_OF[t][0] in kinds}
    return bool(theirs - mine) and not theirs & mine


def owned_word(question: str) -> str:
    """The word of what the question asks something of ("my dog's name" -> "dog"), or ""."""
    m = _OWNED.search(question)
    if m and terms(m.group(1)):
        return m.group(1).casefold()
    # A relative or an animal of the user's is the thing asked about wherever the question names
    # it: "Where does my sister live?", "What breed is my dog?".
    words = _MY.findall(question) + (_THEIRS.findall(question) if _ASKS_NAME.search(question) else [])
    kin = next((w for w in words if any(t in _MEMBER_OF for t in terms(w))), "")
    return kin.casefold()


def possessor(question: str) -> frozenset[str]:
    """The index terms of :func:`owned_word`."""
    return frozenset(terms(owned_word(question)))


#: A keyed record naming one of the user's relatives or animals ("user.family.sister").
_MEMBER_KEY = re.compile(r"^user\.(?:family|pet)\.([a-z_]+)$")


def known_names(owner: frozenset[str], keys: Sequence[str | None], values: Sequence[str]) -> frozenset[str]:
    """The index terms of the names the candidates' keyed records give the thing asked about
    ("Ines" for "my sister" beside "User's sister is named Ines."): a record naming her holds her
    ("Ines moved to Copenhagen" for "Where does my sister live?")."""
    mine = {_MEMBER_OF[t][1] for t in owner if t in _MEMBER_OF}
    out: set[str] = set()
    for key, value in zip(keys, values, strict=False):
        m = _MEMBER_KEY.match(key or "")
        if m and m[1] in mine:
            out |= set(terms(value))
    return frozenset(out)


def named_question(question: str, keys: Sequence[str | None], values: Sequence[str]) -> str:
    """``question`` asked of the thing by the name a candidate's keyed record gives it ("Where
    does Ines live?" for "Where does my sister live?" beside "User's sister is named Ines."), or ""
    when none does. A record that names her but not the relation ("Ines moved to Copenhagen")
    means this question about as well as a record saying "sister" means the other."""
    word = owned_word(question)
    mine = {_MEMBER_OF[t][1] for t in terms(word) if t in _MEMBER_OF}
    if not mine:
        return ""
    name = next(
        (v for k, v in zip(keys, values, strict=False) if (m := _MEMBER_KEY.match(k or "")) and m[1] in mine), ""
    )
    if not name.strip():
        return ""
    said = re.sub(rf"\bmy {re.escape(word)}\b", name.strip(), question, count=1, flags=re.I)
    return said if said != question else ""


def holders(
    owner: frozenset[str],
    words: Sequence[frozenset[str]],
    owned: Sequence[float] | None = None,
    keys: Sequence[str | None] | None = None,
) -> list[bool]:
    """Which candidates mention what the question asks something of: by its word (their index
    terms) or, given ``owned`` (their similarity to the word), by meaning, unless they name
    another of its kind (:func:`another_member`). Given ``keys``, a keyed record of a slot that
    is no relative or animal means it only by naming it: "User's job title is Vet" is like "cat"
    to an embedder, but its slot says what it is about."""
    near = list(owned) if owned is not None and len(owned) == len(words) else [0.0] * len(words)
    slots = list(keys) if keys is not None and len(keys) == len(words) else [None] * len(words)
    return [
        bool(owner & w)
        or (
            near[i] >= OWNED_MIN_SIMILARITY
            and not another_member(owner, w)
            and (not slots[i] or _MEMBER_KEY.match(slots[i] or "") is not None)
        )
        for i, w in enumerate(words)
    ]


#: Who else a thing may be said to belong to, right before its word: "Niamh's cat", "her dog",
#: "my sister's cat".
_OTHERS = re.compile(r"(?:\b[A-Za-z][\w-]*(?:'s|\u2019s)|\b(?:his|her|their|your))\s+(?:[\w-]+\s+)?$", re.I)


def others_only(owner: frozenset[str], text: str) -> bool:
    """Whether every word of ``text`` naming the thing asked about names someone else's ("Minding
    Niamh's cat Mochi this week" holds no cat of the user's). A text that names none is not
    judged here (it may mean the thing by likeness)."""
    found = [m for m in re.finditer(r"[\w-]+", text) if owner & frozenset(terms(m[0]))]
    return bool(found) and all(
        (o := _OTHERS.search(text[max(0, m.start() - 40) : m.start()])) is not None
        and not o[0].casefold().startswith(("user's", "my ", "our "))
        for m in found
    )


def says_more(
    owner: frozenset[str],
    held: Sequence[bool],
    values: Sequence[str],
    facts: Sequence[bool],
    texts: Sequence[str] = (),
    question: str = "",
) -> list[bool]:
    """``held``, less the facts that only say there is the thing, or only its name when the
    question asks something else of it, when another holder says more of it: "User adopted a
    cat." (value "cat") says that there is a cat, not what "What's my cat called?" asks; "User's
    dog is named Biscuit" is no answer to "What breed is my dog?" where "Our dog Biscuit ... a
    two-year-old beagle" is."""
    if len(values) != len(held) or len(facts) != len(held):
        return list(held)
    bare = [
        bool(f) and bool(v := frozenset(terms(value))) and v <= owner for value, f in zip(values, facts, strict=True)
    ]
    if len(texts) == len(held) and question and not _ASKS_NAME.search(question):
        bare = [b or (bool(f) and bool(_IS_NAMED.search(t))) for b, f, t in zip(bare, facts, texts, strict=True)]
    more = [h and not b for h, b in zip(held, bare, strict=True)]
    return more if any(more) else list(held)


def below_holders(score: npt.NDArray[np.float64], held: Sequence[bool]) -> npt.NDArray[np.float64]:
    """Every candidate that does not hold the thing scores below every one that does, in its own
    order (one factor for all of them)."""
    mask = np.asarray(held, dtype=bool)
    if mask.all() or not mask.any():
        return score
    factor = min(1.0, float(score[mask].min()) * 0.999 / max(float(score[~mask].max()), 1e-12))
    return np.where(mask, score, score * factor)


#: A question asking who did or said something.
_ASKS_WHO = re.compile(r"\s*who(?:'s|\s)", re.IGNORECASE)
#: Who said a record when no person did: the roles of a conversation.
_ROLES = frozenset(r.value for r in Role)


def people_first(
    score: npt.NDArray[np.float64], question: str, subjects: Sequence[str | None]
) -> npt.NDArray[np.float64]:
    """For a question asking who did something ("Who asked for the move to eu-central-1?") among
    people who talk: what a person said answers before a tool's result or the assistant's words,
    which no one of them said. ``subjects``: who said each candidate (a name, or a role)."""
    if not _ASKS_WHO.match(question) or len(subjects) != len(score):
        return score
    named = [w is not None and w not in _ROLES for w in subjects]
    if not any(named):
        return score
    # The user is one of the people talking (said unnamed, or under their own name).
    people = [n or w == Role.USER.value for n, w in zip(named, subjects, strict=True)]
    return below_holders(score, people)
