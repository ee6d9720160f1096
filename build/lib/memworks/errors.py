"""Error types shared by every layer (kept here to avoid import loops)."""


class MemworksError(Exception):
    """Root of every error memworks raises on purpose."""


class InvalidInput(MemworksError):
    """Bad input: permanent, never retried. The message names the field and how to fix it."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class NotFound(MemworksError):
    """The named record does not exist (or is not visible to the caller)."""


class Conflict(MemworksError):
    """The request contradicts what is stored (e.g. one episode id with two contents)."""
