"""Per-projection erasure: purge a plan's entries, then prove they are gone.

Each target owes two operations. ``purge`` removes what the plan names (idempotent: a second run
finds nothing left). ``check`` counts residue by id **and** by content fingerprint, so a copy
under another id still keeps the target open; it returns the evidence stored in the manifest.
The targets live by what they erase: :mod:`.records` (memory rows, transcripts), :mod:`.indexes`
(search indexes, read cache, profile) and :mod:`.history` (audit text, outcomes and lessons,
dead letters); :data:`PROJECTIONS` names them all.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlmodel import Session

from memworks.store.deletion.erasure.base import CHUNK, Subject
from memworks.store.deletion.erasure.history import (
    check_audit,
    check_dead_letters,
    check_lessons,
    check_outcomes,
    purge_audit,
    purge_dead_letters,
    purge_lessons,
    purge_outcomes,
)
from memworks.store.deletion.erasure.indexes import (
    check_cache,
    check_lexical,
    check_profile,
    check_vector,
    purge_cache,
    purge_lexical,
    purge_profile,
    purge_vector,
)
from memworks.store.deletion.erasure.records import (
    check_derived,
    check_primary,
    check_transcripts,
    purge_derived,
    purge_primary,
    purge_transcripts,
)
from memworks.store.projections.base import Evidence

__all__ = [
    # the subject and the registry
    "CHUNK",
    "PROJECTIONS",
    "Check",
    "Purge",
    "Subject",
    # the targets' operations
    "check_audit",
    "check_cache",
    "check_dead_letters",
    "check_derived",
    "check_lessons",
    "check_lexical",
    "check_outcomes",
    "check_primary",
    "check_profile",
    "check_transcripts",
    "check_vector",
    "purge_audit",
    "purge_cache",
    "purge_dead_letters",
    "purge_derived",
    "purge_lessons",
    "purge_lexical",
    "purge_outcomes",
    "purge_primary",
    "purge_profile",
    "purge_transcripts",
    "purge_vector",
]

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
