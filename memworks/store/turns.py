"""Each scope's conversation layout, held in process per scope version: which transcript record
comes just before and after another in its session, who spoke each, which turn each fact was
read from, and which records each summary summarises.

A reply's point is often set up by the turn it answers ("It was Matt Patterson!" answers "Who
played at the concert?"), and "you" in a turn means whoever spoke the turn next to it. The
read path uses both; loading them costs one join over the scope's transcripts per version.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field

from sqlalchemy import and_, select
from sqlmodel import Session, col

from memworks.models.enums import MemoryStatus, Relation, Role
from memworks.models.schemas import Scope
from memworks.models.tables import Episode, Lineage, Memory
from memworks.pipelines.text.people import id_name, is_own_name
from memworks.store.memories import scope_clause
from memworks.store.projections.scope_cache import cached


@dataclass
class Layout:
    """Neighbours and speakers of a scope's transcript records."""

    version: tuple[int, int]
    prev: dict[str, str]
    next: dict[str, str]
    speaker: dict[str, str]
    #: Every speaker of the scope (the names a question may ask about).
    subjects: frozenset[str]
    #: A fact's source: the transcript record of the turn it was extracted from.
    source: dict[str, str] = field(default_factory=dict)
    #: A summary's parts: the records (transcripts and facts) of the turns it summarises.
    parts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: A transcript's replaced slots: keys of the records read from its turn that a later value
    #: superseded ("user.home_city" for "I live in Porto ..." after the move), less those its turn
    #: still holds a current value of.
    replaced: dict[str, frozenset[str]] = field(default_factory=dict)
    #: The names the scope's user goes by (their current ``user.name``, whole and first, or the
    #: name their user id is made of, once a turn calls them so or they speak under it): a
    #: question naming them asks about the user.
    user_names: frozenset[str] = frozenset()
    #: The name the user speaks under, when their turns name them (:func:`.is_own_name`): a
    #: record said under it is the user's.
    own: str | None = None
    #: Transcripts of tool results a later result about the same thing replaced (each keyed
    #: record read from it superseded): history, not what holds now.
    outdated: frozenset[str] = frozenset()
    used: float = field(default_factory=time.monotonic)

    @property
    def nbytes(self) -> int:
        return 200 * (
            len(self.prev) + len(self.next) + len(self.speaker) + len(self.source) + len(self.replaced)
        ) + 60 * (sum(len(p) for p in self.parts.values()) + len(self.outdated))

    def addressee(self, mid: str) -> str | None:
        """Who ``mid``'s speaker was talking to: the speaker of the nearest turn by someone else."""
        me = self.speaker.get(mid)
        for other in (self.prev.get(mid), self.next.get(mid)):
            who = self.speaker.get(other) if other else None
            if who is not None and who != me:
                return who
        return None


def speaker_of(metadata_json: str, role: str) -> str:
    """Who spoke an episode: its metadata's ``speaker`` when given, else its role."""
    try:
        meta = json.loads(metadata_json or "{}")
    except ValueError:
        meta = {}
    name = meta.get("speaker") if isinstance(meta, dict) else None
    return " ".join(name.split())[:200] if isinstance(name, str) and name.strip() else role


def named_speaker(metadata_json: str, role: str) -> str | None:
    """The named person who spoke an episode (its metadata's ``speaker``); None when only its role is known."""
    who = speaker_of(metadata_json, role)
    return None if who == role else who


def _calls(text: str, name: str) -> bool:
    """``text`` writes ``name`` as a name (capitalised, not where any word starts a sentence)."""
    return any(not re.search(r"(?:^|[.!?:]\s*)$", text[: m.start()]) for m in re.finditer(rf"\b{name}\b", text))


def load(session: Session, scope: Scope, version: tuple[int, int]) -> Layout:
    rows = session.execute(
        select(
            col(Memory.memory_id),
            col(Memory.subject),
            col(Memory.extractor),
            col(Episode.episode_id),
            col(Episode.session_id),
            col(Episode.turn),
            col(Episode.metadata_json),
            col(Episode.role),
            col(Memory.key),
            col(Memory.status),
            col(Memory.value),
        )
        .join(
            Lineage,
            and_(
                col(Lineage.child_id) == col(Memory.memory_id),
                col(Lineage.relation) == Relation.EXTRACTED_FROM,
                col(Lineage.parent_type) == "episode",
            ),
        )
        .join(
            Episode,
            and_(
                col(Episode.tenant_id) == col(Memory.tenant_id),
                col(Episode.user_id) == col(Memory.user_id),
                col(Episode.episode_id) == col(Lineage.parent_id),
            ),
        )
        .where(*scope_clause(scope))
    ).all()
    at: dict[tuple[str, int], str] = {}
    turn_of: dict[str, str] = {}  # episode id -> its transcript record
    facts: list[tuple[str, str]] = []
    speaker: dict[str, str] = {}
    gone: dict[str, set[str]] = {}  # episode id -> keys its turn said that were superseded
    held: dict[str, set[str]] = {}  # ... and keys it still holds a current value of
    names: set[str] = set()
    tools: set[str] = set()  # episode ids of tool results
    named = id_name(scope.user_id or "")
    for mid, subject, extractor, episode_id, session_id, turn, meta, role, key, status, value in rows:
        if named and named[0] not in names and isinstance(value, str) and _calls(value, named[0]):
            names |= set(named)
        if key == "user.name" and status == MemoryStatus.ACTIVE and isinstance(value, str) and value.split():
            names |= {value.strip(), value.split()[0]}
        if extractor != "transcript":
            facts.append((mid, episode_id))
            if key and status == MemoryStatus.SUPERSEDED:
                gone.setdefault(episode_id, set()).add(key)
            elif key and status == MemoryStatus.ACTIVE:
                held.setdefault(episode_id, set()).add(key)
            continue
        at[(session_id, turn)] = turn_of[episode_id] = mid
        if str(role) == Role.TOOL.value:
            tools.add(episode_id)
        speaker[mid] = subject or speaker_of(meta, str(role))
    everyone = set(speaker.values())
    own = next((who for who in everyone if is_own_name(who, scope.user_id, everyone)), None)
    if own is not None:  # the user speaks under their own name: those turns are the user's
        names |= set(named)
        speaker = {mid: Role.USER.value if who == own else who for mid, who in speaker.items()}
    prev, nxt = {}, {}
    for (session_id, turn), mid in at.items():
        if (before := at.get((session_id, turn - 1))) is not None:
            prev[mid] = before
            nxt[before] = mid
    source = {mid: turn_of[e] for mid, e in facts if e in turn_of}
    of_turn: dict[str, list[str]] = {e: [mid] for e, mid in turn_of.items()}
    for mid, e in facts:
        of_turn.setdefault(e, []).append(mid)
    parts: dict[str, list[str]] = {}
    for summary, e in session.execute(
        select(col(Lineage.child_id), col(Lineage.parent_id))
        .join(Memory, col(Memory.memory_id) == col(Lineage.child_id))
        .where(
            *scope_clause(scope),
            col(Lineage.relation) == Relation.CONSOLIDATED_FROM,
            col(Lineage.parent_type) == "episode",
        )
    ):
        parts.setdefault(summary, []).extend(of_turn.get(e, ()))
    replaced = {
        turn_of[e]: frozenset(keys - held.get(e, set()))
        for e, keys in gone.items()
        if e in turn_of and keys - held.get(e, set())
    }
    # A tool result none of whose keyed records holds any more: a later result about the same
    # order, ticket or booking replaced it whole.
    outdated = frozenset(turn_of[e] for e in tools & set(gone) if e in turn_of and not held.get(e))
    return Layout(
        version,
        prev,
        nxt,
        speaker,
        frozenset(speaker.values()),
        source,
        {k: tuple(v) for k, v in parts.items()},
        replaced,
        frozenset(names - set(speaker.values())),
        own,
        outdated,
    )


def layout(session: Session, scope: Scope, version: tuple[int, int] | None = None) -> Layout:
    """The scope's layout at its current version (loaded once per version per process)."""
    return cached(session, scope, "turns", lambda v: load(session, scope, v), version)
