"""Read paths derived from the records: the lexical and vector indexes, the read cache and the
injected profile.

A purge first bumps the scope's index version, so every process's loaded copy and every cached
answer of the scope is stale at once; the stored entries are then removed and checked by id and
by fingerprint.
"""

from __future__ import annotations

import json

from sqlmodel import Session, col

from memworks.models.tables import VectorEntry
from memworks.store import profiles, versions
from memworks.store.deletion.erasure.base import Subject, count_in, evidence
from memworks.store.episodes import fingerprint
from memworks.store.projections import lexical, vector
from memworks.store.projections.base import Evidence
from memworks.store.projections.cache import cache_prefix
from memworks.store.projections.scope_cache import SCOPES

__all__ = [
    "check_cache",
    "check_lexical",
    "check_profile",
    "check_vector",
    "purge_cache",
    "purge_lexical",
    "purge_profile",
    "purge_vector",
]


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
    copies = count_in(
        session,
        VectorEntry,
        VectorEntry.fingerprint,
        s.plan.fingerprints,
        col(VectorEntry.tenant_id) == s.tenant_id,
        col(VectorEntry.user_id) == s.user_id,
    )
    return evidence(
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
    return evidence(
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
