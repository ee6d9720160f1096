"""Ingest: episodes stored (:func:`accept`), then extracted, gated, governed and written
(:func:`extract`, :func:`process_episodes`).

:mod:`.process` is the use case; it meets each new statement with its neighbours
(:mod:`.claims`), turns forget requests into deletions and retires transcripts that state nothing
current (:mod:`.forget_requests`), and reads a stored episode as a turn (:mod:`.turns`).
"""

from memworks.services.ingest.process import IngestOutcome, Stored, accept, extract, process_episodes

__all__ = ["IngestOutcome", "Stored", "accept", "extract", "process_episodes"]
