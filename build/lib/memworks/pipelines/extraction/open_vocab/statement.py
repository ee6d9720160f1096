"""A clause rewritten as a statement about its person: the clause's own words, without side
clauses, openers or the time phrase, with the subject named.
"""

from __future__ import annotations

from datetime import datetime

from memworks.models.enums import CandidateOp, MemoryKind
from memworks.pipelines.extraction.open_vocab.clause import Clause, Statement, own_tokens
from memworks.pipelines.extraction.open_vocab.render import noun_part, render

__all__ = ["clause_text", "statement"]

_POINTING = frozenset({"this", "that", "these", "those", "it", "them"})
_ARGUMENTS = frozenset({"dobj", "pobj", "nsubj", "nsubjpass", "attr", "dative"})


def clause_text(c: Clause, *, keep_time: bool = False, drop: frozenset[int] = frozenset()) -> str:
    span = own_tokens(c.s, c.verb)
    keep = [i for i in span if not (c.s.tokens[i].dep == "punct" and i == span[-1])]
    gone = set(drop) | (set() if keep_time else set(c.time_tokens))
    gone |= {t.i for t in c.s.children(c.verb.i, "advmod") if t.lower in ("lately", "recently", "currently")}
    gone |= _asides(c, keep) | {t.i for t in c.s.children(c.verb.i, "mark")}
    if any(
        c.s.tokens[i].pos == "PRON" and c.s.tokens[i].lower in _POINTING and c.s.tokens[i].dep in _ARGUMENTS
        for i in keep
        if i not in gone
    ):
        return ""  # "how to make this": the statement leans on something said or shown before
    return render(c.s, keep, subject=c.subject, person=c.person, time=None if keep_time else c.time, drop=gone)


def _asides(c: Clause, keep: list[int]) -> set[int]:
    """Tokens that are not the statement: side clauses, relative clauses ("a shelter I volunteer
    at"), openers before the subject ("In the meantime,", "As for me,", "Unfortunately,"), and
    verbs a bad parse hung on a noun ("watch movies, hike, and have ...")."""
    s, out = c.s, set[int]()
    for i in keep:
        t = s.tokens[i]
        if i == c.verb.i:
            continue
        side = (t.dep in ("advcl", "relcl", "acl", "parataxis") and not noun_part(s, t)) or (
            t.dep == "conj" and t.pos == "VERB" and s.tokens[t.head].pos in ("NOUN", "PROPN")
        )
        opener = t.head == c.verb.i and t.i < c.subject.i and t.dep in ("prep", "advmod", "npadvmod", "punct")
        if side or opener:
            out.update(x.i for x in s.subtree(i))
            if side:
                out.update(k.i for k in s.children(t.head) if k.dep in ("cc", "punct") and k.i == i - 1)
    return out


def statement(
    c: Clause,
    rule: str,
    attribute: tuple[str, ...],
    value: str,
    *,
    text: str = "",
    drop: frozenset[int] = frozenset(),
    kind: MemoryKind = MemoryKind.SEMANTIC,
    event_at: datetime | None = None,
    op: CandidateOp = CandidateOp.ASSERT,
    key_is_prefix: bool = False,
) -> Statement:
    """A statement of clause ``c`` about its person; the text is the rewritten clause by default."""
    if c.time is not None and c.time.phrase and c.time.phrase in value:  # "a new group last Tues"
        value = " ".join(value.replace(c.time.phrase, " ").split()).strip(" ,") or value
    return Statement(
        rule,
        c.person,
        tuple(a for a in attribute if a),
        value,
        text or clause_text(c, drop=drop),
        op=op,
        kind=kind,
        time=c.time,
        event_at=event_at,
        confidence=c.confidence,
        key_is_prefix=key_is_prefix,
    )
