"""The scheduler: jobs fire on time (under a fake clock), live in SQL, and a restart adds no copies."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from apscheduler.executors import base as executors_base
from apscheduler.schedulers import base as apscheduler_base
from apscheduler.schedulers.background import BackgroundScheduler

from memworks.config import Settings
from memworks.scheduler import JOB_IDS, build_scheduler


class FakeClock:
    """Stands in for ``datetime`` inside APScheduler, so due times can be stepped through."""

    def __init__(self, now: datetime) -> None:
        self.now_value = now

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        clock = self

        class _DateTime(datetime):
            @classmethod
            def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
                return clock.now_value.astimezone(tz) if tz else clock.now_value

        # The scheduler decides what is due, the executor whether it is too late: both read the clock.
        monkeypatch.setattr(apscheduler_base, "datetime", _DateTime)
        monkeypatch.setattr(executors_base, "datetime", _DateTime)


def sent(mw: Any, actor: str) -> int:
    """Messages for ``actor`` waiting in the in-process broker's queues."""
    return sum(1 for q in mw.broker.queues.values() for m in list(q.queue) if actor in m.decode())


def test_nightly_consolidation_fires_at_its_time_and_not_before(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    mw = make_memworks(sqlite_url)  # the in-process broker the jobs send to; its worker is not started
    clock = FakeClock(datetime(2025, 1, 1, 12, 0, tzinfo=UTC))
    clock.install(monkeypatch)
    scheduler = build_scheduler(Settings(database_url=sqlite_url), BackgroundScheduler)
    scheduler.start(paused=True)
    try:
        job = scheduler.get_job("consolidate-nightly")
        assert job.next_run_time == datetime(2025, 1, 2, 2, 0, tzinfo=UTC)
        scheduler.resume()
        clock.now_value = datetime(2025, 1, 2, 1, 59, 59, tzinfo=UTC)
        scheduler._process_jobs()
        assert sent(mw, "fan_out_consolidation") == 0
        clock.now_value = datetime(2025, 1, 2, 2, 0, 1, tzinfo=UTC)
        scheduler._process_jobs()
        scheduler._executors["default"]._pool.shutdown(wait=True)
        assert sent(mw, "fan_out_consolidation") == 1
        assert scheduler.get_job("consolidate-nightly").next_run_time == datetime(2025, 1, 3, 2, 0, tzinfo=UTC)
    finally:
        scheduler.shutdown(wait=False)


def test_jobs_persist_and_a_restart_neither_duplicates_nor_reruns(sqlite_url: str, make_memworks: Any) -> None:
    make_memworks(sqlite_url)
    settings = Settings(database_url=sqlite_url, consolidation_cron="30 3 * * *")
    first = build_scheduler(settings, BackgroundScheduler)
    first.start(paused=True)
    before = {j.id: j.next_run_time for j in first.get_jobs()}
    first.shutdown(wait=False)

    again = build_scheduler(settings, BackgroundScheduler)
    again.start(paused=True)
    try:
        jobs = again.get_jobs()
        assert sorted(j.id for j in jobs) == sorted(JOB_IDS)  # replaced, not added twice
        after = {j.id: j.next_run_time for j in jobs}
        # The nightly slot is the same one; no job is due earlier than before (nothing runs twice).
        assert after["consolidate-nightly"] == before["consolidate-nightly"]
        assert all(after[k] >= before[k] for k in before)
        assert str(again.get_job("consolidate-nightly").trigger).startswith("cron[") and "hour='3'" in str(
            again.get_job("consolidate-nightly").trigger
        )
    finally:
        again.shutdown(wait=False)


def test_a_bad_cron_expression_fails_at_boot_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match="MEMWORKS_CONSOLIDATION_CRON"):
        Settings(consolidation_cron="every night")
