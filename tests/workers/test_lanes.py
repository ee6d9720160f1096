"""Lanes: a tenant over its backlog threshold sends to the bulk lane, a request's jobs stay in
its lane, sweepers re-drive only through an idle lane, and an identical pending deletion request
is the same request."""

from __future__ import annotations

import contextlib
from typing import Any

import dramatiq
import pytest
from sqlalchemy import update
from sqlmodel import Session

from memworks.models.tables import DeletionRequest
from tests.factories import episode


class Sent(dramatiq.Middleware):
    """Every message enqueued: (actor, queue), delayed ones under their lane's name."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, str]] = []

    def after_enqueue(self, broker: dramatiq.Broker, message: dramatiq.Message[Any], delay: int) -> None:
        self.messages.append((message.actor_name, message.queue_name.removesuffix(".DQ")))


def held(mw: Any, monkeypatch: pytest.MonkeyPatch) -> Sent:
    """Keep ``mw``'s in-process worker from starting (messages stay queued) and record sends."""
    monkeypatch.setattr(mw, "_ensure_worker", lambda: None)
    sent = Sent()
    mw.broker.add_middleware(sent)
    return sent


def release(mw: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the worker start again (the next drain starts it)."""
    monkeypatch.delattr(mw, "_ensure_worker")


def depths(mw: Any) -> dict[str, int]:
    from memworks.workers import QUEUES
    from memworks.workers.lanes import depth

    return {q: depth(mw.broker, q) for q in QUEUES}


def test_a_tenant_over_its_extraction_backlog_sends_to_the_bulk_lane(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a threshold of 2 episodes received and unprocessed,
    mw = make_memworks(sqlite_url, bulk_extraction_backlog=2)
    held(mw, monkeypatch)
    # when tenant A sends five episodes one by one and tenant B one,
    for i in range(5):
        mw.enqueue_episode(episode(i, f"I had walk number {i}.", tenant="A"))
    mw.enqueue_episode(episode(1, "I live in Lisbon.", tenant="B"))
    # then A's first two and B's are on the extraction queue, A's last three in its bulk lane,
    assert depths(mw) == {"extraction": 3, "extraction.bulk": 3, "maintenance": 0, "deletion": 0, "deletion.bulk": 0}
    # and once processed, every episode is.
    release(mw, monkeypatch)
    mw.drain()
    assert {(e.tenant_id, e.state) for e in _episodes(mw)} == {("A", "processed"), ("B", "processed")}


def test_a_few_long_episodes_are_a_backlog_too(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a threshold of 5,000 characters received and unprocessed, when a tenant sends two
    # episodes of 3,000 characters one by one, then the second goes to the bulk lane.
    mw = make_memworks(sqlite_url, bulk_extraction_backlog_chars=5_000)
    held(mw, monkeypatch)
    long = "I went for a long walk along the river today. " * 65
    mw.enqueue_episode(episode(1, long[:3_000], tenant="A"))
    mw.enqueue_episode(episode(2, long[:3_000], tenant="A"))
    assert (depths(mw)["extraction"], depths(mw)["extraction.bulk"]) == (1, 1)


def test_a_batch_of_two_tenants_goes_each_in_its_lane(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    mw = make_memworks(sqlite_url, bulk_extraction_backlog=3)
    held(mw, monkeypatch)
    mw.enqueue_episodes(
        [episode(i, f"I had walk number {i}.", tenant="A") for i in range(6)] + [episode(1, "Hi.", tenant="B")]
    )
    assert (depths(mw)["extraction"], depths(mw)["extraction.bulk"]) == (1, 1)
    release(mw, monkeypatch)
    mw.drain()
    assert all(e.state == "processed" for e in _episodes(mw))


def test_a_deletion_requests_jobs_stay_in_the_lane_it_was_sent_to(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a threshold of 1 deletion request at work, when tenant A sends two requests and B one,
    mw = make_memworks(sqlite_url, bulk_deletion_backlog=1)
    sent = held(mw, monkeypatch)
    a1 = mw.submit_deletion({"tenant_id": "A", "user_id": "u1"})
    a2 = mw.submit_deletion({"tenant_id": "A", "user_id": "u2"})
    b = mw.submit_deletion({"tenant_id": "B", "user_id": "u1"})
    assert sent.messages == [
        ("plan_deletion_request", "deletion"),
        ("plan_deletion_request_bulk", "deletion.bulk"),
        ("plan_deletion_request", "deletion"),
    ]
    release(mw, monkeypatch)
    mw.drain()
    # then every purge and verification of A's second went through the bulk lane, the others'
    # through the deletion queue, and all three completed.
    assert {mw.manifest(r).status for r in (a1, a2, b)} == {"complete"}
    jobs = [q for actor, q in sent.messages[3:] if actor.removesuffix("_bulk") in ("purge_target", "verify_target")]
    assert jobs.count("deletion.bulk") == 22 and jobs.count("deletion") == 44


def test_an_identical_pending_deletion_request_is_the_same_request(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    mw = make_memworks(sqlite_url)
    sent = held(mw, monkeypatch)
    # Given a request for two keys of a user, not yet planned,
    first = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1", "keys": ["user.pet", "user.home_city"]})
    # when the same request comes again, its keys in another order and one twice,
    again = mw.submit_deletion(
        {"tenant_id": "t1", "user_id": "u1", "keys": ["user.home_city", "user.pet", "user.pet"], "requested_by": "x"}
    )
    # then it is the same request and nothing more is queued;
    assert again == first and sent.messages == [("plan_deletion_request", "deletion")]
    # another user's, another key set or records named are other requests.
    others = [
        {"tenant_id": "t1", "user_id": "u2", "keys": ["user.pet", "user.home_city"]},
        {"tenant_id": "t1", "user_id": "u1", "keys": ["user.pet"]},
        {"tenant_id": "t1", "user_id": "u1"},
        {"tenant_id": "t1", "user_id": "u1", "keys": ["user.pet", "user.home_city"], "memory_ids": ["m1"]},
    ]
    ids = [mw.submit_deletion(o) for o in others]
    assert len({first, *ids}) == 5
    # Once it is planned, its plan predates anything stored since: a new request is opened.
    with Session(mw.runtime.engine) as s:
        s.execute(update(DeletionRequest).where(DeletionRequest.request_id == first).values(status="open"))
        s.commit()
    later = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1", "keys": ["user.home_city", "user.pet"]})
    assert later != first
    assert mw.manifest(first).keys == ["user.home_city", "user.pet"]


def test_sweepers_resend_only_through_an_idle_lane(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memworks.workers as w

    mw = make_memworks(sqlite_url)
    held(mw, monkeypatch)
    mw.enqueue_episode(episode(1, "I live in Lisbon."))
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u2"})
    # Given work whose messages are still queued, when both sweepers run, nothing more is sent;
    w.resend_unprocessed(0)
    w.resume_deletions(0)
    assert (depths(mw)["extraction"], depths(mw)["deletion"]) == (1, 1)
    # when those messages are lost (the queues emptied), the sweepers send them again, once.
    for q in ("extraction", "deletion"):
        mw.broker.flush(q)
    w.resend_unprocessed(0)
    w.resume_deletions(0)
    assert (depths(mw)["extraction"], depths(mw)["deletion"]) == (1, 1)
    release(mw, monkeypatch)
    mw.drain()
    assert mw.manifest(rid).status == "complete"
    assert [e.state for e in _episodes(mw)] == ["processed"]


def test_a_dead_letter_is_sent_again_on_its_lane(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memworks.services import deletion as erasure_service

    mw = make_memworks(sqlite_url, bulk_deletion_backlog=0)  # every request in the bulk lane
    sent = held(mw, monkeypatch)

    def down(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("database away")

    monkeypatch.setattr(erasure_service, "plan_request", down)
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    release(mw, monkeypatch)
    with contextlib.suppress(ConnectionError):  # raised unless the failure beat drain() to its start
        mw.drain()
    assert [(d["actor"], d["queue"]) for d in mw.dead_letters()] == [("plan_deletion_request_bulk", "deletion.bulk")]
    monkeypatch.undo()  # the database is back
    sent = held(mw, monkeypatch)
    assert mw.retry_dead_letters() == 1
    assert sent.messages == [("plan_deletion_request_bulk", "deletion.bulk")]
    release(mw, monkeypatch)
    mw.drain()
    assert mw.manifest(rid).status == "complete"


def _episodes(mw: Any) -> list[Any]:
    from sqlalchemy import select

    from memworks.models.tables import Episode

    with Session(mw.runtime.engine) as s:
        return list(s.scalars(select(Episode).order_by(Episode.id)))
