"""The extractor seam: a turn in, candidate writes out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from memworks.models.drafts import Candidate, Turn


class ExtractionRejected(Exception):
    """The extractor's output was unusable (e.g. malformed model JSON); nothing from it applies."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Completer(Protocol):
    """A text completion function (an LLM behind an HTTP API, or a fake in unit tests)."""

    def __call__(self, prompt: str) -> str: ...


class Extractor(Protocol):
    """Turns one episode into candidate memory writes.

    ``context`` holds earlier turns of the same session, oldest first, for extractors that
    resolve references across turns. Raise :class:`ExtractionRejected` when the output cannot
    be trusted as a whole.
    """

    name: str

    def __call__(self, turn: Turn, *, context: Sequence[Turn] = ()) -> list[Candidate]: ...


class BatchExtractor(Extractor, Protocol):
    """An extractor whose work is cheaper in batches (the ``open`` extractor parses sentences).

    Callers that hold many turns call :meth:`warm` once before calling the extractor turn by
    turn; the results are the same either way.
    """

    def warm(self, turns: Sequence[Turn]) -> None: ...
