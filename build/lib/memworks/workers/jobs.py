"""Job runs: every memworks actor's run timed, logged, counted and recorded in one middleware.

An actor does its work and says what it did with :func:`report` (counts, the tenant, what it
ran on), or nothing. :class:`RecordJobRuns` times the run and writes it to the job-run log
(:mod:`memworks.services.jobs`) with how it ended: ``ok``, ``rejected`` (bad input, never
retried) or ``failed`` (raised; each attempt is a run). A periodic sweep that found nothing to do
says so (``report(idle=True)``) and leaves no row: the log holds work, not heartbeats. (A report,
not a return value: dramatiq warns about every value an actor returns without a results backend.)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import dramatiq
from prometheus_client import Counter

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.models.enums import JobOutcome
from memworks.models.tables import JobRun
from memworks.services import jobs
from memworks.workers.common import ours
from memworks.workers.metrics import REGISTRY
from memworks.workers.runtime import get_runtime, utcnow

__all__ = ["JOBS", "Done", "RecordJobRuns", "report"]

log = get_logger(__name__)

#: Longest error text a run keeps.
MAX_ERROR_CHARS = 2000

JOBS = Counter(
    "memworks_job_runs_total", "Actor runs by actor and how they ended.", ["actor", "outcome"], registry=REGISTRY
)


@dataclass(frozen=True)
class Done:
    """What an actor's run did, for the job-run log."""

    counts: Mapping[str, Any] = field(default_factory=dict)
    tenant_id: str | None = None
    #: What it ran on ("episodes:12", a request and target).
    scope: str = ""
    #: A sweep that found nothing to do: no row.
    idle: bool = False


#: The report of the run on this worker thread (a message runs on one thread, middleware included).
_current = threading.local()


def report(
    counts: Mapping[str, Any] | None = None, tenant_id: str | None = None, scope: str = "", *, idle: bool = False
) -> None:
    """What the running actor did, for its job-run row (see :class:`Done`)."""
    _current.done = Done(dict(counts or {}), tenant_id, scope, idle)


class RecordJobRuns(dramatiq.Middleware):
    """Time each run of a memworks actor and record it once it ends (see the module)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._started: dict[str, tuple[datetime, float]] = {}

    def before_process_message(self, broker: dramatiq.Broker, message: dramatiq.MessageProxy) -> None:
        if ours(broker, message):
            _current.done = None
            with self._lock:
                self._started[message.message_id] = (utcnow(), time.perf_counter())

    def after_process_message(
        self,
        broker: dramatiq.Broker,
        message: dramatiq.MessageProxy,
        *,
        result: object | None = None,
        exception: BaseException | None = None,
    ) -> None:
        with self._lock:
            started = self._started.pop(message.message_id, None)
        if started is None:
            return
        at, t0 = started
        ms = (time.perf_counter() - t0) * 1000
        done, _current.done = getattr(_current, "done", None) or Done(), None
        if exception is None and done.idle:
            return
        outcome = (
            JobOutcome.OK
            if exception is None
            else JobOutcome.REJECTED
            if isinstance(exception, InvalidInput)
            else JobOutcome.FAILED
        )
        actor = message.actor_name.removesuffix("_bulk")  # a bulk lane's twin runs the same job
        error = None if exception is None else f"{type(exception).__name__}: {exception}"[:MAX_ERROR_CHARS]
        run = JobRun(
            actor=actor,
            message_id=message.message_id,
            tenant_id=done.tenant_id[:200] if done.tenant_id else None,
            scope=done.scope[:400],
            counts_json=json.dumps(dict(done.counts), default=str),
            outcome=outcome,
            error=error,
            duration_ms=ms,
            started_at=at,
        )
        jobs.record_run(get_runtime(), run)
        JOBS.labels(actor, outcome.value).inc()
        log.info("job.done", outcome=outcome.value, duration_ms=round(ms, 1))

    def after_skip_message(self, broker: dramatiq.Broker, message: dramatiq.MessageProxy) -> None:
        with self._lock:
            self._started.pop(message.message_id, None)
