"""Every statement governed, through the facade: a statement no rule keys still meets later ones.

"We shop at Lidl for groceries." keys nothing; "We've switched from Lidl to Aldi for groceries." said
a month later closes it (the shipped pair model decides *changed*): the old transcript leaves present reads
with ``superseded_by`` the new one, ``as_of`` before the switch still finds it, and the decision is
audited. Unrelated statements of the same user stay current.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from memworks.models.enums import MemoryStatus
from memworks.models.schemas import Scope
from memworks.models.tables import GateDecision
from memworks.store.db import get_engine

S = Scope(tenant_id="t1", user_id="u1")


def ep(n: int, day: str, content: str) -> dict[str, Any]:
    return {
        "episode_id": f"u1-{n}",
        "tenant_id": "t1",
        "user_id": "u1",
        "session_id": f"s{n}",
        "turn": n,
        "role": "user",
        "source": "user",
        "content": content,
        "occurred_at": f"{day}T09:00:00+00:00",
    }


def test_a_change_no_rule_keys_closes_the_old_statement(make_memworks: Any, db_url: str) -> None:
    mw = make_memworks(db_url, claims=True)
    mw.enqueue_episodes(
        [ep(1, "2026-02-01", "We shop at Lidl for groceries."), ep(2, "2026-02-02", "My cat Miso is a grey tabby.")]
    )
    mw.drain()
    mw.enqueue_episodes([ep(3, "2026-03-01", "We've switched from Lidl to Aldi for groceries.")])
    mw.drain()
    mw.enqueue_episodes(
        [ep(3, "2026-03-01", "We've switched from Lidl to Aldi for groceries.")]
    )  # a replay changes nothing
    mw.drain()

    rows = {m.text: m for m in mw.memories(S, include_history=True) if m.key is None and m.value == m.text}
    old, new, cat = (
        rows["We shop at Lidl for groceries."],
        rows["We've switched from Lidl to Aldi for groceries."],
        rows["My cat Miso is a grey tabby."],
    )
    assert old.status is MemoryStatus.SUPERSEDED and old.superseded_by == new.memory_id
    assert old.valid_to is not None and old.valid_to.date().isoformat() == "2026-03-01"
    assert new.status is MemoryStatus.ACTIVE and cat.status is MemoryStatus.ACTIVE

    present = [h.text for h in mw.retrieve(S, "Where do we buy groceries?", k=5).hits]
    assert "We shop at Lidl for groceries." not in present
    before = [h.text for h in mw.retrieve(S, "Where do we buy groceries?", k=5, as_of="2026-02-15T00:00:00+00:00").hits]
    assert "We shop at Lidl for groceries." in before

    with Session(get_engine(db_url)) as s:
        audited = s.exec(select(GateDecision).where(GateDecision.extractor == "claims")).all()
    assert [(a.episode_id, a.op, a.memory_id) for a in audited] == [("u1-3", "update", old.memory_id)]
    assert audited[0].reason.startswith("claims: changed")
