"""Who a statement is about, and how it is written as a self-contained sentence.

A first-person clause is rewritten in the third person about its subject ("I've been learning
the cello" → "User has been learning the cello"; with a named speaker "Caroline has been ..."),
its relative time replaced by the resolved date ("... last month" → "... in April 2023").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token
from memworks.pipelines.extraction.open_vocab.time import TimeRead, written

__all__ = ["Person", "noun_part", "phrase", "render", "slug"]


@dataclass(frozen=True, slots=True)
class Person:
    """The subject of a statement: the user, a named speaker, or someone of theirs."""

    #: Key prefix: "user", "person.caroline", "user.sister".
    key: str
    #: How a sentence names them: "User", "Caroline", "User's sister Ines".
    name: str
    #: The person whose "my" this is (a relation's owner); None for the speaker themselves.
    owner: Person | None = None

    @property
    def possessive(self) -> str:
        return f"{self.name}'" if self.name.endswith("s") and " " not in self.name else f"{self.name}'s"

    def relation(self, relation: str, name: str = "") -> Person:
        label = relation.replace("_", " ")
        shown = f"{self.possessive} {label}" + (f" {name}" if name else "")
        return Person(f"{self.key}.{relation}", shown, self)


def speaker_person(speaker: str | None) -> Person:
    """The person first-person words refer to: the named speaker, else the user."""
    if not speaker or not slug(speaker):
        return Person("user", "User")
    name = " ".join(w[:1].upper() + w[1:] for w in speaker.split())
    return Person(f"person.{slug(speaker)}", name)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


#: Modifiers kept in a value phrase; relative clauses and asides are not.
_PHRASE_DEPS = frozenset(
    "det compound amod nummod poss case nmod quantmod appos conj cc prep pobj npadvmod advmod punct acl".split()
)
_DEMONSTRATIVES = {"this": "the", "that": "the", "these": "the", "those": "the"}
_POSSESSIVES = {"my": "their", "our": "their"}


def phrase(
    s: Sentence, head: Token, *, keep_det: bool = True, limit: int = 10, with_preps: bool = False, conj: bool = True
) -> str:
    """The noun phrase headed by ``head``: its modifiers, appositions and (with ``conj``) its
    conjuncts, no clauses. Without ``keep_det`` the leading article or possessive goes too."""
    keep: set[int] = set()

    def walk(t: Token, depth: int) -> None:
        keep.add(t.i)
        for c in s.children(t.i):
            if (
                (not conj and depth == 0 and c.dep in ("conj", "cc"))
                or c.dep not in _PHRASE_DEPS
                or (c.dep in ("prep", "pobj") and not with_preps and depth == 0 and c.lower != "of")
                or c.dep == "advmod"
                and c.pos != "ADV"
            ):
                continue
            if c.dep == "appos" and depth == 0 and c.pos in ("NOUN", "PRON"):
                continue  # a description after it ("a Volvo XC40, the electric one") is not its name
            if c.dep == "acl":
                if noun_part(s, c):
                    keep.add(c.i)  # an "-ing" word right after the noun is part of it ("poetry reading")
                continue
            if c.dep == "punct" and c.text not in (",", "-", "'"):
                continue
            walk(c, depth + 1)

    walk(head, 0)
    if (nxt := head.i + 1) < len(s.tokens) and noun_part(s, s.tokens[nxt]) and nxt - 1 in keep:
        keep.add(nxt)  # "wine tasting" even when the parse hung "tasting" on the verb
    words = [s.tokens[i] for i in sorted(keep)]
    while words and (words[-1].dep in ("cc", "punct", "prep") or words[-1].pos == "ADP"):
        words.pop()
    while words and (words[0].dep in ("punct", "cc") or (not keep_det and words[0].dep in ("det", "poss"))):
        words.pop(0)
    out = "".join(_word(t) + t.ws for t in words[:limit]).strip(" ,")
    return out


def noun_part(s: Sentence, t: Token) -> bool:
    """A bare "-ing" word right after a noun names the thing with it ("a poetry reading", "a wine
    tasting"), however the parse attached it."""
    return (
        t.tag == "VBG"
        and t.dep in ("acl", "advcl")
        and t.i > 0
        and s.tokens[t.i - 1].pos == "NOUN"
        and all(s.tokens[k].dep in ("npadvmod", "advmod") for k in s.kids[t.i])
    )


def _word(t: Token) -> str:
    low = t.lower
    if t.dep == "det" and low in _DEMONSTRATIVES:
        return _DEMONSTRATIVES[low]
    if low in _POSSESSIVES:
        return _POSSESSIVES[low]
    if low in ("me", "us"):
        return "them"
    if low in ("myself", "ourselves"):
        return "themselves"
    if low == "n't":
        return "not"
    return t.text


#: Words dropped from a rewritten clause: fillers that say nothing about the fact.
_FILLER = frozenset(
    "just really so actually also finally totally definitely pretty super kinda "
    "literally honestly basically even too well oh yeah".split()
)
_THIRD = {
    "am": "is",
    "'m": "is",
    "are": "is",
    "'re": "is",
    "were": "was",
    "have": "has",
    "'ve": "has",
    "do": "does",
    "ai": "is",
}


def third_person(verb: Token, *, bare: bool = False) -> str:
    """A verb agreeing with a third-person singular subject ("have" → "has", "go" → "goes");
    with ``bare`` a base form ("VB") is conjugated too."""
    low = verb.lower
    if low in _THIRD:
        return _THIRD[low]
    if verb.tag != "VBP" and not (bare and verb.tag == "VB"):
        return verb.text
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb.text + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb.text[:-1] + "ies"
    return verb.text + "s"


def render(
    s: Sentence,
    keep: Iterable[int],
    *,
    subject: Token | None,
    person: Person,
    time: TimeRead | None,
    drop: Iterable[int] = (),
) -> str:
    """Tokens ``keep`` (minus ``drop``) written about ``person``, time resolved, as one sentence."""
    dropped = set(drop)
    tokens = [s.tokens[i] for i in sorted(set(keep)) if i not in dropped]
    out: list[str] = []
    after_subject = False
    first_person = subject is not None and subject.lower in ("i", "we")
    if subject is not None and tokens and subject.i not in {t.i for t in tokens}:
        # A coordinated clause shares its subject ("I sold my Prius and bought a Tesla").
        out.append((person.name if first_person else phrase(s, subject)) + " ")
        after_subject = True
    said = {x.i for x in s.subtree(subject.i)} if subject is not None and not first_person else set()
    prev = -2
    for t in tokens:
        low = t.lower
        if t.i > prev + 1 and out and not out[-1].endswith(" ") and t.pos != "PUNCT":
            out[-1] += " "  # words apart in the sentence stay apart ("the cello, lessons" is not "cellolessons")
        prev = t.i
        if t.pos == "INTJ" or (t.dep == "advmod" and low in _FILLER and s.tokens[t.head].pos in ("VERB", "AUX", "ADJ")):
            continue
        if t.i in said and subject is not None and t.i != subject.i:
            continue  # "My friend Sam" is written once, as the person's name
        if subject is not None and t.i == subject.i:
            word, after_subject = person.name, True
        elif after_subject and first_person and t.pos in ("AUX", "VERB"):
            # The first verb after "I" agrees with the new subject; a bare "play" after "no
            # longer" too ("User no longer plays tennis").
            word = third_person(t, bare=True)
            after_subject = False
        else:
            word = _word(t)
            after_subject = after_subject and t.dep in ("neg", "advmod")
        if (t.text.startswith("'") or low == "n't") and not word.startswith("'") and out and not out[-1].endswith(" "):
            out[-1] += " "  # "I'm" → "User is", not "Useris"
        out.append(word + t.ws)
    text = "".join(out).strip(" ,;:-")
    text = re.sub(r"\s+([,.!?;:])", r"\1", re.sub(r"\s+", " ", text))
    text = re.sub(r"(?:,\s*)+,", ",", text)  # what a dropped aside leaves behind
    text = re.sub(r"[,;]?\s+(?:yet|and|but|or|so)$", "", text.rstrip(" ,;:-"))
    text = re.sub(r"\b(is|has|does|was) not\b", r"\1 not", text.replace(" n't", " not"))
    text = text.rstrip(" .!?,;:")
    if time is not None:
        when = written(time)
        if time.phrase.lower().startswith(("since", "until", "till")):  # "since January 2023"
            when = f"{time.phrase.split()[0].lower()} {when.split(' ', 1)[1]}"
        text = f"{text} {when}"
    return text[:1].upper() + text[1:] + "." if text else ""
