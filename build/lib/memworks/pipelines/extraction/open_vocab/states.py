"""States, interests and personal measures of the speaker: "I'm married", "I'm 34", "I'm into
pottery", "my personal best time is 25:50"."""

from __future__ import annotations

import re

from memworks.pipelines.extraction.open_vocab import lexicon as L
from memworks.pipelines.extraction.open_vocab.clause import FIRST, MY, Clause, Statement, TurnState
from memworks.pipelines.extraction.open_vocab.objects import conjuncts, names_thing
from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token
from memworks.pipelines.extraction.open_vocab.render import slug
from memworks.pipelines.extraction.open_vocab.statement import statement

__all__ = ["interest_frame", "measures_in", "state_frame"]

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
    return [
        statement(c, "interest", ("interests",), v, text=f"{c.person.name} is into {v}.")
        for v, _ in conjuncts(c, target)
    ]


#: Modifiers that make a noun a personal measure ("personal best time", "fastest lap").
_MEASURE_MODS = frozenset("best personal record fastest top highest lowest longest".split())
#: Verbs that set or state a measure ("I set a personal best time ... of 27:12").
_MEASURE_VERBS = frozenset("set achieve hit get run reach beat break".split())
_DIGITS = re.compile(r"\d")


def measures_in(s: Sentence, state: TurnState) -> list[Statement]:
    """Personal measures with a number, wherever the sentence states them: "my personal best time
    of 25:50" (even inside "I'm hoping to beat ..."), "my best marathon time is 3:45", "I set a
    personal best time ... with a time of 27:12" → ``user.personal_best_time``."""
    out: list[Statement] = []
    for t in s.tokens:
        mods = [m for m in s.children(t.i, "amod", "compound") if m.i < t.i]
        if t.pos != "NOUN" or not any(m.lower in _MEASURE_MODS for m in mods):
            continue
        mine = any(p.lower in MY for p in s.children(t.i, "poss"))
        verb = s.tokens[t.head] if t.dep == "dobj" else None
        said = (
            verb is not None
            and verb.lemma in _MEASURE_VERBS
            and any(k.lower in FIRST for k in s.children(verb.i, "nsubj"))
        )
        if not (mine or said):
            continue
        value = _measure_value(s, t) or (_number_under(s, verb) if said and verb is not None else None)
        if value is None:
            continue
        words = " ".join([*(m.lower for m in mods), t.lower])
        person = state.speaker
        text = f"{person.possessive} {words} is {value}."
        out.append(Statement("measure", person, (slug(words),), value, text, confidence=0.8))
    return out


def _number_under(s: Sentence, verb: Token) -> str | None:
    """The one number given "of"/"with" anywhere under ``verb`` ("... with a time of 27:12")."""
    found = [
        t.text
        for t in s.subtree(verb.i)
        if t.pos == "NUM"
        and _DIGITS.search(t.text)
        and t.dep == "pobj"
        and s.tokens[t.head].lower in ("of", "with", "at")
    ]
    return found[0] if len(found) == 1 else None


def _measure_value(s: Sentence, head: Token) -> str | None:
    """A number that belongs to ``head``: "of 25:50", "with a time of 27:12", "is 3:45"."""
    for p in s.children(head.i, "prep"):
        for o in s.children(p.i, "pobj"):
            if _DIGITS.search(o.text) and o.pos == "NUM":
                return o.text
            if inner := _measure_value(s, o):
                return inner
    if head.dep in ("nsubj",) and (verb := s.tokens[head.head]).lemma == "be":
        attr = s.child(verb.i, "attr")
        if attr is not None and _DIGITS.search(attr.text) and attr.pos == "NUM":
            return attr.text
    return None
