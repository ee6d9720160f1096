"""Standing preferences and constraints: what the speaker avoids, dislikes, cannot, never or
always does, prefers, is allergic to, fears or strictly follows, read from the parse.

A clause is read when its subject is the speaker ("I") and its verb is a main one (the root,
verbs coordinated with it, a clause of the speaker's joined by "so" or ";"), in the present
(a habit: "I've always hated X" counts, "I hated X as a kid" does not). Its *stance* comes from
the verb or its complement, with negation handled:

==========================  ==============================================  ======================
stance                      examples                                        slot
==========================  ==============================================  ======================
averse verb                 I avoid / dislike / hate / refuse to watch X    user.pref.<domain>.<x>
fond verb, negated or not   I prefer X, I don't enjoy X, I'd rather not X   user.pref.<domain>.<x>
can't + endure or habit     I can't stand X, I cannot eat X, I won't eat X  user.pref.<domain>.<x>
habit + never/only/always   I never wear heels, I only eat plant-based ...  user.pref.<domain>.<x>
habit, negated or changed   I don't drink alcohol, I eat spicy food now     user.pref.<domain>.<x>
be + stance adjective       I'm afraid of X, I'm not interested in X        user.pref.<domain>.<x>
be + role noun              I'm not a fan of X                              user.pref.<domain>.<x>
have + stance noun          I have an aversion to X, no interest in X       user.pref.<domain>.<x>
find + judgement            I find X tedious, I find it hard to X           user.pref.<domain>.<x>
allergy                     I'm allergic to X, I have a severe X allergy    user.allergy (X)
diet, or a change of diet   I follow a strict vegan diet, I've gone vegan   user.diet (vegan)
condition                   I have celiac disease, chronic knee issues      user.condition.<x>
standing request            never book me X, always send me X by email      user.pref.<domain>.<x>
==========================  ==============================================  ======================

The slot is the *what* (its head noun and modifiers, or what a general head such as
"activities" governs), under a domain read from the words (:data:`.lexicon.DOMAINS`),
so that a later statement about the same thing meets it: "I can't eat spicy food" and "I eat
spicy food now" share ``user.pref.food.spicy_food`` and the second supersedes the first; "I no
longer avoid spicy food" ends it. The value is which way the stance leans and about what
("avoids spicy food", "prefers trains over planes"); the text is the whole clause about the
person, reasons kept ("User cannot eat spicy food because they have a sensitive stomach.").
Allergies, diets and conditions keep the rules extractor's keys and values (``user.allergy``:
"peanuts").

A request to the listener is a standing preference only when an adverb makes it standing
("never book me a flight before 8", :mod:`.requests`); its record speaks of the user
("User does not want the assistant to book them ...") and a wish to be reached a certain way
names what is wanted, not an order to send ("User wants to be sent updates by email").

Left alone: other people's preferences ("my sister hates X"), requests of the moment
("avoid jargon in your answer"), questions and conditions, wishes ("I want to"),
hypotheticals under a modal ("I would avoid"), and past habits ("I used to hate X").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from memworks.models.drafts import Candidate
from memworks.models.enums import CandidateOp, MemoryKind
from memworks.pipelines.extraction.clauses import TRAILING, clauses_of
from memworks.pipelines.extraction.open_vocab.clause import Statement, TurnState, addresses_listener, relation_of
from memworks.pipelines.extraction.open_vocab.filters import tidy, unspecific
from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token
from memworks.pipelines.extraction.open_vocab.render import Person, render, slug, speaker_person
from memworks.pipelines.extraction.preferences import preferences_for
from memworks.pipelines.extraction.standing import clauses as C
from memworks.pipelines.extraction.standing import lexicon as W
from memworks.pipelines.extraction.standing.fragments import fragments_in
from memworks.pipelines.extraction.standing.read import Reading, reading_of
from memworks.pipelines.extraction.standing.requests import REACH_VERBS, Request, requests_in
from memworks.pipelines.extraction.vocabulary import DIETS
from memworks.pipelines.gate import injection_marker, value_instruction
from memworks.pipelines.ingest.slots import value_terms

__all__ = ["standing_in"]

#: Longest value kept (characters, cut at a word).
MAX_VALUE_CHARS = 120
#: Words of a slot name at most (the what's head and what qualifies it).
SLOT_WORDS = 5
_CONFIDENCE = 0.85
#: Subjects that speak for the speaker: "I", and "we" of a household or a team ("we never use
#: ORMs", "we don't eat pork") whose rules the speaker keeps.
_SPEAKER = frozenset({"i", "we"})
#: Adverbs that only say how strongly: left out of the value, kept in the text.
_INTENSIFIERS = frozenset(
    "strongly really truly greatly adamantly absolutely completely totally utterly deeply firmly "
    "generally usually typically definitely certainly particularly especially much very so just also "
    "actually honestly seriously kinda pretty quite".split()
)
_SEVERITY = frozenset("severe mild bad serious life-threatening deadly deathly extreme strong slight minor".split())
_SKIP_IN_SLOT = frozenset("any all some certain every kind sort type form lot lots".split())


def standing_in(s: Sentence, state: TurnState) -> list[Statement]:
    """Every standing preference or constraint the sentence states about its speaker."""
    out: list[Statement] = []
    # The last what read and its clause: "I find VR disorienting and prefer not to use it" is one
    # statement about VR, its text both clauses.
    earlier: tuple[list[int], list[int]] = ([], [])
    for v, segment in C.segments(s, C.heads(s)):
        subject = C.subject(s, v)
        if subject is None or addresses_listener(s, v) or C.quoted(s, subject):
            continue
        other = None if subject.lower in _SPEAKER else _someone_of_theirs(s, subject, state)
        if subject.lower not in _SPEAKER and other is None:
            continue
        r = reading_of(s, v)
        # Of another person, only what keeps them safe: "Hana is allergic to sesame", "my son
        # can't eat gluten", "my mother is diabetic" (a carer's agent must not feed them it).
        if r is None or (other is not None and not _keeps_safe(r)):
            continue
        whose = replace(state, speaker=other) if other else state
        st, what, merged = _statement(s, v, subject, r, segment, whose, earlier)
        if st is None:
            continue
        if merged and out:
            out.pop()
        out.append(st)
        earlier = (what, segment)
    out += [st for q in requests_in(s) if (st := _request(s, q, state)) is not None]
    keys = {st.key for st in out}
    return out + [st for st in fragments_in(s, state) if st.key not in keys]


def _someone_of_theirs(s: Sentence, subject: Token, state: TurnState) -> Person | None:
    """The person a third-person subject is: one of the speaker's ("my daughter", "my sister
    Ines"), or someone named ("Hana"); None for anyone else ("the food", "it")."""
    if (rel := relation_of(s, subject, state)) is not None:
        return rel
    if subject.pos == "PROPN" and subject.text[:1].isupper():
        return speaker_person(" ".join(t.text for t in s.subtree(subject.i) if t.pos == "PROPN"))
    return None


def _keeps_safe(r: Reading) -> bool:
    """A stance that keeps its person safe: an allergy, a diet, a condition, what they cannot do."""
    return r.family in ("allergy", "diet", "condition") or r.rule == "cannot"


# --- the statement ---------------------------------------------------------------------------


def _statement(
    s: Sentence,
    v: Token,
    subject: Token,
    r: Reading,
    segment: list[int],
    state: TurnState,
    earlier: tuple[list[int], list[int]],
) -> tuple[Statement | None, list[int], bool]:
    reasons = C.reasons(s, v, segment)
    what = [
        i
        for i in segment
        if i >= r.start
        and i not in reasons
        and (r.end is None or i < r.end)
        and not (s.tokens[i].head == v.i and s.tokens[i].lower in W.CHANGE_WORDS | _INTENSIFIERS)
    ]
    while what and (s.tokens[what[-1]].pos in ("ADP", "CCONJ", "DET", "PART", "PUNCT")):
        what.pop()
    head = r.head
    if head is not None and head.pos in ("VERB", "NOUN") and (obj := C.object_of(s, head)) is not None:
        head = obj if obj.lower in C.POINTING else head
    pointing = head is not None and head.lower in C.POINTING
    if pointing and earlier[0]:  # "... and prefer not to use them": what the clause before named
        what = earlier[0]
    if not what or (pointing and not earlier[0]) or (r.defer and _filed_by_rules(s, what)):
        return None, [], False
    person = state.speaker
    shown = list(range(earlier[1][0], segment[-1] + 1)) if pointing else segment
    # A clause that shares its subject ("... and refuse to eat X") is written with it, so its
    # verb agrees ("User refuses to eat X").
    text = _third(render(s, sorted({subject.i, *shown}), subject=subject, person=person, time=None))
    # The value says which way the stance leans and about what, in two words one never finds in
    # the other: "avoids spicy food" and later "prefers spicy food" are a change, not a restatement.
    value = _cut(f"{'avoids' if r.lean < 0 else 'prefers'} {_words(s, what)}")
    words = _what_words(s, None if pointing else r.head, what)
    if r.family == "allergy":
        attribute: tuple[str, ...] = ("allergy",)
        # What one is allergic to ends at the clause's first break ("sesame, EpiPen in her bag").
        upto = next((i for i in what if s.tokens[i].pos == "PUNCT"), None)
        named = [i for i in what if upto is None or i < upto]
        value = _cut(" ".join(s.tokens[i].lower for i in named if s.tokens[i].lower not in _SEVERITY | _ARTICLES))
    elif r.family == "diet":
        attribute, value = ("diet",), DIETS.get(r.diet.replace("-", " "), r.diet)
    elif r.family == "condition":
        attribute = ("condition", _slot(words))
        value = _cut(" ".join(s.tokens[i].lower for i in what if s.tokens[i].lower not in _ARTICLES))
    else:
        attribute = ("pref", _domain(s, v, what), _slot(words))
    if not value or not all(attribute):
        return None, [], False
    # How to answer is a procedure, unless its words give the agent an order a fact could not
    # carry ("... answers that don't include my password"): then it is judged as a fact, strictly.
    procedure = _about_answers(s, what) and value_instruction(f"{value}\n{text}", kind=MemoryKind.SEMANTIC) is None
    kind = MemoryKind.PROCEDURAL if procedure else MemoryKind.SEMANTIC
    st = Statement(
        f"standing.{r.rule}",
        person,
        attribute,
        "" if r.ended else value,
        text,
        op=CandidateOp.RETRACT if r.ended else CandidateOp.ASSERT,
        kind=kind,
        confidence=_CONFIDENCE,
        retracted=_cut(_words(s, what)) if r.ended else "",
    )
    return st, what, pointing


def _request(s: Sentence, q: Request, state: TurnState) -> Statement | None:
    """A standing request as a statement about the speaker: "never book me X" → "User does not
    want the assistant to book them X". A wish to be reached a certain way says what the user
    wants to be sent ("always send me updates by email" → "User wants to be sent updates by
    email"), so no order to send is stored. The sentence as said is judged first: a rewording
    must not launder an order against the user."""
    if injection_marker(s.text) or _rules_file(s, q):
        return None
    what = [i for i in q.what if i not in q.me]  # the thing asked for or against
    if not what:
        return None
    person = state.speaker
    # "always give me type-annotated code": a verb that only hands the thing over names nothing of it.
    handed = q.verb.lemma in _HANDING and bool(q.me)
    value = _cut(f"{'avoids' if q.lean < 0 else 'prefers'} {_words(s, what if handed else [q.verb.i, *q.what])}")
    if q.outward and q.lean > 0:
        thing = _words(s, what)
        value = _cut(f"prefers {thing}")
        text = f"User {'only ' * (q.rule == 'only')}wants to be {REACH_VERBS[q.verb.lemma]} {thing}."
    else:
        act = render(s, [q.verb.i, *q.what], subject=None, person=person, time=None).rstrip(".")
        act = act[:1].lower() + act[1:] if s.tokens[q.verb.i].pos != "PROPN" else act
        adverb = "" if q.rule == "never" else f"{q.rule} "
        text = f"User {'does not want' if q.lean < 0 else 'wants'} the assistant to {adverb}{_third(act)}."
    text = text.replace("User", person.name, 1)
    noun_words = _what_words(s, None, what) or [q.verb.lemma]
    # The domain is read from the thing asked about: "book" names no reading in "book me a flight".
    thing_word = next((s.tokens[i] for i in what if s.tokens[i].pos in ("NOUN", "PROPN")), q.verb)
    attribute = ("pref", _domain(s, thing_word, what), _slot(noun_words))
    if not all(attribute):
        return None
    procedure = _about_answers(s, what) and value_instruction(f"{value}\n{text}", kind=MemoryKind.PROCEDURAL) is None
    kind = MemoryKind.PROCEDURAL if procedure else MemoryKind.SEMANTIC
    return Statement(f"standing.request_{q.rule}", person, attribute, value, text, kind=kind, confidence=_CONFIDENCE)


def _rules_file(s: Sentence, q: Request) -> bool:
    """Does the rules extractor file this request as a preference of its own (a seat, an answer
    format, a language)? Its outward instructions do not count: they wait for confirmation."""
    first = min([q.verb.i, *(t.i for t in s.subtree(q.verb.i) if t.i < q.verb.i)])
    said = "".join(s.tokens[i].text + s.tokens[i].ws for i in range(first, q.what[-1] + 1))
    return any(not fact.outward for clause in clauses_of(said) for fact in preferences_for(clause))


_ARTICLES = frozenset("a an the any".split())
#: Verbs of a request that only hand the thing over to the speaker.
_HANDING = frozenset("give show provide offer bring hand".split())
_FIRST_LEFT = (
    (re.compile(r"\bI'm\b"), "they're"),
    (re.compile(r"\bI've\b"), "they've"),
    (re.compile(r"\bI'd\b"), "they'd"),
    (re.compile(r"\bI am\b"), "they are"),
    (re.compile(r"\bI(?= [a-z])"), "they"),
    (re.compile(r" ?'d\b"), " would"),
    (re.compile(r"\bca not\b"), "cannot"),
    (re.compile(r"\bwo not\b"), "will not"),
)


def _filed_by_rules(s: Sentence, what: list[int]) -> bool:
    """Does the rules extractor already file this liking ("I prefer dark mode in the editor" is its
    ``user.likes``, "I prefer tea over coffee" its ``user.pref.coffee_vs_tea``), in a form the open
    extractor keeps (:func:`~memworks.pipelines.extraction.open_vocab.filters.tidy`)? Then the open
    layer does not file it again."""
    terms = value_terms(" ".join(s.tokens[i].text for i in what))
    for clause in clauses_of(s.text):
        for fact in preferences_for(clause):
            if (
                not (fact.key == "user.likes" or fact.key.startswith("user.pref."))
                or not value_terms(fact.value) & terms
            ):
                continue
            kept = tidy(Candidate(key=fact.key, value=fact.value, text=fact.text, evidence=("-",)))
            if kept is not None and not unspecific(kept):
                return True
    return False


def _third(text: str) -> str:
    """A rendered clause with the first-person words the renderer leaves (a reason's "I") made
    third person, and "ca not" / "wo not" spelled out."""
    for rx, repl in _FIRST_LEFT:
        text = rx.sub(repl, text)
    return text


def _words(s: Sentence, what: list[int]) -> str:
    """The what as words: first-person words made third person, a leading verb as an activity
    ("fly" → "flying", "watch horror films" → "watching horror films")."""
    first = s.tokens[what[0]]
    out = render(s, what, subject=None, person=Person("user", "User"), time=None).rstrip(".")
    # A name or an acronym keeps its capitals ("ORMs", "SQL"); an ordinary first word loses them.
    keep = first.pos == "PROPN" or sum(ch.isupper() for ch in first.text) > 1
    out = out if keep else out[:1].lower() + out[1:]
    if first.pos in ("VERB", "AUX") and first.tag == "VB" and out.lower().startswith(first.lower):
        out = _gerund(first.lemma) + out[len(first.text) :]
    return _third(out)


def _gerund(lemma: str) -> str:
    if lemma.endswith("ie"):
        return lemma[:-2] + "ying"
    if lemma.endswith("e") and not lemma.endswith(("ee", "ye")):
        return lemma[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", lemma):
        return lemma + lemma[-1] + "ing"  # "swim" → "swimming", "shop" → "shopping"
    return lemma + "ing"


def _what_words(s: Sentence, named: Token | None, what: list[int]) -> list[str]:
    """The words that name the slot: the what's head noun with the words before it ("spicy
    food", "fantasy-themed tabletop RPGs") and its conjuncts, then the nouns that qualify it
    ("games with pixel art graphics"); an activity is named by its object, else by itself."""
    inside = set(what)
    nouns = [s.tokens[i] for i in what if s.tokens[i].pos in ("NOUN", "PROPN")]
    main = next((t for t in nouns if t.dep not in ("compound", "amod", "nmod", "npadvmod")), None)
    head = named if named is not None and named.i in inside else main or s.tokens[what[0]]
    words: list[str] = []
    if head.pos in ("VERB", "AUX") and (obj := C.object_of(s, head)) is not None and obj.i in inside:
        if obj.dep != "dobj":
            words.append(head.lemma)  # "drive at night": the activity names the slot with its object
        head = obj
    for t in C.with_conjuncts(s, head):
        if t.i not in inside:
            continue
        before = [k for k in s.subtree(t.i) if k.i < t.i and k.i in inside and k.dep not in ("det", "poss")]
        left = min([k.i for k in before] or [t.i])
        words += [_slot_word(s.tokens[i]) for i in range(left, t.i) if i in inside and _names(s.tokens[i])]
        words.append(_slot_word(t))
    words += [
        _slot_word(t)
        for t in s.subtree(head.i)
        if t.i > head.i
        and t.i in inside
        and t.pos in ("NOUN", "PROPN")
        and t.lemma not in W.GENERIC_HEADS
        and t.dep != "conj"
    ]
    return [w for w in words if w and w not in _SKIP_IN_SLOT]


def _names(t: Token) -> bool:
    return (
        t.pos in ("NOUN", "PROPN", "ADJ", "VERB", "NUM") and t.lower not in _SEVERITY and t.lower not in _SKIP_IN_SLOT
    )


def _slot_word(t: Token) -> str:
    return t.lemma if t.pos == "NOUN" else t.lower


def _slot(words: Iterable[str]) -> str:
    return slug(" ".join(list(dict.fromkeys(w for w in words if slug(w)))[:SLOT_WORDS]))[:48].strip("_")


def _domain(s: Sentence, v: Token, what: list[int]) -> str:
    words = {v.lemma} | {s.tokens[i].lemma for i in what} | {s.tokens[i].lower for i in what}
    words |= {x.lemma for x in s.children(v.i, "xcomp")}
    return W.domain_of(words)


_ANSWER_WORDS = frozenset("answer answers reply replies response responses explanation explanations".split())


def _about_answers(s: Sentence, what: list[int]) -> bool:
    """A preference about how the assistant answers is procedural (how to work), not a fact."""
    return any(s.tokens[i].lower in _ANSWER_WORDS for i in what[:4])


def _cut(text: str) -> str:
    text = " ".join(text.split())
    text = TRAILING.sub("", text)  # "avoids pork, by the way"
    if len(text) <= MAX_VALUE_CHARS:
        return text
    return text[:MAX_VALUE_CHARS].rsplit(" ", 1)[0].rstrip(" ,;")
