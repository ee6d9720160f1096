"""Forget requests in open vocabulary: "forget about the cello", "can you delete what you know
about my sister's wedding?", "stop remembering my address".

A request becomes one statement with the topic's words; matching them against stored slots is
the ingest layer's work (:func:`memworks.pipelines.slots.match_forget_topic`).
"""

from __future__ import annotations

from memworks.models.enums import CandidateOp
from memworks.pipelines.extraction.open_vocab_clause import MY, UNSAID, Statement, TurnState
from memworks.pipelines.extraction.open_vocab_parse import Sentence, Token

__all__ = ["forget_request"]

_FORGET_VERBS = frozenset({"forget", "delete", "erase", "remove", "wipe", "unlearn", "drop", "purge"})
_TOPIC_STOP = frozenset("what everything anything all thing things stuff you i know about that this".split())


def forget_request(s: Sentence, state: TurnState) -> list[Statement] | None:
    """A request to erase a topic: "forget about the cello", "can you delete what you know about
    my sister's wedding?", "stop remembering my address". None when the sentence is not one."""
    root = next(iter(s.roots()), None)
    if root is None:
        return None
    verb = root
    if root.lemma == "stop" and (x := s.child(root.i, "xcomp")) and x.lemma in ("remember", "store", "keep"):
        verb = x
    elif root.lemma not in _FORGET_VERBS and not (
        root.lemma in ("remember", "keep", "store") and s.child(root.i, "neg")
    ):
        return None
    subj = s.child(root.i, "nsubj")
    if subj is not None and subj.lower != "you":
        return None
    if any(k.lemma in ("will", "would", "could", "can") for k in s.children(root.i, "aux")) and subj is None:
        return None
    topic = _topic(s, verb)
    if topic is None:
        return None
    words = "".join(t.text + t.ws for t in s.subtree(topic.i)).strip(" .!?")
    shown = " ".join("their" if w.lower() in MY else "them" if w.lower() == "me" else w for w in words.split())
    terms = tuple(
        dict.fromkeys(
            t.lemma
            for t in s.subtree(topic.i)
            if t.pos in ("NOUN", "PROPN", "ADJ", "VERB") and t.lemma not in _TOPIC_STOP and t.lower not in MY
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
        forget_terms=terms,
    )
    return [st]


def _topic(s: Sentence, verb: Token) -> Token | None:
    obj = s.child(verb.i, "dobj")
    about = [t for t in s.subtree(verb.i) if t.dep == "prep" and t.lower == "about"]
    if obj is not None and obj.lower in ("what", "everything", "anything", "all", "that", "it"):
        obj = None
    for p in about:
        if (o := s.child(p.i, "pobj")) is not None:
            return o
    if obj is not None and obj.lower not in UNSAID:
        return obj
    return None
