"""Input and output schemas of the public interfaces (DESIGN §8)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

from memworks.models.enums import MemoryKind, MemoryStatus, Role, Source

_ID = r"^[A-Za-z0-9][A-Za-z0-9._:@\-]{0,199}$"


class Scope(BaseModel):
    """Who a read or write belongs to. ``user_id=None`` means tenant-wide records only."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tenant_id: str = Field(pattern=_ID)
    user_id: str | None = Field(default=None, pattern=_ID)


class EpisodeIn(BaseModel):
    """One conversation turn or tool result, as an agent reports it."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    episode_id: str = Field(pattern=_ID)
    tenant_id: str = Field(pattern=_ID)
    user_id: str = Field(pattern=_ID)
    session_id: str = Field(pattern=_ID)
    turn: int = Field(ge=0)
    role: Role
    source: Source
    content: str = Field(min_length=1, max_length=100_000)
    occurred_at: AwareDatetime
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("occurred_at")
    @classmethod
    def _not_absurd(cls, v: datetime) -> datetime:
        if v.year < 1900 or v.year > 2200:
            raise ValueError("occurred_at must be a real date between 1900 and 2200")
        return v


class HitOut(BaseModel):
    """One retrieved memory with its provenance."""

    memory_id: str
    kind: MemoryKind
    key: str | None
    value: str
    text: str
    source: Source
    status: MemoryStatus
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    evidence: list[str]
    score: float
    similarity: float


class RetrieveResult(BaseModel):
    abstained: bool
    hits: list[HitOut]


class MemoryOut(BaseModel):
    memory_id: str
    kind: MemoryKind
    key: str | None
    value: str
    text: str
    status: MemoryStatus
    source: Source
    trusted: bool
    confidence: float
    user_id: str | None
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    retracted_at: datetime | None
    superseded_at: datetime | None
    expires_at: datetime | None
    last_retrieved_at: datetime | None
    superseded_by: str | None
    evidence: list[str]


class IngestReceipt(BaseModel):
    """What enqueueing returned: which episodes are new and which were already known."""

    accepted: list[str]
    duplicates: list[str]
