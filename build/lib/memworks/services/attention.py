"""Retrieval attention off the read path: hits buffered in process, recorded in batches.

A read writes nothing. Each process (the facade, so the API and the embedded default alike)
adds its hits to an :class:`AttentionBuffer`; a full or old enough buffer becomes one
:class:`Batch`, sent as one message to the maintenance queue, whose actor calls
:func:`record_attention`. Why batches, not one message per read: a message per read would move
the per-read write transaction into the worker without removing it (on PostgreSQL the hot
users' rows would still serialise, now in the worker); a batch is one transaction for many
reads. What this costs: the attention of the reads since the last flush is lost if the process
dies before it flushes, and ``last_retrieved_at`` is the batch's last read (at most
:data:`FLUSH_AFTER_S` after the record's own). Attention ranks and evicts on a scale of days and never changes
what is believed true, so neither matters.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from memworks.services.deps import Deps
from memworks.store import attention
from memworks.store.sql.db import session_scope

#: Hits a buffer holds before it is sent (bounds one message and one transaction).
FLUSH_AT_HITS = 500
#: Seconds after its first read that a buffer is sent, at the next read or drain.
FLUSH_AFTER_S = 10.0
#: Most hits one batch may carry (what the actor accepts).
MAX_BATCH_HITS = 5000


@dataclass(frozen=True)
class Batch:
    """Retrievals to record: hits per memory id, as of ``at`` (the batch's last read)."""

    batch_id: str
    hits: Mapping[str, int]
    at: datetime

    def memory_ids(self) -> list[str]:
        """The hits as the message carries them: each id once per hit. A plain list, so a dead
        letter of it names the ids where a deletion looks for them (list items, not dict keys)."""
        return [m for m, n in sorted(self.hits.items()) for _ in range(n)]


class AttentionBuffer:
    """Hits of this process's reads not yet sent, thread-safe.

    :meth:`add` returns a :class:`Batch` to send once the buffer holds :data:`FLUSH_AT_HITS`
    hits or its first read is :data:`FLUSH_AFTER_S` old; :meth:`take` empties it whatever
    its size (drain and close). No timer thread: an idle process keeps its last hits until its
    next read, drain or close.
    """

    def __init__(
        self,
        *,
        max_hits: int = FLUSH_AT_HITS,
        max_age_s: float = FLUSH_AFTER_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._max_hits, self._max_age_s, self._clock = max_hits, max_age_s, clock
        self._lock = threading.Lock()
        self._hits: Counter[str] = Counter()
        self._at: datetime | None = None
        self._since = 0.0

    def add(self, memory_ids: Iterable[str], at: datetime) -> Batch | None:
        """Count one read's hits; the batch to send now, if one is due.

        A buffer already old when a read comes is sent without it (the read starts the next
        one), so a batch's reads all fall within :data:`FLUSH_AFTER_S` of its first.
        """
        with self._lock:
            ids = list(memory_ids)
            if not ids:
                return None
            now = self._clock()
            old = self._take() if self._hits and now - self._since >= self._max_age_s else None
            if not self._hits:
                self._since = now
            self._hits.update(ids)
            self._at = at if self._at is None else max(self._at, at)
            return old or (self._take() if self._hits.total() >= self._max_hits else None)

    def take(self) -> Batch | None:
        """Everything buffered as one batch (None when empty)."""
        with self._lock:
            return self._take()

    def _take(self) -> Batch | None:
        if not self._hits or self._at is None:
            return None
        batch = Batch(uuid.uuid4().hex, dict(self._hits), self._at)
        self._hits, self._at = Counter(), None
        return batch


def record_attention(deps: Deps, *, batch_id: str, memory_ids: Iterable[str], at: datetime, now: datetime) -> bool:
    """Apply one batch of retrievals (each id once per hit) in one transaction; False when it
    was applied before."""
    with session_scope(deps.engine) as s:
        return attention.record(s, batch_id=batch_id, hits=Counter(memory_ids), at=at, now=now)
