"""Frames: what a main clause states, as statements with open slot keys.

First match wins, per clause:

=========  ============================================  =====================================
frame      example                                       key (value)
=========  ============================================  =====================================
end        "I gave up the cello", "I sold my car"        retracts user.instrument.* / user.car
attribute  "my favourite author is X", "X is my ..."     user.favorite.author (X)
           "my sister's wedding is on 14 June"           user.sister.wedding (the date)
state      "I'm married", "I'm 34"                       user.relationship_status, user.age
interest   "I'm into X", "I'm passionate about X"        user.interests (several values)
redate     "she moved her wedding to September"          user.sister.wedding (the new date)
hold       "I use an Android phone", "I have two kids"   user.phone, user.children
           "I use a dark theme in my code editor"        user.code_editor.theme (dark)
activity   "I started learning the cello"                user.instrument.learning (the cello)
           "I speak Spanish and French"                  user.language.speaking (each)
event      "I went to a support group yesterday"         user.support_group.go (episodic)
=========  ============================================  =====================================

A negated clause with "anymore" / "no longer" is read as its positive frame and becomes a
retraction of that slot ("I don't have a car anymore"). Forget requests are read per sentence
("please forget what you know about my sister's wedding").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from memworks.models.enums import CandidateOp, MemoryKind
from memworks.pipelines.extraction.clauses import CONDITIONAL
from memworks.pipelines.extraction.open_vocab import lexicon as L
from memworks.pipelines.extraction.open_vocab.clause import (
    FIRST,
    MY,
    UNSAID,
    WISH,
    Clause,
    Statement,
    TurnState,
    clause_heads,
    make_clause,
    person_of,
    remember_people,
    shared_time,
)
from memworks.pipelines.extraction.open_vocab.forget import forget_request
from memworks.pipelines.extraction.open_vocab.objects import category_of, conjuncts, head_slug, names_thing, object_of
from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token
from memworks.pipelines.extraction.open_vocab.render import phrase, slug
from memworks.pipelines.extraction.open_vocab.statement import statement
from memworks.pipelines.extraction.open_vocab.states import interest_frame, measures_in, state_frame
from memworks.pipelines.extraction.open_vocab.time import TimeRead, read_time, written
from memworks.pipelines.extraction.standing.preferences import standing_in
from memworks.pipelines.extraction.vocabulary import JOB_WORDS

__all__ = ["statements_in"]

_RETRACT = CandidateOp.RETRACT
_WORDS = re.compile(r"[a-z']+")
_PRESENT = frozenset({"VBP", "VBZ"})
_DROP_MODS = frozenset({"new", "current", "latest", "present", "all", "time", "absolute", "own"})
_NOT_NOW = frozenset({"old", "previous", "former", "ex", "last", "first", "late"})
_FAVORITE = frozenset({"favorite", "favourite", "fave", "fav", "all-time"})
_INTEREST_ATTRS = frozenset({"hobby", "hobbie", "passion", "interest"})


def statements_in(s: Sentence, state: TurnState) -> list[Statement]:
    """Every statement the sentence makes about the speaker or their people."""
    if not s.tokens:
        return []
    forget = forget_request(s, state)
    if forget is not None:
        return forget
    first = next((t for t in s.tokens if t.pos not in ("PUNCT", "INTJ", "SPACE")), None)
    if first is None or s.text.rstrip().endswith("?") or CONDITIONAL.match(s.text.lstrip(" \"'(-*")):
        remember_people(s, state)
        return []
    out: list[Statement] = measures_in(s, state) + standing_in(s, state)
    for c in shared_time(s, [c for verb in clause_heads(s) if (c := make_clause(s, verb, state)) is not None]):
        if c.negated:
            positive = _frames(replace(c, negated=False))
            out += [_ended(st) for st in positive if st.op is CandidateOp.ASSERT and st.kind is MemoryKind.SEMANTIC]
        else:
            out += _frames(c)
    remember_people(s, state)
    return [st for st in out if st.text]  # no text: the clause leaned on something said before


def _frames(c: Clause) -> list[Statement]:
    for frame in _FRAMES:
        if found := frame(c):
            return found
    return []


def _ended(st: Statement) -> Statement:
    return replace(st, op=_RETRACT, rule=f"end.{st.rule}", retracted=st.value)


def _effective(c: Clause) -> tuple[Token, str] | None:
    """The verb that carries the meaning and how the main verb frames it ("started learning"
    → learning, "begin"; "want to learn" → None: a wish states nothing)."""
    v = c.verb
    x = next((k for k in c.s.children(v.i, "xcomp") if k.pos in ("VERB", "AUX")), None)
    if x is None:
        return v, ""
    if v.lemma in WISH or v.lemma in ("go", "gon", "about"):
        return None
    if v.lemma in L.BEGIN_VERBS:
        return x, "begin"
    if v.lemma in ("stop", "quit"):
        return x, "stop"
    return v, ""


def _past(v: Token, c: Clause) -> bool:
    aux = {k.lemma for k in c.s.children(v.i, "aux")}
    return v.tag == "VBD" or (v.tag == "VBN" and "have" in aux)


def _ongoing(v: Token, c: Clause) -> bool:
    aux = {k.lemma for k in c.s.children(v.i, "aux")}
    # A bare "play" is present only under "do"/"no longer" ("I don't play tennis anymore").
    return v.tag in _PRESENT or (v.tag == "VBG" and "be" in aux) or (v.tag == "VB" and c.ended)


# --- end -------------------------------------------------------------------------------------


def _end(c: Clause) -> list[Statement]:
    if c.subject.lower not in FIRST and c.person.owner is None:
        return []
    eff = _effective(c)
    if eff is None:
        return []
    v, how = eff
    if how == "stop":
        return [_ended(st) for st in _activity(replace(c, verb=v)) if st.op is CandidateOp.ASSERT]
    prt = {k.lower for k in c.s.children(v.i, "prt", "acomp", "dobj", "advmod")}
    ends = v.lemma in L.END_VERBS or any((v.lemma, p) in L.END_PHRASES for p in prt)
    if not ends or not (_past(v, c) or v.tag in _PRESENT):
        return []
    if v.lemma == "lose" or (v.lemma == "quit" and (o := object_of(c, v)) and o.lemma in ("job", "work")):
        return []  # the employer slot belongs to the rules extractor
    obj = object_of(c, v, ("on", "of", "with"))
    if obj is not None and obj.lower == "rid":
        obj = object_of(c, obj, ("of",))
    if not names_thing(c, obj) or obj is None or (v.lemma == "quit" and obj.pos == "PROPN"):
        return []
    value = phrase(c.s, obj, keep_det=False)
    cat = category_of(c, obj)
    if cat in L.HELD:
        return [replace(statement(c, "end.held", (cat,), "", op=_RETRACT), retracted=value)]
    family = cat if cat and cat not in ("children",) else head_slug(c, obj, 1)
    return [replace(statement(c, "end.activity", (family,), "", op=_RETRACT, key_is_prefix=True), retracted=value)]


# --- attribute -------------------------------------------------------------------------------


def _attribute_words(c: Clause, noun: Token) -> tuple[str, ...] | None:
    mods = [m for m in c.s.children(noun.i, "amod", "compound", "nmod") if m.i < noun.i]
    if any(m.lower in _NOT_NOW for m in mods):
        return None
    favorite = any(m.lower in _FAVORITE for m in mods)
    words = [m.lemma for m in mods if m.lower not in _FAVORITE and m.lower not in _DROP_MODS]
    head = noun.lemma if noun.lemma not in _INTEREST_ATTRS else "interests"
    if head in L.VAGUE_ATTRIBUTES or head in L.RULES_ATTRIBUTES or head in L.RELATIONS:
        return None
    if head == "interests":
        return ("interests",)
    attr = slug(" ".join([*words, head]))
    return ("favorite", attr) if favorite else (attr,)


def _attribute(c: Clause) -> list[Statement]:
    if c.verb.lemma != "be" or c.subject.lower in FIRST:
        return []
    s = c.s
    compl = s.child(c.verb.i, "attr", "acomp", "oprd")
    noun, value_tok = c.subject, compl
    if compl is not None and any(p.lower in MY for p in s.children(compl.i, "poss")) and compl.pos == "NOUN":
        noun, value_tok = compl, c.subject  # "Porto is my favourite city"
    if c.person.owner is not None and c.subject.lemma in L.RELATIONS and noun is c.subject:
        if compl is not None and compl.lemma in JOB_WORDS:  # "my sister is a nurse"
            return [statement(c, "attribute.occupation", ("occupation",), phrase(s, compl, keep_det=False))]
        return []
    if noun.pos != "NOUN" or (attr := _attribute_words(c, noun)) is None:
        return []
    event = noun.lemma in L.EVENT_NOUNS and attr[-1] != "birthday"
    if value_tok is None:
        prep = next((p for p in s.children(c.verb.i, "prep") if p.lower in ("on", "in", "at")), None)
        value_tok = s.child(prep.i, "pobj") if prep is not None else None
    if event and c.time is not None:
        when = read_time(c.s.text, c.state.anchor, future=c.verb.tag in _PRESENT) or c.time
        st = statement(c, "attribute.event", attr, written(when), event_at=when.when, text=_event_text(c, attr, when))
        return [replace(st, time=None)]  # the event's date is its value, not when the fact began
    if value_tok is None or (c.verb.tag not in _PRESENT and value_tok.pos != "NUM"):
        return []
    if value_tok.pos in ("ADJ", "ADV", "VERB") and attr[0] != "favorite":
        return []  # "my store is great": an opinion, not an attribute
    value = phrase(s, value_tok, keep_det=value_tok.pos != "NOUN", with_preps=True)
    if not value or any(w in UNSAID | FIRST | {"you", "your"} for w in _WORDS.findall(value.lower())):
        return []
    text = f"{c.person.possessive} {'favorite ' if attr[0] == 'favorite' else ''}{noun.text.lower()} is {value}."
    if attr == ("interests",):
        return [
            statement(c, "attribute.interest", attr, v, text=f"{c.person.name} is into {v}.")
            for v, _ in conjuncts(c, value_tok)
        ]
    st = statement(c, "attribute", attr, value, text=_words_of_attr(c, noun, text))
    # "my birthday is May 3rd": a date inside the value says nothing about when the fact began.
    return [replace(st, time=None) if st.time and st.time.phrase.lower() in value.lower() else st]


def _words_of_attr(c: Clause, noun: Token, fallback: str) -> str:
    mods = [
        m.text.lower() for m in c.s.children(noun.i, "amod", "compound") if m.i < noun.i and m.lower not in _DROP_MODS
    ]
    name = " ".join([*mods, noun.text.lower()]).replace("favourite", "favorite")
    return fallback.replace(f" {noun.text.lower()} is", f" {name} is", 1).replace("favorite favorite", "favorite")


def _event_text(c: Clause, attr: tuple[str, ...], when: TimeRead) -> str:
    verb = "was" if c.verb.tag == "VBD" else "is"
    return f"{c.person.possessive} {attr[-1].replace('_', ' ')} {verb} {written(when)}."


# --- redate, hold, activity, event -----------------------------------------------------------


def _redate(c: Clause) -> list[Statement]:
    v = c.verb
    if v.lemma not in L.REDATE_VERBS or not _past(v, c) and v.tag not in _PRESENT:
        return []
    obj = c.s.child(v.i, "dobj")
    to = next((p for p in c.s.children(v.i, "prep") if p.lower in ("to", "until", "till", "for")), None)
    if obj is None or obj.lemma not in L.EVENT_NOUNS or to is None:
        return []
    target = c.s.child(to.i, "pobj")
    if target is None:
        return []
    words = "".join(t.text + t.ws for t in c.s.subtree(target.i)).strip()
    # "to September" / "to next Friday": read as a date with a preposition timeparse knows.
    when = read_time(
        f"in {words}" if words.lower().split()[0] not in ("next", "this", "last") else words,
        c.state.anchor,
        future=True,
        phrases=(words,),
    )
    if when is None:
        return []
    owner = c.person
    poss = c.s.child(obj.i, "poss")
    if poss is not None and poss.lower not in MY and poss.lower not in ("his", "her", "their"):
        found, _ = person_of(c.s, poss, c.state)
        owner = found or owner
    attr = (head_slug(c, obj),)
    text = f"{owner.possessive} {attr[0].replace('_', ' ')} is {written(when)}."
    st = statement(c, "redate", attr, written(when), event_at=when.when, text=text)
    return [replace(st, person=owner, time=None)]


def _hold(c: Clause) -> list[Statement]:
    eff = _effective(c)
    if eff is None or c.subject.lower not in FIRST and c.person.owner is None:
        return []
    v, _ = eff
    if v.lemma not in L.HOLD_VERBS:
        return []
    obj = object_of(c, v, (L.HOLD_PREPS.get(v.lemma, "-"),))
    if obj is None or not names_thing(c, obj) or any(k.lower in ("named", "called") for k in c.s.subtree(obj.i)):
        return []
    cat = category_of(c, obj)
    if obj.lemma in L.EVENT_NOUNS and v.lemma == "have" and c.time is not None:
        attr = (head_slug(c, obj),)
        when = read_time(c.s.text, c.state.anchor, future=v.tag in _PRESENT) or c.time
        st = statement(c, "hold.event", attr, written(when), event_at=when.when, text=_event_text(c, attr, when))
        return [replace(st, time=None)]
    acquired = v.lemma in ("get", "buy", "switch", "upgrade", "change", "adopt", "lease", "rescue")
    if not (_past(v, c) if acquired else (_ongoing(v, c) or _past(v, c) and v.tag == "VBN")):
        return []
    if cat in L.SETTINGS:
        adjs = [m.lower for m in c.s.children(obj.i, "amod", "compound") if m.pos in ("ADJ", "NOUN") and m.i < obj.i]
        where = next(
            (c.s.child(p.i, "pobj") for p in c.s.children(obj.i, "prep") if p.lower in ("in", "for", "on")), None
        )
        if where is None:
            where = next(
                (c.s.child(p.i, "pobj") for p in c.s.children(v.i, "prep") if p.lower in ("in", "for", "on")), None
            )
        if not adjs:
            return []
        named = where is not None and names_thing(c, where)
        place = (head_slug(c, where),) if where is not None and named else ()
        verb = "switched to" if v.lemma in ("switch", "change", "upgrade") else "uses"
        value = " ".join(adjs)
        at = f" in {phrase(c.s, where)}" if where is not None and named else ""
        text = f"{c.person.name} {verb} a {value} {cat}{at}."
        return [statement(c, "hold.setting", (*place, cat), value, text=text)]
    if cat in L.HELD or cat == "children":
        return [statement(c, "hold", (cat,), phrase(c.s, obj, keep_det=False))]
    if cat == "pet":
        return [statement(c, "hold.pet", ("pets",), obj.lemma)]
    return []


#: What taking up a thing of a category begins.
_TAKEN_UP = {"instrument": "playing", "sport": "playing", "language": "learning"}


def _activity(c: Clause) -> list[Statement]:
    eff = _effective(c)
    if eff is None or c.subject.lower not in FIRST and c.person.owner is None:
        return []
    v, how = eff
    obj: Token | None = None
    aspect = L.ASPECT.get(v.lemma)
    if v.lemma == "take" and (o := c.s.child(v.i, "dobj")) and o.lemma in ("lesson", "class", "course"):
        aspect = "learning"
        obj = next((m for m in c.s.children(o.i, "compound")), None) or object_of(c, o, ("in", "on"))
    if v.lemma == "take" and any(k.lower == "up" for k in c.s.children(v.i, "prt")):
        # "I've taken up the cello": began playing it ("taken up Portuguese": learning it).
        o = c.s.child(v.i, "dobj")
        aspect = _TAKEN_UP.get(category_of(c, o) or "") if o is not None else None
        obj, how = (o, "begin") if aspect else (None, how)
    if aspect is None or v.lemma == "run":
        return []
    if how != "begin" and not _ongoing(v, c) and not (v.tag == "VBN" and _past(v, c) and how == ""):
        return []
    if obj is None:
        inner = next((k for k in c.s.children(v.i, "xcomp") if k.lemma == "play"), None)
        obj = object_of(c, inner or v, ("for", "at", "with", "in"))
    if obj is None or not names_thing(c, obj):
        return []
    cat = category_of(c, obj) or ({"read": "book", "watch": "show"}.get(v.lemma) if obj.pos == "PROPN" else None)
    family = cat or head_slug(c, obj)
    if cat == "language" and v.lemma == "speak":
        return [
            statement(c, "activity.language", ("language", "speaking"), value.title(), drop=drop)
            for value, drop in conjuncts(c, obj)
        ]
    if (family, aspect) in L.MULTI_ASPECTS:
        return [statement(c, "activity", (family, aspect), value, drop=drop) for value, drop in conjuncts(c, obj)]
    return [statement(c, "activity", (family, aspect), phrase(c.s, obj, keep_det=False))]


def _event(c: Clause) -> list[Statement]:
    eff = _effective(c)
    if eff is None or c.subject.lower not in FIRST and c.person.owner is None:
        return []
    v, _ = eff
    if v.lemma not in L.EVENT_VERBS or v.lemma in L.RULES_VERBS or v.lemma == "move" or not _past(v, c):
        return []
    obj = object_of(c, v, ("to", "at", "in", "for", "from", "on"))
    escorted = v.lemma in ("take", "bring") and obj is not None and person_of(c.s, obj, c.state)[0] is not None
    if escorted:  # "took my kids to a pottery workshop": the event is the workshop
        obj = next((c.s.child(p.i, "pobj") for p in c.s.children(v.i, "prep") if p.lower == "to"), None)
    if v.lemma == "go" and obj is not None and obj.tag == "VBG":  # "we went camping"
        st = statement(
            c,
            "event",
            (slug(obj.lower), "go"),
            obj.text.lower(),
            kind=MemoryKind.EPISODIC,
            event_at=c.time.when if c.time else None,
        )
        return [replace(st, confidence=c.confidence if c.time is not None else min(c.confidence, 0.7))]
    if obj is None or not names_thing(c, obj):
        return []
    if (
        v.lemma in ("have", "take")
        and not escorted
        and obj.lemma not in L.EVENT_NOUNS | {"class", "course", "lesson", "trip"}
    ):
        return []
    cat = category_of(c, obj)
    family = cat if cat in ("race", "pet") else head_slug(c, obj)
    value = phrase(c.s, obj, keep_det=False)
    confidence = c.confidence if c.time is not None else min(c.confidence, 0.7)
    st = statement(
        c, "event", (family, v.lemma), value, kind=MemoryKind.EPISODIC, event_at=c.time.when if c.time else None
    )
    return [replace(st, confidence=confidence)]


_FRAMES: tuple[Callable[[Clause], list[Statement]], ...] = (
    _end,
    _attribute,
    state_frame,
    interest_frame,
    _redate,
    _hold,
    _activity,
    _event,
)
