"""The ``Memworks`` facade: one object for agents, the CLI and the API."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import dramatiq
from dramatiq.brokers.stub import StubBroker
from dramatiq.common import dq_name
from dramatiq.errors import QueueJoinTimeout

from memworks.client.deletion import DeletionMixin
from memworks.client.lessons import LessonsMixin
from memworks.config import Settings, get_settings
from memworks.errors import InvalidInput, MemworksError
from memworks.logging import get_logger
from memworks.models.schemas import (
    EpisodeIn,
    IngestReceipt,
    MemoryOut,
    OutcomeIn,
    RetrieveResult,
    Scope,
)
from memworks.models.validation import parse_model, require_scope
from memworks.services import consolidation, dead_letters, fairness, ingest, profiles, records, retrieval
from memworks.services import keys as keys_service
from memworks.services.attention import AttentionBuffer, Batch
from memworks.services.deps import Deps
from memworks.workers import (
    QUEUES,
    build_broker,
    consolidate,
    extract_memories,
    lanes,
    record_attention,
    resend_unprocessed,
    set_runtime,
    use_broker,
)
from memworks.workers.runtime import utcnow

if TYPE_CHECKING:
    from memworks.remote import RemoteMemworks

log = get_logger(__name__)

#: Longest wait (s) in an embedded facade's close for its last retrieval attention to be recorded.
CLOSE_WAIT_S = 30.0


def parse_episode(data: EpisodeIn | dict[str, Any], *, where: str = "episode") -> EpisodeIn:
    """Validate one episode; the error names the field that is wrong."""
    return parse_model(EpisodeIn, data, where)


def parse_outcome(data: OutcomeIn | dict[str, Any], *, where: str = "outcome") -> OutcomeIn:
    """Validate one outcome; the error names the field that is wrong."""
    return parse_model(OutcomeIn, data, where)


class Memworks(LessonsMixin, DeletionMixin):
    """Memory for agents: enqueue what happened, retrieve what is known.

    In the embedded default (``stub://`` broker) work runs on in-process worker threads and
    :meth:`drain` waits for it; with a Redis broker, ``memworks worker`` processes do it.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.runtime = Deps(settings)
        set_runtime(self.runtime)
        self.broker = use_broker(build_broker(settings))
        self._worker: dramatiq.Worker | None = None
        self._lock = threading.Lock()
        # Reads write nothing: their hits' attention goes to the maintenance queue in batches.
        self._attention = AttentionBuffer()
        # Dead letters a drain has already raised (or that were there before): each failure is
        # raised once, by the first drain after it, even when it failed before that drain began.
        self._raised: set[str] = set()
        if settings.database_url.startswith("sqlite"):
            self.runtime.upgrade_schema()  # the embedded default keeps its own schema current

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> Memworks:
        """A facade configured from ``MEMWORKS_*`` environment variables (or ``settings``)."""
        return cls(settings or get_settings())

    # -- writes ---------------------------------------------------------------------------

    def enqueue_episode(self, episode: EpisodeIn | dict[str, Any]) -> IngestReceipt:
        """Store one episode and queue its extraction (idempotent on tenant + episode id)."""
        return self.enqueue_episodes([episode])

    def enqueue_episodes(self, batch: Iterable[EpisodeIn | dict[str, Any]]) -> IngestReceipt:
        """Validate every episode first, store them in one transaction, then queue extraction.

        Raises:
            InvalidInput: an episode is malformed; nothing is stored.
            Conflict: an episode id is already stored with other content; nothing is stored.
        """
        items = [parse_episode(e, where=f"episode {i}") for i, e in enumerate(batch)]
        stored = ingest.accept(self.runtime, items, now=utcnow())
        # A duplicate still unprocessed lost its message (a broker outage, a kill mid-ingest):
        # sending it again is what the client retrying the batch expects.
        self._send_extraction([*stored.ids, *(i for i, _ in stored.stuck)])
        dup = set(stored.duplicates)
        return IngestReceipt(
            accepted=[e.episode_id for e in items if e.episode_id not in dup],
            duplicates=stored.duplicates,
            resent=[e for _, e in stored.stuck],
        )

    def _send_extraction(self, ids: Sequence[int]) -> None:
        self._ensure_worker()
        for part in fairness.extraction_parts(self.runtime, ids):  # each tenant's in its lane
            lanes.send(extract_memories, part.ids, bulk=part.bulk)

    # -- reads ----------------------------------------------------------------------------

    def retrieve(
        self,
        scope: Scope,
        query: str,
        *,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        k: int = 5,
        asked_at: datetime | str | None = None,
        include_profile: bool = False,
    ) -> RetrieveResult:
        """Memories relevant to ``query`` in ``scope`` (required), or an abstention.

        ``as_of`` and ``known_at`` are aware datetimes or ISO 8601 strings with an offset
        (``"2025-02-01T00:00:00Z"``); a time without one raises ``InvalidInput`` naming the field.
        ``asked_at`` (the same forms): when the question is asked (default now); "last year" or
        "in May" in it resolve against that time. ``include_profile``: the result's ``profile``
        holds the user's present profile lines that bear on the question (all of them when they
        fit), constraints first: what the agent must keep in mind before it answers.
        """
        now = utcnow()
        result = retrieval.retrieve(
            self.runtime,
            scope,
            query,
            as_of=as_of,
            known_at=known_at,
            k=k,
            asked_at=asked_at,
            include_profile=include_profile,
            now=now,
        )
        self._send_attention(self._attention.add((h.memory_id for h in result.hits), now))
        return result

    def _send_attention(self, batch: Batch | None) -> None:
        """Send a batch of hits to be recorded (the broker's delivery policy applies, as to every message)."""
        if batch is None:
            return
        self._ensure_worker()
        record_attention.send(batch.batch_id, batch.memory_ids(), batch.at.isoformat())

    def memories(self, scope: Scope, *, include_history: bool = False) -> list[MemoryOut]:
        """Everything remembered in ``scope`` with all clocks and evidence (deleted never); each
        record's ``evidence_detail`` gives its own episodes' times and snippets."""
        if not isinstance(scope, Scope):
            raise InvalidInput("scope is required: memories(Scope(tenant_id=..., user_id=...))", field="scope")
        return records.list_memories(self.runtime, scope, include_history=include_history)

    # -- consolidation --------------------------------------------------------------------

    def consolidate(self, tenant: str) -> dict[str, Any]:
        """Run a tenant's consolidation now; in embedded mode wait and return its run record."""
        if not tenant or not isinstance(tenant, str):
            raise InvalidInput("tenant is required", field="tenant")
        self._ensure_worker()
        consolidate.send(tenant)
        self.drain()
        return consolidation.last_run(self.runtime, tenant) or {"tenant_id": tenant, "status": "queued"}

    def profile(self, scope: Scope, query: str | None = None) -> dict[str, Any]:
        """The user's injected profile: the block, its token count, and the record each line cites.

        With ``query`` (the question about to be answered), the profile for it: when the lines do
        not all fit the cap, those that bear on the question, constraints first.
        """
        return profiles.read_profile(self.runtime, scope, query=query, now=utcnow())

    def sweep_outbox(self, older_than_s: int = 0) -> None:
        """Re-send episodes stored but not processed (a lost message); the scheduler does it every 10 s."""
        self._ensure_worker()
        resend_unprocessed.send(older_than_s)

    # -- a person's controls over one record ---------------------------------------------

    def memory(self, scope: Scope, memory_id: str) -> dict[str, Any]:
        """One record with its provenance: evidence episodes, lineage, gate decisions."""
        return records.provenance(self.runtime, require_scope(scope), memory_id)

    def confirm_memory(self, scope: Scope, memory_id: str) -> MemoryOut:
        """Confirm a pending outward-action preference (it becomes active and usable)."""
        return records.confirm(self.runtime, require_scope(scope), memory_id, utcnow())

    def correct_memory(self, scope: Scope, memory_id: str, value: str) -> MemoryOut:
        """Correct a record's value: the correction supersedes it (history kept), never edits it.

        The new value passes the write gate as the user's own words and its verdict is audited.

        Raises:
            InvalidInput: naming ``value`` when the gate refuses it (with the gate's reason);
                nothing is written then.
        """
        return records.correct(self.runtime, require_scope(scope), memory_id, value, utcnow())

    def delete_memory(self, scope: Scope, memory_id: str) -> str:
        """Erase one record (and its history) with a manifest; returns the deletion request id."""
        row = records.visible(self.runtime, require_scope(scope), memory_id)
        if row.user_id is None:
            raise InvalidInput(
                "tenant-wide records are deleted by an operator, not through a user's key", field="memory_id"
            )
        return self.submit_deletion({"tenant_id": row.tenant_id, "user_id": row.user_id, "memory_ids": [memory_id]})

    # -- API keys -------------------------------------------------------------------------

    def create_key(self, tenant_id: str, user_id: str | None = None, label: str = "") -> tuple[str, str]:
        """A new API key for a tenant (or one user of it); returns ``(key_id, secret)``, shown once."""
        return keys_service.create_key(
            self.runtime.engine, tenant_id=tenant_id, user_id=user_id, label=label, now=utcnow()
        )

    def revoke_key(self, key_id: str) -> keys_service.KeyView:
        """Revoke an API key at once (idempotent)."""
        return keys_service.revoke_key(self.runtime.engine, key_id=key_id, now=utcnow())

    def list_keys(self, tenant_id: str) -> list[keys_service.KeyView]:
        """A tenant's API keys, revoked ones included, never their secrets."""
        return keys_service.list_keys(self.runtime.engine, tenant_id=tenant_id)

    def authenticate(self, secret: str) -> keys_service.KeyView | None:
        """The live key whose secret this is, or ``None``."""
        return keys_service.authenticate(self.runtime.engine, secret)

    def owned_memory_ids(self, scope: Scope, memory_ids: Sequence[str]) -> set[str]:
        """Which of ``memory_ids`` are live records of ``scope`` (anyone else's count as absent)."""
        return records.owned(self.runtime, scope, memory_ids)

    # -- dead letters ---------------------------------------------------------------------

    def dead_letters(self) -> list[dict[str, Any]]:
        """Messages that failed after their retries (Redis keeps them 7 days; SQL keeps the work)."""
        return dead_letters.listed(self.broker, QUEUES)

    def retry_dead_letters(self, message_ids: Sequence[str] = ()) -> int:
        """Send dead letters again (all, or the named ones); returns how many were re-sent."""
        taken = dead_letters.take(self.broker, QUEUES, message_ids)
        self._ensure_worker()
        for d in taken:
            self.broker.get_actor(d["actor"]).send_with_options(args=tuple(d["args"]), kwargs=d.get("kwargs") or {})
        return len(taken)

    # -- embedded queue -------------------------------------------------------------------

    @property
    def embedded(self) -> bool:
        return isinstance(self.broker, StubBroker)

    def _ensure_worker(self) -> None:
        if not self.embedded:
            return
        with self._lock:
            if self._worker is None:
                # Time limits start only on process boot, which the dramatiq CLI would emit.
                self.broker.emit_after("process_boot")
                self._worker = dramatiq.Worker(
                    self.broker, worker_timeout=100, worker_threads=self.settings.embedded_worker_threads
                )
                self._worker.start()

    def drain(self, timeout_s: float = 600) -> None:
        """Embedded mode: wait until every queued message has been processed.

        Raises the first message that failed since the last drain (after its retries) instead
        of hiding it, whether it failed before this drain began or during it. Buffered retrieval
        attention is sent first (in embedded mode, so it is recorded when this returns).
        """
        self._send_attention(self._attention.take())
        if not self.embedded:
            return
        self._ensure_worker()  # messages may have been sent before any worker started
        assert isinstance(self.broker, StubBroker) and self._worker is not None
        deadline = time.monotonic() + timeout_s
        # Until one pass finds every queue empty: a message on a queue joined earlier in the pass
        # may have been sent by one on a later queue (a deletion job rebuilding a profile).
        while True:
            for q in QUEUES:
                left_ms = max(1, int((deadline - time.monotonic()) * 1000))
                self.broker.join(q, timeout=left_ms, fail_fast=False)
            self._worker.join()
            if not any(self.broker.queues[n].unfinished_tasks for q in QUEUES for n in (q, dq_name(q))):
                break
        # Dead letters stay where they are (they are listed and purgeable); each is raised once.
        fresh = [m for m in self.broker.dead_letters if m.message_id not in self._raised]
        self._raised.update(m.message_id for m in fresh)
        if fresh:
            raise fresh[0]._exception or MemworksError(f"message {fresh[0].message_id} failed")

    def close(self) -> None:
        """Send buffered retrieval attention, stop in-process workers and release connections.

        In embedded mode the attention is recorded first (the maintenance queue is waited for,
        at most :data:`CLOSE_WAIT_S`): a CLI read ends with the facade's close.
        """
        batch = self._attention.take()
        self._send_attention(batch)
        if batch is not None and self.embedded and self._worker is not None:
            assert isinstance(self.broker, StubBroker)
            try:
                self.broker.join("maintenance", timeout=int(CLOSE_WAIT_S * 1000), fail_fast=False)
                self._worker.join()
            except QueueJoinTimeout:
                log.warning("close.attention_not_recorded", waited_s=CLOSE_WAIT_S)
        with self._lock:
            if self._worker is not None:
                self._worker.stop()
                self._worker = None
        self.runtime.close()
        set_runtime(None)

    def __enter__(self) -> Memworks:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @classmethod
    def remote(cls, url: str, key: str, *, timeout_s: float = 30) -> RemoteMemworks:
        """The same methods over the HTTP API at ``url``, as the tenant (or user) of ``key``."""
        from memworks.remote import RemoteMemworks

        return RemoteMemworks(url, key, timeout_s=timeout_s)
