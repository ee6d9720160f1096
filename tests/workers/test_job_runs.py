"""The job-run log: every memworks actor's run is recorded by one middleware, deletions included;
a failed run says why; a sweep that found nothing to do leaves no row."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select
from sqlmodel import Session

from memworks.models.tables import JobRun
from tests.factories import episode


def runs(mw: Any) -> list[JobRun]:
    with Session(mw.runtime.engine) as s:
        return list(s.scalars(select(JobRun).order_by(JobRun.id)))


def test_a_deletion_records_a_run_for_its_plan_and_every_target(sqlite_url: str, make_memworks: Any) -> None:
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes([episode(1, "I live in Lisbon and my dog is called Pixel.")])
    mw.drain()
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    mw.drain()
    manifest = mw.manifest(rid)
    assert manifest.status == "complete"
    by_actor: dict[str, list[JobRun]] = {}
    for r in runs(mw):
        by_actor.setdefault(r.actor, []).append(r)
    assert [r.outcome for r in by_actor["extract_memories"]] == ["ok"]
    assert json.loads(by_actor["extract_memories"][0].counts_json)["processed"] == 1
    (plan,) = by_actor["plan_deletion_request"]
    assert plan.outcome == "ok" and plan.tenant_id == "t1" and plan.scope == rid
    # One purge and one verification per target, each on "<request>:<target>".
    targets = set(manifest.targets)
    assert {r.scope.split(":")[1] for r in by_actor["purge_target"]} == targets
    assert {r.scope.split(":")[1] for r in by_actor["verify_target"]} == targets
    assert all(r.duration_ms >= 0 and r.started_at is not None for rs in by_actor.values() for r in rs)


def test_a_run_that_raises_is_recorded_as_failed_with_its_error(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    mw = make_memworks(sqlite_url, max_retries=0)

    def down(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("database away")

    monkeypatch.setattr("memworks.workers.ingest.extract", down)
    mw.enqueue_episodes([episode(1, "I live in Lisbon.")])
    with pytest.raises(ConnectionError):
        mw.drain()
    (run,) = [r for r in runs(mw) if r.actor == "extract_memories"]
    assert run.outcome == "failed" and run.error == "ConnectionError: database away"


def test_a_sweep_that_finds_nothing_leaves_no_row(sqlite_url: str, make_memworks: Any) -> None:
    mw = make_memworks(sqlite_url)
    mw.resume_deletions()  # nothing unfinished
    mw.sweep_outbox()  # nothing lost
    mw.drain()
    assert runs(mw) == []
    mw.enqueue_episodes([episode(1, "I live in Lisbon.")])
    mw.drain()
    mw.sweep_outbox()  # the episode was processed: still nothing to do
    mw.consolidate("t1")  # work, not a sweep
    assert [(r.actor, r.outcome, r.tenant_id) for r in runs(mw)] == [
        ("extract_memories", "ok", "t1"),
        ("consolidate", "ok", "t1"),
    ]
