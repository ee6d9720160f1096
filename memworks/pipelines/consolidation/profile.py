"""The user profile block: the few trusted facts worth putting in front of every answer.

Eligible records (see :func:`eligible`) are ordered procedural first (how to answer), then
semantic by key (keyless last), then ``memory_id``, and added one line at a time while the
whole rendered block, measured with the caller's ``count_tokens``, stays within
``max_tokens`` (lines are counted one by one, the block once at the end). A line that does not fit is skipped
and the next (possibly shorter) line is
tried. The cap is hard; an empty profile renders to ``""`` with 0 tokens.

The profile speaks of the user in the third person: a record text that kept the speaker's own
words ("User likes dark mode in my code editor") is rendered "... in their code editor".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus
from memworks.pipelines.gate import value_instruction

HEADER = "What I know about this user:"
_KINDS = (MemoryKind.PROCEDURAL, MemoryKind.SEMANTIC)
#: Extractors whose records are not facts (episode transcripts, summaries).
_NOT_FACTS = frozenset({"transcript", "summary"})


@dataclass(frozen=True)
class ProfileLine:
    memory_id: str
    #: The rendered line: ``"- <fact> [m:<first 8 chars of memory_id>]"``.
    text: str


@dataclass(frozen=True)
class Profile:
    lines: tuple[ProfileLine, ...]
    #: Header plus one line per fact, joined by newlines; ``""`` when there is no line.
    text: str
    tokens: int


def eligible(m: MemoryView, *, now: datetime | None, min_confidence: float) -> bool:
    """A live, trusted, confident, current fact (never pending, untrusted or superseded),
    whose value does not read as an instruction (:func:`~memworks.pipelines.gate.value_instruction`):
    the profile sits in front of every answer, so a value that slipped past an older gate
    must not become an order there.

    With ``now``, a record must also be unexpired (``expires_at > now``) and hold at ``now``
    (``valid_from <= now < valid_to``); without it, only status and flags are checked.
    """
    timely = now is None or (
        (m.expires_at is None or m.expires_at > now)
        and (m.valid_to is None or m.valid_to > now)
        and m.valid_from <= now
    )
    return (
        timely
        and m.status is MemoryStatus.ACTIVE
        and m.trusted
        and m.retracted_at is None
        and m.superseded_by is None
        and m.superseded_at is None
        and m.confidence >= min_confidence
        and m.kind in _KINDS
        and m.extractor not in _NOT_FACTS
        and value_instruction(f"{m.value}\n{m.text}", kind=m.kind) is None
    )


def _order(m: MemoryView) -> tuple[int, bool, str, str]:
    return (_KINDS.index(m.kind), m.key is None, m.key or "", m.memory_id)


#: First-person words and their third-person forms. "I" counts only before a lower-case word
#: or a contraction ("I'm", "I play"), so a title ("I, Robot", "I Will Survive") is left alone.
_THIRD_PERSON = (
    (re.compile(r"\b(?:my|our)\b"), "their"),
    (re.compile(r"\b(?:myself|ourselves)\b"), "themselves"),
    (re.compile(r"\b(?:mine|ours)\b"), "theirs"),
    (re.compile(r"\b(?:me|us)\b"), "them"),
    (re.compile(r"\bI'm\b"), "they're"),
    (re.compile(r"\bI've\b"), "they've"),
    (re.compile(r"\bI'd\b"), "they'd"),
    (re.compile(r"\bI(?= [a-z])"), "they"),
)
_QUOTED = re.compile(r"(\"[^\"]*\"|“[^”]*”)")


def third_person(text: str) -> str:
    """``text`` with first-person words made third person, quoted titles left as they are."""
    parts = _QUOTED.split(text)
    for i in range(0, len(parts), 2):  # even parts are outside quotes
        for rx, repl in _THIRD_PERSON:
            parts[i] = rx.sub(repl, parts[i])
    return "".join(parts)


def _fact(m: MemoryView) -> str:
    text = " ".join(m.text.split())
    if not text and m.value.strip():
        text = " ".join(f"{m.key or 'fact'}: {m.value}".split())
    return third_person(text)


def render(lines: Sequence[ProfileLine]) -> str:
    return "\n".join([HEADER, *(line.text for line in lines)]) if lines else ""


def build_profile(
    records: Sequence[MemoryView],
    *,
    count_tokens: Callable[[str], int],
    max_tokens: int = 300,
    min_confidence: float = 0.7,
    now: datetime | None = None,
) -> Profile:
    """The profile of one user scope, at most ``max_tokens`` tokens.

    Pass ``now`` so expired and no-longer-valid records are left out (see :func:`eligible`).

    Records whose fact text is identical to an earlier line's are listed once.
    """
    lines: list[ProfileLine] = []
    seen: set[str] = set()
    # Lines are joined by newlines, so the block's tokens are the sum of its lines' for any
    # whitespace-splitting tokenizer: each candidate costs one short count, not a recount of
    # the whole block. The total is checked once at the end, so the cap stays hard for others.
    tokens = count_tokens(HEADER)
    for m in sorted((m for m in records if eligible(m, now=now, min_confidence=min_confidence)), key=_order):
        fact = _fact(m)
        if not fact or fact.casefold() in seen:
            continue
        line = ProfileLine(m.memory_id, f"- {fact} [m:{m.memory_id[:8]}]")
        size = tokens + count_tokens(line.text)
        if size > max_tokens:
            continue
        lines.append(line)
        seen.add(fact.casefold())
        tokens = size
    while lines and (tokens := count_tokens(render(lines))) > max_tokens:
        lines.pop()
    return Profile(tuple(lines), render(lines), tokens if lines else 0)
