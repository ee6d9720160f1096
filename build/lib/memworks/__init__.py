"""memworks: governed, bitemporal memory for production AI agents."""

from memworks.models.schemas import (
    DeletionRequestIn,
    EpisodeIn,
    HitOut,
    IngestReceipt,
    LessonOut,
    ManifestOut,
    MemoryOut,
    OutcomeIn,
    Recommendation,
    RetrieveResult,
    Scope,
)

__all__ = [
    "DeletionRequestIn",
    "EpisodeIn",
    "HitOut",
    "IngestReceipt",
    "LessonOut",
    "ManifestOut",
    "Memworks",
    "MemoryOut",
    "OutcomeIn",
    "Recommendation",
    "RetrieveResult",
    "Scope",
]


def __getattr__(name: str) -> object:
    # The facade pulls in the queue and the model runtime; load it only when asked for.
    if name == "Memworks":
        from memworks.client import Memworks

        return Memworks
    raise AttributeError(name)
