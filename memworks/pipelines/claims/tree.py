"""Reading a claim from its dependency parse.

The reading follows the tree: the clause heads (the root and the verbs joined to it: "sold ... and
bought", "I stopped ..., we never ..."), their objects and complements (through one preposition:
"moved *to Berlin*"), the grammatical subject with its possessor ("my sister"), negation, the tense
of the root, and the cues of change and ending with what they act on ("quit *smoking*", "sold *the
Corolla*") and the value named as replaced ("from *lisinopril*"). A cue under a wish, plan, piece
of advice or condition ("told Mum to stop driving", "thinking of buying") is not a fact and does
not count.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from memworks.pipelines.claims import cues as C
from memworks.pipelines.claims.reading import (
    CONTENT_POS,
    NOUN_POS,
    TIME_NOUNS,
    Reading,
    find_ids,
    find_lead_id,
    norm_number,
    stem,
)
from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token

__all__ = ["join_sentences", "read_sentence"]

_CLAUSE_DEPS = ("conj", "xcomp", "ccomp", "advcl", "parataxis")
_OBJECT_DEPS = ("dobj", "attr", "acomp", "oprd", "dative", "npadvmod")
_SUBJECT_DEPS = ("nsubj", "nsubjpass")


def _is_content(t: Token) -> bool:
    return (
        t.pos in CONTENT_POS
        and t.lemma not in C.STOP_LEMMAS
        and t.lemma not in TIME_NOUNS
        and t.lemma.isalnum()
        and t.dep != "nummod"
    )


def _number(t: Token) -> str | None:
    """The number a token names ("09:15" → "9:15", "ten" → "10"), if any."""
    if any(c.isdigit() for c in t.text):
        return norm_number(t.text)
    return C.NUMBER_WORDS.get(t.lower) if t.pos == "NUM" and t.dep in ("nummod", "quantmod", "attr") else None


def _clause_heads(s: Sentence) -> list[Token]:
    roots = [t for t in s.tokens if t.dep == "ROOT"] or list(s.tokens[:1])
    out: list[Token] = []
    seen: set[int] = set()  # by index: a long claim has thousands of clauses
    queue = deque(roots)
    while queue:
        v = queue.popleft()
        if v.i in seen:
            continue
        seen.add(v.i)
        out.append(v)
        queue += [k for k in s.children(v.i, *_CLAUSE_DEPS) if k.pos in ("VERB", "AUX")]
    return out


def _objects(s: Sentence, verbs: list[Token]) -> set[str]:
    out: set[str] = set()
    for v in verbs:
        for k in s.children(v.i):
            if k.dep in _OBJECT_DEPS and _is_content(k) and k.lemma not in TIME_NOUNS:
                out.add(stem(k.lemma))
            elif k.dep in ("prep", "agent", "prt"):
                for p in s.children(k.i, "pobj", "pcomp"):
                    if _is_content(p) and p.lemma not in TIME_NOUNS:
                        out.add(stem(p.lemma))
    return out


def _subject_of(s: Sentence, v: Token) -> str:
    subj = s.child(v.i, *_SUBJECT_DEPS)
    if subj is None:
        return ""
    if subj.pos == "PRON":
        return {"me": "i", "us": "we"}.get(subj.lemma, subj.lemma)
    owner = s.child(subj.i, "poss")
    name = stem(subj.lemma) if subj.pos != "PROPN" else subj.lower
    return f"{owner.lemma} {name}" if owner is not None else name


def _person(s: Sentence, verbs: list[Token]) -> str:
    """The other person the main clause is about: a subject that is a name or a person noun."""
    for v in verbs[:1]:
        subj = s.child(v.i, *_SUBJECT_DEPS)
        if subj is None:
            return ""
        if subj.pos == "PROPN" and subj.lower not in C.FIRST_PERSON:
            return subj.lower
        if subj.pos == "NOUN" and subj.lemma in C.PERSON_NOUNS:
            return subj.lemma
    return ""


def _gram_subject(s: Sentence, verbs: list[Token]) -> str:
    for v in verbs:
        if who := _subject_of(s, v):
            return who
    return ""


def _value(s: Sentence, t: Token) -> str:
    """A slot's value: the word's stem, with its number when it has one ("92 kilos" → "kilo=92")."""
    num = next((n for k in s.children(t.i, "nummod") if (n := _number(k)) is not None), None)
    base = t.lower if t.pos == "PROPN" else stem(t.lemma)
    return f"{base}={num}" if num is not None else (_number(t) or base)


def _slots(s: Sentence, verbs: list[Token], fallback: str) -> dict[tuple[str, str, str], set[str]]:
    """(who, predicate, role) → values of each clause head's objects, complements and prepositions."""
    out: dict[tuple[str, str, str], set[str]] = {}
    for v in verbs:
        who = _subject_of(s, v) or fallback
        pred = stem(v.lemma)
        for k in s.children(v.i):
            if k.dep in ("dobj", "attr", "acomp", "oprd", "dative") and (_is_content(k) or _number(k)):
                out.setdefault((who, pred, "obj"), set()).add(_value(s, k))
            elif k.dep in ("prep", "agent"):
                for q in s.children(k.i, "pobj"):
                    if (_is_content(q) or _number(q)) and q.lemma not in TIME_NOUNS:
                        out.setdefault((who, pred, k.lower), set()).add(_value(s, q))
    return out


def _hypothetical(s: Sentence, t: Token) -> bool:
    """``t`` sits under a wish, plan, advice, modal or condition ("told Mum to stop driving")."""
    chain = [t, *s.ancestors(t.i)]
    own = True
    for a in chain:
        if a is not t and a.lemma in C.HYPOTHETICAL:
            return True
        if own and any(k.tag == "MD" or k.lower in ("if", "unless", "whether") for k in s.children(a.i, "aux", "mark")):
            return True
        # A clause with its own subject is said for itself: the modal of the clause it hangs from
        # is another clause's ("I've stopped playing netball, my knee can't take it").
        own = own and s.child(a.i, "nsubj", "nsubjpass") is None
    return False


def _scope(s: Sentence, head: Token, skip: Token | None = None) -> set[str]:
    """Content lemmas ``head`` governs, leaving out clauses joined to it ("sold X *and bought Y*")."""
    out: set[str] = set()
    stack, seen = [head.i], set()
    while stack:
        k = stack.pop()
        if k in seen:  # a malformed parse must not loop
            continue
        seen.add(k)
        t = s.tokens[k]
        if _is_content(t) and t is not skip and t.lemma not in TIME_NOUNS:
            out.add(stem(t.lemma))
        stack += [c.i for c in s.children(k) if c.dep not in ("conj", "cc", "parataxis")]
    return out


def _heads(s: Sentence, v: Token) -> set[str]:
    """What verb ``v`` acts on: its objects and complements (through a preposition, or an open
    complement: "stopped *going to the gym*"), else its subject ("the shop *closed*")."""
    out: set[str] = set()
    stack, seen = [(v, 0)], set()
    while stack:
        x, depth = stack.pop()
        if x.i in seen:
            continue
        seen.add(x.i)
        for k in s.children(x.i):
            if k.dep in ("dobj", "attr", "oprd", "dative", "acomp", "nsubjpass") and _is_content(k):
                out.add(stem(k.lemma))
            elif k.dep in ("prep", "agent", "prt"):
                out |= {stem(p.lemma) for p in s.children(k.i, "pobj") if _is_content(p)}
            elif k.dep in ("xcomp", "pcomp") and k.pos in ("VERB", "AUX") and depth < 2:
                if _is_content(k) and k.lemma not in C.LIGHT_VERBS:
                    out.add(stem(k.lemma))
                stack.append((k, depth + 1))
    if not out and (subj := s.child(v.i, *_SUBJECT_DEPS)) is not None:
        out |= {stem(t.lemma) for t in (subj, *s.children(subj.i, "conj")) if t.pos in NOUN_POS and _is_content(t)}
    return out


@dataclass
class _Cues:
    end_verb: bool = False
    end_word: bool = False
    end_scope: frozenset[str] = frozenset()
    end_heads: frozenset[str] = frozenset()
    change_verb: bool = False
    change_scope: frozenset[str] = frozenset()
    change_heads: frozenset[str] = frozenset()
    start_verb: bool = False
    start_heads: frozenset[str] = frozenset()
    replaced: frozenset[str] = frozenset()


def _any_more(s: Sentence, t: Token) -> bool:
    """ "any more" in two words, the British "anymore" ("I'm not pescatarian any more")."""
    return t.lower == "more" and t.i > 0 and s.tokens[t.i - 1].lower == "any"


def _cues(s: Sentence) -> _Cues:
    """The cues of ending, changing and starting with what they act on; hypothetical ones left out."""
    c = _Cues()
    end_scope: set[str] = set()
    end_heads: set[str] = set()
    change_scope: set[str] = set()
    change_heads: set[str] = set()
    start_heads: set[str] = set()
    replaced: set[str] = set()
    lower = s.text.lower()
    for t in s.tokens:
        opening = t.i == 0 and t.lower in C.END_PAST and s.child(t.i, *_SUBJECT_DEPS) is None
        verb = (t.pos in ("VERB", "AUX") or opening) and not _hypothetical(s, t)
        particle = any((t.lemma, p.lower) in C.END_PARTICLES for p in s.children(t.i, "prt", "prep", "dobj", "advmod"))
        if verb and (t.lemma in C.END_VERBS or opening or particle):
            c.end_verb = True
            end_scope |= _scope(s, t, skip=t)
            end_heads |= _heads(s, t)
            if t.dep == "compound":  # "Finished Piranesi" read as one name: what it ended is its head
                head = s.tokens[t.head]
                end_heads |= {stem(head.lemma)} if _is_content(head) else set()
                end_scope |= _scope(s, head, skip=t)
        elif (t.lemma in C.END_ADVERBS or _any_more(s, t)) and (
            t.lower != "longer" or s.child(t.i, "neg") or "no longer" in lower
        ):
            head = s.tokens[t.head]
            if not _hypothetical(s, head):
                c.end_word = True
                end_scope |= _scope(s, head)
                end_heads |= _heads(s, head) | ({stem(head.lemma)} if _is_content(head) else set())
        elif t.lemma == "use" and t.tag == "VBD" and (x := s.child(t.i, "xcomp")) is not None:
            c.end_word = True
            end_scope |= _scope(s, x)
            end_heads |= _heads(s, x) | ({stem(x.lemma)} if _is_content(x) else set())
        if verb and t.lemma in C.CHANGE_VERBS and not particle:  # "moved out" ends, "moved to" changes
            c.change_verb = True
            change_scope |= _scope(s, t, skip=t)
            change_heads |= _heads(s, t)
        if verb and t.lemma in C.START_VERBS:
            c.start_verb = True
            start_heads |= _heads(s, t)
        if t.lower == "from" and t.dep == "prep":
            replaced |= {stem(k.lemma) for p in s.children(t.i, "pobj") for k in s.subtree(p.i) if _is_content(k)}
        if t.lower == "instead" and (of := s.child(t.i, "prep")) is not None:
            replaced |= {stem(k.lemma) for p in s.children(of.i, "pobj") for k in s.subtree(p.i) if _is_content(k)}
    c.end_scope, c.end_heads = frozenset(end_scope), frozenset(end_heads)
    c.change_scope, c.change_heads = frozenset(change_scope), frozenset(change_heads)
    c.start_heads, c.replaced = frozenset(start_heads), frozenset(replaced)
    return c


def _tense(s: Sentence, verbs: list[Token]) -> str:
    lower = s.text.lower()
    if re.search(r"\bused to\b", lower):
        return "used_to"
    root = verbs[0] if verbs else None
    auxes = [a for v in verbs[:1] for a in s.children(v.i, "aux", "auxpass")]
    if any(a.lemma in ("will", "shall") or a.lower in ("'ll", "wo") for a in auxes):
        return "future"
    if re.search(r"\b(gonna|planning to|plan to|about to|thinking of|thinking about)\b", lower):
        return "future"
    if any(t.lemma == "go" and t.tag == "VBG" and s.child(t.i, "xcomp") is not None for t in s.tokens):
        return "future"  # "I'm going to move", not "I stopped going to the gym"
    if root is not None and root.tag == "VBG" and any(a.lemma == "be" for a in auxes) and C.TIME_PATTERN.search(lower):
        if re.search(r"\b(next|tomorrow|coming|in (january|february|march|april|may|june|july|august|"
                     r"september|october|november|december))\b", lower):  # fmt: skip
            return "future"
    if any(a.lemma == "have" and a.tag in ("VBP", "VBZ") for a in auxes) and root is not None and root.tag == "VBN":
        return "perfect"
    if root is not None and (root.tag == "VBD" or any(a.tag == "VBD" for a in auxes)):
        return "past"
    return "present"


def read_sentence(s: Sentence) -> Reading:
    """The reading of a parsed claim sentence."""
    lower = s.text.lower()
    verbs = _clause_heads(s)
    objects = _objects(s, verbs)
    content = {stem(t.lemma) for t in s.tokens if _is_content(t)}
    nouns = {stem(t.lemma) for t in s.tokens if t.pos in NOUN_POS and _is_content(t) and t.lemma not in TIME_NOUNS}
    negated = any(
        t.dep == "neg"
        or t.lemma in ("never", "nobody", "nothing", "neither", "nor")
        or (t.lower == "no" and t.dep == "det")
        for t in s.tokens
    )
    tense = _tense(s, verbs)
    cues = _cues(s) if tense != "future" else _Cues()
    new_object = any(
        a.lemma in C.NEW_WORDS for t in s.tokens if stem(t.lemma) in objects for a in s.children(t.i, "amod")
    )
    root = verbs[0] if verbs else None
    hypothetical = root is not None and (
        (root.lemma in C.HYPOTHETICAL and s.child(root.i, "xcomp", "ccomp") is not None) or _hypothetical(s, root)
    )
    return Reading(
        content=frozenset(content),
        nouns=frozenset(nouns),
        root=root.lemma if root is not None else "",
        verbs=frozenset(stem(v.lemma) for v in verbs),
        objects=frozenset(objects),
        gram_subject=_gram_subject(s, verbs),
        person=_person(s, verbs),
        first_person=any(t.lower in C.FIRST_PERSON for t in s.tokens),
        negated=negated,
        tense=tense,
        hypothetical=hypothetical,
        change_verb=cues.change_verb,
        change_word=any(t.lemma in C.CHANGE_ADVERBS for t in s.tokens),
        new_object=new_object,
        start_verb=cues.start_verb,
        end_verb=cues.end_verb,
        end_word=cues.end_word,
        end_scope=cues.end_scope,
        end_heads=cues.end_heads,
        change_scope=cues.change_scope,
        change_heads=cues.change_heads,
        start_heads=cues.start_heads,
        replaced=cues.replaced if not hypothetical else frozenset(),
        slots=tuple(sorted((k, frozenset(v)) for k, v in _slots(s, verbs, _gram_subject(s, verbs)).items())),
        numbers=frozenset(n for t in s.tokens if (n := _number(t)) is not None),
        propns=frozenset(
            t.lower
            for t in s.tokens
            if t.pos == "PROPN" and t.lower not in C.FIRST_PERSON and t.lemma not in TIME_NOUNS
        ),
        ids=find_ids(s.text),
        lead_id=find_lead_id(s.text),
        statuses=frozenset(t.lower for t in s.tokens if t.lower in C.STATUS_WORDS or t.lemma in C.STATUS_WORDS),
        time_phrase=bool(C.TIME_PATTERN.search(s.text)),
        pending=tense == "future" or hypothetical or bool(C.PENDING_PATTERN.search(s.text)),
        still=bool(C.STILL_PATTERN.search(s.text)),
        question=lower.rstrip().endswith("?"),
    )


def join_sentences(sentences: Sequence[Sentence], text: str) -> Sentence | None:
    """A claim's parse as one :class:`Sentence`: the parser's sentences joined, each keeping its
    root (a claim the parser split in two is still read as one); None when there are none."""
    if not sentences:
        return None
    if len(sentences) == 1:
        return sentences[0]
    tokens: list[Token] = []
    for part in sentences:
        base = len(tokens)
        tokens += [Token(t.i + base, t.text, t.lemma, t.pos, t.tag, t.dep, t.head + base, t.ws) for t in part.tokens]
    return Sentence.build(text, tokens)
