"""A change of diet said in any tense: "I've gone fully vegan", "I went vegetarian last year"."""

from __future__ import annotations

from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token
from memworks.pipelines.extraction.standing import lexicon as W
from memworks.pipelines.extraction.standing.stance import Reading

__all__ = ["diet_change"]

#: "for a month": a change of diet that was a trial, not a diet kept.
_SPANS = frozenset("day days week weeks month months year years while bit".split())


def diet_change(s: Sentence, v: Token) -> Reading | None:
    """ "I've gone fully vegan", "I went vegetarian last year", "I switched to a vegan diet": a
    change of diet holds from then on, whatever the tense, and replaces the diet held before."""
    if v.lemma not in W.DIET_CHANGE_VERBS:
        return None
    kids = s.children(v.i)
    if any(k.dep == "neg" or (k.dep == "aux" and (k.tag == "MD" or k.lower in ("going", "gon"))) for k in kids):
        return None  # "I haven't gone vegan", "I might go vegan", "I'm going to go vegan"
    for k in kids:
        if k.dep == "prep" and k.lower == "for" and (o := s.child(k.i, "pobj")) is not None and o.lemma in _SPANS:
            return None  # "I went vegan for a month"
    for k in kids:
        word = k
        if k.dep == "prep" and k.lower in ("to", "into"):
            obj = s.child(k.i, "pobj")
            mods = s.children(obj.i, "amod", "compound") if obj is not None else []
            word = obj if obj is not None and _diet_word(obj) else next((m for m in mods if _diet_word(m)), k)
        elif k.dep not in ("dobj", "acomp", "oprd", "attr", "xcomp", "advmod", "npadvmod"):
            continue
        if _diet_word(word):
            return Reading("diet_change", 1, word.i, word, family="diet", diet=word.lower)
    return None


def _diet_word(t: Token) -> bool:
    return t.lower in W.DIET_WORDS or t.lemma in W.DIET_WORDS
