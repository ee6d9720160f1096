"""Plain shapes that pipelines take and return (no tables, no I/O)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from memworks.models.enums import CandidateOp, MemoryKind, Role, Source


class Turn(BaseModel):
    """One episode as an extractor sees it: no scope, no identity (those come from the caller)."""

    model_config = ConfigDict(frozen=True)

    episode_id: str
    role: Role
    source: Source
    content: str
    occurred_at: datetime


class Candidate(BaseModel):
    """A proposed memory write, before the gate.

    ``key`` names a slot from the key vocabulary (``user.home_city``); a retraction names the
    slot(s) to withdraw and leaves ``value`` empty. ``text`` is the self-contained statement
    that is indexed and returned ("User lives in Lisbon.").
    """

    model_config = ConfigDict(frozen=True)

    op: CandidateOp = CandidateOp.ASSERT
    kind: MemoryKind = MemoryKind.SEMANTIC
    key: str | None = None
    value: str = ""
    text: str = ""
    confidence: float = 0.9
    #: Event time the claim starts to hold; None means the episode's ``occurred_at``.
    valid_from: datetime | None = None
    #: Episode ids this claim rests on (provenance). Empty means no provenance.
    evidence: tuple[str, ...] = ()
    source: Source = Source.USER
    #: A stated intention ("I'm transferring next week"): an event, not a current fact.
    plan: bool = False
    #: The preference makes the agent act outward (send, share, pay, forward).
    outward_action: bool = False
    #: Derived from another slot of the same episode (time zone from city).
    derived_from_key: str | None = None
    #: Extractor name, for the audit trail.
    extractor: str = "rules"
    extra: dict[str, str] = Field(default_factory=dict)
