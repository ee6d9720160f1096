"""Lessons through the queue: outcomes in, gated lessons out, rollback on misfire."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from memworks.errors import Conflict, InvalidInput
from memworks.evaluation import lessons as lessons_eval
from memworks.models.tables import Lesson, Lineage, RejectedInput

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def outcome(i: int, features: list[str] | str, taken: str, right: str, *, task: str | None = None, user: str = "u1",
            tenant: str = "t1") -> dict[str, Any]:  # fmt: skip
    ok = taken == right
    return {"outcome_id": f"o{i}", "tenant_id": tenant, "user_id": user, "task_id": task or f"case{i}",
            "task_type": "triage", "features": features, "action_taken": taken,
            "verified_action": None if ok else right, "success": ok,
            "occurred_at": (T0 + timedelta(minutes=i)).isoformat()}  # fmt: skip


def breach_cases(start: int, n: int, **kw: Any) -> list[dict[str, Any]]:
    return [outcome(start + i, ["login", "breach"], "route_tech", "escalate_security", **kw) for i in range(n)]


def normal_login(start: int, n: int, **kw: Any) -> list[dict[str, Any]]:
    return [outcome(start + i, ["login", "password"], "route_tech", "route_tech", **kw) for i in range(n)]


@pytest.mark.parametrize("free_text", [False, True], ids=["keywords", "free_text"])
def test_learning_curve_rises_to_one_and_holds(free_text: bool) -> None:
    r = lessons_eval.run(free_text=free_text, out=lambda _: None)
    curve = r["accuracy"]
    assert curve[0] < 0.7 and curve[-1] == 1.0
    first = curve.index(1.0)
    assert all(a == 1.0 for a in curve[first:]), curve  # holds once reached
    assert r["max_promotions_per_episode"] <= 1
    promoted = [e for e in r["events"] if e["status"] == "active"]
    assert promoted and all("0 negative misfire, 0 regression" in e["report"] for e in promoted)
    assert r["blocked_with_misfire"], "an over-general candidate must be blocked by a negative case"


def test_promotion_needs_held_out_cases_and_blocks_over_general_patterns(db_url: str, make_memworks: Any) -> None:
    mw = make_memworks(db_url)
    # One failure, and repeated attempts at the same case: not held-out evidence.
    mw.report_outcomes(breach_cases(0, 1) + [outcome(1, ["login", "breach"], "route_tech", "escalate_security", task="case0")])
    mw.drain()
    assert [l.status for l in mw.lessons("t1")] == ["candidate"]
    assert mw.recommend("t1", "triage", ["login", "breach"]).action is None
    mw.report_outcomes(breach_cases(10, 3) + normal_login(20, 3))
    mw.drain()
    by_pattern = {tuple(l.pattern): l for l in mw.lessons("t1")}
    assert by_pattern[("breach",)].status == "active"
    assert by_pattern[("breach",)].report.startswith("held-out 3/3 fixed, 0 negative misfire")
    rec = mw.recommend("t1", "triage", "Possible breach on my login")
    assert rec.action == "escalate_security" and rec.lesson_id == by_pattern[("breach",)].lesson_id
    assert mw.recommend("t1", "triage", ["login", "password"]).action is None
    with Session(mw.runtime.engine) as s:
        edges = s.scalars(select(Lineage.relation).where(Lineage.child_id == by_pattern[("breach",)].lesson_id)).all()
    assert {"mined_from", "validated_on"} <= set(edges)


def test_operator_proposal_goes_through_the_same_gate(sqlite_url: str, make_memworks: Any) -> None:
    mw = make_memworks(sqlite_url)
    mw.report_outcomes(breach_cases(0, 3) + normal_login(10, 3))
    mw.drain()
    too_broad = mw.propose_lesson("t1", "triage", ["login"], "escalate_security")
    assert too_broad.status == "blocked" and "3 negative misfires" in too_broad.report
    assert too_broad.origin == "proposed"


def test_a_misfiring_lesson_is_rolled_back_with_evidence(sqlite_url: str, make_memworks: Any) -> None:
    mw = make_memworks(sqlite_url)
    mw.report_outcomes(breach_cases(0, 4) + normal_login(10, 2))
    mw.drain()
    active = [l for l in mw.lessons("t1") if l.status == "active"]
    assert len(active) == 1
    # Later verified outcomes: breach reports from a pentest should go to the red team.
    mw.report_outcomes([outcome(30 + i, ["login", "breach", "pentest"], "escalate_security", "route_redteam")
                        for i in range(2)])  # fmt: skip
    mw.drain()
    rolled = {l.lesson_id: l for l in mw.lessons("t1")}[active[0].lesson_id]
    assert rolled.status == "rolled_back" and "o30" in rolled.report
    assert mw.recommend("t1", "triage", ["login", "breach"]).lesson_id != rolled.lesson_id


def test_mining_twice_changes_nothing(sqlite_url: str, make_memworks: Any) -> None:
    mw = make_memworks(sqlite_url)
    mw.report_outcomes(breach_cases(0, 4) + normal_login(10, 2))
    mw.drain()
    before = [l.model_dump() for l in mw.lessons("t1")]
    mw.mine_lessons("t1")
    mw.mine_lessons("t1")
    mw.drain()
    assert [l.model_dump() for l in mw.lessons("t1")] == before


def test_outcomes_are_idempotent_and_bad_ones_name_the_field(sqlite_url: str, make_memworks: Any) -> None:
    mw = make_memworks(sqlite_url)
    first = mw.report_outcomes(breach_cases(0, 2))
    again = mw.report_outcomes(breach_cases(0, 2))
    assert first.accepted == ["o0", "o1"] and again.duplicates == ["o0", "o1"]
    with pytest.raises(Conflict, match="o0"):
        mw.report_outcomes([dict(breach_cases(0, 1)[0], success=True)])
    for field, value in (("features", ""), ("success", "maybe"), ("occurred_at", "2025-01-01"), ("task_type", "")):
        with pytest.raises(InvalidInput) as exc:
            mw.report_outcomes(normal_login(50, 1) + [dict(normal_login(60, 1)[0], **{field: value})])
        assert exc.value.field == field
    mw.drain()
    with Session(mw.runtime.engine) as s:
        assert s.scalar(select(func.count()).select_from(Lesson)) is not None
    assert len(mw.lessons("t1")) <= 1


def test_bad_mine_message_is_rejected_recorded_and_not_retried(sqlite_url: str, make_memworks: Any) -> None:
    from memworks.workers import mine_lessons

    mw = make_memworks(sqlite_url)
    mine_lessons.send("", "triage")
    with pytest.raises(InvalidInput):
        mw.drain()
    with Session(mw.runtime.engine) as s:
        assert s.scalar(select(func.count()).select_from(RejectedInput).where(RejectedInput.kind == "message:mine_lessons")) == 1
