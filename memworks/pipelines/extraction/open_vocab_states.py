"""States and interests of the speaker: "I'm married", "I'm 34", "I'm into pottery"."""

from __future__ import annotations

from memworks.pipelines.extraction import open_vocab_lexicon as L
from memworks.pipelines.extraction.open_vocab_clause import FIRST, Clause, Statement, conjuncts, names_thing, statement

__all__ = ["interest_frame", "state_frame"]

_PRESENT = frozenset({"VBP", "VBZ"})


def state_frame(c: Clause) -> list[Statement]:
    if c.verb.lemma != "be" or c.subject.lower not in FIRST or c.verb.tag not in _PRESENT | {"VBD"}:
        return []
    if c.verb.tag == "VBD" and c.verb.lower != "got":
        return []
    s = c.s
    compl = s.child(c.verb.i, "acomp", "attr")
    if compl is None:
        return []
    if compl.lower in L.STATES:
        slot = L.STATES[compl.lower]
        return [statement(c, "state", (slot,), compl.lower, text=f"{c.person.name} is {compl.lower}.")]
    years = compl if compl.pos == "NUM" else None
    if compl.lower == "old" and (n := s.child(compl.i, "npadvmod")) and (num := s.child(n.i, "nummod")):
        years = num
    if years is not None and years.text.isdigit() and 1 <= int(years.text) <= 120:
        return [statement(c, "state.age", ("age",), years.text, text=f"{c.person.name} is {years.text} years old.")]
    return []


def interest_frame(c: Clause) -> list[Statement]:
    if c.verb.lemma != "be" or c.subject.lower not in FIRST:
        return []
    s, target = c.s, None
    for p in s.children(c.verb.i, "prep"):
        if p.lower == "into":
            target = s.child(p.i, "pobj")
    compl = s.child(c.verb.i, "acomp", "attr")
    if compl is not None and compl.lemma in ("passionate", "fan", "enthusiast"):
        about = next((k for k in s.children(compl.i, "prep") if k.lower in ("about", "of")), None)
        target = s.child(about.i, "pobj") if about is not None else None
    if target is None:
        x = next((k for k in s.children(c.verb.i, "prep") if k.lower == "into"), None)
        pcomp = s.child(x.i, "pcomp") if x is not None else None
        target = pcomp
    if target is None or not (names_thing(c, target) or target.pos == "VERB"):
        return []
    return [statement(c, "interest", ("interests",), v, text=f"{c.person.name} is into {v}.")
            for v, _ in conjuncts(c, target)]  # fmt: skip
