"""What a clause names: its object, whether that names a thing at all, the thing's category,
and each of "X and Y" on its own.
"""

from __future__ import annotations

import re

from memworks.pipelines.extraction.open_vocab import lexicon as L
from memworks.pipelines.extraction.open_vocab.clause import UNSAID, Clause
from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token
from memworks.pipelines.extraction.open_vocab.render import phrase, slug

__all__ = ["category_of", "conjuncts", "head_slug", "names_thing", "object_of", "other_conjuncts"]


def object_of(c: Clause, verb: Token | None = None, preps: tuple[str, ...] = ()) -> Token | None:
    """The clause's direct object, or the object of one of ``preps``."""
    v = verb or c.verb
    if obj := c.s.child(v.i, "dobj"):
        return obj
    if (a := c.s.child(v.i, "acomp")) and _proper_adjective(a) and v.lemma != "be":
        return a  # "I speak Italian": the parser reads the language as a complement
    for p in c.s.children(v.i, "prep"):
        if p.lower in preps and (o := c.s.child(p.i, "pobj")):
            return o
    return None


def _proper_adjective(t: Token) -> bool:
    """A capitalised adjective inside the sentence ("Italian", "Japanese"): a name, not a quality."""
    return t.pos == "ADJ" and t.i > 0 and t.text[:1].isupper() and t.text[1:].islower()


def names_thing(c: Clause, t: Token | None) -> bool:
    """Does ``t`` name a thing (not a pronoun, not vague, nothing that points elsewhere)?"""
    return (
        t is not None
        and (t.pos in ("NOUN", "PROPN", "NUM") or _proper_adjective(t) and t.dep in ("dobj", "acomp"))
        and t.lemma not in L.VAGUE_OBJECTS
        and not _ORDINAL.fullmatch(t.lower)
        and t.lower not in UNSAID
        and t.i not in c.time_tokens
        and not _dangling(c.s, t)
        and not any(q.lower in _QUANTITIES for q in c.s.children(t.i, "amod", "nummod", "det", "quantmod"))
    )


_DEMONSTRATIVE = frozenset({"this", "that", "these", "those"})
_ORDINAL = re.compile(r"\d{1,2}(?:st|nd|rd|th)")
_QUANTITIES = frozenset({"few", "several", "many", "lots", "bunch", "couple"})
_IDENTIFYING = frozenset({"compound", "appos", "prep", "relcl", "acl", "nmod", "poss"})


def _dangling(s: Sentence, t: Token) -> bool:
    """ "this book", "that painting": a thing shown or said before, named by nothing here."""
    demonstrative = any(d.lower in _DEMONSTRATIVE for d in s.children(t.i, "det"))
    return (
        demonstrative
        and t.lemma in L.ARTIFACTS
        and t.pos == "NOUN"
        and not any(k.dep in _IDENTIFYING or k.pos == "PROPN" for k in s.children(t.i))
    )


def category_of(c: Clause, t: Token) -> str | None:
    words = [x.lower for x in c.s.children(t.i, "compound")] + [t.lower]
    for n in range(len(words)):
        if cat := L.CATEGORY.get(" ".join(words[n:])):
            return cat
    if t.pos in ("PROPN", "NUM"):
        # A brand before a model's name is the model's: a "Volvo XC40" is a car (where a common
        # noun's modifier is not: a "dog shelter" is no pet).
        brands = [x for x in c.s.subtree(t.i) if x.i < t.i and x.pos == "PROPN"]
        if brand := next((cat for x in brands if (cat := L.CATEGORY.get(x.lower))), None):
            return brand
    return L.CATEGORY.get(t.lemma)


def other_conjuncts(c: Clause, head: Token, pick: Token) -> frozenset[int]:
    """Tokens to leave out so that a clause with "X and Y" speaks of ``pick`` alone."""
    conjs = [k for k in c.s.children(head.i, "conj")]
    out: set[int] = {k.i for k in c.s.children(head.i, "cc")}
    for k in conjs:
        if k.i != pick.i:
            out.update(t.i for t in c.s.subtree(k.i))
        out.update(t.i for t in c.s.children(k.i, "cc"))
    if pick.i != head.i:
        inner = {t.i for k in conjs for t in c.s.subtree(k.i)}
        out.update(t.i for t in c.s.subtree(head.i) if t.i not in inner)
    out.update(t.i for t in c.s.subtree(head.i) if t.dep == "punct" and t.text == ",")
    return frozenset(out)


def conjuncts(c: Clause, t: Token) -> list[tuple[str, frozenset[int]]]:
    """Each of "X and Y" as (value, tokens to drop so the clause speaks of it alone)."""
    out = [t, *[k for k in c.s.children(t.i, "conj")]]
    return [(v, other_conjuncts(c, t, x)) for x in out if (v := phrase(c.s, x, keep_det=False, conj=False))]


def head_slug(c: Clause, t: Token, limit: int = 2) -> str:
    mods = [x.lower for x in c.s.children(t.i, "compound") if x.pos in ("NOUN", "PROPN")]
    return slug(" ".join([*mods[-(limit - 1) :], t.lemma] if limit > 1 else [t.lemma]))
