"""Extraction actor: stored episodes → governed memory."""

from __future__ import annotations

import time
from typing import Any

import dramatiq
from dramatiq.middleware import CurrentMessage
from pydantic import BaseModel, Field, ValidationError

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.store import audit
from memworks.store.db import session_scope
from memworks.store.ingest import process_episodes
from memworks.workers.broker import register
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)


class ExtractPayload(BaseModel):
    episode_ids: list[int] = Field(min_length=1, max_length=1000)


def _message_id() -> str:
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
                              reference=_message_id())  # fmt: skip
        audit.record_job(s, actor=actor, message_id=_message_id(), outcome="rejected", started_at=utcnow(),
                         duration_ms=0.0, error=reason)  # fmt: skip
    log.warning("message.rejected", reason=reason)
    return InvalidInput(reason, field=where)


@register
@dramatiq.actor(queue_name="extraction", max_retries=5, min_backoff=1_000, max_backoff=60_000,
                time_limit=600_000, throws=(InvalidInput,))  # fmt: skip
def extract_memories(episode_ids: list[int]) -> None:
    """Extract, gate and write memories for stored episodes; safe to run twice."""
    try:
        payload = ExtractPayload.model_validate({"episode_ids": episode_ids})
    except ValidationError as exc:
        raise reject("extract_memories", {"episode_ids": episode_ids}, exc) from None
    rt, started, t0 = get_runtime(), utcnow(), time.perf_counter()
    counts, tenants = process_episodes(rt.engine, ids=payload.episode_ids, extractor=rt.extractor, embedder=rt.embedder, now=utcnow)
    ms = (time.perf_counter() - t0) * 1000
    with session_scope(rt.engine) as s:
        audit.record_job(s, actor="extract_memories", message_id=_message_id(), outcome="ok", started_at=started,
                         duration_ms=ms, counts=counts, tenant_id=",".join(tenants)[:200] or None,
                         scope=f"episodes:{len(payload.episode_ids)}")  # fmt: skip
    log.info("extraction.done", tenant=",".join(tenants), duration_ms=round(ms, 1), **counts)
