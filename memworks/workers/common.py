"""What every actor shares: the current message id, and recording a rejected payload."""

from __future__ import annotations

from typing import Any

from dramatiq.middleware import CurrentMessage
from pydantic import ValidationError

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.store import audit
from memworks.store.db import session_scope
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)


def message_id() -> str:
    msg = CurrentMessage.get_current_message()
    return msg.message_id if msg else ""


def reject(actor: str, payload: dict[str, Any], exc: ValidationError) -> InvalidInput:
    """Record a bad payload (SQL keeps it; dead letters expire) and build the error to raise."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "payload"
    reason = f"{where}: {err['msg']}"
    rt = get_runtime()
    with session_scope(rt.engine) as s:
        audit.record_rejected(s, kind=f"message:{actor}", payload=payload, reason=reason, field=where, now=utcnow(),
                              reference=message_id())  # fmt: skip
        audit.record_job(s, actor=actor, message_id=message_id(), outcome="rejected", started_at=utcnow(),
                         duration_ms=0.0, error=reason)  # fmt: skip
    log.warning("message.rejected", reason=reason)
    return InvalidInput(reason, field=where)
