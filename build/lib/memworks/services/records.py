"""A person's records: list them, read one with provenance, confirm, correct."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memworks.models.enums import MemoryStatus
from memworks.models.schemas import MemoryOut, Scope
from memworks.models.tables import Memory
from memworks.services.deps import Deps
from memworks.services.profiles import rebuild_profile
from memworks.store import memories as memory_store
from memworks.store.indexing import index_memories
from memworks.store.records import corrections, evidence
from memworks.store.sql import locks
from memworks.store.sql.db import session_scope


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


def list_memories(deps: Deps, scope: Scope, *, include_history: bool = False) -> list[MemoryOut]:
    """Everything remembered in ``scope`` with all clocks and evidence (deleted never); each
    record's ``evidence_detail`` gives its own episodes' times and snippets."""
    with session_scope(deps.engine, write=False) as s:
        rows = memory_store.list_memories(s, scope=scope, include_history=include_history)
        return evidence.with_evidence_detail(s, scope=scope, rows=rows)


def owned(deps: Deps, scope: Scope, memory_ids: Sequence[str]) -> set[str]:
    """Which of ``memory_ids`` are live records of ``scope`` (anyone else's count as absent)."""
    with session_scope(deps.engine, write=False) as s:
        return {
            r.memory_id
            for r in memory_store.get_rows(s, ids=memory_ids)
            if r.tenant_id == scope.tenant_id and r.user_id == scope.user_id and r.status is not MemoryStatus.DELETED
        }
