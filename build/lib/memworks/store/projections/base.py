"""What every projection owes: apply, purge, and proof of absence."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class Evidence:
    """The result of checking a projection for a subject's residue."""

    projection: str
    remaining: int
    checked: list[str] = field(default_factory=list)
    checked_at: datetime | None = None

    @property
    def absent(self) -> bool:
        return self.remaining == 0


@dataclass(frozen=True)
class IndexRecord:
    """What a search index needs of a memory."""

    memory_id: str
    tenant_id: str
    user_id: str | None
    text: str
