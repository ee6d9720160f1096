"""APScheduler set-up: one scheduler per deployment, jobs kept in SQL so a restart resumes them.

Every job has an explicit id and is added with ``replace_existing``, so starting the scheduler
again updates its jobs instead of adding copies; the SQL job store keeps each job's next run
time, and ``coalesce`` with one instance at most means a restart after downtime runs a missed
job once, not once per missed slot.
"""

from __future__ import annotations

from typing import Any

from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from memworks.config import Settings
from memworks.scheduler import jobs

#: Job ids: stable names, so a restart replaces rather than duplicates.
JOB_IDS = ("consolidate-nightly", "expire-hourly", "resume-deletions", "resend-lost-episodes", "rewrite-erased-files")


def build_scheduler(
    settings: Settings, scheduler_class: type[BaseScheduler] = BlockingScheduler, **kw: Any
) -> BaseScheduler:
    """A scheduler with memworks' jobs in a SQL job store on the deployment's database."""
    url = settings.database_url.replace("postgresql://", "postgresql+psycopg://", 1)
    scheduler = scheduler_class(
        jobstores={"default": SQLAlchemyJobStore(url=url, tablename="scheduler_job")},
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 3600},
        timezone="UTC",
        **kw,
    )
    every = [
        (jobs.expire_memories, 3600, "TTL expiry sweep"),
        (jobs.resume_unfinished_deletions, settings.deletion_sweep_s, "deletion sweeper"),
        (jobs.resend_lost_episodes, settings.outbox_sweep_s, "outbox sweeper"),
        (jobs.rewrite_files_after_deletions, settings.disk_rewrite_s, "database files rewritten after deletions"),
    ]
    scheduler.add_job(
        jobs.consolidate_every_tenant,
        CronTrigger.from_crontab(settings.consolidation_cron, timezone="UTC"),
        id=JOB_IDS[0],
        name="nightly consolidation, one message per tenant",
        replace_existing=True,
    )
    for job_id, (job, seconds, name) in zip(JOB_IDS[1:], every, strict=True):
        scheduler.add_job(job, IntervalTrigger(seconds=seconds), id=job_id, name=name, replace_existing=True)
    return scheduler


__all__ = ["JOB_IDS", "build_scheduler"]
