"""A person's controls over one record: read it with provenance, confirm, correct."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memworks.models.schemas import MemoryOut, Scope
from memworks.models.tables import Memory
from memworks.services.deps import Deps
from memworks.services.profiles import rebuild_profile
from memworks.store import corrections, locks
from memworks.store import memories as memory_store
from memworks.store.db import session_scope
from memworks.store.indexing import index_memories


def provenance(deps: Deps, scope: Scope, memory_id: str) -> dict[str, Any]:
    """One record with its evidence episodes, lineage and gate decisions."""
    with session_scope(deps.engine, write=False) as s:
        return corrections.provenance(s, scope=scope, memory_id=memory_id)


def confirm(deps: Deps, scope: Scope, memory_id: str, now: datetime) -> MemoryOut:
    """A pending outward-action preference becomes active and usable; the profile follows."""
    with session_scope(deps.engine) as s:
        out = corrections.confirm(s, scope=scope, memory_id=memory_id, now=now)
        if out.user_id is not None:
            rebuild_profile(deps, s, scope.tenant_id, out.user_id, now)
        return out


def correct(deps: Deps, scope: Scope, memory_id: str, value: str, now: datetime) -> MemoryOut:
    """The correction supersedes the record (history kept) after passing the write gate.

    Raises:
        InvalidInput: naming ``value`` when the gate refuses it; nothing is written then.
    """
    with session_scope(deps.engine) as s:
        locks.hold(s, locks.scope(scope.tenant_id, scope.user_id))
        rows, new_id = corrections.correct(s, scope=scope, memory_id=memory_id, value=value, now=now)
        index_memories(s, rows, deps.embedder)
        if scope.user_id is not None:
            rebuild_profile(deps, s, scope.tenant_id, scope.user_id, now)
        return memory_store.list_by_ids(s, tenant_id=scope.tenant_id, ids=[new_id])[0]


def visible(deps: Deps, scope: Scope, memory_id: str) -> Memory:
    """The record if ``scope`` may see it (NotFound otherwise, exactly as for a missing one)."""
    with session_scope(deps.engine, write=False) as s:
        return corrections.get_visible(s, scope=scope, memory_id=memory_id)


def holds_memory(deps: Deps, scope: Scope) -> bool:
    """Whether anything at all is remembered in ``scope`` (an abstention there is no gap in memory)."""
    with session_scope(deps.engine, write=False) as s:
        return memory_store.holds_any(s, scope=scope)
