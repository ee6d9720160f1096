"""The in-process indexes of a scope (the vectors as a matrix, the BM25 postings as arrays):
exact, fresh after every write, never shared between stores, and gone from memory when a
deletion purges the scope."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlmodel import Session

from memworks.models.schemas import Scope
from memworks.models.tables import Memory, VectorEntry
from memworks.store.projections import vector
from memworks.store.projections.scope_cache import SCOPES
from memworks.store.retrieval.filters import visible
from tests.factories import episode

U = Scope(tenant_id="t1", user_id="u1")
LINES = [
    "I live in Lisbon.",
    "My dog is called Pixel.",
    "I work at Globex as a nurse.",
    "I love sushi.",
    "I moved to Berlin two weeks ago.",
    "thanks!",
    "Can you draft a note for the team meeting?",
]


def loaded(make_memworks: Any, url: str) -> Any:
    mw = make_memworks(url)
    mw.enqueue_episodes(
        [episode(i, t, when=f"2025-0{1 + i // 4}-1{i % 4}T09:00:00+00:00") for i, t in enumerate(LINES)]
    )
    mw.drain()
    return mw


def exact(mw: Any, q: np.ndarray, limit: int, now: datetime) -> dict[str, float]:
    """Filter first in SQL, then score every visible vector: the reference."""
    with Session(mw.runtime.engine) as s:
        rows = s.execute(
            select(VectorEntry.memory_id, VectorEntry.vector)
            .join(Memory, Memory.memory_id == VectorEntry.memory_id)
            .where(*visible(U, now=now, as_of=None, known_at=None))
        ).all()
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


def bm25_reference(s: Session, query: str, where: list[Any], limit: int) -> list[str]:
    """BM25 over the scope's lexical rows, then the read's filters in SQL, then the top ``limit``."""
    from sqlalchemy import func

    from memworks.models.tables import LexicalDoc, LexicalPosting
    from memworks.pipelines.text.terms import query_terms

    scope = (LexicalDoc.tenant_id == "t1", LexicalDoc.user_id.in_(["u1", ""]))  # type: ignore[attr-defined]
    n, avg = s.execute(select(func.count(), func.avg(LexicalDoc.length)).where(*scope)).one()
    length = dict(s.execute(select(LexicalDoc.memory_id, LexicalDoc.length).where(*scope)).all())
    words = query_terms(query)
    posts = [
        (t, m, tf)
        for t, m, tf in s.execute(select(LexicalPosting.term, LexicalPosting.memory_id, LexicalPosting.tf))
        if t in words and m in length
    ]
    df = {t: sum(1 for p in posts if p[0] == t) for t in words}
    score: dict[str, float] = {}
    for t, m, tf in posts:
        idf = np.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
        score[m] = score.get(m, 0.0) + idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length[m] / float(avg)))
    ok = set(s.scalars(select(Memory.memory_id).where(Memory.memory_id.in_(list(score)), *where)))  # type: ignore[attr-defined]
    return sorted((m for m in score if m in ok), key=lambda m: (-round(score[m], 9), m))[:limit]


def test_lexical_search_equals_filtering_first_then_scoring(db_url: str, make_memworks: Any) -> None:
    from memworks.store.projections import lexical

    mw = loaded(make_memworks, db_url)
    mw.enqueue_episodes([episode(30, "I moved to Porto.", when="2025-06-01T09:00:00+00:00")])  # Berlin is history now
    mw.drain()
    now = datetime.now(UTC)
    reads = {
        "present": dict(as_of=None, known_at=None),
        "then": dict(as_of=datetime(2025, 3, 1, tzinfo=UTC), known_at=None),
    }
    for query in ("Where do I live?", "Berlin", "dog Pixel", "work nurse Globex", "sushi"):
        for name, when in reads.items():
            where = visible(U, now=now, **when)
            with Session(mw.runtime.engine) as s:
                got = lexical.search(s, scope=U, query=query, where=where, limit=3, present=name == "present")
                assert got == bm25_reference(s, query, where, 3), (query, name)
    old = [m.memory_id for m in mw.memories(U, include_history=True) if m.value == "Berlin" and m.superseded_by]
    assert old, "moving to Porto supersedes the Berlin record"
    with Session(mw.runtime.engine) as s:  # the superseded record is found for a past moment only
        now_hits, then_hits = (
            lexical.search(s, scope=U, query="Berlin", where=visible(U, now=now, **w), present=n == "present")
            for n, w in reads.items()
        )
    assert old[0] in then_hits and old[0] not in now_hits


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


def test_a_deletion_drops_the_scope_indexes_from_memory(sqlite_url: str, make_memworks: Any) -> None:
    mw = loaded(make_memworks, sqlite_url)
    mw.retrieve(U, "Where do I live?")
    # The scope's in-process indexes: the two projections and the turn layout (neighbours, speakers).
    assert {k[3] for k in SCOPES.keys() if k[1:3] == ("t1", "u1")} == {"lexical", "vector", "turns"}
    mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    mw.drain()
    assert not any(k[1:3] == ("t1", "u1") for k in SCOPES.keys())
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
