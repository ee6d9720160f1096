"""The stance of one clause of the speaker's: which way it leans, and where its *what* begins.

:func:`reading_of` looks at the clause's verb, its auxiliaries (negation, "can't", "won't",
"would rather"), its adverbs ("never", "only", "always", "now") and its complement (a stance
adjective, noun or role, a judgement after "find", a verb after "prefer to" / "need to"). The
*what* is found by position after the stance word ("an aversion to | X") as well as by the
parse, so a misattached preposition does not lose it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token
from memworks.pipelines.extraction.standing import clauses as C
from memworks.pipelines.extraction.standing import lexicon as W
from memworks.pipelines.extraction.standing.diets import diet_change
from memworks.pipelines.extraction.standing.stance import Reading

__all__ = ["Reading", "reading_of"]

_PRESENT_AUX = frozenset({"VBP", "VBZ", "MD"})
#: Determiners of one particular thing ("the frosting", "this picture", "your watch"): a liking of
#: it is a remark about something at hand, not a standing preference.
_PARTICULAR = frozenset("the this that these those your his her their its".split())
#: Verbs of perceiving or thinking: "I love seeing ..." likes no thing in particular.
_PERCEIVING = frozenset("see hear know think feel look notice realize realise".split())
#: Habit verbs that name something on their own, with no object ("I can't swim", "I never drink").
_INTRANSITIVE = frozenset("swim drink smoke drive fly cook".split())
#: Habits whose ending is an abstention kept from now on ("I don't eat meat anymore").
_ABSTAIN = frozenset("eat drink consume smoke".split())


@dataclass(frozen=True)
class _Marks:
    neg: bool
    never: bool
    ended: bool
    modal: str
    only: bool
    always: bool
    change: bool


def _marks(s: Sentence, v: Token) -> _Marks | None:
    """Negation, modality and habit adverbs of ``v``; None for a past, future or hypothetical clause."""
    kids = s.children(v.i)
    aux = [k for k in kids if k.dep in ("aux", "auxpass")]
    if v.tag == "VBD" or any(a.tag == "VBD" for a in aux) or (v.tag == "VBN" and not aux):
        return None  # "I hated X as a kid", "I didn't like it"
    if any(a.lower in ("going", "gon") for a in aux) or (v.lemma == "use" and s.child(v.i, "xcomp")):
        return None  # "I'm going to avoid", "I used to hate"
    modal = next((a.lemma for a in aux if a.tag == "MD"), "")
    adverbs = {k.lower for k in kids if k.dep in ("advmod", "neg", "npadvmod", "preconj")}
    never = "never" in adverbs
    neg = never or any(k.dep == "neg" for k in kids)
    longer = any(k.lower == "longer" and any(x.lower == "no" for x in s.children(k.i)) for k in kids)
    ended = longer or "anymore" in adverbs or ("more" in adverbs and "any" in {x.lower for x in s.subtree(v.i)})
    neg = neg or longer
    return _Marks(
        neg=neg,
        never=never,
        ended=ended and neg,
        modal=modal,
        only=bool(adverbs & {"only", "exclusively", "solely"}),
        always=bool(adverbs & {"always", "invariably"}),
        change=bool(adverbs & W.CHANGE_WORDS) or _SINCE_NOW.search(s.text) is not None,
    )


#: A habit said as the one kept from now on, or chosen over another: "these days", "from today
#: we use tabs", "I use tabs, not spaces".
_SINCE_NOW = re.compile(r"\b(?:these\s+days|from\s+(?:today|now\s+on)|going\s+forward)\b|\w,\s+not\s+\w", re.I)


def reading_of(s: Sentence, v: Token) -> Reading | None:
    """The stance of the clause headed by ``v`` (whose subject is the speaker), or None.

    A clause built around a question word ("what I love", "why I avoid it") states no stance;
    a liking ("I love X") counts only of a kind of thing, not of one at hand ("I love the
    frosting", "I'm loving it"), nor of an activity with nothing named ("I love seeing ...").
    """
    if any(k.tag in ("WDT", "WP", "WRB") for k in s.children(v.i)):
        return None
    r = _reading(s, v)
    if r is None or r.lean < 0 or r.family != "pref":
        return r
    return r if _a_kind_of_thing(s, v, r) else None


def _a_kind_of_thing(s: Sentence, v: Token, r: Reading) -> bool:
    if v.tag == "VBG":
        return False  # "I'm loving this", "I'm enjoying my new job": a feeling of the moment
    head = r.head
    if head is None:
        return True
    if head.pos == "VERB":
        if head.lemma in _PERCEIVING or any(k.pos in ("VERB", "AUX") for k in s.children(head.i, "ccomp")):
            return False
        obj = next((k for k in s.children(head.i, "dobj", "prep")), None)
        head = s.child(obj.i, "pobj") or obj if obj is not None and obj.dep == "prep" else obj
        if head is None:
            return True  # "I love hiking"
    dets = {k.lower for k in s.children(head.i, "det", "poss")}
    return head.lower not in C.POINTING and not dets & _PARTICULAR


def _reading(s: Sentence, v: Token) -> Reading | None:
    if (changed := diet_change(s, v)) is not None:
        return changed
    m = _marks(s, v)
    if m is None:
        return None
    if m.modal and not _modal_ok(s, v, m):
        return None
    x = next((k for k in s.children(v.i, "xcomp") if k.pos in ("VERB", "AUX")), None)
    if x is not None and v.lemma in ("need", "have", "try", "tend", "choose", "strive") and not m.neg:
        inner = _marks(s, x)
        if x.lemma in W.AVERSE_VERBS and inner is not None and not inner.neg:
            return _averse(s, x, m)  # "I need to avoid X", "I try to avoid X"
        return None
    if v.lemma in W.AVERSE_VERBS:
        return _averse(s, v, m)
    if m.modal in ("would", "'d") and any(k.lower == "rather" for k in s.children(v.i)):
        return Reading("rather_not" if m.neg else "rather", -1 if m.neg else 1, v.i, v)  # "I'd rather not fly"
    best = next((k for k in s.children(v.i, "advmod") if k.lower == "best"), None)
    if best is not None and not m.neg and v.lemma not in ("be", "have"):
        after = C.after(s, best, ("through", "with", "in", "by", "from", "when", "using", "on"))
        return Reading("best", 1, *after) if after else None  # "I learn best through X"
    if v.lemma == "want" and m.neg and not m.modal and x is None:
        return _not_wanted(s, v)
    if v.lemma in W.FOND_VERBS:
        return _fond(s, v, m, x)
    if v.lemma in W.ENDURE_VERBS and m.neg and m.modal in ("can", "could"):
        return _on_object(s, v, "cannot", -1)
    if v.lemma in W.FOLLOW_VERBS:
        return _follow(s, v, m)
    if v.lemma in W.HABIT_VERBS:
        return _habit(s, v, m)
    if _kept_doing(v, m, s.tokens[v.head].tag):  # "we never merge to main on Fridays"
        return _habit(s, v, m, doing=True)
    if v.lemma == "get" and v.tag == "VBN" and any(a.lemma == "have" for a in s.children(v.i, "aux")):
        return _have(s, v, m)  # "I've got asthma": "have got" is "have"
    if v.lemma in ("be", "get", "feel", "become", "remain", "stay"):
        return _be(s, v, m)
    if v.tag == "VBN" and v.lower in W.STANCE_ADJECTIVES and s.child(v.i, "auxpass") is not None:
        return _stance_adjective(s, v, v, m)  # "I'm fascinated by X", "I'm terrified of X"
    if v.lemma == "have":
        return _have(s, v, m)
    if v.lemma == "find" and not m.modal:
        return _find(s, v, m)
    if v.lemma == "require" and not m.neg:
        return _on_object(s, v, "require", 1)
    if v.lemma == "believe" and not m.neg:  # "I firmly believe in a plant-based diet"
        after = C.after(s, v, ("in",))
        return Reading("believe_in", 1, *after) if after and after[1].lemma in W.DIET_NOUNS else None
    return None


def _modal_ok(s: Sentence, v: Token, m: _Marks) -> bool:
    if m.modal in ("can", "could", "will", "wo") and (m.neg or m.only):
        return True  # "I can't eat", "I won't consider", "I will only consider"
    if m.modal in ("would", "'d") and (v.lemma == "prefer" or any(k.lower == "rather" for k in s.children(v.i))):
        return True
    return m.modal in ("must",) and v.lemma in W.AVERSE_VERBS


# --- by verb class -------------------------------------------------------------------------


def _averse(s: Sentence, v: Token, m: _Marks) -> Reading | None:
    if m.neg and not m.ended:
        return None  # "I don't avoid X" says what the speaker does not do, not a stance
    found = C.target(s, v)
    if found is None:
        return None
    return Reading(v.lemma, -1, found[0], found[1], ended=m.ended)


def _fond(s: Sentence, v: Token, m: _Marks, x: Token | None) -> Reading | None:
    lean = -1 if m.neg else 1
    liking = v.lemma in W.LIKING_VERBS and not (x is not None and x.lemma in W.AVERSE_VERBS)
    if lean > 0 and liking and not (m.change or m.only):
        return None  # "I love hiking" is a like (the rules' ``user.likes``); "I love spicy food now" changes a stance
    rather = any(k.lower == "rather" for k in s.children(v.i))
    if x is not None and x.pos == "VERB":
        inner = _marks(s, x)
        if x.lemma in W.AVERSE_VERBS:
            found = C.target(s, x)
            return Reading(f"{v.lemma}_to_avoid", -lean, found[0], found[1]) if found else None
        if inner is not None and inner.neg:
            lean = -lean  # "I prefer not to watch X"
        defer = lean > 0 and not (m.change or m.only)
        return Reading(f"{v.lemma}_to" if lean > 0 else f"{v.lemma}_not_to", lean, x.i, x, defer=defer)
    if rather:
        return Reading("rather" if lean > 0 else "rather_not", lean, v.i, v)  # "I'd rather not fly"
    found = C.target(s, v)
    if found is None:
        return None
    defer = lean > 0 and not (m.change or m.only)
    return Reading(v.lemma if lean > 0 else f"not_{v.lemma}", lean, found[0], found[1], defer=defer)


def _not_wanted(s: Sentence, v: Token) -> Reading | None:
    """ "I don't want the extended warranty offers", "I don't want any marketing calls": a kind of
    thing refused (plural, or "any"); not one at hand ("I don't want the blue one")."""
    found = C.target(s, v)
    if found is None:
        return None
    head = found[1]
    dets = {k.lower for k in s.children(head.i, "det")}
    if head.pos != "NOUN" or not (head.tag == "NNS" or dets & {"any", "no"}):
        return None
    return Reading("does_not_want", -1, found[0], head)


def _kept_doing(v: Token, m: _Marks, head_tag: str) -> bool:
    """Any other doing kept as a rule: a present verb (not "be") under "never", "always" or "only",
    or one joined to the speaker's present clause ("I'm against breeding pets and only adopt from
    shelters"; not "I'm gonna keep on going and never quit", a resolve)."""
    return (
        (m.never or m.always or m.only)
        and v.pos == "VERB"
        and (v.tag == "VBP" or (v.tag == "VB" and v.dep == "conj" and head_tag in ("VBP", "VBZ")))
        and not m.modal
        and v.lemma not in W.NOT_HABITS
    )


def _habit(s: Sentence, v: Token, m: _Marks, *, doing: bool = False) -> Reading | None:
    if v.tag in ("VBG", "VBN"):
        return None  # "I'm always taking notes", "I've never gone fishing": not a habit kept
    cannot = m.neg and m.modal in ("can", "could")
    if m.neg and (cannot or m.modal in ("will", "wo") or not m.modal):
        lean, rule = -1, "cannot" if cannot else "never" if m.never else "will_not" if m.modal else "does_not"
    elif m.only:
        lean, rule = 1, "only"
    elif m.always and not m.modal:
        lean, rule = 1, "always"
    elif m.change and not m.modal and v.lemma in W.CONSUME_VERBS and v.tag in ("VBP", "VBZ"):
        lean, rule = 1, "now"
    else:
        return None
    if m.ended and v.lemma not in _ABSTAIN:
        return None  # "I no longer play tennis" ends an activity (the open frames' reading)
    if (
        rule == "does_not"
        and not m.ended
        and not any(a.lemma == "do" and a.tag in _PRESENT_AUX for a in s.children(v.i, "aux"))
    ):
        return None  # "I not eat" is no sentence; "I no longer eat meat" is
    found = None if doing else C.target(s, v)  # a doing is its verb too: "never skip leg day"
    if found is None:
        if (v.lemma in _INTRANSITIVE and lean < 0) or doing:
            return Reading(rule, lean, v.i, v)
        return None
    return Reading(rule, lean, found[0], found[1])


def _follow(s: Sentence, v: Token, m: _Marks) -> Reading | None:
    if m.neg:
        return None
    for t in s.subtree(v.i):
        if t.i <= v.i:
            continue
        if t.lower in W.DIET_WORDS or t.lemma in W.DIET_WORDS:
            return Reading("diet", 1, t.i, t, family="diet", diet=t.lower)
        if t.lemma in W.DIET_NOUNS:
            return Reading("follow", 1, v.i + 1, t)
    return None


def _be(s: Sentence, v: Token, m: _Marks) -> Reading | None:
    near = [t for t in s.tokens[v.i + 1 : v.i + 4] if t.pos == "ADJ" and t.lower in W.STANCE_ADJECTIVES]
    for c in [*s.children(v.i, "acomp", "attr"), *near[:1]]:
        if c.lemma in W.STANCE_ADJECTIVES or c.lower in W.STANCE_ADJECTIVES:
            return _stance_adjective(s, v, c, m)
        if c.lemma in W.STANCE_ROLES and m.neg:
            found = C.after(s, c, W.STANCE_ROLES[c.lemma])
            return Reading(f"not_{c.lemma}", -1, *found, ended=m.ended) if found else None
        if c.lemma in ("advocate", "supporter", "lover") and not m.neg:
            found = C.after(s, c, W.STANCE_ROLES[c.lemma])
            return Reading(c.lemma, 1, *found) if found else None
        if (c.lower in W.DIET_WORDS or c.lemma in W.DIET_WORDS) and not m.neg:
            return Reading("diet", 1, c.i, c, family="diet", diet=c.lower)
    if m.neg and not m.ended:
        found = C.after(s, v, ("into",))
        if found is not None:
            return Reading("not_into", -1, *found)
    on = next((p for p in s.children(v.i, "prep") if p.lower == "on"), None)
    diet = s.child(on.i, "pobj") if on is not None else None
    if diet is not None and diet.lemma in W.DIET_NOUNS and not m.neg:
        return Reading("on_diet", 1, C.leftmost(s, diet), diet)  # "I'm on a low-sodium diet"
    return None


def _stance_adjective(s: Sentence, v: Token, c: Token, m: _Marks) -> Reading | None:
    base, preps = W.STANCE_ADJECTIVES.get(c.lower) or W.STANCE_ADJECTIVES[c.lemma]
    if m.neg and base < 0 and not m.ended:
        return None  # "I'm not afraid of X" is no constraint
    lean = -base if m.neg and not m.ended else base
    found = [f for f in (C.after(s, c, preps), C.verb_after(s, c) if base < 0 else None) if f is not None]
    if c.i + 1 < len(s.tokens) and (nxt := s.tokens[c.i + 1]).tag in ("VBG", "NN") and nxt.lower.endswith("ing"):
        found.append((nxt.i, nxt))  # "uncomfortable dining in high places"
    mod = next((k for k in s.children(c.i, "amod", "npadvmod", "compound", "advmod") if k.i == c.i - 1), None)
    if not found and base < 0 and mod is not None and mod.lower not in W.LOW | {"very", "so", "really"}:
        return Reading(c.lower, -1, mod.i, mod, family="condition", ended=m.ended, end=c.i + 1)  # "lactose intolerant"
    if not found:
        return None
    family = "allergy" if c.lower == "allergic" else "pref"
    rule = c.lower if lean == base else f"not_{c.lower}"
    return Reading(
        ("only_" if m.only else "") + rule, lean, *min(found, key=lambda f: f[0]), family=family, ended=m.ended
    )


def _have(s: Sentence, v: Token, m: _Marks) -> Reading | None:
    if m.neg and not m.ended:
        if (d := s.child(v.i, "dobj")) is not None and d.lemma == "interest":
            found = C.after(s, d, ("in",))  # "I don't have any interest in X"
            return Reading("no_interest", -1, *found) if found else None
        return None
    objs = [t for t in s.subtree(v.i) if t.i > v.i and t.pos in ("NOUN", "PROPN", "ADJ")]
    for n in objs:
        if n.lemma in ("allergy", "allergies") and n.head in (v.i, *(o.i for o in objs)):
            return _allergy(s, v, n, m)
        if n.lemma == "intolerance":
            return Reading("intolerance", -1, C.leftmost_modifier(s, n), n, family="condition", ended=m.ended)
        if n.lemma in W.STANCE_NOUNS and n.dep in ("dobj", "conj", "appos"):
            base, preps = W.STANCE_NOUNS[n.lemma]
            dets = {k.lower for k in s.children(n.i, "det", "amod")}
            if n.lemma == "tolerance" and not dets & W.LOW:
                return None
            lean = -base if "no" in dets and base > 0 else base
            found = C.after(s, n, preps) or C.verb_after(s, n)
            if found is None:
                return None
            rule = f"no_{n.lemma}" if "no" in dets else n.lemma
            return Reading(rule, lean, *found, ended=m.ended)
        if n.dep in ("dobj", "conj", "appos", "npadvmod") and _condition(s, n):
            return Reading("condition", -1, C.leftmost_modifier(s, n), n, family="condition", ended=m.ended)
    return None


def _allergy(s: Sentence, v: Token, n: Token, m: _Marks) -> Reading | None:
    found = C.after(s, n, ("to",))
    if found is not None:
        return Reading("allergy", -1, *found, family="allergy", ended=m.ended)
    mods = [t for t in s.subtree(v.i) if v.i < t.i < n.i and t.pos in ("NOUN", "PROPN") and t.lower not in ("food",)]
    if not mods:
        return None  # "I have allergies": nothing named
    return Reading("allergy", -1, mods[0].i, mods[0], family="allergy", ended=m.ended, end=n.i)


def _condition(s: Sentence, n: Token) -> bool:
    if n.lemma in W.CONDITION_WORDS or n.lower in W.CONDITION_WORDS:
        return True
    mods = {k.lower for k in s.children(n.i, "amod", "compound")} | {k.lemma for k in s.children(n.i, "compound")}
    if n.lemma in ("disease", "disorder", "syndrome") or (n.lemma == "condition" and mods & {"medical", "chronic"}):
        return True
    return n.lemma in W.CONDITION_NOUNS and bool(mods & (W.HEALTH_MODIFIERS | W.CONDITION_WORDS))


def _find(s: Sentence, v: Token, m: _Marks) -> Reading | None:
    """ "I find X tedious", "I find it hard to X", "I find X too slow": the first judging word
    after the verb (by position: the parse hangs it on the verb or on the noun)."""
    window = s.tokens[v.i + 1 : v.i + 14]
    judged = next(
        (
            t
            for k, t in enumerate(window)
            if t.lower in W.FIND_AWAY | W.FIND_TOWARDS or (t.pos == "ADJ" and k and window[k - 1].lower == "too")
        ),
        None,
    )
    if judged is None or any(t.text in (";", ".", ",") for t in s.tokens[v.i + 1 : judged.i]):
        return None
    too = s.tokens[judged.i - 1].lower == "too"
    lean = -1 if judged.lower in W.FIND_AWAY or too else 1
    lean = -lean if m.neg else lean
    rule = f"finds_{judged.lower}"
    first = s.tokens[v.i + 1] if v.i + 1 < judged.i else None
    if first is not None and first.lower not in C.POINTING:
        thing = next((t for t in reversed(s.tokens[first.i : judged.i]) if t.pos in ("NOUN", "PROPN")), None)
        end = judged.i - 1 if too else judged.i
        return Reading(rule, lean, first.i, thing, end=end) if thing is not None else None
    verb = next((t for t in s.tokens[judged.i + 1 : judged.i + 4] if t.pos == "VERB"), None)
    return Reading(rule, lean, verb.i, verb) if verb is not None else None


def _on_object(s: Sentence, v: Token, rule: str, lean: int) -> Reading | None:
    found = C.target(s, v)
    return Reading(rule, lean, *found) if found else None
