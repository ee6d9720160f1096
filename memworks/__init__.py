"""memworks: governed, bitemporal memory for production AI agents."""

from memworks.models.schemas import (
    DeletionRequestIn,
    EpisodeIn,
    HitOut,
    IngestReceipt,
    ManifestOut,
    MemoryOut,
    RetrieveResult,
    Scope,
)

__all__ = [
    "DeletionRequestIn",
    "EpisodeIn",
    "HitOut",
    "IngestReceipt",
    "ManifestOut",
    "Memworks",
    "MemoryOut",
    "RetrieveResult",
    "Scope",
]


def __getattr__(name: str) -> object:
    # The facade pulls in the queue and the model runtime; load it only when asked for.
    if name == "Memworks":
        from memworks.client import Memworks

        return Memworks
    raise AttributeError(name)
