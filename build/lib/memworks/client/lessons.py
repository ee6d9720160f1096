"""The facade's learning methods: task outcomes in, lessons and recommendations out."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from memworks.errors import InvalidInput
from memworks.models.schemas import IngestReceipt, LessonOut, OutcomeIn, Recommendation
from memworks.models.validation import parse_model
from memworks.services import lessons
from memworks.services.deps import Deps
from memworks.services.lessons import Reporter
from memworks.workers import mine_lessons
from memworks.workers.runtime import utcnow

__all__ = ["LessonsMixin"]


class LessonsMixin:
    """Outcomes, the learning round, lessons and recommendations (part of :class:`~memworks.client.Memworks`)."""

    runtime: Deps

    def _ensure_worker(self) -> None: ...

    def drain(self, timeout_s: float = 600) -> None: ...

    def report_outcome(self, outcome: OutcomeIn | dict[str, Any]) -> IngestReceipt:
        """Store one task outcome and queue a learning round for its task type."""
        return self.report_outcomes([outcome])

    def report_outcomes(
        self, batch: Iterable[OutcomeIn | dict[str, Any]], *, reporter: Reporter | None = None
    ) -> IngestReceipt:
        """Validate every outcome, store them in one transaction, then queue one learning round
        per (tenant, task type) of the batch.

        ``reporter`` says whose word the outcomes are: ``"tenant"`` when the caller vouches for
        them as the tenant (a tenant key, an operator), ``"user"`` for an end user's. By default
        an outcome naming a user is that user's word, and one naming none is the tenant's.
        Lessons are tenant-wide: one user's word alone never promotes one.

        Raises:
            InvalidInput: an outcome is malformed; nothing is stored.
            Conflict: an outcome id is already stored with other content; nothing is stored.
        """
        if reporter not in (None, "tenant", "user"):
            raise InvalidInput("reporter must be 'tenant', 'user' or None", field="reporter")
        items = [parse_model(OutcomeIn, o, f"outcome {i}") for i, o in enumerate(batch)]
        new, dups = lessons.record_outcomes(self.runtime, items, reporter=reporter, now=utcnow())
        self._ensure_worker()
        for tenant, task_type in sorted({(o.tenant_id, o.task_type) for o in items}):
            mine_lessons.send(tenant, task_type)
        return IngestReceipt(accepted=new, duplicates=dups)

    def mine_lessons(self, tenant: str, task_type: str | None = None) -> None:
        """Queue a learning round now (for one task type, or every task type of the tenant)."""
        types = [task_type] if task_type else lessons.task_types(self.runtime, tenant)
        self._ensure_worker()
        for t in types:
            mine_lessons.send(tenant, t)

    def propose_lesson(self, tenant: str, task_type: str, pattern: Sequence[str], action: str) -> LessonOut:
        """An operator's lesson: stored as a candidate and judged by the same gate as mined ones."""
        lesson_id = lessons.propose(self.runtime, tenant, task_type, pattern, action, now=utcnow())
        self.mine_lessons(tenant, task_type)
        self.drain()
        return lessons.get(self.runtime, lesson_id)

    def rollback_lesson(self, tenant: str, lesson_id: str, reason: str = "rolled back by an operator") -> LessonOut:
        """Take an active lesson out of use; the version of its pattern it replaced is restored."""
        return lessons.roll_back(self.runtime, tenant, lesson_id, reason, now=utcnow())

    def lessons(self, tenant: str, task_type: str | None = None) -> list[LessonOut]:
        """Every lesson of a tenant (every status) with its gate report."""
        return lessons.list_lessons(self.runtime, tenant, task_type)

    def user_lessons(self, tenant: str, user_id: str, task_type: str | None = None) -> list[LessonOut]:
        """The lessons an end user may see: those resting on their own outcomes alone (see
        :func:`~memworks.services.lessons.rests_on_alone`). A lesson is tenant-wide; one built on anyone else's outcomes
        (or an operator's, with no outcomes) would show this user other people's reports."""
        return lessons.user_lessons(self.runtime, tenant, user_id, task_type)

    def recommend(self, tenant: str, task_type: str, features: Sequence[str] | str) -> Recommendation:
        """The action of the most specific active lesson that fires, or no lesson."""
        return lessons.recommend(self.runtime, tenant, task_type, features)
