"""Where a standing statement is in a parsed sentence: its main clauses, each clause's stretch
of the sentence and its subject, the reasons it gives, and where its *what* begins.

The parse of a long sentence is often wrong about attachment ("I dislike X and prefer dry,
factual Y" hangs Y on the first verb), so a clause's stretch runs by position from its own
first word to where the next main clause begins, and the what after a stance word is found by
the parse first, by position when the parse put it elsewhere.
"""

from __future__ import annotations

from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token

__all__ = [
    "POINTING",
    "after",
    "heads",
    "leftmost",
    "leftmost_modifier",
    "object_of",
    "quoted",
    "reasons",
    "segments",
    "subject",
    "target",
    "verb_after",
    "with_conjuncts",
]

#: Words that point at something said before instead of naming it.
POINTING = frozenset(
    "it this that these those them they him her you one me us myself yourself himself herself ourselves".split()
)
_REPORTING = frozenset(
    "say tell think believe guess know hope wish feel mean suppose imagine bet ask hear read".split()
)


def heads(s: Sentence) -> list[Token]:
    """Main verbs, in sentence order: the root, verbs coordinated with it (also inside its
    complement: "I avoid using X and prefer Y"), and clauses with a subject of their own joined
    to it ("I'm scared of heights, so I avoid ..."; "I never wear heels; I'm only ..."). Clauses
    under a verb of saying or believing, and side clauses (relative, adverbial), are not main."""
    found: list[Token] = [t for t in s.roots() if t.pos in ("VERB", "AUX")]
    if not found:
        found = _fronted(s)
    stack = list(found)
    while stack:
        t = stack.pop()
        for c in s.children(t.i):
            verb = c.pos in ("VERB", "AUX")
            if c.dep == "conj" and verb and t.pos in ("VERB", "AUX", "ADJ"):
                found.append(c)
            elif c.dep in ("ccomp", "parataxis") and verb and s.child(c.i, "nsubj") and _main(t, c):
                found.append(c)
            elif not (c.dep in ("xcomp", "ccomp", "oprd", "acomp") and t.lemma not in _REPORTING) and not (
                c.dep == "advcl" and t.pos == "ADJ"
            ):
                continue
            stack.append(c)
    return sorted(dict.fromkeys(found), key=lambda t: t.i)


_QUOTES = frozenset({'"', "“", "”", "``", "''"})


def _fronted(s: Sentence) -> list[Token]:
    """The speaker's clause under a phrase put first and read as the root: "For tests I always
    use pytest" parses "use" as a relative clause of "tests"."""
    out = []
    for root in s.roots():
        if root.pos not in ("ADP", "NOUN", "PROPN"):
            continue
        for t in s.subtree(root.i):
            subj = s.child(t.i, "nsubj")
            if t.pos == "VERB" and t.dep in ("relcl", "acl") and subj is not None and subj.lower == "i":
                out.append(t)
    return out


def quoted(s: Sentence, t: Token) -> bool:
    """Is ``t`` inside quotation marks ("rewrite 'I hate Mondays' as a haiku")?"""
    return sum(1 for k in s.tokens[: t.i] if k.text in _QUOTES) % 2 == 1


def _main(t: Token, c: Token) -> bool:
    """A clause joined to ``t`` states something of its own unless ``t`` reports it ("I think I
    hate X"); one before the verb is never reported ("I dislike X; they feel unreal")."""
    if t.lemma in ("find", "consider") and c.dep == "ccomp":
        return False  # "I find horror movies too distressing": the judgement, not a clause
    return t.lemma not in _REPORTING or c.i < t.i


def segments(s: Sentence, verbs: list[Token]) -> list[tuple[Token, list[int]]]:
    """Each main verb with its stretch of the sentence: from its own leftmost word (the first
    verb from the sentence start) to where the next one begins, cut at ";" or a dash."""
    if not verbs:
        return []
    others = {h.i for h in verbs}
    starts = []
    for k, h in enumerate(verbs):
        if k == 0:
            starts.append(0)
            continue
        own = [t.i for t in s.subtree(h.i) if not _under_other(s, t, h, others)]
        left = min(own)
        while left > 0 and s.tokens[left - 1].dep in ("cc", "punct", "mark") and left - 1 > verbs[k - 1].i:
            left -= 1
        starts.append(max(left, verbs[k - 1].i + 1))
    out = []
    for k, h in enumerate(verbs):
        end = starts[k + 1] if k + 1 < len(verbs) else len(s.tokens)
        seg = list(range(starts[k], end))
        cut = next((i for i in seg if i > h.i and s.tokens[i].text in (";", "—", "–", ":")), None)
        seg = [i for i in seg if cut is None or i < cut]
        while seg and s.tokens[seg[0]].dep in ("cc", "punct") or seg and s.tokens[seg[0]].lower in ("so", "but"):
            seg.pop(0)
        out.append((h, seg))
    return out


def _under_other(s: Sentence, t: Token, h: Token, others: set[int]) -> bool:
    """Is ``t`` inside another main verb's clause below ``h``?"""
    k = t
    while k.i != h.i:
        if k.i in others:
            return True
        if k.head == k.i:
            return False
        k = s.tokens[k.head]
    return False


def subject(s: Sentence, v: Token) -> Token | None:
    """``v``'s subject, or the one it shares with the verb it is coordinated with or completes."""
    if own := s.child(v.i, "nsubj", "nsubjpass"):
        return own
    h = v
    while h.dep in ("conj", "ccomp", "xcomp", "oprd", "acomp") and h.head != h.i:
        h = s.tokens[h.head]
        if own := s.child(h.i, "nsubj"):
            if own.lower == "i" or h.pos in ("VERB", "AUX"):
                return own
    return None


_REASON_PREPS = frozenset({"due", "because", "owing", "given"})
_REASON_MARKS = frozenset({"because", "as", "since", "so", "cause", "cuz"})


def reasons(s: Sentence, v: Token, span: list[int]) -> set[int]:
    """Tokens that give a reason or a circumstance ("due to joint issues", "as I'm vegan", "when I
    travel"): kept in the text, left out of the value and the slot."""
    out: set[int] = set()
    inside = set(span)
    for i in span:
        t = s.tokens[i]
        reason = (
            (
                t.dep == "advcl"
                and ((t.head == v.i and t.i > v.i) or any(m.lower in _REASON_MARKS for m in s.children(t.i, "mark")))
            )
            or (t.dep == "prep" and t.lower in _REASON_PREPS)
            or (t.dep == "prep" and t.lower == "for" and _names_reason(s, t))
            or (t.dep in ("prep", "advmod", "npadvmod") and t.head == v.i and t.i < v.i)
        )
        if reason:
            out.update(k.i for k in s.subtree(t.i) if k.i in inside)
    return out


def _names_reason(s: Sentence, prep: Token) -> bool:
    obj = s.child(prep.i, "pobj")
    return obj is not None and obj.lemma in ("reason", "concern", "purpose")


def object_of(s: Sentence, verb: Token) -> Token | None:
    if obj := s.child(verb.i, "dobj"):
        return obj
    for p in s.children(verb.i, "prep"):
        if o := s.child(p.i, "pobj"):
            return o
    return None


def with_conjuncts(s: Sentence, t: Token) -> list[Token]:
    return [t, *[k for k in s.children(t.i, "conj") if k.pos in ("NOUN", "PROPN", "ADJ", "VERB")]]


def target(s: Sentence, v: Token) -> tuple[int, Token] | None:
    """The what of a verb: a verb complement ("avoid watching X", "refuse to eat X"), its
    object, or the object of its first preposition ("participate in X")."""
    x = next((k for k in s.children(v.i, "xcomp", "ccomp") if k.pos in ("VERB", "NOUN") and k.i > v.i), None)
    if x is not None and not s.child(x.i, "nsubj"):
        return x.i, x  # "avoid watching X", "avoid dining at X" (read as a noun)
    obj = s.child(v.i, "dobj")
    if obj is None:
        for p in s.children(v.i, "prep", "prt"):
            if p.i > v.i and (o := s.child(p.i, "pobj")) is not None:
                obj = o
                break
    if obj is None:
        obj = _misread_object(s, v)
    if obj is None:
        return None
    return (obj.i, obj) if obj.lower in POINTING else (leftmost(s, obj), obj)


#: Nouns that say when, not what ("I never eat today" names no food).
_WHEN = frozenset("today tonight tomorrow yesterday morning evening night weekend weekends anymore".split())


def _misread_object(s: Sentence, v: Token) -> Token | None:
    """The word right after ``v`` when the parse did not take it for the object: "I can't stand
    cilantro" reads "cilantro" as an adverb. A noun, or an adjective hung on the verb as a
    modifier; never a word of time."""
    if v.i + 1 >= len(s.tokens):
        return None
    t = s.tokens[v.i + 1]
    if t.head != v.i or t.lower in _WHEN:
        return None
    if t.pos in ("NOUN", "PROPN") and t.dep not in ("nsubj", "npadvmod"):
        return t
    return t if t.pos == "ADJ" and t.dep in ("advmod", "dobj", "oprd") else None


def after(s: Sentence, t: Token, preps: tuple[str, ...]) -> tuple[int, Token] | None:
    """What follows ``t``'s preposition: by the parse, else the first noun or verb after the
    preposition word in the sentence (the parse sometimes hangs it elsewhere)."""
    for p in s.children(t.i, "prep", "agent"):
        if p.lower in preps and (o := s.child(p.i, "pobj") or s.child(p.i, "pcomp")) is not None:
            return (o.i, o) if o.lower in POINTING else (min(leftmost(s, o), p.i + 1), o)
    word = next((k for k in s.tokens[t.i + 1 : t.i + 4] if k.lower in preps), None)
    if word is None:
        return None
    head = next(
        (k for k in s.tokens[word.i + 1 :] if k.pos in ("NOUN", "PROPN", "VERB") or k.lower == "anything"), None
    )
    return None if head is None else (word.i + 1, head)


def verb_after(s: Sentence, t: Token) -> tuple[int, Token] | None:
    """ "afraid to fly", "a phobia of flying" read as a verb."""
    x = next((k for k in s.children(t.i, "xcomp", "acl") if k.pos == "VERB" and k.i > t.i), None)
    return (x.i, x) if x is not None else None


def leftmost(s: Sentence, t: Token) -> int:
    return min(k.i for k in s.subtree(t.i))


def leftmost_modifier(s: Sentence, n: Token) -> int:
    mods = [k.i for k in s.children(n.i, "amod", "compound", "nmod") if k.i < n.i]
    return min([n.i, *mods])
