"""The job-run log: one row per actor run (what ran, on what, how it ended) and refused payloads.

Actors never write it themselves: the workers' job-run middleware
(:class:`memworks.workers.jobs.RecordJobRuns`) records every run through :func:`record_run`, and a
payload refused before or inside its actor is kept with its reason by :func:`record_rejection`
(dead letters expire; this does not).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memworks.models.enums import JobOutcome
from memworks.models.tables import JobRun
from memworks.services.deps import Deps
from memworks.store import audit
from memworks.store.sql.db import session_scope

__all__ = ["record_rejection", "record_run"]


def record_run(deps: Deps, run: JobRun) -> None:
    """One row of the job-run log, in a transaction of its own."""
    with session_scope(deps.engine) as s:
        s.add(run)


def record_rejection(
    deps: Deps,
    *,
    actor: str,
    payload: dict[str, Any],
    field: str,
    reason: str,
    reference: str,
    now: datetime,
    run: bool,
) -> None:
    """Keep a refused payload and its reason; with ``run``, also the run it ended (a message refused
    before its actor ran, which the job-run middleware never sees)."""
    with session_scope(deps.engine) as s:
        audit.record_rejected(
            s, kind=f"message:{actor}", payload=payload, reason=reason, field=field, now=now, reference=reference
        )
        if run:
            audit.record_job(
                s,
                actor=actor,
                message_id=reference,
                outcome=JobOutcome.REJECTED,
                started_at=now,
                duration_ms=0.0,
                error=reason,
            )
