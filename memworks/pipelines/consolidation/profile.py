"""The user profile block: the few trusted facts worth putting in front of every answer.

Eligible records (see :func:`eligible`) are ordered by tier (:func:`tier_of`): health and
safety constraints first (allergies, diets, medical conditions, and preferences that rest on
them), then explicit preferences and aversions (how to answer among them), then other facts;
within a tier procedural first, then by key (keyless last), then ``memory_id``. Lines are added
one at a time while the whole rendered block, measured with the caller's ``count_tokens``, stays
within ``max_tokens`` (lines are counted one by one, the block once at the end). A line that
does not fit is skipped and the next (possibly shorter) line is tried. The cap is hard; an
empty profile renders to ``""`` with 0 tokens.

When the lines do not all fit and a question is known, :func:`select_profile` picks the lines
that bear on it: each line's similarity to the question (vectors passed in), plus a priority
for its tier (:data:`TIER_PRIORITY`), best first while the cap allows; the block keeps the
tier order.

The profile speaks of the user in the third person: a record text that kept the speaker's own
words ("User likes dark mode in my code editor") is rendered "... in their code editor".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus
from memworks.pipelines.extraction.tools.results import KEY_PREFIX as TOOL_KEYS
from memworks.pipelines.extraction.tools.results import is_run, own_words
from memworks.pipelines.gate import value_instruction

HEADER = "What I know about this user:"
_KINDS = (MemoryKind.PROCEDURAL, MemoryKind.SEMANTIC)
#: Extractors whose records are not facts (episode transcripts, summaries).
_NOT_FACTS = frozenset({"transcript", "summary"})


#: Line tiers, shown in this order.
CONSTRAINT, PREFERENCE, FACT = 0, 1, 2
#: What a tier adds to a line's similarity to the question when lines are chosen for it:
#: a constraint is kept over a preference a little less similar, a preference over a fact.
TIER_PRIORITY: Mapping[int, float] = {CONSTRAINT: 0.15, PREFERENCE: 0.05, FACT: 0.0}
#: Key families of constraints: what the user must not be offered, whatever the question (a
#: medication too: what it must not be mixed with is health and safety).
_CONSTRAINT_FAMILIES = ("allergy", "diet", "condition", "pregnancy", "medication")
#: Key families of stated preferences and aversions.
_PREFERENCE_FAMILIES = ("pref", "likes", "dislikes", "favorite")
#: Words that make a preference a health or safety one ("... due to a phobia", "cannot eat ...").
_HEALTH = re.compile(
    r"\b(?:allerg\w*|intoleran\w*|celiac|coeliac|gluten|lactose|diet|vegan|vegetarian|kosher|halal|medical"
    r"|condition|disease|disorder|chronic|injur\w*|asthma|diabet\w*|pregnan\w*|phobia|afraid|fear\w*|scared"
    r"|terrified|sickness|nause\w*|dyslexi\w*|epilep\w*|health|safety|sensitive skin|sensitive stomach"
    r"|cannot (?:eat|drink|consume|tolerate|digest))\b",
    re.IGNORECASE,
)
_PERSON_KEY = re.compile(r"^person\.[a-z0-9_]+\.")


def tier_of(m: MemoryView) -> int:
    """:data:`CONSTRAINT` for allergies, diets, conditions, medications and preferences resting on health or
    safety; :data:`PREFERENCE` for other stated preferences and how-to-answer procedures;
    :data:`FACT` for the rest."""
    parts = _PERSON_KEY.sub("user.", m.key or "").split(".")
    family = parts[1] if len(parts) > 1 and parts[0] == "user" else ""
    if family in _CONSTRAINT_FAMILIES:
        return CONSTRAINT
    if family in _PREFERENCE_FAMILIES or m.kind is MemoryKind.PROCEDURAL:
        return CONSTRAINT if _HEALTH.search(m.text) or _HEALTH.search(m.value) else PREFERENCE
    return FACT


@dataclass(frozen=True)
class ProfileLine:
    memory_id: str
    #: The rendered line: ``"- <fact> [m:<first 8 chars of memory_id>]"``.
    text: str
    #: :data:`CONSTRAINT`, :data:`PREFERENCE` or :data:`FACT`.
    tier: int = FACT


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

    A command's run (a test or deploy run's output, :func:`~memworks.pipelines.extraction.tools.results.is_run`)
    is the state of the work that day, not something to know about the user: never a line.

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
        and not is_run(m.key or "")
        and value_instruction(f"{m.value}\n{m.text}", kind=m.kind) is None
    )


def _order(m: MemoryView) -> tuple[int, bool, int, bool, str, str]:
    # A tool's report of an order or a ticket comes after what the user said of themselves.
    tool = (m.key or "").startswith(TOOL_KEYS)
    return (tier_of(m), tool, _KINDS.index(m.kind), m.key is None, m.key or "", m.memory_id)


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
    if (m.key or "").startswith(TOOL_KEYS):
        # The user's words it answered are theirs, not the result's.
        return own_words(text)
    return third_person(text)


def render(lines: Sequence[ProfileLine]) -> str:
    return "\n".join([HEADER, *(line.text for line in lines)]) if lines else ""


def profile_lines(
    records: Sequence[MemoryView], *, min_confidence: float = 0.7, now: datetime | None = None
) -> list[ProfileLine]:
    """Every line the profile could hold, in its order (eligible records, identical facts once)."""
    lines: list[ProfileLine] = []
    seen: set[str] = set()
    for m in sorted((m for m in records if eligible(m, now=now, min_confidence=min_confidence)), key=_order):
        fact = _fact(m)
        if not fact or fact.casefold() in seen:
            continue
        seen.add(fact.casefold())
        lines.append(ProfileLine(m.memory_id, f"- {fact} [m:{m.memory_id[:8]}]", tier_of(m)))
    return lines


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
    return fit_lines(
        profile_lines(records, min_confidence=min_confidence, now=now), count_tokens=count_tokens, max_tokens=max_tokens
    )


def fit_lines(lines: Sequence[ProfileLine], *, count_tokens: Callable[[str], int], max_tokens: int) -> Profile:
    """The block of ``lines`` taken in order, each that still fits within ``max_tokens``."""
    kept: list[ProfileLine] = []
    # Lines are joined by newlines, so the block's tokens are the sum of its lines' for any
    # whitespace-splitting tokenizer: each candidate costs one short count, not a recount of
    # the whole block. The total is checked once at the end, so the cap stays hard for others.
    tokens = count_tokens(HEADER)
    for line in lines:
        size = tokens + count_tokens(line.text)
        if size > max_tokens:
            continue
        kept.append(line)
        tokens = size
    while kept and (tokens := count_tokens(render(kept))) > max_tokens:
        kept.pop()
    return Profile(tuple(kept), render(kept), tokens if kept else 0)


def select_profile(
    lines: Sequence[ProfileLine],
    similarity: Sequence[float],
    *,
    count_tokens: Callable[[str], int],
    max_tokens: int,
    priority: Mapping[int, float] = TIER_PRIORITY,
) -> Profile:
    """The profile for one question: every line when all fit, else the lines that bear on it.

    ``similarity[i]`` is line ``i``'s similarity to the question (cosine of their vectors).
    Lines are taken best first by similarity plus their tier's ``priority`` while the cap
    allows (a line that does not fit is skipped), and shown in the profile's own order.
    """
    if len(similarity) != len(lines):
        raise ValueError(f"{len(lines)} lines but {len(similarity)} similarities")
    whole = fit_lines(lines, count_tokens=count_tokens, max_tokens=max_tokens)
    if len(whole.lines) == len(lines):
        return whole
    sizes = [count_tokens(ln.text) for ln in lines]
    return choose_lines(lines, similarity, sizes, count_tokens=count_tokens, max_tokens=max_tokens, priority=priority)


def choose_lines(
    lines: Sequence[ProfileLine],
    similarity: Sequence[float] | npt.NDArray[np.float32],
    sizes: Sequence[int] | npt.NDArray[np.int64],
    *,
    count_tokens: Callable[[str], int],
    max_tokens: int,
    priority: Mapping[int, float] = TIER_PRIORITY,
) -> Profile:
    """The lines that bear on one question, for lines that do not all fit (see :func:`select_profile`).

    ``sizes[i]`` is line ``i``'s tokens. Lines are taken best first by similarity plus their
    tier's priority while the cap allows (ties in the profile's order), and shown in the
    profile's own order.
    """
    n = len(lines)
    if len(similarity) != n or len(sizes) != n:
        raise ValueError(f"{n} lines but {len(similarity)} similarities and {len(sizes)} sizes")
    bonus = np.fromiter((priority.get(ln.tier, 0.0) for ln in lines), dtype=np.float64, count=n)
    order = np.argsort(-(np.asarray(similarity, dtype=np.float64) + bonus), kind="stable")
    size = np.asarray(sizes, dtype=np.int64)
    smallest = int(size.min()) if n else 0
    budget = max_tokens - count_tokens(HEADER)
    keep: list[int] = []
    # A block holds a few dozen lines: once no line could fit, the rest of the ranking is not read.
    for i in order.tolist():
        if budget < smallest:
            break
        if size[i] <= budget:
            keep.append(i)
            budget -= int(size[i])
    return fit_lines([lines[i] for i in sorted(keep)], count_tokens=count_tokens, max_tokens=max_tokens)
