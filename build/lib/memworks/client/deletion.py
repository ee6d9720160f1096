"""The facade's deletion methods: requests, previews, manifests."""

from __future__ import annotations

from typing import Any

from memworks.models.schemas import DeletionRequestIn, ManifestOut
from memworks.models.validation import parse_model
from memworks.services import deletion
from memworks.services.deps import Deps
from memworks.workers import lanes, plan_deletion_request, resume_deletions
from memworks.workers.runtime import utcnow


class DeletionMixin:
    """Deletion requests with their manifests (part of :class:`~memworks.client.Memworks`)."""

    runtime: Deps

    def _ensure_worker(self) -> None: ...

    def submit_deletion(self, request: DeletionRequestIn | dict[str, Any]) -> str:
        """Store a deletion request and queue its cascade; returns the request id to poll.

        A request identical to one not yet planned (same tenant, user, keys and records) is that
        request: its id comes back and nothing more is queued. A tenant with many requests at
        work has its new ones queued in the bulk lane.
        """
        req = parse_model(DeletionRequestIn, request, "deletion request")
        submitted = deletion.submit(self.runtime, req, now=utcnow())
        self._ensure_worker()
        if submitted.fresh:
            lanes.send(plan_deletion_request, submitted.request_id, bulk=submitted.bulk)
        return submitted.request_id

    def preview_deletion(self, request: DeletionRequestIn | dict[str, Any]) -> dict[str, Any]:
        """What a deletion would erase (records with key and value, episodes, targets); changes nothing."""
        return deletion.preview(self.runtime, parse_model(DeletionRequestIn, request, "deletion request"))

    def manifest(self, request_id: str) -> ManifestOut:
        """The deletion manifest: status and, per projection, state, residue, attempts, evidence."""
        return deletion.manifest(self.runtime, request_id)

    def resume_deletions(self) -> None:
        """Re-drive every unfinished deletion (the sweeper, on demand): FAILED targets too."""
        self._ensure_worker()
        resume_deletions.send(0, True)
