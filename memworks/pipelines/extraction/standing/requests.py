"""Standing requests to the listener: "never book me a flight before 8", "always send me updates
by email, not SMS", "only book me hotels with a gym".

A request is a standing preference when an adverb makes it one ("never", "always", "only",
"don't ever"); without one it is a task of the moment ("book me a flight to Berlin") and is left
alone. :func:`requests_in` finds them in the parse: an imperative verb (bare form, no subject, no
auxiliary but "do" with a negation, no subordinating word) that opens its clause, the request's
*what* (the verb's words after it, to the first comma that does not add a contrast such as
", not SMS"), and the speaker's own place in it ("me", "for me"), which the statement leaves out
or makes third person.

An outward verb (send, email, share, pay ...) is read only when the speaker is its sole
recipient and no address is named: "always send me updates by email" says how the user wants
to be reached; "always forward my invoices to Ana" is an outward action, the rules extractor's,
and waits for the user's confirmation at the gate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token

__all__ = ["OUTWARD_VERBS", "REACH_VERBS", "Request", "requests_in"]

#: Verbs whose action leaves the conversation: read only with the speaker as sole recipient.
OUTWARD_VERBS = frozenset(
    "send forward share email e-mail mail cc bcc copy post publish tweet text message transfer wire pay upload "
    "sms notify invite contact reach call phone ring".split()
)
#: Outward verbs that only say how the speaker is reached, with their past participle. The
#: others (paying, publishing, sharing) are read only as "never": a wish for them to happen is
#: an outward action whatever its recipient.
REACH_VERBS: dict[str, str] = {
    "send": "sent",
    "forward": "forwarded",
    "email": "emailed",
    "e-mail": "emailed",
    "mail": "mailed",
    "text": "texted",
    "message": "messaged",
    "sms": "texted",
    "notify": "notified",
    "cc": "cc'd",
    "bcc": "bcc'd",
    "copy": "copied",
    "contact": "contacted",
    "reach": "reached",
    "call": "called",
    "phone": "phoned",
    "ring": "rung",
}
#: Words that may come before the verb in its clause ("And please never ...", "Don't ever ...").
_LEAD = frozenset("and also so but please pls just never always only ever do n't nt not".split())
#: Dependencies a misread imperative may hang on (a clause before the root: "Never put me in X,
#: Y is fine" reads "put" as the subject clause of "is").
_CLAUSE_DEPS = frozenset({"ROOT", "conj", "advcl", "csubj", "ccomp", "parataxis"})
#: Dependencies of words before an imperative that frame it ("in general", "on weekends").
_FRAMING = frozenset({"prep", "npadvmod", "advmod", "intj"})
_ADDRESS = re.compile(r"@|https?://|www\.|\d{6,}")
_ME = frozenset({"me", "myself"})
#: Words that make a request standing without an adverb of its own ("in general dont book me
#: anything before 1pm", "one more standing rule: please don't ...").
_STANDING = re.compile(
    r"\b(?:in general|generally|as a rule|rule|from now on|going forward|in (?:the )?future|ever|any ?more|at all"
    r"|weekends|weekdays|mornings|evenings|nights)\b",
    re.IGNORECASE,
)

#: ... and that make a request standing that asks for something ("put me by the window from now
#: on"), not only one that forbids it: these say the rule holds for every later time.
_STANDING_ASK = re.compile(
    r"\b(?:from now on|going forward|in (?:the )?future|as a rule|every time|by default|from here on(?: in)?)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Request:
    """One standing request of the speaker's."""

    verb: Token
    #: ``never``, ``always`` or ``only``.
    rule: str
    #: -1 against the what, +1 towards it.
    lean: int
    #: The request's words after the verb.
    what: tuple[int, ...]
    #: The verb sends something out: the statement names what is wanted, not the act.
    outward: bool
    #: The speaker's own words among :attr:`what` ("me", "for me"), left out when only the
    #: thing asked for is named.
    me: frozenset[int] = frozenset()


def requests_in(s: Sentence) -> list[Request]:
    """Every standing request the sentence makes, in sentence order."""
    if _ADDRESS.search(s.text):
        return []  # an address in the sentence: whatever is asked goes somewhere else
    out = []
    for v in s.tokens:
        if not _imperative(s, v):
            continue
        kids = {k.lower for k in s.children(v.i)}
        negated = bool(kids & {"n't", "nt", "not", "never"})  # "dont" parses as "do" "nt"
        if "never" in kids or (negated and ("ever" in kids or _STANDING.search(s.text))):
            rule, lean = "never", -1
        elif negated:
            continue  # "don't book it yet": a task of the moment
        elif kids & {"always", "invariably"}:
            rule, lean = "always", 1
        elif "only" in kids:
            rule, lean = "only", 1
        elif _STANDING_ASK.search(_clause(s, v)) or _stands_by_shape(s, v):
            rule, lean = "always", 1
        else:
            continue
        outward = v.lemma in OUTWARD_VERBS or v.lower in OUTWARD_VERBS
        if outward and lean > 0 and (v.lemma not in REACH_VERBS or not _to_speaker_only(s, v)):
            continue
        what = _what(s, v)
        if what:
            out.append(Request(v, rule, lean, what, outward, _speaker_words(s, v)))
    return out


#: Verbs of a request that sets how things are to be ("keep replies short", "make answers brief").
_SETTING = frozenset({"keep", "make"})


def _stands_by_shape(s: Sentence, v: Token) -> bool:
    """A request whose shape says it holds every time, without an adverb: one set against what it
    is not ("contact me by email, not phone"), or one setting how a kind of thing is to be, named
    in the plural without a determiner ("keep messages short", "keep functions short")."""
    words = list(s.subtree(v.i))
    # ... a kind set against a kind ("by email, not phone"), not one thing against another ("send
    # me the report, not the draft": a correction of the moment).
    if any(t.text == "," and _contrast(s, t.i) and _kind_after(s, t.i + 1) for t in words):
        return True
    if v.lemma not in _SETTING:
        return False
    kinds = [
        o
        for o in s.children(v.i, "dobj")
        if o.tag == "NNS" and not any(s.child(o.i, d) is not None for d in ("det", "poss", "nummod"))
    ]
    return bool(kinds) and any(t.tag in ("JJ", "JJR") and t.i > kinds[0].i for t in words)


def _kind_after(s: Sentence, i: int) -> bool:
    """The words after the contrast word at ``i`` name a kind: no determiner or possessive."""
    nxt = s.tokens[i + 1] if i + 1 < len(s.tokens) else None
    return nxt is not None and nxt.pos in ("NOUN", "PROPN", "ADJ") and nxt.tag not in ("DT", "PRP$")


def _clause(s: Sentence, v: Token) -> str:
    """The words of ``v``'s own clause (its subtree without the clauses hanging on it)."""
    skip = {t.i for c in s.children(v.i) if c.dep in ("parataxis", "advcl", "ccomp", "conj") for t in s.subtree(c.i)}
    return " ".join(t.text for t in s.subtree(v.i) if t.i not in skip)


def _imperative(s: Sentence, v: Token) -> bool:
    if v.pos != "VERB" or v.tag != "VB" or v.dep not in _CLAUSE_DEPS:
        return False
    kids = s.children(v.i)
    # A label before a colon and a topic set off by a comma are no subject ("one more standing rule:
    # weekends, please don't ..."), though the parse may hang either on the verb as one.
    colon = max((t.i for t in s.tokens if t.text == ":" and t.i < v.i), default=-1)
    label = set(range(colon + 1)) | {
        t.i
        for k in kids
        if k.i <= colon or (k.dep == "nsubj" and k.i + 1 < v.i and s.tokens[k.i + 1].text == ",")
        for t in s.subtree(k.i)
    }
    if any(k.dep in ("nsubj", "nsubjpass", "expl", "mark") and k.i not in label for k in kids):
        return False
    if v.dep == "conj" and any(k.dep in ("nsubj", "nsubjpass") for k in s.children(v.head)):
        return False  # "You never shy away from a challenge and always try ...": its subject is the first verb's
    if any(k.dep in ("aux", "auxpass") and k.lemma != "do" for k in kids):
        return False  # "to book", "I will book", "can book"
    # It opens its clause: only lead words before it, at the sentence start or after a break.
    before = [t for t in s.subtree(v.i) if t.i < v.i]
    # ... or words that only say when or in what case ("in general", "weekends, please ...")
    framing = {t.i for k in kids if k.i < v.i and k.dep in _FRAMING for t in s.subtree(k.i)} | label
    if any(t.lower not in _LEAD and t.pos != "PUNCT" and t.i not in framing for t in before):
        return False
    first = min([v.i, *(t.i for t in before)])
    return first == 0 or s.tokens[first - 1].pos in ("PUNCT", "CCONJ")


def _to_speaker_only(s: Sentence, v: Token) -> bool:
    """Is the speaker the recipient of ``v``, and nobody else?"""
    me = False
    for k in s.children(v.i):
        if k.dep in ("dative", "dobj", "appos") and k.lower in _ME:
            me = True
        elif k.dep == "dative":
            return False  # "always send Ana the minutes"
        elif k.dep == "prep" and k.lower in ("to", "for", "with"):
            obj = s.child(k.i, "pobj")
            if obj is None or obj.lower not in _ME:
                return False  # "always send the minutes to Ana"
            me = True
    return me


def _speaker_words(s: Sentence, v: Token) -> frozenset[int]:
    out: set[int] = set()
    for c in s.children(v.i):
        if c.lower in _ME:
            out.add(c.i)
        elif c.dep == "prep" and (o := s.child(c.i, "pobj")) is not None and o.lower in _ME:
            out.update((c.i, o.i))
    return frozenset(out)


def _what(s: Sentence, v: Token) -> tuple[int, ...]:
    """The request's words after ``v``: its own, cut at a break that adds no contrast."""
    skip: set[int] = set()
    for c in s.children(v.i):
        if (c.dep == "conj" and c.pos in ("VERB", "AUX")) or c.dep in ("parataxis", "cc", "advcl", "ccomp"):
            skip.update(t.i for t in s.subtree(c.i))
        elif c.lower in ("never", "always", "only", "ever", "please", "just", "also", "invariably"):
            skip.add(c.i)
    words = [t.i for t in s.subtree(v.i) if t.i > v.i and t.i not in skip]
    out: list[int] = []
    for i in words:
        t = s.tokens[i]
        if t.text in (",", ";", ":", "—", "–") and not _contrast(s, i):
            break
        out.append(i)
    out = _without_marks(s, out)
    while out and (s.tokens[out[-1]].pos in ("PUNCT", "CCONJ", "ADP", "DET") or s.tokens[out[-1]].lower in _LEAD):
        out.pop()  # ", not" whose other half the parse put elsewhere
    return tuple(out)


def _without_marks(s: Sentence, words: list[int]) -> list[int]:
    """``words`` without a phrase that only says the request stands ("from now on"): when, not what."""
    for n in (4, 3, 2):
        for k in range(len(words) - n + 1):
            run = words[k : k + n]
            if _STANDING_ASK.fullmatch(" ".join(s.tokens[i].lower for i in run)):
                return words[:k] + words[k + n :]
    return words


def _contrast(s: Sentence, i: int) -> bool:
    """ ", not SMS", ", never unittest", ", only aisle": the comma adds a contrast to the what."""
    nxt = s.tokens[i + 1] if i + 1 < len(s.tokens) else None
    return s.tokens[i].text == "," and nxt is not None and nxt.lower in ("not", "never", "only", "but")
