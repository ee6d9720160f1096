"""The in-process matrix of a scope's vectors: exact, fresh after every write, never shared
between stores, and gone from memory when a deletion purges the scope."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlmodel import Session

from memworks.models.schemas import Scope
from memworks.models.tables import Memory, VectorEntry
from memworks.store.filters import visible
from memworks.store.projections import vector
from tests.factories import episode

U = Scope(tenant_id="t1", user_id="u1")
LINES = ["I live in Lisbon.", "My dog is called Pixel.", "I work at Globex as a nurse.", "I love sushi.",
         "I moved to Berlin two weeks ago.", "thanks!", "Can you draft a note for the team meeting?"]  # fmt: skip


def loaded(make_memworks: Any, url: str) -> Any:
    mw = make_memworks(url)
    mw.enqueue_episodes([episode(i, t, when=f"2025-0{1 + i // 4}-1{i % 4}T09:00:00+00:00") for i, t in enumerate(LINES)])
    mw.drain()
    return mw


def exact(mw: Any, q: np.ndarray, limit: int, now: datetime) -> dict[str, float]:
    """Filter first in SQL, then score every visible vector: the reference."""
    with Session(mw.runtime.engine) as s:
        rows = s.execute(select(VectorEntry.memory_id, VectorEntry.vector)
                         .join(Memory, Memory.memory_id == VectorEntry.memory_id)
                         .where(*visible(U, now=now, as_of=None, known_at=None))).all()  # fmt: skip
    sims = {m: float(np.frombuffer(v, dtype=np.float32) @ q) for m, v in rows}
    return dict(sorted(sims.items(), key=lambda kv: -kv[1])[:limit])


def test_search_equals_filtering_first_then_scoring(db_url: str, make_memworks: Any) -> None:
    mw = loaded(make_memworks, db_url)
    now = datetime.now(UTC)
    for query in ("Where do I live?", "pets", "job", "food I like"):
        q = mw.runtime.embedder.embed([query])[0]
        with Session(mw.runtime.engine) as s:
            got = vector.search(s, scope=U, query=q, where=visible(U, now=now, as_of=None, known_at=None), limit=3)
        want = exact(mw, q, 3, now)
        assert list(got) == list(want) and np.allclose(list(got.values()), list(want.values()), atol=1e-6)


def test_a_write_is_seen_by_the_next_query(sqlite_url: str, make_memworks: Any) -> None:
    mw = loaded(make_memworks, sqlite_url)
    assert mw.retrieve(U, "Where do I live?").hits[0].value == "Berlin"
    mw.enqueue_episodes([episode(20, "I moved to Tokyo.", when="2025-06-01T09:00:00+00:00")])
    mw.drain()
    assert mw.retrieve(U, "Where do I live?").hits[0].value == "Tokyo"


def test_two_stores_in_one_process_never_share_a_matrix(tmp_path: Any, make_memworks: Any) -> None:
    # Same tenant, same user, same scope version in two databases: each answers from its own.
    a = make_memworks(f"sqlite:///{tmp_path / 'a.db'}")
    a.enqueue_episodes([episode(1, "I live in Lisbon.")])
    a.drain()
    assert a.retrieve(U, "Where do I live?").hits[0].value == "Lisbon"
    b = make_memworks(f"sqlite:///{tmp_path / 'b.db'}")  # the process's workers serve b from here on
    b.enqueue_episodes([episode(1, "I live in Oslo.")])
    b.drain()
    assert b.retrieve(U, "Where do I live?").hits[0].value == "Oslo"
    assert a.retrieve(U, "Where do I live?").hits[0].value == "Lisbon"


def test_a_deletion_drops_the_scope_matrix_from_memory(sqlite_url: str, make_memworks: Any) -> None:
    mw = loaded(make_memworks, sqlite_url)
    mw.retrieve(U, "Where do I live?")
    assert any(k[1:] == ("t1", "u1") for k in vector.MATRICES._entries)
    mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    mw.drain()
    assert not any(k[1:] == ("t1", "u1") for k in vector.MATRICES._entries)
    assert mw.retrieve(U, "Where do I live?").abstained


def test_the_nightly_fan_out_refreshes_the_planner_statistics(sqlite_url: str, make_memworks: Any) -> None:
    # Without statistics SQLite prefers the scope index (a scan of the whole tenant) to a lookup
    # of candidate ids by primary key (measured in `memworks bench retrieve`).
    from sqlalchemy import text

    import memworks.workers as w

    mw = loaded(make_memworks, sqlite_url)

    def stats() -> set[str]:
        with mw.runtime.engine.connect() as c:
            if not c.execute(text("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'")).first():
                return set()
            return {str(r[0]) for r in c.execute(text("SELECT tbl FROM sqlite_stat1"))}

    assert "memory" not in stats()
    w.fan_out_consolidation.send()
    mw.drain()
    assert {"memory", "lineage", "vector_entry", "lexical_posting"} <= stats()
