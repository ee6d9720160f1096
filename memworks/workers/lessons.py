"""Lesson actor: guard active lessons, write reflection notes, mine failures into candidates, run the gate."""

from __future__ import annotations

import time

import dramatiq
from pydantic import BaseModel, Field, ValidationError

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.pipelines.lesson_guard import guard_lesson
from memworks.pipelines.lessons import mine_candidates, run_gate
from memworks.store import audit, reflections
from memworks.store import lessons as store
from memworks.store.db import lock_scope, session_scope
from memworks.workers import metrics
from memworks.workers.broker import register
from memworks.workers.common import message_id, reject
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)


class MinePayload(BaseModel):
    tenant_id: str = Field(min_length=1, max_length=200)
    task_type: str = Field(min_length=1, max_length=200)


@register
@dramatiq.actor(queue_name="maintenance", max_retries=5, min_backoff=1_000, time_limit=600_000, throws=(InvalidInput,))
def mine_lessons(tenant_id: str, task_type: str) -> None:
    """One learning round for a tenant's task type; safe to run twice (the second finds no news)."""
    try:
        MinePayload(tenant_id=tenant_id, task_type=task_type)
    except ValidationError as exc:
        raise reject("mine_lessons", {"tenant_id": tenant_id, "task_type": task_type}, exc) from None
    rt, now, t0 = get_runtime(), utcnow(), time.perf_counter()
    policy = rt.lesson_policy
    counts = {"rolled_back": 0, "proposed": 0, "promoted": 0, "blocked": 0, "reflections": 0, "reflections_refused": 0}
    with session_scope(rt.engine, write=True) as s:
        lock_scope(s, f"lessons\x1f{tenant_id}\x1f{task_type}")
        outcomes = store.outcome_views(s, tenant_id=tenant_id, task_type=task_type)
        lessons = store.lesson_views(s, tenant_id=tenant_id, task_type=task_type)
        for lesson in lessons:
            if lesson.status == "active" and (v := guard_lesson(lesson, outcomes, lessons, policy=policy)).rollback:
                store.retire(s, tenant_id=tenant_id, lesson_id=lesson.lesson_id, status="rolled_back", report=v.report,
                             now=now)  # fmt: skip
                counts["rolled_back"] += 1
        counts["reflections"], counts["reflections_refused"] = reflections.write_reflections(
            s, tenant_id=tenant_id, task_type=task_type, embedder=lambda: rt.embedder,
            forgetting=rt.forgetting_policy, now=now)  # the model loads only when there is a note to index
        known = store.known_actions(s, tenant_id=tenant_id) | set(policy.declared_actions)
        lessons = store.lesson_views(s, tenant_id=tenant_id, task_type=task_type)
        for p in mine_candidates(outcomes, lessons, task_type=task_type, policy=policy, known=known):
            store.add_lesson(s, tenant_id=tenant_id, task_type=task_type, pattern=p.pattern, action=p.action,
                             guidance=p.guidance, mined_from=p.mined_from, origin="mined", now=now)  # fmt: skip
            counts["proposed"] += 1
        lessons = store.lesson_views(s, tenant_id=tenant_id, task_type=task_type)
        candidates = [lv for lv in lessons if lv.status == "candidate"]
        active = [lv for lv in lessons if lv.status == "active"]
        for lesson, d in run_gate(candidates, outcomes, active, policy=policy, known=known):
            store.decide(s, tenant_id=tenant_id, lesson_id=lesson.lesson_id, status=d.status, report=d.report,
                         evidence=d.evidence, now=now)  # fmt: skip
            counts["promoted"] += d.status == "active"
            counts["blocked"] += d.status == "blocked"
        ms = (time.perf_counter() - t0) * 1000
        audit.record_job(s, actor="mine_lessons", message_id=message_id(), outcome="ok", started_at=now, duration_ms=ms,
                         tenant_id=tenant_id, scope=task_type, counts=counts)  # fmt: skip
    metrics.count_lessons(counts)
    log.info("lessons.mined", tenant=tenant_id, task_type=task_type, duration_ms=round(ms, 1), **counts)
