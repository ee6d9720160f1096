"""One tenant must not stall another's work: a flood waits in its own lane, and no episode or
message costs more than its caps, however it is written."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select
from sqlmodel import Session, col

from memworks.models.schemas import Scope
from memworks.models.tables import DeletionRequest, Episode, GateDecision, JobRun, Memory
from tests.factories import episode
from tests.workers.test_lanes import held, release

#: The probe's episode: 90 KB of "I like teaN." (once 5,695 records and 111 s of worker time).
TEA = " ".join(f"I like tea{i}." for i in range(5_695))


def test_the_tea_episode_makes_at_most_the_cap_of_records_and_one_audit_row(
    sqlite_url: str, make_memworks: Any
) -> None:
    # Given the 90 KB "I like tea0. I like tea1. ..." episode and an ordinary one of another user,
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes([episode(1, TEA), episode(1, "I live in Lisbon and my dog is called Pixel.", user="u2")])
    mw.drain()
    with Session(mw.runtime.engine) as s:
        flood = list(s.scalars(select(Memory).where(col(Memory.user_id) == "u1")))
        audit = list(s.scalars(select(GateDecision).where(col(GateDecision.user_id) == "u1")))
    # then the flood left its transcript (the whole text) and at most 32 records,
    assert [m.text for m in flood if m.extractor == "transcript"] == [TEA]
    assert 0 < len(flood) - 1 <= 32
    # one audit row stands for every candidate past the cap, not thousands,
    over = [d for d in audit if d.reason.startswith("over the per-episode candidate cap")]
    assert len(over) == 1 and over[0].outcome == "rejected" and len(audit) <= 32 + 3
    # and the ordinary episode is remembered as ever.
    values = {(m.key, m.value) for m in mw.memories(Scope(tenant_id="t1", user_id="u2"))}
    assert {("user.home_city", "Lisbon"), ("user.pet.dog", "Pixel")} <= values


def test_the_tea_episode_writes_a_bounded_index_and_is_read_as_far_as_its_extractor_reads(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lexical index takes at most MAX_TERMS distinct terms of one record (its first ones), and
    the claims step and the event time read a long turn only as far as the extractor does."""
    from memworks.models.tables import LexicalPosting
    from memworks.pipelines.claims import features
    from memworks.pipelines.retrieval import timerange
    from memworks.store import subjects
    from memworks.store.projections.lexical import MAX_TERMS

    read: list[int] = []
    real_claim, real_time = features.read_claim, timerange.event_time
    claim = "memworks.services.ingest.claims.read_claim"
    monkeypatch.setattr(claim, lambda text, **kw: read.append(len(text)) or real_claim(text, **kw))
    monkeypatch.setattr(subjects, "event_time", lambda text, at: read.append(len(text)) or real_time(text, at))
    # Given the 90 KB episode of made-up words, and an earlier like one
    mw = make_memworks(sqlite_url)
    mw.enqueue_episodes([episode(1, TEA.replace("tea", "tee")), episode(2, TEA)])
    mw.drain()
    with Session(mw.runtime.engine) as s:
        transcript = s.scalars(select(Memory.memory_id).where(col(Memory.text) == TEA)).one()
        postings = list(s.scalars(select(LexicalPosting).where(col(LexicalPosting.memory_id) == transcript)))
    # Then its transcript adds MAX_TERMS postings, not one per made-up word
    assert len(postings) == MAX_TERMS
    # And every read of it by the claims step and the event time stopped at the extractor's 8,000 characters
    assert read and max(read) <= 8_000


def test_a_message_of_dense_episodes_stops_at_its_budget_and_the_rest_follow(
    sqlite_url: str, make_memworks: Any
) -> None:
    # Given messages of at most 40 candidates, when five episodes of 20 statements each arrive
    # in one message,
    mw = make_memworks(sqlite_url, ingest_batch_candidates=40)
    dense = [episode(i, " ".join(f"I like tea{i}x{j}." for j in range(20))) for i in range(5)]
    mw.enqueue_episodes(dense)
    mw.drain()
    with Session(mw.runtime.engine) as s:
        runs = [json.loads(r.counts_json) for r in s.scalars(select(JobRun).where(JobRun.actor == "extract_memories"))]
        states = list(s.scalars(select(Episode.state)))
    # then each run judged at most two of them (40 candidates) and left the rest to the next
    # message, and every episode was processed once.
    assert [(r.get("processed", 0), r["deferred"]) for r in runs] == [(2, 3), (2, 1), (1, 0)]
    assert states == ["processed"] * 5


def _processed_order(mw: Any) -> list[str]:
    with Session(mw.runtime.engine) as s:
        rows = s.scalars(select(Episode).order_by(col(Episode.processed_at), col(Episode.id)))
        return [e.tenant_id for e in rows]


def test_another_tenants_episode_is_processed_before_a_floods_backlog_is(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given one worker thread, and tenant A with 24 episodes queued one message each (its
    # backlog over the threshold of 2 after the second),
    mw = make_memworks(sqlite_url, bulk_extraction_backlog=2, embedded_worker_threads=1)
    held(mw, monkeypatch)
    for i in range(24):
        mw.enqueue_episode(episode(i, f"I went for walk number {i} today.", tenant="A", user=f"u{i}"))
    # when tenant B sends one episode after all of them,
    mw.enqueue_episode(episode(1, "I live in Lisbon.", tenant="B"))
    release(mw, monkeypatch)
    mw.drain()
    # then B's is processed behind at most A's two on the normal queue and the few bulk
    # messages the worker had fetched, not behind A's whole backlog (24 in one queue).
    order = _processed_order(mw)
    assert order.count("A") == 24 and order.index("B") <= 8, order


def test_another_tenants_deletion_completes_before_a_floods_requests_do(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given one worker thread, and tenant A with 12 deletion requests queued (over the threshold
    # of 2 after the second), each 23 jobs,
    mw = make_memworks(sqlite_url, bulk_deletion_backlog=2, embedded_worker_threads=1)
    held(mw, monkeypatch)
    flood = [mw.submit_deletion({"tenant_id": "A", "user_id": f"u{i}"}) for i in range(12)]
    # when tenant B sends one request after all of them,
    rid = mw.submit_deletion({"tenant_id": "B", "user_id": "u1"})
    release(mw, monkeypatch)
    mw.drain()
    with Session(mw.runtime.engine) as s:
        done = {r.request_id: r.completed_at for r in s.scalars(select(DeletionRequest))}
    # then B's completes behind A's two on the normal queue, not behind A's whole backlog.
    assert all(done[r] is not None for r in [*flood, rid])
    before = [r for r in flood if done[r] < done[rid]]
    assert len(before) <= 4, len(before)
