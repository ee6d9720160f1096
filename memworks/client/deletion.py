"""The facade's deletion methods: requests, previews, manifests."""

from __future__ import annotations

from typing import Any

from memworks.models.schemas import DeletionRequestIn, ManifestOut
from memworks.models.validation import parse_model
from memworks.pipelines.deletion import TARGETS, DeletionSubject
from memworks.services import erasure
from memworks.store import deletion as deletion_store
from memworks.store import memories as memory_store
from memworks.store.db import session_scope
from memworks.workers import Runtime, lanes, plan_deletion_request, resume_deletions
from memworks.workers.runtime import utcnow


class DeletionMixin:
    """Deletion requests with their manifests (part of :class:`~memworks.client.Memworks`)."""

    runtime: Runtime

    def _ensure_worker(self) -> None: ...

    def submit_deletion(self, request: DeletionRequestIn | dict[str, Any]) -> str:
        """Store a deletion request and queue its cascade; returns the request id to poll.

        A request identical to one not yet planned (same tenant, user, keys and records) is that
        request: its id comes back and nothing more is queued. A tenant with many requests at
        work has its new ones queued in the bulk lane.
        """
        req = parse_model(DeletionRequestIn, request, "deletion request")
        submitted = erasure.submit(self.runtime, req, now=utcnow())
        self._ensure_worker()
        if submitted.fresh:
            lanes.send(plan_deletion_request, submitted.request_id, bulk=submitted.bulk)
        return submitted.request_id

    def preview_deletion(self, request: DeletionRequestIn | dict[str, Any]) -> dict[str, Any]:
        """What a deletion would erase (records with key and value, episodes, targets); changes nothing."""
        req = parse_model(DeletionRequestIn, request, "deletion request")
        subject = DeletionSubject(req.tenant_id, req.user_id, tuple(req.keys), tuple(req.memory_ids))
        with session_scope(self.runtime.engine, write=False) as s:
            plan = deletion_store.compute_plan(s, subject=subject, policy=self.runtime.lesson_policy)
            rows = memory_store.get_rows(s, ids=plan.memory_ids)
        derived = set(plan.derived_ids)
        return {
            "tenant_id": req.tenant_id,
            "user_id": req.user_id,
            "keys": plan.keys,
            "records": [
                {
                    "memory_id": r.memory_id,
                    "kind": r.kind,
                    "key": r.key,
                    "value": r.value,
                    "status": r.status,
                    "derived": r.memory_id in derived,
                    "transcript": r.extractor == "transcript",
                }
                for r in rows
            ],
            "episodes": plan.episode_ids,
            "outcomes": plan.outcome_ids,
            "decisions": plan.decisions,
            "targets": list(TARGETS),
            "counts": plan.summary(),
        }

    def manifest(self, request_id: str) -> ManifestOut:
        """The deletion manifest: status and, per projection, state, residue, attempts, evidence."""
        with session_scope(self.runtime.engine, write=False) as s:
            return deletion_store.manifest(s, request_id=request_id)

    def resume_deletions(self) -> None:
        """Re-drive every unfinished deletion (the sweeper, on demand): FAILED targets too."""
        self._ensure_worker()
        resume_deletions.send(0, True)
