"""Small helpers the route modules share: JSON answers in the CLI's shapes, settling writes."""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse

from memworks.client import Memworks
from memworks.logging import exception_fields, get_logger
from memworks.output import jsonable

log = get_logger("memworks.api")


def as_json(obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    """The same JSON the CLI prints with ``--json``: times ISO 8601 with ``+00:00``, enums as values."""
    return JSONResponse(jsonable(obj), status_code=status, headers=headers)


def settle(mw: Memworks) -> None:
    """Embedded mode: wait for the work a write queued, so the caller's next read sees it.

    The write itself is already committed when this runs; a follow-up job that failed is logged
    (the outbox sweeper re-drives it) rather than turning an accepted write into an error.
    """
    if not mw.embedded:
        return
    try:
        mw.drain()
    except Exception as exc:  # noqa: BLE001 - any job failure; the stored write stands
        log.error("api.drain_failed", **exception_fields(exc))
