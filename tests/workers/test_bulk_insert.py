"""``insert_rows``: one batch per call on both databases, values as the ORM would store them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from sqlalchemy import event, select
from sqlmodel import Session, col

from memworks.models.enums import GateOutcome, MemoryKind, Source
from memworks.models.tables import GateDecision, VectorEntry
from memworks.store.sql.db import COPY_FROM_ROWS, get_engine, insert_rows, upgrade

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _decisions(n: int, prefix: str) -> list[dict[str, Any]]:
    return [
        {
            "decision_id": f"{prefix}{i:04d}",
            "tenant_id": "t",
            "user_id": "u" if i % 3 else None,
            "episode_id": f"e{i}",
            "extractor": "rules",
            "kind": MemoryKind.SEMANTIC if i % 2 else MemoryKind.EPISODIC,
            "key": None if i % 2 else f"k.{i}",  # alternating: the ORM would split here
            "candidate_text": f"candidate {i} — ünïcode, a tab\there, a quote ' and a backslash \\",
            "source": Source.USER,
            "outcome": GateOutcome.ACCEPTED if i % 5 else GateOutcome.REJECTED,
            "reason": "ok",
            "op": None,
            "memory_id": None if i % 2 else f"m{i}",
            "decided_at": T0 + timedelta(seconds=i),
        }
        for i in range(n)
    ]


def _statements(engine: Any) -> list[str]:
    seen: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda c, cur, st, *a: seen.append(st.split()[0]))
    return seen  # SQLite's BEGIN aside, every statement's verb


@pytest.mark.parametrize("n", [COPY_FROM_ROWS - 1, COPY_FROM_ROWS * 3])
def test_rows_are_stored_as_given_in_one_statement(db_url: str, n: int) -> None:
    upgrade(db_url)
    engine = get_engine(db_url)
    rows = _decisions(n, "d")
    seen = _statements(engine)
    with Session(engine) as s:
        insert_rows(s, GateDecision, rows)
        s.commit()
    copied = db_url.startswith("postgresql") and n >= COPY_FROM_ROWS
    # COPY is not a cursor execute; a smaller batch or SQLite is one executemany.
    assert [v for v in seen if v != "BEGIN"] == ([] if copied else ["INSERT"])
    with Session(engine) as s:
        stored = s.scalars(select(GateDecision).order_by(col(GateDecision.decision_id))).all()
    assert [r.model_dump() for r in stored] == rows


def test_bytes_and_nulls_round_trip(db_url: str) -> None:
    upgrade(db_url)
    engine = get_engine(db_url)
    vectors = np.random.default_rng(3).standard_normal((COPY_FROM_ROWS + 5, 8)).astype(np.float32)
    rows = [
        {
            "memory_id": f"m{i:03d}",
            "tenant_id": "t",
            "user_id": None if i % 4 == 0 else "u",
            "model": "minilm",
            "vector": v.tobytes(),
            "fingerprint": f"fp{i}",
            "spans": v[:4].tobytes() if i % 2 else None,
        }
        for i, v in enumerate(vectors)
    ]
    with Session(engine) as s:
        insert_rows(s, VectorEntry, rows)
        s.commit()
    with Session(engine) as s:
        stored = {r.memory_id: r for r in s.scalars(select(VectorEntry))}
    assert len(stored) == len(rows)
    for r in rows:
        got = stored[r["memory_id"]]
        assert np.array_equal(np.frombuffer(got.vector, dtype=np.float32), np.frombuffer(r["vector"], np.float32))
        assert got.spans == r["spans"] and got.user_id == r["user_id"]


def test_a_failed_transaction_keeps_none_of_the_batch(db_url: str) -> None:
    """The batch is part of the session's transaction (COPY included): a rollback drops it."""
    upgrade(db_url)
    engine = get_engine(db_url)
    with Session(engine) as s:
        insert_rows(s, GateDecision, _decisions(COPY_FROM_ROWS * 2, "r"))
        s.rollback()
    with Session(engine) as s:
        assert s.scalars(select(GateDecision)).all() == []
