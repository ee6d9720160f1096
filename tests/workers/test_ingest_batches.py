"""How a batch of episodes becomes extraction messages: grouped by user, cut into equal parts."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlmodel import Session, col

from memworks.models.enums import EpisodeState
from memworks.models.tables import Episode, JobRun
from tests.factories import episode


def test_a_batch_goes_as_equal_messages_each_users_episodes_together(sqlite_url: str, make_memworks: Any) -> None:
    # Given 10 episodes of three users, interleaved, and messages of at most 4 episodes,
    mw = make_memworks(sqlite_url, ingest_batch_size=4)
    users = ["u1", "u2", "u3", "u1", "u2", "u1", "u3", "u1", "u2", "u1"]
    batch = [episode(i, f"I had a walk number {i} today.", user=u) for i, u in enumerate(users)]
    # when it is enqueued and processed,
    mw.enqueue_episodes(batch)
    mw.drain()
    with Session(mw.runtime.engine) as s:
        sizes = sorted(r.scope for r in s.scalars(select(JobRun).where(col(JobRun.actor) == "extract_memories")))
        rows = s.scalars(select(Episode).order_by(col(Episode.id))).all()
    # then three messages of 3, 3 and 4 went (not 4, 4 and 2),
    assert sizes == ["episodes:3", "episodes:3", "episodes:4"]
    # every episode was processed once, and the row ids hold each user's episodes together, in
    # the order they came, so a cut rarely splits a user between two messages.
    assert all(r.state is EpisodeState.PROCESSED for r in rows)
    assert [r.user_id for r in rows] == sorted(users)
    for u in set(users):
        assert [r.turn for r in rows if r.user_id == u] == [i for i, x in enumerate(users) if x == u]


def test_equal_parts_are_as_few_as_the_limit_allows_and_keep_the_order() -> None:
    from memworks.pipelines.ingest import equal_parts

    assert equal_parts(list(range(300)), 256) == [list(range(150)), list(range(150, 300))]
    assert [len(p) for p in equal_parts(list(range(10)), 4)] == [3, 3, 4]
    assert equal_parts(list(range(5)), 5) == [list(range(5))] and equal_parts([], 5) == []
    for n in range(1, 40):
        parts = equal_parts(list(range(n)), 7)
        assert sum(parts, []) == list(range(n)) and max(map(len, parts)) <= 7
        assert max(map(len, parts)) - min(map(len, parts)) <= 1
