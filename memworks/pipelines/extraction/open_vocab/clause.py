"""Main clauses of a parsed sentence, with their subject resolved to a person.

Only main clauses are read (the root and the verbs coordinated with it), and only when their
subject is the speaker ("I", "we"), someone of theirs ("my sister", "she" when the turn named
exactly one such person before) or a thing of theirs ("my favourite author"). A clause is left
out when it is a condition ("if ..."), a modal ("I could", "I'll"), negated (unless it ends
something: "I don't have a car anymore"), or addressed to the listener ("your", "you").
The frames that read a clause live in :mod:`.frames`; what a clause names is read by
:mod:`.objects`, and :mod:`.statement` rewrites a clause as a statement.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from memworks.models.enums import CandidateOp, MemoryKind
from memworks.pipelines.extraction.open_vocab import lexicon as L
from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token
from memworks.pipelines.extraction.open_vocab.render import Person
from memworks.pipelines.extraction.open_vocab.time import TimeRead, read_time

__all__ = ["Clause", "Statement", "TurnState", "clause_heads", "make_clause", "shared_time"]

FIRST = frozenset({"i", "we"})
MY = frozenset({"my", "our"})
_MODALS = frozenset("will would could should might may must can ca shall 'll 'd wo".split())
WISH = frozenset("want hope plan wish try decide need intend aim gon going wan love like prefer".split())
UNSAID = frozenset("it this that these those them they he she him her something anything one".split())
_CONDITION_MARKS = frozenset("if unless whenever once until till whether".split())
#: A clause with one of these states a habit: a time in it is an occasion, not a date.
_HABITUAL = frozenset("usually always often sometimes typically normally generally every each whenever".split())
_TIME_HEADS = frozenset(
    "ago day days week weeks weekend month months year years fortnight morning evening night "
    "monday tuesday wednesday thursday friday saturday sunday january february march april may "
    "june july august september october november december spring summer autumn fall winter "
    "mon tue tues wed thu thur thurs fri sat sun".split()
)
#: A phrase goes to dateparser only with one of these (never "once a month", "every week").
_DATED = frozenset("ago last next this past previous coming before after earlier fortnight".split()) | frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun".split()
)
_FREQUENCY = frozenset("every each once twice per".split())


@dataclass
class Statement:
    """One atomic claim about a person, with its slot."""

    rule: str
    person: Person
    attribute: tuple[str, ...]
    value: str
    text: str
    op: CandidateOp = CandidateOp.ASSERT
    kind: MemoryKind = MemoryKind.SEMANTIC
    time: TimeRead | None = None
    event_at: datetime | None = None
    confidence: float = 0.8
    key_is_prefix: bool = False
    #: The value a retraction ends ("cello" for "I gave up the cello"); "" ends whatever holds.
    retracted: str = ""
    forget_topic: str = ""
    #: The request points at what was just said ("what I just said about my pay").
    forget_recent: bool = False
    forget_told: str = ""
    forget_terms: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return ".".join((self.person.key, *self.attribute))


@dataclass
class TurnState:
    """What a turn has said so far: the speaker and the people a pronoun may point back to."""

    speaker: Person
    anchor: datetime
    #: The last relation named ("my sister Ines"): "she"/"he" refer to it when it is the only one.
    others: list[Person] = field(default_factory=list)
    #: The turn's sentences read so far: "forget I ever said it" points back at one of them.
    said: list[Sentence] = field(default_factory=list)


@dataclass(frozen=True)
class Clause:
    s: Sentence
    verb: Token
    subject: Token
    person: Person
    confidence: float
    negated: bool
    ended: bool  # "anymore" / "no longer"
    time: TimeRead | None
    time_tokens: frozenset[int]
    state: TurnState


# --- clauses ---------------------------------------------------------------------------------


#: Verbs whose complement clause is reported, believed or wished, not stated as true.
_REPORTING = frozenset(
    "say tell think believe guess know hope wish feel mean suppose imagine bet realize realise "
    "remember forget wonder ask hear read dream pretend doubt claim".split()
)


def clause_heads(s: Sentence) -> list[Token]:
    """Verbs of the clauses that state something: the root, verbs coordinated with it, and
    clauses with a first-person subject of their own joined to it by a dash ("I ran a race –
    it was great"), as a plain complement ("... was great") or after "after"/"before"."""
    heads: list[Token] = []
    stack = [t for t in s.roots() if t.pos in ("VERB", "AUX")]
    while stack:
        v = stack.pop(0)
        heads.append(v)
        stack += [c for c in s.children(v.i, "conj") if c.pos in ("VERB", "AUX")]
        if s.child(v.i, "neg") is not None:
            continue
        for c in s.children(v.i, "ccomp", "parataxis", "advcl"):
            own = s.child(c.i, "nsubj")
            if c.pos not in ("VERB", "AUX") or own is None or own.lower not in FIRST:
                continue
            marks = {m.lower for m in s.children(c.i, "mark")}
            if (
                (c.dep == "ccomp" and v.lemma not in _REPORTING and not marks)
                or c.dep == "parataxis"
                or (c.dep == "advcl" and marks and marks <= {"after", "before"})
            ):
                stack.append(c)
    return heads


def subject_of(s: Sentence, verb: Token) -> Token | None:
    if subj := s.child(verb.i, "nsubj", "nsubjpass"):
        return subj
    if verb.dep == "conj" and s.tokens[verb.head].pos in ("VERB", "AUX"):
        return subject_of(s, s.tokens[verb.head])
    return None


#: "..., if that matters", "..., if you need it": a condition on telling, not on the fact told.
_HEDGE_VERBS = {
    "that": frozenset({"matter", "help", "count"}),
    "you": frozenset({"need", "want", "care", "ask", "wonder"}),
}


def _hedge(s: Sentence, cond: Token) -> bool:
    """Whether the conditional clause headed by ``cond`` only asks whether the fact is of use ("My
    phone is a Pixel 7, if that matters"): its subject is what was said or the listener."""
    subj = s.child(cond.i, "nsubj")
    who = "that" if subj is not None and subj.lower in ("that", "it", "this") else subj.lower if subj else ""
    return who in _HEDGE_VERBS and cond.lemma in _HEDGE_VERBS[who]


def make_clause(s: Sentence, verb: Token, state: TurnState) -> Clause | None:
    subj = subject_of(s, verb)
    if subj is None or s.child(subj.i, "conj") is not None:
        return None  # "my kids and I ...": several people at once
    person, confidence = person_of(s, subj, state)
    if person is None:
        return None
    kids = s.children(verb.i)
    if any(c.dep in ("aux", "auxpass") and c.lemma in _MODALS for c in kids):
        return None
    if any(
        c.dep == "advcl" and any(m.lemma in _CONDITION_MARKS for m in s.children(c.i, "mark")) and not _hedge(s, c)
        for c in kids
    ):
        return None
    if addresses_listener(s, verb):
        return None
    negated = any(c.dep == "neg" for c in kids) or any(c.lower == "never" for c in kids)
    ended = any(
        c.lower in ("anymore", "longer") or (c.lower == "more" and s.child(c.i, "det"))
        for c in s.subtree(verb.i)
        if c.dep in ("advmod", "npadvmod")
    )
    if any(c.lower == "longer" and any(k.lower == "no" for k in s.children(c.i)) for c in kids):
        negated = ended = True
    ended = ended and negated
    if negated and not ended:
        return None
    span = own_tokens(s, verb)
    # A day or month name that modifies a noun ("the Sunday mass", "the May issue") is no time.
    text = "".join(
        (" " * len(s.tokens[i].text) if _names_a_thing(s, s.tokens[i]) else s.tokens[i].text) + s.tokens[i].ws
        for i in span
    )
    time = read_time(text, state.anchor, phrases=time_phrases(s, span))
    if time is not None and (
        any(s.tokens[i].lower in _HABITUAL for i in span)  # "we usually watch movies at Thanksgiving"
        or (verb.tag == "VBD" and time.when.date() > state.anchor.date())  # "signed up for ... next month"
    ):
        time = None
    time_tokens = tokens_of(s, span, time.phrase) if time else frozenset()
    return Clause(s, verb, subj, person, confidence, negated, ended, time, time_tokens, state)


def _names_a_thing(s: Sentence, t: Token) -> bool:
    head = s.tokens[t.head]
    return (
        t.dep in ("compound", "amod")
        and t.lemma in _TIME_HEADS
        and head.pos == "NOUN"
        and head.lemma not in _TIME_HEADS
        and not any(ch.isdigit() for ch in head.text)
    )


def person_of(s: Sentence, subj: Token, state: TurnState) -> tuple[Person | None, float]:
    """Who ``subj`` is: the speaker ("I"), one of theirs ("my sister", "she"), or the owner of
    the thing it names ("my favourite author" → the speaker, "my sister's wedding" → the sister)."""
    low = subj.lower
    if low in FIRST:
        return state.speaker, 0.8 if low == "i" else 0.7
    if low in ("he", "she", "his", "her") and len(state.others) == 1:
        return state.others[0], 0.7
    rel = relation_of(s, subj, state)
    if rel is not None:
        return rel, 0.8
    if subj.pos in ("NOUN", "PROPN"):
        for p in s.children(subj.i, "poss"):
            if p.lower in MY:
                return state.speaker, 0.8
            if p.pos in ("NOUN", "PRON") and p.lower not in ("your", "their", "its"):
                owner, conf = person_of(s, p, state)
                if owner is not None and owner is not state.speaker:
                    return owner, conf
    return None, 0.0


def relation_of(s: Sentence, noun: Token, state: TurnState) -> Person | None:
    """``my sister`` (or ``my sister Ines``) as a person of the speaker's."""
    if noun.pos not in ("NOUN", "PROPN"):
        return None
    words = [c.lemma for c in s.children(noun.i, "amod", "compound") if c.lemma in ("best",)]
    rel = L.RELATIONS.get(" ".join([*words, noun.lemma])) or L.RELATIONS.get(noun.lower) or L.RELATIONS.get(noun.lemma)
    if rel is None or not any(c.lower in MY for c in s.children(noun.i, "poss")):
        return None
    name = next((c.text for c in s.children(noun.i, "appos", "compound") if c.pos == "PROPN"), "")
    return state.speaker.relation(rel, name if name[:1].isupper() else "")


def remember_people(s: Sentence, state: TurnState) -> None:
    for t in s.tokens:
        if (p := relation_of(s, t, state)) is not None and p.key not in [o.key for o in state.others]:
            state.others.append(p)


def addresses_listener(s: Sentence, verb: Token) -> bool:
    core = [
        t
        for c in s.children(verb.i)
        if c.dep not in ("advcl", "ccomp", "conj", "parataxis", "intj", "npadvmod")
        for t in s.subtree(c.i)
    ]
    return any(t.lower in ("you", "your", "yours", "ya", "u") for t in core)


def own_tokens(s: Sentence, verb: Token) -> list[int]:
    """The clause's tokens: the verb's subtree without coordinated or side clauses."""
    skip: set[int] = set()
    for c in s.children(verb.i):
        if (
            (c.dep == "conj" and c.pos in ("VERB", "AUX"))
            or c.dep in ("parataxis", "intj", "cc", "ccomp")
            or (c.dep == "advcl" and subject_of(s, c) is not None)
        ):
            skip.update(t.i for t in s.subtree(c.i))
    return [t.i for t in s.subtree(verb.i) if t.i not in skip]


def time_phrases(s: Sentence, span: list[int]) -> list[str]:
    """Time phrases of the clause worth a dateparser try: dated, not a frequency."""
    out = []
    for i in span:
        t = s.tokens[i]
        if t.lemma in _TIME_HEADS and t.dep in ("npadvmod", "pobj", "advmod", "tmod", "dobj"):
            words = [x.lower for x in s.subtree(t.i)]
            if any(w in _DATED for w in words) and not any(w in _FREQUENCY for w in words):
                out.append("".join(x.text + x.ws for x in s.subtree(t.i)).strip())
    return out


_ABOUT = frozenset({"about", "around", "roughly", "approximately", "nearly", "almost", "some"})
_TIME_PREPS = frozenset({"on", "in", "at", "during", "over"})


def tokens_of(s: Sentence, span: list[int], words: str) -> frozenset[int]:
    """Indexes of the tokens (within ``span``) that spell ``words``, with a hedge just before
    them ("about five years ago")."""
    want = words.lower().split()
    low = [s.tokens[i].lower for i in span]
    for k in range(len(low)):
        joined: list[str] = []
        for j in range(k, len(low)):
            joined.append(low[j])
            text = " ".join(joined).replace(" 's", "'s")
            if text.split() == want or "".join(joined) == "".join(want):
                start = k - 1 if k and low[k - 1] in _ABOUT else k
                if start and low[start - 1] in _TIME_PREPS and s.tokens[span[start - 1]].pos == "ADP":
                    start -= 1  # "on September 25th": the preposition goes with the date
                return frozenset(span[start : j + 1])
            if len(" ".join(joined)) > len(words) + 2:
                break
    return frozenset()


def shared_time(s: Sentence, clauses: list[Clause]) -> list[Clause]:
    """Past clauses of a sentence that names one past time and say none of their own take it:
    "Last Friday we took a road trip - we went to a national park" dates the park too, and
    "Last Sunday was awesome - I took a climbing class" the class (a time that is a clause's
    subject belongs to no clause of the speaker's)."""
    if not clauses:
        return clauses
    anchor = clauses[0].state.anchor
    own = {c.time.when for c in clauses if c.time is not None}
    if len(own) > 1:
        return clauses
    shared = next((c.time for c in clauses if c.time is not None), None) or read_time(s.text, anchor, future=False)
    if shared is None or shared.when.date() > anchor.date():
        return clauses
    return [replace(c, time=shared) if c.time is None and c.verb.tag == "VBD" else c for c in clauses]
