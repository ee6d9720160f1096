"""Shapes only: tables, schemas, enums."""

from memworks.models.drafts import Candidate, Turn
from memworks.models.enums import (
    TRUSTED_SOURCES,
    CandidateOp,
    EpisodeState,
    GateOutcome,
    MemoryKind,
    MemoryStatus,
    Op,
    Relation,
    Role,
    Source,
)
from memworks.models.schemas import (
    EpisodeIn,
    HitOut,
    IngestReceipt,
    MemoryOut,
    RetrieveResult,
    Scope,
)

__all__ = [
    # drafts
    "Candidate",
    "Turn",
    # enums
    "TRUSTED_SOURCES",
    "CandidateOp",
    "EpisodeState",
    "GateOutcome",
    "MemoryKind",
    "MemoryStatus",
    "Op",
    "Relation",
    "Role",
    "Source",
    # schemas
    "EpisodeIn",
    "HitOut",
    "IngestReceipt",
    "MemoryOut",
    "RetrieveResult",
    "Scope",
]
