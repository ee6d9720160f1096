"""The facade's learning methods: task outcomes in, lessons and recommendations out."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from memworks.errors import InvalidInput, NotFound
from memworks.models.enums import LessonStatus
from memworks.models.schemas import IngestReceipt, LessonOut, OutcomeIn, Recommendation
from memworks.models.tables import Lesson
from memworks.models.validation import parse_model
from memworks.pipelines.features import normalize_features
from memworks.pipelines.lessons import action_refusal, guidance_for, select_lesson
from memworks.store import lessons as lesson_store
from memworks.store.db import session_scope
from memworks.workers import Runtime, mine_lessons
from memworks.workers.runtime import utcnow

#: An outcome a lesson's report cites ("outcome o7 wants escalate", "outcome o9 answered by …").
_CITED_OUTCOME = re.compile(r"\boutcome ([A-Za-z0-9][A-Za-z0-9._:@\-]{0,199})")


def rests_on_alone(lesson: Lesson, mined: set[str], validated: set[str], own: set[str]) -> bool:
    """Whether a lesson rests on ``own`` outcomes alone: mined from at least one, and every
    outcome it was mined from, validated on or cites in its report is one of them."""
    cited = set(_CITED_OUTCOME.findall(lesson.report))
    return bool(mined) and (mined | validated | cited) <= own


class LessonsMixin:
    """Outcomes, the learning round, lessons and recommendations (part of :class:`~memworks.client.Memworks`)."""

    runtime: Runtime

    def _ensure_worker(self) -> None: ...

    def drain(self, timeout_s: float = 600) -> None: ...

    def report_outcome(self, outcome: OutcomeIn | dict[str, Any]) -> IngestReceipt:
        """Store one task outcome and queue a learning round for its task type."""
        return self.report_outcomes([outcome])

    def report_outcomes(
        self, batch: Iterable[OutcomeIn | dict[str, Any]], *, reporter: lesson_store.Reporter | None = None
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
        with session_scope(self.runtime.engine) as s:
            new, dups = lesson_store.insert_outcomes(s, outcomes=items, now=utcnow(), reporter=reporter)
        self._ensure_worker()
        for tenant, task_type in sorted({(o.tenant_id, o.task_type) for o in items}):
            mine_lessons.send(tenant, task_type)
        return IngestReceipt(accepted=new, duplicates=dups)

    def mine_lessons(self, tenant: str, task_type: str | None = None) -> None:
        """Queue a learning round now (for one task type, or every task type of the tenant)."""
        with session_scope(self.runtime.engine, write=False) as s:
            types = [task_type] if task_type else lesson_store.task_types(s, tenant_id=tenant)
        self._ensure_worker()
        for t in types:
            mine_lessons.send(tenant, t)

    def propose_lesson(self, tenant: str, task_type: str, pattern: Sequence[str], action: str) -> LessonOut:
        """An operator's lesson: stored as a candidate and judged by the same gate as mined ones."""
        feats = normalize_features(list(pattern))
        if not feats or not action.strip():
            raise InvalidInput("a lesson needs a non-empty pattern and an action", field="pattern")
        if refusal := action_refusal(action):
            raise InvalidInput(f"action: {refusal}", field="action")
        with session_scope(self.runtime.engine) as s:
            view = lesson_store.add_lesson(
                s,
                tenant_id=tenant,
                task_type=task_type,
                pattern=feats,
                action=action.strip(),
                guidance=guidance_for(task_type, feats, action.strip()),
                mined_from=(),
                origin="proposed",
                now=utcnow(),
            )
        self.mine_lessons(tenant, task_type)
        self.drain()
        return self._lesson(view.lesson_id)

    def rollback_lesson(self, tenant: str, lesson_id: str, reason: str = "rolled back by an operator") -> LessonOut:
        """Take an active lesson out of use; the version of its pattern it replaced is restored."""
        with session_scope(self.runtime.engine) as s:
            row = lesson_store.retire(
                s, tenant_id=tenant, lesson_id=lesson_id, status=LessonStatus.ROLLED_BACK, report=reason, now=utcnow()
            )
            return lesson_store.to_out(row)

    def lessons(self, tenant: str, task_type: str | None = None) -> list[LessonOut]:
        """Every lesson of a tenant (every status) with its gate report."""
        with session_scope(self.runtime.engine, write=False) as s:
            return [lesson_store.to_out(r) for r in lesson_store.lesson_rows(s, tenant_id=tenant, task_type=task_type)]

    def user_lessons(self, tenant: str, user_id: str, task_type: str | None = None) -> list[LessonOut]:
        """The lessons an end user may see: those resting on their own outcomes alone (see
        :func:`rests_on_alone`). A lesson is tenant-wide; one built on anyone else's outcomes
        (or an operator's, with no outcomes) would show this user other people's reports."""
        with session_scope(self.runtime.engine, write=False) as s:
            rows = lesson_store.lesson_rows(s, tenant_id=tenant, task_type=task_type)
            evidence = lesson_store.lesson_evidence(s, tenant_id=tenant, task_type=task_type)
            own = lesson_store.user_outcome_ids(s, tenant_id=tenant, user_id=user_id)
            return [
                lesson_store.to_out(r)
                for r in rows
                if rests_on_alone(r, *evidence.get(r.lesson_id, (set(), set())), own)
            ]

    def recommend(self, tenant: str, task_type: str, features: Sequence[str] | str) -> Recommendation:
        """The action of the most specific active lesson that fires, or no lesson."""
        feats = normalize_features(features)
        with session_scope(self.runtime.engine, write=False) as s:
            lesson = select_lesson(lesson_store.lesson_views(s, tenant_id=tenant, task_type=task_type), feats)
        if lesson is None:
            return Recommendation(action=None, lesson_id=None, guidance=None)
        return Recommendation(action=lesson.action, lesson_id=lesson.lesson_id, guidance=lesson.guidance)

    def _lesson(self, lesson_id: str) -> LessonOut:
        with session_scope(self.runtime.engine, write=False) as s:
            row = s.get(Lesson, lesson_id)
            if row is None:
                raise NotFound(f"no lesson {lesson_id!r}")
            return lesson_store.to_out(row)
