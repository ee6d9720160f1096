"""Lesson actor: one learning round of a tenant's task type (see :mod:`memworks.services.lessons`)."""

from __future__ import annotations

import dramatiq

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.services import lessons
from memworks.workers import metrics
from memworks.workers.broker import register
from memworks.workers.common import Name
from memworks.workers.jobs import report
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)


@register
@dramatiq.actor(queue_name="maintenance", throws=(InvalidInput,))
def mine_lessons(tenant_id: Name, task_type: Name) -> None:
    """Guard active lessons, write reflection notes, mine failures into candidates, run the gate.

    Safe to run twice: the second round finds no news.
    """
    r = lessons.run_round(get_runtime(), tenant_id, task_type, now=utcnow())
    metrics.count_lessons(r.counts)
    log.info("lessons.mined", tenant=tenant_id, task_type=task_type, duration_ms=round(r.duration_ms, 1), **r.counts)
    report(r.counts, tenant_id, task_type)
