"""Forget requests in open vocabulary: "forget about the cello", "can you delete what you know
about my sister's wedding?", "stop remembering my address".

A request becomes one statement with the topic's words; matching them against stored slots is
the ingest layer's work (:func:`memworks.pipelines.ingest.slots.match_forget_topic`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memworks.models.enums import CandidateOp
from memworks.pipelines.extraction.open_vocab.clause import MY, UNSAID, Statement, TurnState
from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token

__all__ = ["forget_request", "told_when"]

_FORGET_VERBS = frozenset(
    {"forget", "delete", "erase", "remove", "wipe", "unlearn", "drop", "purge", "scrap", "discard", "ditch"}
)
_TOPIC_STOP = frozenset("what everything anything all thing things stuff you i know about that this".split())


def forget_request(s: Sentence, state: TurnState) -> list[Statement] | None:
    """A request to erase a topic: "forget about the cello", "can you delete what you know about
    my sister's wedding?", "stop remembering my address", "forget that I see a therapist", "my
    old number, forget that one". None when the sentence is not one."""
    found = _request_verbs(s)
    if not found:
        return None
    # The first request that names its topic: "Please forget that key completely, don't keep it
    # anywhere" asks twice, and only the first names what.
    topic = next((t for verb, root in found if (t := _topic(s, verb, root)) is not None), None)
    src = s  # the sentence the topic's tokens are of
    if topic is None:
        # "Would you be a dear and forget I ever said it?": what it points back at, said before
        # in the same turn.
        src, topic = next(((before, t) for before in reversed(state.said) if (t := _reported(before))), (s, None))
    if topic is None:
        return None
    # "... from your notes": where it is kept, not what it is.
    kept_in = {u.i for t in topic if t.dep == "prep" and t.lower == "from" and _yours(src, t) for u in src.subtree(t.i)}
    topic = [t for t in topic if t.i not in kept_in]
    # "the weight stuff I gave you a while back": the clause reporting it was said is no word of
    # the topic (its words still say which was meant: "the number I gave you in February").
    reporting = {
        u.i for t in topic if t.dep == "relcl" and t.lemma in _REPORTING and t.i > topic[0].i for u in src.subtree(t.i)
    }
    kept = [t for t in topic if t.pos not in ("PUNCT", "INTJ") and t.lower not in ("please", "too")]
    while kept and kept[-1].pos in ("CCONJ", "ADV") and kept[-1].lower in ("and", "or", "also", "too"):
        kept.pop()
    # A word before a left-out comma keeps a space after it ("their old address the one in Leeds").
    after = {a.i: b for a, b in zip(topic, topic[1:], strict=False)}
    words = "".join(t.text + (t.ws or (" " if t.i in after and after[t.i].pos == "PUNCT" else "")) for t in kept)
    words = words.strip(" .!?,")
    shown = " ".join(_THIRD_PERSON.get(w.lower(), w) for w in words.split())
    terms = tuple(
        dict.fromkeys(
            t.lemma
            for t in kept
            if t.i not in reporting
            and (t.pos in ("NOUN", "PROPN", "ADJ", "VERB") or (t.pos == "X" and any(c.isalpha() for c in t.text)))
            and t.lemma not in _TOPIC_STOP
            and t.lower not in MY
            and not (t.lemma == "use" and src.child(t.i, "xcomp"))  # "used to live": a time, not a topic
        )
    )
    if not terms:
        return []
    st = Statement(
        "forget",
        state.speaker,
        (),
        "",
        f"{state.speaker.name} asked to forget {shown}.",
        op=CandidateOp.RETRACT,
        confidence=0.9,
        forget_topic=shown,
        # "what I just said", "the word I just told you": the speaker's last words.
        forget_recent=any(
            t.lower == "just" and t.head != t.i and s.tokens[t.head].lemma in _REPORTING for t in s.tokens
        ),
        forget_terms=terms,
        forget_told=told_when(s.text) or told_when(src.text),
    )
    return [st]


#: How long ago a request says the thing was told ("what I said last week", "the therapy stuff
#: I told you about a couple of weeks back"): a time of the telling, never a weekday or a date,
#: which may be what the thing itself was about ("forget what I said about Thursday").
_TOLD_WHEN = re.compile(
    r"\b(?:yesterday|last\s+(?:night|week|month)|earlier\s+(?:today|this\s+week)|this\s+morning|the\s+other\s+day"
    r"|(?:\d{1,2}|an?|one|two|three|four|five|six|a\s+couple\s+of|a\s+few|several)\s+(?:days?|weeks?|months?)"
    r"\s+(?:ago|back))\b",
    re.IGNORECASE,
)


def told_when(text: str) -> str:
    """The phrase of ``text`` saying how long ago something was told, or ""."""
    m = _TOLD_WHEN.search(text)
    return m[0] if m else ""


#: How the topic is shown in the record about the request ("their address", "that they see ...").
_THIRD_PERSON = {
    "my": "their",
    "our": "their",
    "me": "them",
    "mine": "theirs",
    "i": "they",
    "i'm": "they're",
    "am": "are",
}
#: Verbs that report what was said ("what I told you about X"): the topic is X, not the saying.
_REPORTING = frozenset(
    {
        "tell",
        "say",
        "mention",
        "share",
        "talk",
        "write",
        "know",
        "remember",
        "give",
        "explain",
        "describe",
        "send",
        "paste",
    }
)
#: Nouns a report of saying is dated by, not about ("the first time I wrote to you").
_WHEN_TOLD = frozenset({"time", "day", "week", "month", "year", "night", "morning", "evening", "moment"})
#: Objects that point back at a topic named earlier in the sentence ("my old number, forget that one").
_ANAPHORS = frozenset({"it", "that", "this", "one", "them", "those"})


def _request_verbs(s: Sentence) -> list[tuple[Token, Token]]:
    """Each (verb that asks to forget, clause head its subject and auxiliaries hang on): the
    root, and each imperative forget verb heading a clause of its own ("Forget what I told you
    about my ex, I don't want him in here"; "Please forget that key, don't keep it anywhere")."""
    roots = list(s.roots())
    others = [t for t in s.tokens if t.lemma in _FORGET_VERBS and t.tag == "VB" and t.dep in _CLAUSES]
    found: list[tuple[Token, Token]] = []
    for head in [*roots[:1], *others]:
        verb = head
        if head.lemma == "stop" and (x := s.child(head.i, "xcomp")) and x.lemma in ("remember", "store", "keep"):
            verb = x
        elif head.lemma in _FORGET_VERBS:
            if s.child(head.i, "neg"):  # "don't forget that I'm vegan" asks to remember
                continue
        elif not (head.lemma in ("remember", "keep", "store") and s.child(head.i, "neg")):
            continue
        subj = s.child(head.i, "nsubj")
        if subj is not None and subj.lower != "you" and not _dislocated(s, head, subj):
            continue
        # "Would delete it later" tells a plan; "I'd rather that wasn't kept — please remove it"
        # asks, its "'d" hung on the request by the parse.
        please = any(c.lower == "please" for c in s.children(head.i, "intj"))
        if (
            subj is None
            and not please
            and any(k.lemma in ("will", "would", "could", "can") for k in s.children(head.i, "aux"))
        ):
            continue
        found.append((verb, head))
    return found


_CLAUSES = frozenset({"advcl", "conj", "ccomp", "parataxis"})


def _dislocated(s: Sentence, head: Token, subj: Token) -> bool:
    """The topic stands before the request, which points back: "my old number, forget that one",
    "the thing I told you about Laura's brother — please forget I ever mentioned it" (a noun
    before a bare imperative, which no subject of its own would take)."""
    if subj.pos not in ("NOUN", "PROPN"):
        return False
    obj = s.child(head.i, "dobj")
    return (obj is not None and obj.lower in _ANAPHORS) or (head.tag == "VB" and s.child(head.i, "aux") is None)


def _about(s: Sentence, within: Sequence[Token]) -> list[Token] | None:
    """What an "about" among ``within`` is about: its object ("about my ex") or clause ("about
    where I go on Thursdays"); the innermost, "rotten about that business I passed on about
    Sheila's lad" being about the lad."""
    for p in reversed(within):
        if p.dep == "prep" and p.lower == "about":
            if (o := s.child(p.i, "pobj") or s.child(p.i, "pcomp")) is not None:
                return list(s.subtree(o.i))
    return None


def _reported(s: Sentence) -> list[Token] | None:
    """What a sentence reports having said, for a later request pointing back at it: "that
    business I passed on about Sheila's lad" (what it was about), "for having told you where I
    keep the spare key" (what was told), "the therapy stuff I told you about" (what it tells of),
    "I read my date of birth out" (the speaker's own thing said)."""
    if (about := _about(s, s.tokens)) is not None:
        return about
    # What the speaker said ("having told you ..."), not what someone else says.
    said = [
        t
        for t in s.tokens
        if _reports(s, t) and ((subj := s.child(t.i, "nsubj")) is None or subj.lower in MY | {"i", "we"})
    ]
    # What was told, first ("the first time I wrote to you I explained why I'm at home": why) ...
    if (c := next((c for t in said if (c := s.child(t.i, "ccomp")) is not None), None)) is not None:
        return list(s.subtree(c.i))
    for t in said:
        # ... then the thing told of ("the therapy stuff I told you about"; not a time: "the
        # first time I wrote") ...
        if t.dep == "relcl" and t.head != t.i and s.tokens[t.head].lemma not in _WHEN_TOLD:
            return list(s.subtree(t.head))
        # ... or something of theirs they said ("I read my date of birth out in the chat").
        if (o := s.child(t.i, "dobj")) is not None and any(p.lower in MY for p in s.children(o.i, "poss")):
            return list(s.subtree(o.i))
    return None


def _reports(s: Sentence, t: Token) -> bool:
    """A verb of saying, "read ... out" among them."""
    return t.lemma in _REPORTING or (t.lemma == "read" and any(p.lower == "out" for p in s.children(t.i, "prt")))


def _topic(s: Sentence, verb: Token, head: Token) -> list[Token] | None:
    """The tokens naming what to forget, or None when the request names nothing; cut where a
    clause of its own follows a comma ("that crates.io token, wipe it, pasting it was dumb")."""
    found = _topic_tokens(s, verb, head)
    if found is None:
        return None
    for n, t in enumerate(found[1:-1], start=1):
        if t.text in (",", ";", "—", "–") and found[n + 1].pos in ("VERB", "AUX") and found[n + 1].tag != "VBN":
            return found[:n]
    return found


def _yours(s: Sentence, prep: Token) -> bool:
    """The preposition's object is the listener's ("from your notes", "from your memory")."""
    o = s.child(prep.i, "pobj")
    return o is not None and any(c.lower == "your" for c in s.children(o.i, "poss"))


def _noun_phrase(s: Sentence, t: Token) -> bool:
    """A noun with words of its own ("the weight stuff", "one thing, my old number"), not a bare
    adverbial noun ("Yesterday, can you delete it?")."""
    return t.pos in ("NOUN", "PROPN") and any(
        s.child(t.i, d) is not None for d in ("det", "poss", "compound", "nummod", "amod", "appos")
    )


def _topic_tokens(s: Sentence, verb: Token, head: Token) -> list[Token] | None:
    obj = s.child(verb.i, "dobj")
    if (about := _about(s, list(s.subtree(verb.i)))) is not None:
        return about
    subj = s.child(head.i, "nsubj")
    if subj is not None and _dislocated(s, head, subj):
        return list(s.subtree(subj.i))
    if obj is not None and obj.lower in _ANAPHORS:
        # "one thing, the weight stuff I gave you, can you delete it?": a noun set before the
        # request (its appositive when it has one) is what "it" points back at ...
        front = next(
            (c for d in ("npadvmod", "dep") for c in s.children(head.i, d) if c.i < head.i and _noun_phrase(s, c)),
            None,
        )
        if front is not None:
            return list(s.subtree((s.child(front.i, "appos") or front).i))
        return None  # ... else, "forget it, there's a dear": it was said before
    if obj is not None and obj.lower in ("what", "everything", "anything", "all", "that", "it"):
        obj = None
    if obj is not None and obj.lower not in UNSAID:
        return list(s.subtree(obj.i))
    clause = next((c for c in s.children(verb.i, "ccomp") if c.lemma not in _REPORTING), None)
    if clause is not None:  # "forget that I see a therapist", "forget where I used to live"
        return list(s.subtree(clause.i))
    return None
