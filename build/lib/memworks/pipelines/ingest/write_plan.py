"""The write plan: what the store must write for a batch of accepted candidates (plain data)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from datetime import datetime

from memworks.models.drafts import Candidate, MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus, Op, Source
from memworks.pipelines.gate import Verdict

__all__ = ["Accepted", "CloseMemory", "NewMemory", "Reinforce", "WritePlan"]


@dataclass(frozen=True)
class Accepted:
    """A candidate that cleared the gate, with its resolved event time."""

    candidate: Candidate
    verdict: Verdict
    episode_id: str
    valid_from: datetime


@dataclass
class NewMemory:
    memory_id: str
    kind: MemoryKind
    key: str | None
    value: str
    text: str
    source: Source
    confidence: float
    trusted: bool
    status: MemoryStatus
    extractor: str
    valid_from: datetime
    valid_to: datetime | None = None
    superseded_by: str | None = None
    superseded_at: datetime | None = None
    evidence: tuple[str, ...] = ()
    derived_from: tuple[str, ...] = ()
    supersedes: str | None = None
    revises: str | None = None
    #: When the event the claim is about happens or happened (``Candidate.event_at``).
    event_at: datetime | None = None

    @classmethod
    def from_view(cls, m: MemoryView, **changes: object) -> NewMemory:
        """A new record that re-records the stored ``m`` with ``changes`` (a new id among them)."""
        kept = {f.name: getattr(m, f.name) for f in fields(cls) if f.name in MemoryView.model_fields}
        return cls(**(kept | changes))

    def as_view(self, recorded_at: datetime) -> MemoryView:
        """The stored record this will be, recorded at ``recorded_at``."""
        kept = {k: v for k, v in asdict(self).items() if k in MemoryView.model_fields}
        return MemoryView(**kept, recorded_at=recorded_at)


@dataclass(frozen=True)
class CloseMemory:
    memory_id: str
    valid_to: datetime
    #: The successor; None when a retraction ended the record with nothing in its place.
    superseded_by: str | None


@dataclass(frozen=True)
class Reinforce:
    memory_id: str
    evidence: tuple[str, ...]
    confidence: float
    #: An earlier turn said it too (a late redelivery): the record holds from then.
    valid_from: datetime | None = None


@dataclass
class WritePlan:
    """What the store must write, in one transaction. ``ops`` pairs each input with its op."""

    new: list[NewMemory] = field(default_factory=list)
    closes: list[CloseMemory] = field(default_factory=list)
    reinforces: list[Reinforce] = field(default_factory=list)
    #: Record ids retired by transaction time (status kept) because a revision replaces them.
    revised: list[str] = field(default_factory=list)
    #: Record ids erased by a forget request.
    deleted: list[str] = field(default_factory=list)
    ops: list[tuple[Op, str | None]] = field(default_factory=list)
