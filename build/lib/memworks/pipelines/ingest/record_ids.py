"""Deterministic ids: of records, of scopes, of transcripts.

The same evidence processed twice names the same record, so every write is an upsert.
"""

from __future__ import annotations

import uuid

__all__ = ["memory_id_for", "scope_key", "transcript_id"]

_NS = uuid.UUID("6f1c1b7e-8a51-4c3e-9a55-2f0d0c7d1e01")


def memory_id_for(*parts: str) -> str:
    """A deterministic id, so processing the same evidence twice names the same record."""
    return uuid.uuid5(_NS, "\x1f".join(parts)).hex


def scope_key(tenant_id: str, user_id: str | None) -> str:
    """One string naming a scope: part of record ids and of lock names."""
    return f"{tenant_id}\x1f{user_id or ''}"


def transcript_id(scope_key: str, episode_id: str) -> str:
    """The id of an episode's transcript record."""
    return memory_id_for(scope_key, "transcript", episode_id)
