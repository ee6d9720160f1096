"""The facade contract: what ``Memworks`` (in process) and ``RemoteMemworks`` (over HTTP) both offer.

Agents code against :class:`MemoryApi`, so moving from the embedded default to a remote API is a
change of constructor, not of calls. ``tests/unit/test_facade_contract.py`` checks that both facades
implement every method with the same parameters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from memworks.models.schemas import (
    DeletionRequestIn,
    EpisodeIn,
    IngestReceipt,
    LessonOut,
    ManifestOut,
    MemoryOut,
    OutcomeIn,
    Recommendation,
    RetrieveResult,
    Scope,
)


@runtime_checkable
class MemoryApi(Protocol):
    """Memory for one agent deployment: write what happened, read what is known, forget on request."""

    # writes
    def enqueue_episode(self, episode: EpisodeIn | dict[str, Any]) -> IngestReceipt: ...
    def enqueue_episodes(self, batch: Iterable[EpisodeIn | dict[str, Any]]) -> IngestReceipt: ...
    def report_outcome(self, outcome: OutcomeIn | dict[str, Any]) -> IngestReceipt: ...
    def report_outcomes(
        self, batch: Iterable[OutcomeIn | dict[str, Any]], *, reporter: Any = None
    ) -> IngestReceipt: ...

    # reads
    def retrieve(
        self,
        scope: Scope,
        query: str,
        *,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        k: int = 5,
        asked_at: datetime | str | None = None,
        include_profile: bool = False,
    ) -> RetrieveResult: ...
    def memories(self, scope: Scope, *, include_history: bool = False) -> list[MemoryOut]: ...
    def profile(self, scope: Scope, query: str | None = None) -> dict[str, Any]: ...

    # record controls
    def memory(self, scope: Scope, memory_id: str) -> dict[str, Any]: ...
    def confirm_memory(self, scope: Scope, memory_id: str) -> MemoryOut: ...
    def correct_memory(self, scope: Scope, memory_id: str, value: str) -> MemoryOut: ...
    def delete_memory(self, scope: Scope, memory_id: str) -> str: ...

    # deletion
    def submit_deletion(self, request: DeletionRequestIn | dict[str, Any]) -> str: ...
    def manifest(self, request_id: str) -> ManifestOut: ...

    # lessons and maintenance
    def lessons(self, tenant: str, task_type: str | None = None) -> list[LessonOut]: ...
    def recommend(self, tenant: str, task_type: str, features: Sequence[str] | str) -> Recommendation: ...
    def consolidate(self, tenant: str) -> dict[str, Any]: ...

    # lifecycle
    def drain(self, timeout_s: float = 600) -> None: ...
    @property
    def embedded(self) -> bool: ...
    def close(self) -> None: ...


#: The methods of the contract, in declaration order (the contract test walks them).
CONTRACT_METHODS: tuple[str, ...] = tuple(
    name for name, v in MemoryApi.__dict__.items() if not name.startswith("_") and callable(v)
)
#: The read-only properties of the contract.
CONTRACT_PROPERTIES: tuple[str, ...] = tuple(
    name for name, v in MemoryApi.__dict__.items() if not name.startswith("_") and isinstance(v, property)
)
