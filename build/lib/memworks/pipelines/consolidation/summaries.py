"""Session summaries as itemised deltas (the representation layer, rules only).

A summary never rewrites an earlier one: each run summarises only the turns of a session not
yet summarised, so repeated runs append new deltas. Each item is a current extracted fact of one of
those turns, or, when a turn yielded no fact at all, its first sentence that says something (at
least :data:`MIN_ITEM_TERMS` index terms, no greeting or thanks; at most :data:`MAX_ITEM_CHARS`
characters). A turn whose facts were all superseded or deleted gives no item: its words would say
the old value again. Every summarised turn is a lineage parent.

Derived memory obeys the gate: the caller passes only turns the gate kept and that still
stand; each item is judged again (:func:`~memworks.pipelines.gate.derived_refusal`) as a
record of the least-trusted source the summary cites, and a question is no item (it states
nothing). The summary carries that source.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import datetime

from memworks.models.drafts import Turn
from memworks.models.enums import TRUSTED_SOURCES, Source
from memworks.pipelines.gate import derived_refusal, is_small_talk, least_trusted
from memworks.pipelines.text.terms import terms

#: Longest item taken from a turn's own words.
MAX_ITEM_CHARS = 120
#: Fewest index terms a sentence of a turn needs to be an item ("Omar!", "So proud of you." say
#: nothing a summary should keep).
MIN_ITEM_TERMS = 2
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


@dataclass(frozen=True)
class SummaryDraft:
    """One delta summary of a session's new turns."""

    session_id: str
    #: Every summarised turn, in order (lineage parents).
    episode_ids: tuple[str, ...]
    text: str
    valid_from: datetime
    valid_to: datetime
    #: The least-trusted source of the summarised turns: what the summary is stored as.
    source: Source = Source.USER


def _one_line(text: str) -> str:
    return " ".join(text.split())


def first_sentence(content: str, limit: int = MAX_ITEM_CHARS) -> str:
    """The first sentence of ``content`` on one line, cut to ``limit`` characters (with "…")."""
    flat = _one_line(content)
    sentence = _SENTENCE_END.split(flat, maxsplit=1)[0]
    if len(sentence) <= limit:
        return sentence
    return sentence[: limit - 1].rstrip() + "…"


def first_statement(content: str, limit: int = MAX_ITEM_CHARS) -> str | None:
    """The first sentence of ``content`` that says something (see the module), cut to ``limit``."""
    for sentence in _SENTENCE_END.split(_one_line(content)):
        if len(terms(sentence)) >= MIN_ITEM_TERMS and not is_small_talk(sentence) and not sentence.endswith("?"):
            return first_sentence(sentence, limit)
    return None


def _date_range(start: datetime, end: datetime) -> str:
    a, b = start.date().isoformat(), end.date().isoformat()
    return a if a == b else f"{a} to {b}"


def _items(
    turns: Sequence[Turn], facts_by_episode: Mapping[str, Sequence[str]], source: Source, had_facts: Set[str]
) -> tuple[list[str], list[str]]:
    """The summary's items, and the turns they came from (only those are its lineage parents)."""
    items: dict[str, None] = {}
    cited: list[str] = []
    for t in turns:
        facts = [f for f in (_one_line(x) for x in facts_by_episode.get(t.episode_id, ())) if f]
        if not facts and t.episode_id not in had_facts:
            facts = [own] if (own := first_statement(t.content)) else []
        kept = [i for i in facts if i and not i.endswith("?") and derived_refusal(i, source=source) is None]
        for item in kept:
            items.setdefault(item, None)
        if kept:
            cited.append(t.episode_id)
    return list(items), cited


def summarize_sessions(
    turns_by_session: Mapping[str, Sequence[Turn]],
    facts_by_episode: Mapping[str, Sequence[str]],
    already_summarised: Set[str],
    *,
    min_episodes: int = 2,
    had_facts: Set[str] = frozenset(),
) -> list[SummaryDraft]:
    """One delta :class:`SummaryDraft` per session with at least ``min_episodes`` new turns.

    ``facts_by_episode`` holds each turn's current facts; ``had_facts`` the turns that gave any
    fact, current or not. New turns are those whose ``episode_id`` is not in
    ``already_summarised``; turns from an untrusted source are ignored as a safeguard (the
    caller should pass verified turns only). Turns are ordered by ``occurred_at`` then
    ``episode_id``; items keep that order and are deduplicated (the same fact from two turns is
    listed once); the turns that gave an item are the summary's ``episode_ids``. A session whose
    new turns yield no item at all gives no summary. Sessions come back sorted by id.

    Text: ``"Session <id>, <date range>:\\n- <item>\\n- <item>"``.
    """
    if min_episodes < 1:
        raise ValueError("min_episodes must be at least 1")
    drafts: list[SummaryDraft] = []
    for session_id in sorted(turns_by_session):
        fresh: dict[str, Turn] = {}
        for t in turns_by_session[session_id]:
            if t.episode_id not in already_summarised and t.source in TRUSTED_SOURCES:
                fresh.setdefault(t.episode_id, t)
        turns = sorted(fresh.values(), key=lambda t: (t.occurred_at, t.episode_id))
        if len(turns) < min_episodes:
            continue
        source = least_trusted(t.source for t in turns)
        items, cited = _items(turns, facts_by_episode, source, had_facts)
        if not items:
            continue
        start, end = turns[0].occurred_at, max(t.occurred_at for t in turns)
        head = f"Session {session_id}, {_date_range(start, end)}:"
        text = "\n".join([head, *(f"- {i}" for i in items)])
        drafts.append(SummaryDraft(session_id, tuple(cited), text, start, end, source))
    return drafts
