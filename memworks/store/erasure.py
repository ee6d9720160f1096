"""Per-projection erasure: purge a plan's entries, then prove they are gone.

Each target owes two operations. ``purge`` removes what the plan names (idempotent: a second run
finds nothing left). ``check`` counts residue by id **and** by content fingerprint, so a copy
under another id still keeps the target open; it returns the evidence stored in the manifest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, or_, select, update
from sqlmodel import Session, col

from memworks.models.enums import LessonDecision, MemoryStatus
from memworks.models.tables import Episode, Memory, VectorEntry
from memworks.pipelines.deletion import DeletionPlan
from memworks.store import profiles, versions
from memworks.store.episodes import fingerprint
from memworks.store.projections import audit, lexical, outcomes, vector
from memworks.store.projections.base import Evidence
from memworks.store.projections.cache import ReadCache, cache_prefix
from memworks.store.projections.dead_letters import DeadLetters
from memworks.store.projections.scope_cache import SCOPES

#: Rows per IN (...) list.
CHUNK = 500


@dataclass
class Subject:
    """What erasure needs besides the session: who, the plan, and the non-SQL projections."""

    tenant_id: str
    user_id: str
    plan: DeletionPlan
    cache: ReadCache
    dead_letters: DeadLetters
    now: datetime
    #: Rebuilds the subject's profile without the given record ids (token counting lives outside).
    rebuild_profile: Callable[[Session, str, str, datetime, Collection[str]], object]
    whole_subject: bool = False


def _chunks(items: Sequence[Any]) -> list[Sequence[Any]]:
    return [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]


def _count(session: Session, stmt: Any) -> int:
    return int(session.scalar(stmt) or 0)


def _evidence(name: str, remaining: int, checked: list[str]) -> Evidence:
    return Evidence(name, remaining, checked, datetime.now(UTC))


# -- memory rows (primary store, transcripts' records, derived records) ---------------------


def _erase_memories(session: Session, ids: Sequence[str], now: datetime) -> int:
    n = 0
    for chunk in _chunks(ids):
        result: Any = session.execute(
            update(Memory)
            .where(
                col(Memory.memory_id).in_(chunk),
                or_(col(Memory.text) != "", col(Memory.value) != "", col(Memory.status) != MemoryStatus.DELETED),
            )
            .values(
                value="",
                text="",
                key=None,
                status=MemoryStatus.DELETED,
                retracted_at=func.coalesce(Memory.retracted_at, now),
            )
        )
        n += result.rowcount or 0
    return n


def _memory_residue(session: Session, s: Subject, ids: Sequence[str], name: str) -> Evidence:
    """Residue of ``ids`` by id, plus copies: the subject's records outside the plan that hold
    a planned fingerprint. Planned records of other targets are theirs to check, so no target
    waits on another's purge (a late one used to cost a re-purge after 0.5 s)."""
    left = sum(
        _count(
            session,
            select(func.count())
            .select_from(Memory)
            .where(
                col(Memory.memory_id).in_(chunk),
                or_(col(Memory.text) != "", col(Memory.value) != "", col(Memory.status) != MemoryStatus.DELETED),
            ),
        )
        for chunk in _chunks(ids)
    )
    planned = set(s.plan.memory_ids)
    copies = sum(
        1
        for chunk in _chunks(s.plan.fingerprints)
        for mid in session.scalars(
            select(col(Memory.memory_id)).where(
                col(Memory.tenant_id) == s.tenant_id,
                col(Memory.user_id) == s.user_id,
                col(Memory.fingerprint).in_(chunk),
                col(Memory.text) != "",
            )
        )
        if mid not in planned
    )
    return _evidence(
        name,
        left + copies,
        [
            f"memory rows by id ({len(ids)}) still holding text or not deleted",
            f"memory rows of the subject outside the plan by fingerprint ({len(s.plan.fingerprints)})",
        ],
    )


def _own_ids(s: Subject, session: Session, *, transcripts: bool) -> list[str]:
    """Plan ids that are (or are not) transcript records, derived ones excluded."""
    derived = set(s.plan.derived_ids)
    out = []
    for chunk in _chunks(s.plan.memory_ids):
        rows = session.execute(
            select(col(Memory.memory_id), col(Memory.extractor)).where(col(Memory.memory_id).in_(chunk))
        )
        out += [mid for mid, ext in rows if (ext == "transcript") == transcripts and mid not in derived]
    return out


def purge_primary(session: Session, s: Subject) -> int:
    return _erase_memories(session, _own_ids(s, session, transcripts=False), s.now)


def check_primary(session: Session, s: Subject) -> Evidence:
    return _memory_residue(session, s, _own_ids(s, session, transcripts=False), "primary_store")


def purge_derived(session: Session, s: Subject) -> int:
    return _erase_memories(session, s.plan.derived_ids, s.now)


def check_derived(session: Session, s: Subject) -> Evidence:
    return _memory_residue(session, s, s.plan.derived_ids, "derived")


# -- transcripts: episodes tombstoned, their transcript records erased ---------------------


def purge_transcripts(session: Session, s: Subject) -> int:
    n = _erase_memories(session, _own_ids(s, session, transcripts=True), s.now)
    for chunk in _chunks(s.plan.episode_ids):
        result: Any = session.execute(
            update(Episode)
            .where(
                col(Episode.tenant_id) == s.tenant_id,
                col(Episode.user_id) == s.user_id,
                col(Episode.episode_id).in_(chunk),
                or_(col(Episode.content) != "", col(Episode.tombstoned_at).is_(None)),
            )
            .values(content="", metadata_json="{}", tombstoned_at=s.now)
        )
        n += result.rowcount or 0
    return n


def check_transcripts(session: Session, s: Subject) -> Evidence:
    left = sum(
        _count(
            session,
            select(func.count())
            .select_from(Episode)
            .where(
                col(Episode.tenant_id) == s.tenant_id,
                col(Episode.user_id) == s.user_id,
                col(Episode.episode_id).in_(chunk),
                or_(col(Episode.content) != "", col(Episode.tombstoned_at).is_(None)),
            ),
        )
        for chunk in _chunks(s.plan.episode_ids)
    )
    copies = sum(
        _count(
            session,
            select(func.count())
            .select_from(Episode)
            .where(
                col(Episode.tenant_id) == s.tenant_id,
                col(Episode.user_id) == s.user_id,
                col(Episode.content_fingerprint).in_(chunk),
                col(Episode.content) != "",
            ),
        )
        for chunk in _chunks(s.plan.fingerprints)
    )
    records = _memory_residue(session, s, _own_ids(s, session, transcripts=True), "transcripts")
    return _evidence(
        "transcripts",
        left + copies + records.remaining,
        [
            f"episodes by id ({len(s.plan.episode_ids)}) not tombstoned or holding text",
            "episodes of the subject by content fingerprint",
            *records.checked,
        ],
    )


# -- search indexes -------------------------------------------------------------------------


def purge_lexical(session: Session, s: Subject) -> int:
    _forget_loaded(session, s)
    return lexical.purge(session, s.plan.memory_ids)


def _forget_loaded(session: Session, s: Subject) -> None:
    # Every process's in-memory copy of the scope's indexes is stale from this version on (each
    # reloads on its next query of the scope, or drops it unused after its age limit); this one's now.
    versions.bump(session, tenant_id=s.tenant_id, user_id=s.user_id)
    SCOPES.drop(s.tenant_id, s.user_id)


def check_lexical(session: Session, s: Subject) -> Evidence:
    SCOPES.drop(s.tenant_id, s.user_id)
    return lexical.confirm_absent(
        session,
        tenant_id=s.tenant_id,
        user_id=s.user_id,
        memory_ids=s.plan.memory_ids,
        fingerprints=s.plan.fingerprints,
    )


def purge_vector(session: Session, s: Subject) -> int:
    _forget_loaded(session, s)
    return vector.purge(session, s.plan.memory_ids)


def check_vector(session: Session, s: Subject) -> Evidence:
    SCOPES.drop(s.tenant_id, s.user_id)
    by_id = vector.confirm_absent(session, s.plan.memory_ids)
    copies = sum(
        _count(
            session,
            select(func.count())
            .select_from(VectorEntry)
            .where(
                col(VectorEntry.tenant_id) == s.tenant_id,
                col(VectorEntry.user_id) == s.user_id,
                col(VectorEntry.fingerprint).in_(chunk),
            ),
        )
        for chunk in _chunks(s.plan.fingerprints)
    )
    return _evidence(
        "vector_index", by_id.remaining + copies, [*by_id.checked, "vector_entry of the subject by fingerprint"]
    )


# -- read cache -----------------------------------------------------------------------------


def _cached_residue(s: Subject) -> list[str]:
    """Cached answers that hold a planned record: any of the tenant's by id, the subject's by text."""
    ids, prints = set(s.plan.memory_ids), set(s.plan.fingerprints)
    own = cache_prefix(s.tenant_id, s.user_id)
    doomed = []
    for key, value in s.cache.entries(s.tenant_id):
        try:
            hits = json.loads(value).get("hits", [])
        except ValueError:
            doomed.append(key)  # unreadable: cannot prove it clean
            continue
        by_text = key.startswith(own) and any(
            fingerprint(h.get("text", "")) in prints or fingerprint(h.get("value", "")) in prints for h in hits
        )
        if by_text or any(h.get("memory_id") in ids for h in hits):
            doomed.append(key)
    return doomed


def purge_cache(session: Session, s: Subject) -> int:
    # New versions make every older answer of the scope unreachable at once; the sweep then
    # removes the stored copies themselves.
    versions.bump(session, tenant_id=s.tenant_id, user_id=s.user_id)
    return s.cache.delete(_cached_residue(s))


def check_cache(session: Session, s: Subject) -> Evidence:
    return _evidence(
        "cache", len(_cached_residue(s)), [f"cached answers of tenant {s.tenant_id} by memory id and fingerprint"]
    )


# -- injected profile -----------------------------------------------------------------------


def purge_profile(session: Session, s: Subject) -> int:
    if s.whole_subject:
        return profiles.drop(session, tenant_id=s.tenant_id, user_id=s.user_id)
    s.rebuild_profile(session, s.tenant_id, s.user_id, s.now, set(s.plan.memory_ids))
    return 1


def check_profile(session: Session, s: Subject) -> Evidence:
    return profiles.confirm_absent(
        session,
        tenant_id=s.tenant_id,
        user_id=s.user_id,
        memory_ids=s.plan.memory_ids,
        fingerprints=s.plan.fingerprints,
    )


# -- audit text -----------------------------------------------------------------------------


def purge_audit(session: Session, s: Subject) -> int:
    p = s.plan
    return audit.purge_gate(
        session,
        tenant_id=s.tenant_id,
        user_id=s.user_id,
        episode_ids=p.episode_ids,
        memory_ids=p.memory_ids,
        fingerprints=p.fingerprints,
    ) + audit.purge_rejected(session, tenant_id=s.tenant_id, episode_ids=p.episode_ids)


def check_audit(session: Session, s: Subject) -> Evidence:
    p = s.plan
    gate = audit.gate_absent(
        session,
        tenant_id=s.tenant_id,
        user_id=s.user_id,
        episode_ids=p.episode_ids,
        memory_ids=p.memory_ids,
        fingerprints=p.fingerprints,
    )
    rejected = audit.rejected_absent(session, tenant_id=s.tenant_id, episode_ids=p.episode_ids)
    return _evidence("audit_log", gate.remaining + rejected.remaining, [*gate.checked, *rejected.checked])


# -- outcomes and the lessons resting on them ------------------------------------------------


def purge_outcomes(session: Session, s: Subject) -> int:
    return outcomes.purge_outcomes(
        session,
        tenant_id=s.tenant_id,
        user_id=s.user_id,
        ids=s.plan.outcome_ids,
        fingerprints=s.plan.outcome_fingerprints,
        now=s.now,
    )


def check_outcomes(session: Session, s: Subject) -> Evidence:
    return outcomes.outcomes_absent(
        session,
        tenant_id=s.tenant_id,
        user_id=s.user_id,
        ids=s.plan.outcome_ids,
        fingerprints=s.plan.outcome_fingerprints,
    )


def _decided(s: Subject) -> dict[str, dict[str, str]]:
    return {d["artifact"].split(":", 1)[1]: d for d in s.plan.decisions}


def purge_lessons(session: Session, s: Subject) -> int:
    decided = _decided(s)
    return outcomes.purge_lessons(
        session,
        tenant_id=s.tenant_id,
        outcome_ids=s.plan.outcome_ids,
        decisions={k: d["decision"] for k, d in decided.items()},
        bases={k: d["basis"] for k, d in decided.items()},
    )


def check_lessons(session: Session, s: Subject) -> Evidence:
    decided = _decided(s)
    removed = [k for k, d in decided.items() if d["decision"] == LessonDecision.REMOVED]
    found = outcomes.lessons_absent(session, tenant_id=s.tenant_id, outcome_ids=s.plan.outcome_ids, removed=removed)
    # The decision on each lesson built partly from the subject's outcomes, and its basis.
    said = [f"lesson {k}: {d['decision']} ({d['basis']})" for k, d in sorted(decided.items())]
    return _evidence("lessons", found.remaining, [*found.checked, *said])


# -- dead letters ---------------------------------------------------------------------------


def _needles(s: Subject) -> set[Any]:
    return set(s.plan.episode_row_ids) | set(s.plan.episode_ids) | set(s.plan.memory_ids)


def purge_dead_letters(session: Session, s: Subject) -> int:
    return s.dead_letters.purge(_needles(s))


def check_dead_letters(session: Session, s: Subject) -> Evidence:
    return s.dead_letters.confirm_absent(_needles(s))


Purge = Callable[[Session, Subject], int]
Check = Callable[[Session, Subject], Evidence]

#: Every manifest target and its two operations.
PROJECTIONS: dict[str, tuple[Purge, Check]] = {
    "primary_store": (purge_primary, check_primary),
    "transcripts": (purge_transcripts, check_transcripts),
    "lexical_index": (purge_lexical, check_lexical),
    "vector_index": (purge_vector, check_vector),
    "cache": (purge_cache, check_cache),
    "profile": (purge_profile, check_profile),
    "derived": (purge_derived, check_derived),
    "outcomes": (purge_outcomes, check_outcomes),
    "lessons": (purge_lessons, check_lessons),
    "audit_log": (purge_audit, check_audit),
    "dead_letters": (purge_dead_letters, check_dead_letters),
}
