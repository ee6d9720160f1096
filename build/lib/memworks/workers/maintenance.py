"""Maintenance actors: TTL expiry, the outbox sweeper, retrieval attention.

What they do lives in :mod:`memworks.services.consolidation` (the sweeps) and
:mod:`memworks.services.attention`; these actors carry the messages. Consolidation's own actors
are in :mod:`memworks.workers.consolidation`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import dramatiq
from pydantic import AfterValidator, Field, StringConstraints

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.services import attention, consolidation, fairness
from memworks.workers import lanes
from memworks.workers.broker import register
from memworks.workers.common import Seconds
from memworks.workers.ingest import extract_memories
from memworks.workers.jobs import report
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)


def _aware_time(value: str) -> str:
    if datetime.fromisoformat(value).tzinfo is None:  # a malformed string raises ValueError too
        raise ValueError("must be an ISO 8601 time with a UTC offset, e.g. 2025-02-01T09:00:00+00:00")
    return value


#: A batch of retrievals' id (a uuid4 in hex).
BatchId = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]
#: A batch's hits: memory ids (as wide as the column), each once per hit; bounded.
Hits = Annotated[
    list[Annotated[str, StringConstraints(min_length=1, max_length=32)]],
    Field(min_length=1, max_length=attention.MAX_BATCH_HITS),
]
#: An ISO 8601 time with a UTC offset.
AwareTime = Annotated[str, AfterValidator(_aware_time)]


@register
@dramatiq.actor(queue_name="maintenance", throws=(InvalidInput,))
def sweep_expired() -> None:
    """The hourly TTL sweep across every tenant."""
    expired = consolidation.expire_due(get_runtime(), now=utcnow())
    log.info("expiry.expired", expired=expired)
    report({"expired": expired}, idle=not expired)


@register
@dramatiq.actor(queue_name="maintenance", throws=(InvalidInput,))
def resend_unprocessed(older_than_s: Seconds = 300) -> None:
    """The outbox sweeper: episodes stored over ``older_than_s`` ago, never processed and named by
    no message the broker holds (so their message was lost) are sent again, each tenant's in its
    lane. Where the broker cannot say what it holds (in process), only through an idle lane, as
    :func:`resume_deletions` does: in a busy one the work may still be queued.

    Safe to run twice: extraction skips episodes already processed.
    """
    rt, broker = get_runtime(), extract_memories.broker
    lost = consolidation.lost_episodes(
        rt, older_than_s=older_than_s, now=utcnow(), held=lambda: lanes.held_ids(broker, "extraction")
    )
    busy = lanes.busy(broker, "extraction") if lost.held is None and lost.ids else set()
    sent = [p for p in fairness.extraction_parts(rt, lost.ids) if p.bulk not in busy]
    for p in sent:
        lanes.send(extract_memories, p.ids, bulk=p.bulk)
    resent = sum(len(p.ids) for p in sent)
    if lost.ids:
        log.info("outbox.resent", episodes=resent, deferred=len(lost.ids) - resent, held=len(lost.held or ()))
    report({"lost": len(lost.ids), "resent": resent}, idle=not lost.ids)


@register
@dramatiq.actor(queue_name="maintenance", throws=(InvalidInput,))
def record_attention(batch_id: BatchId, memory_ids: Hits, at: AwareTime) -> None:
    """Record a batch of retrievals (the facade's, see :mod:`memworks.services.attention`).

    Safe to run twice: a batch id already recorded changes nothing.
    """
    done = attention.record_attention(
        get_runtime(), batch_id=batch_id, memory_ids=memory_ids, at=datetime.fromisoformat(at), now=utcnow()
    )
    log.info("attention.recorded", records=len(set(memory_ids)), hits=len(memory_ids), duplicate=not done)
    report({"records": len(set(memory_ids)), "hits": len(memory_ids), "duplicate": int(not done)}, scope=batch_id)
