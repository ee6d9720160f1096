"""Lessons through the queue: outcomes in, gated lessons out, rollback on misfire."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from memworks.errors import Conflict, InvalidInput
from memworks.models.tables import Lineage, Outcome, RejectedInput
from memworks_tools.evaluation import lessons as lessons_eval

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def outcome(
    i: int,
    features: list[str] | str,
    taken: str,
    right: str,
    *,
    task: str | None = None,
    user: str | None = None,
    tenant: str = "t1",
    **extra: Any,
) -> dict[str, Any]:
    """An outcome as an agent reports it (no user: the tenant's own word)."""
    ok = taken == right
    return {
        "outcome_id": f"o{i}",
        "tenant_id": tenant,
        "user_id": user,
        "task_id": task or f"case{i}",
        "task_type": "triage",
        "features": features,
        "action_taken": taken,
        "verified_action": None if ok else right,
        "success": ok,
        "occurred_at": (T0 + timedelta(minutes=i)).isoformat(),
        **extra,
    }


def breach_cases(start: int, n: int, **kw: Any) -> list[dict[str, Any]]:
    return [outcome(start + i, ["login", "breach"], "route_tech", "escalate_security", **kw) for i in range(n)]


def normal_login(start: int, n: int, **kw: Any) -> list[dict[str, Any]]:
    return [outcome(start + i, ["login", "password"], "route_tech", "route_tech", **kw) for i in range(n)]


@pytest.mark.parametrize("scenario", ["keywords", "free_text"])
def test_seed_example_through_the_actor_with_default_settings(scenario: str) -> None:
    """The seed run through the facade and the learning actor: 0.50 0.67 0.83 1.00 1.00, and
    "any refund is FRAUD" blocked by its one negative misfire."""
    r = lessons_eval.run(scenario, out=lambda _: None)
    assert r["accuracy"] == [0.5, 0.6667, 0.8333, 1.0, 1.0]
    assert r["held_out_accuracy"][-1] == 1.0 and r["max_promotions_per_episode"] == 1
    (refund,) = [e for e in r["events"] if e["pattern"] == ["refund"] and e["action"] == "FRAUD"]
    assert (refund["episode"], refund["status"]) == (1, "blocked")
    assert refund["report"].startswith("blocked: 1 negative misfire (outcome n1 wants BILLING)")
    promoted = [e for e in r["events"] if e["status"] == "active"]
    assert [e["episode"] for e in promoted] == [1, 2, 3]
    assert all(e["report"] == "held-out 1/1 fixed, 0 negative misfire, 0 regression, support 1" for e in promoted)


def test_noisy_version_never_promotes_a_lesson_that_lowers_held_out_accuracy() -> None:
    r = lessons_eval.run("noisy", out=lambda _: None)
    assert r["gate"]["promotions"] >= 1 and r["harmful_promotions"] == []
    assert r["held_out_accuracy"][-1] > r["held_out_accuracy"][0]
    assert all(b >= a for a, b in zip(r["held_out_accuracy"], r["held_out_accuracy"][1:], strict=False))


def test_exercise_4_a_fix_that_breaks_a_solved_case_is_blocked(sqlite_url: str, make_memworks: Any) -> None:
    """eu → FRAUD would fix an EU fraud case but break an EU refund the base policy routes right."""
    mw = make_memworks(sqlite_url)
    mw.report_outcomes(
        [
            outcome(1, ["refund", "fraud", "eu"], "FRAUD", "FRAUD"),
            outcome(2, ["refund", "eu"], "BILLING", "BILLING"),
            outcome(3, ["eu", "wire"], "BILLING", "FRAUD"),
        ]
    )
    mw.drain()
    (eu,) = [l for l in mw.lessons("t1") if l.pattern == ["eu"]]
    assert eu.status == "blocked" and eu.report.startswith("blocked: 1 negative misfire (outcome o2 wants BILLING)")
    assert mw.recommend("t1", "triage", ["refund", "eu"]).action is None


def test_promotion_needs_held_out_cases_and_blocks_over_general_patterns(db_url: str, make_memworks: Any) -> None:
    mw = make_memworks(db_url)
    # One failure, and repeated attempts at the same case: not held-out evidence.
    mw.report_outcomes(
        breach_cases(0, 1) + [outcome(1, ["login", "breach"], "route_tech", "escalate_security", task="case0")]
    )
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


def test_online_guard_rolls_back_a_lesson_worse_than_the_base_policy(sqlite_url: str, make_memworks: Any) -> None:
    mw = make_memworks(sqlite_url, lesson_guard_min_cases=3)
    # Before the lesson: one failure, two cases a person already escalated (the base got 2 of 3 right).
    mw.report_outcomes(
        [
            *breach_cases(0, 1),
            *[outcome(1 + i, ["login", "breach"], "escalate_security", "escalate_security") for i in range(2)],
            *normal_login(10, 2),
        ]
    )
    mw.drain()
    (active,) = [l for l in mw.lessons("t1") if l.status == "active"]
    # Where it fired since, breach reports come from a pentest and should go to the red team.
    mw.report_outcomes(
        [outcome(30 + i, ["login", "breach", "pentest"], "escalate_security", "route_redteam") for i in range(2)]
    )
    mw.drain()
    assert {l.lesson_id: l.status for l in mw.lessons("t1")}[active.lesson_id] == "active"  # 2 cases: too few
    mw.report_outcomes([outcome(40, ["login", "breach", "pentest"], "escalate_security", "route_redteam")])
    mw.drain()
    rolled = {l.lesson_id: l for l in mw.lessons("t1")}[active.lesson_id]
    assert rolled.status == "rolled_back"
    assert rolled.report.startswith(
        "rolled back by the online guard: right on 0 of 3 live cases where it fired (0.00), "
        "below the base policy's 2 of 3 on its pattern before activation (0.67); wrong: o30"
    )
    assert mw.recommend("t1", "triage", ["login", "breach"]).lesson_id != rolled.lesson_id


def test_each_promotion_is_a_version_and_rollback_restores_the_previous(sqlite_url: str, make_memworks: Any) -> None:
    mw = make_memworks(sqlite_url)
    mw.report_outcomes(breach_cases(0, 3) + normal_login(10, 3))
    mw.drain()
    (v1,) = [l for l in mw.lessons("t1") if l.status == "active"]
    # The team re-verifies the same tickets: breaches now go to the red team.
    mw.report_outcomes(
        [outcome(100 + i, ["login", "breach"], "escalate_security", "route_redteam", task=f"case{i}") for i in range(3)]
    )
    mw.drain()
    by_id = {l.lesson_id: l for l in mw.lessons("t1")}
    (v2,) = [l for l in by_id.values() if l.status == "active"]
    assert (v2.pattern, v2.action, v2.version, v2.previous_id) == (["breach"], "route_redteam", 2, v1.lesson_id)
    assert by_id[v1.lesson_id].status == "superseded" and by_id[v1.lesson_id].action == "escalate_security"
    assert mw.recommend("t1", "triage", ["login", "breach"]).action == "route_redteam"
    assert mw.rollback_lesson("t1", v2.lesson_id).status == "rolled_back"
    restored = {l.lesson_id: l for l in mw.lessons("t1")}[v1.lesson_id]
    assert restored.status == "active" and restored.report.startswith(
        f"restored: version 2 ({v2.lesson_id}) was rolled back"
    )
    assert mw.recommend("t1", "triage", ["login", "breach"]).lesson_id == v1.lesson_id


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
    for field, value in (
        ("features", ""),
        ("success", "maybe"),
        ("occurred_at", "2025-01-01"),
        ("task_type", ""),
        ("task_text", "x\x00y"),
        ("feedback", "f" * 2001),
        ("features", []),
    ):
        with pytest.raises(InvalidInput) as exc:
            mw.report_outcomes(normal_login(50, 1) + [dict(normal_login(60, 1)[0], **{field: value})])
        assert exc.value.field == field
    mw.drain()
    with Session(mw.runtime.engine) as s:  # the rejected batches stored nothing
        assert s.scalar(select(func.count()).select_from(Outcome)) == 2


def test_bad_mine_message_is_rejected_recorded_and_not_retried(sqlite_url: str, make_memworks: Any) -> None:
    from memworks.workers import mine_lessons

    mw = make_memworks(sqlite_url)
    mine_lessons.send("", "triage")
    with pytest.raises(InvalidInput):
        mw.drain()
    with Session(mw.runtime.engine) as s:
        assert (
            s.scalar(
                select(func.count()).select_from(RejectedInput).where(RejectedInput.kind == "message:mine_lessons")
            )
            == 1
        )
