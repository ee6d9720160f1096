"""Lessons: mining from failures, the held-out replay gate, selection and rollback, as pure data."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memworks.models.drafts import LessonView, OutcomeView
from memworks.pipelines.lessons import (
    Decision,
    LessonPolicy,
    Proposal,
    guidance_for,
    judge_candidate,
    matches,
    mine_candidates,
    run_gate,
    select_lesson,
)

NOW = datetime(2025, 6, 1, tzinfo=UTC)
TT = "ticket_triage"
POLICY = LessonPolicy()
BE = ("billing", "enterprise")


def ok(
    oid: str, feats: tuple[str, ...], action: str, *, task: str | None = None, tt: str = TT, minutes: int = 0
) -> OutcomeView:
    """A successful outcome: the action taken was right."""
    return OutcomeView(
        outcome_id=oid,
        task_id=task,
        task_type=tt,
        features=feats,
        action_taken=action,
        success=True,
        occurred_at=NOW + timedelta(minutes=minutes),
    )


def fail(
    oid: str,
    feats: tuple[str, ...],
    taken: str,
    verified: str | None = None,
    *,
    task: str | None = None,
    tt: str = TT,
    minutes: int = 0,
) -> OutcomeView:
    """A failed outcome, with the verified right action when one is known."""
    return OutcomeView(
        outcome_id=oid,
        task_id=task,
        task_type=tt,
        features=feats,
        action_taken=taken,
        verified_action=verified,
        success=False,
        occurred_at=NOW + timedelta(minutes=minutes),
    )


def lesson(
    lid: str,
    pattern: tuple[str, ...],
    action: str,
    *,
    status: str = "candidate",
    mined: tuple[str, ...] = (),
    version: int = 1,
    tt: str = TT,
) -> LessonView:
    return LessonView(
        lesson_id=lid,
        task_type=tt,
        pattern=pattern,
        action=action,
        version=version,
        status=status,
        guidance=guidance_for(tt, pattern, action),
        mined_from=mined,
    )


def from_proposal(lid: str, p: Proposal) -> LessonView:
    return LessonView(
        lesson_id=lid,
        task_type=p.task_type,
        pattern=p.pattern,
        action=p.action,
        guidance=p.guidance,
        mined_from=p.mined_from,
    )


F1 = fail("f1", BE, "route_general", "escalate_billing", task="t1")
#: Three other cases that want escalate_billing, and one counter-example per single feature.
ESCALATIONS = [ok(f"e{n}", BE, "escalate_billing", task=f"t-e{n}") for n in (1, 2, 3)]
G1 = ok("g1", ("billing", "smb"), "route_general", task="t-g1")
G2 = ok("g2", ("enterprise", "password"), "reset_password", task="t-g2")


@pytest.mark.parametrize(
    ("pattern", "features", "expected"),
    [
        ((), ("a",), False),
        (("a",), ("a", "b"), True),
        (("a", "b"), ("b", "a"), True),
        (("a", "c"), ("a", "b"), False),
    ],
)
def test_matches(pattern: tuple[str, ...], features: tuple[str, ...], expected: bool) -> None:
    assert matches(pattern, features) is expected


def test_guidance_line() -> None:
    assert (
        guidance_for(TT, BE, "escalate_billing") == "For ticket_triage with billing + enterprise: do escalate_billing."
    )


# -- mining -------------------------------------------------------------------------------------

MINING = {
    "most supported single feature wins": (
        [
            fail("f1", ("billing", "enterprise", "urgent"), "route_general", "escalate_billing", task="t1"),
            *ESCALATIONS,
            ok("s1", ("billing", "smb"), "escalate_billing"),
            ok("u1", ("urgent",), "escalate_billing"),
        ],
        [],
        [(("billing",), "escalate_billing", ("f1",), 4)],
    ),
    "equally supported general patterns are all proposed; negatives do not reject": (
        [F1, *ESCALATIONS, G1, G2],
        [],
        [(("billing",), "escalate_billing", ("f1",), 3), (("enterprise",), "escalate_billing", ("f1",), 3)],
    ),
    "a blocked pair is never re-proposed": (
        [F1, *ESCALATIONS, G1, G2],
        [lesson("l1", ("billing",), "escalate_billing", status="blocked", mined=("f1",))],
        [(("enterprise",), "escalate_billing", ("f1",), 3)],
    ),
    "with the general patterns blocked the pair is proposed": (
        [F1, *ESCALATIONS, G1, G2],
        [
            lesson("l1", ("billing",), "escalate_billing", status="blocked"),
            lesson("l2", ("enterprise",), "escalate_billing", status="rolled_back"),
        ],
        [(BE, "escalate_billing", ("f1",), 3)],
    ),
    "a pair with another action does not block": (
        [F1, *ESCALATIONS],
        [lesson("l1", ("billing",), "route_general", status="blocked")],
        [(("billing",), "escalate_billing", ("f1",), 3), (("enterprise",), "escalate_billing", ("f1",), 3)],
    ),
    "no support anywhere: the most general untaken pattern, 0 positives": (
        [F1, G1],
        [lesson("l1", ("billing",), "escalate_billing", status="blocked")],
        [(("enterprise",), "escalate_billing", ("f1",), 0)],
    ),
    "every pattern taken: nothing": (
        [F1, *ESCALATIONS],
        [
            lesson(f"l{i}", p, "escalate_billing", status="deleted")
            for i, p in enumerate([("billing",), ("enterprise",), BE])
        ],
        [],
    ),
    "repeated attempts at the failure's own case are not support": (
        [
            F1,
            ok("f1b", BE, "escalate_billing", task="t1"),
            fail("f1c", BE, "route_general", "escalate_billing", task="t1"),
            ok("e1", ("enterprise",), "escalate_billing", task="t-e1"),
        ],
        [],
        [(("enterprise",), "escalate_billing", ("f1",), 1)],
    ),
    "attempts at one other case count once": (
        [
            F1,
            ok("e1", ("billing",), "escalate_billing", task="x"),
            ok("e1b", ("billing",), "escalate_billing", task="x"),
            ok("e2", ("enterprise",), "escalate_billing"),
            ok("e3", ("enterprise",), "escalate_billing"),
        ],
        [],
        [(("enterprise",), "escalate_billing", ("f1",), 2)],
    ),
    "failures giving the same proposal: mined from the earliest, the rest stay held-out": (
        [F1, fail("f2", BE, "close_ticket", "escalate_billing", task="t2"), *ESCALATIONS],
        [],
        [(("billing",), "escalate_billing", ("f1",), 4), (("enterprise",), "escalate_billing", ("f1",), 4)],
    ),
    "no verified action, verified == taken, empty features, other task type: nothing": (
        [
            fail("n1", BE, "route_general"),
            fail("n2", BE, "escalate_billing", "escalate_billing"),
            fail("n3", (), "route_general", "escalate_billing"),
            fail("n4", BE, "route_general", "escalate_billing", tt="refunds"),
            *ESCALATIONS,
        ],
        [],
        [],
    ),
    "a failure behind a pending candidate is not mined again": (
        [F1, *ESCALATIONS],
        [lesson("l1", ("billing",), "escalate_billing", mined=("f1",))],
        [],
    ),
    "a failure the active lesson already answers is not mined again": (
        [F1, *ESCALATIONS],
        [lesson("l1", BE, "escalate_billing", status="active", mined=("zz",))],
        [],
    ),
    "a failure the firing active lesson gets wrong is mined": (
        [F1, *ESCALATIONS],
        [lesson("l1", ("billing",), "route_general", status="active")],
        [(("billing",), "escalate_billing", ("f1",), 3), (("enterprise",), "escalate_billing", ("f1",), 3)],
    ),
    "at most max_proposals_per_failure tied patterns, lexicographic": (
        [fail("w1", ("a", "b", "c", "d"), "x", "y"), ok("w2", ("a", "b", "c", "d", "z"), "y")],
        [],
        [(("a",), "y", ("w1",), 1), (("b",), "y", ("w1",), 1), (("c",), "y", ("w1",), 1)],
    ),
}


@pytest.mark.parametrize(("outcomes", "lessons", "expected"), list(MINING.values()), ids=list(MINING))
def test_mining(outcomes: list[OutcomeView], lessons: list[LessonView], expected: list[tuple[object, ...]]) -> None:
    got = mine_candidates(outcomes, lessons, task_type=TT, policy=POLICY)
    assert [(p.pattern, p.action, p.mined_from, p.positives) for p in got] == expected
    assert all(p.task_type == TT and p.guidance == guidance_for(TT, p.pattern, p.action) for p in got)


def test_mining_respects_max_pattern_size_and_orders_by_support() -> None:
    outcomes = [
        F1,
        fail("p1", ("password", "reset"), "route_general", "reset_password", task="tp"),
        ok("r1", ("password",), "reset_password"),
        *ESCALATIONS,
    ]
    taken = [
        lesson("l1", ("billing",), "escalate_billing", status="blocked"),
        lesson("l2", ("enterprise",), "escalate_billing", status="blocked"),
    ]
    got = mine_candidates(outcomes, taken, task_type=TT, policy=LessonPolicy(max_pattern_size=1))
    assert [(p.pattern, p.action, p.positives) for p in got] == [(("password",), "reset_password", 1)]
    got = mine_candidates(outcomes, taken, task_type=TT, policy=POLICY)
    assert [(p.pattern, p.positives) for p in got] == [(BE, 3), (("password",), 1)]


def test_blocked_general_pattern_leads_to_a_more_specific_one() -> None:
    """Mine → the gate blocks both over-general patterns → mine again → the specific one is promoted."""
    outcomes = [F1, *ESCALATIONS, G1, G2]
    lessons: list[LessonView] = []
    history = []
    for run in range(2):
        for n, proposal in enumerate(mine_candidates(outcomes, lessons, task_type=TT, policy=POLICY)):
            candidate = from_proposal(f"l{run}{n}", proposal)
            decision = judge_candidate(candidate, outcomes, [], policy=POLICY)
            history.append((proposal.pattern, decision.status, decision.report))
            lessons.append(candidate.model_copy(update={"status": decision.status}))
    assert history == [
        (
            ("billing",),
            "blocked",
            "blocked: 1 negative misfire (outcome g1 wants route_general); "
            "held-out 3/4 fixed, 1 negative misfire, 0 regression, support 4",
        ),
        (
            ("enterprise",),
            "blocked",
            "blocked: 1 negative misfire (outcome g2 wants reset_password); "
            "held-out 3/4 fixed, 1 negative misfire, 0 regression, support 4",
        ),
        (BE, "active", "held-out 3/3 fixed, 0 negative misfire, 0 regression, support 3"),
    ]
    assert mine_candidates(outcomes, lessons, task_type=TT, policy=POLICY) == []


# -- the gate -----------------------------------------------------------------------------------

CANDIDATE = lesson("c1", BE, "escalate_billing", mined=("f1",))
ACTIVE_BILLING = lesson("a1", ("billing",), "route_general", status="active")
R1 = ok("r1", ("billing", "enterprise", "smb"), "route_general", task="t-r1")

GATE = {
    "promote": (
        [F1, *ESCALATIONS],
        [],
        ("active", 3, 3, 0, 0, 3, "held-out 3/3 fixed, 0 negative misfire, 0 regression, support 3"),
        ("e1", "e2", "e3"),
    ),
    "block on a negative misfire": (
        [F1, *ESCALATIONS, ok("g7", ("billing", "enterprise", "smb"), "route_general")],
        [],
        (
            "blocked",
            4,
            3,
            1,
            0,
            4,
            "blocked: 1 negative misfire (outcome g7 wants route_general); "
            "held-out 3/4 fixed, 1 negative misfire, 0 regression, support 4",
        ),
        ("e1", "e2", "e3", "g7"),
    ),
    "block names at most three offenders": (
        [F1, *ESCALATIONS, *[ok(f"g{n}", BE, "refund") for n in range(4)]],
        [],
        (
            "blocked",
            7,
            3,
            4,
            0,
            7,
            "blocked: 4 negative misfires (outcome g0 wants refund, outcome g1 wants refund, "
            "outcome g2 wants refund); held-out 3/7 fixed, 4 negative misfire, 0 regression, "
            "support 7",
        ),
        ("e1", "e2", "e3", "g0", "g1", "g2", "g3"),
    ),
    "attempts at the mined case are not held-out evidence": (
        [F1, ok("f1b", BE, "escalate_billing", task="t1"), ok("f1c", BE, "escalate_billing", task="t1")],
        [],
        (
            "candidate",
            0,
            0,
            0,
            0,
            0,
            "pending: 0 of 1 held-out cases; held-out 0/0 fixed, 0 negative misfire, 0 regression, support 0",
        ),
        (),
    ),
    "attempts at one held-out case count once": (
        [F1, ok("e1", BE, "escalate_billing", task="x"), ok("e1b", BE, "escalate_billing", task="x")],
        [],
        ("active", 1, 1, 0, 0, 1, "held-out 1/1 fixed, 0 negative misfire, 0 regression, support 1"),
        ("e1", "e1b"),
    ),
    "a case's latest known answer is its truth": (
        [
            F1,
            *ESCALATIONS[:2],
            ok("x1", BE, "route_general", task="x"),
            fail("x2", BE, "route_general", "escalate_billing", task="x", minutes=5),
        ],
        [],
        ("active", 3, 3, 0, 0, 3, "held-out 3/3 fixed, 0 negative misfire, 0 regression, support 3"),
        ("e1", "e2", "x1", "x2"),
    ),
    "an unverified failure is support but not evidence of a fix": (
        [F1, fail("u1", BE, "route_general")],
        [],
        (
            "candidate",
            0,
            0,
            0,
            0,
            1,
            "pending: 0 of 1 held-out cases; held-out 0/0 fixed, 0 negative misfire, 0 regression, support 1",
        ),
        ("u1",),
    ),
    "a case wrong today that wants a third action is left wrong, not a break": (
        [F1, *ESCALATIONS, fail("w1", BE, "route_general", "refund")],
        [],
        ("active", 4, 3, 0, 0, 4, "held-out 3/4 fixed, 0 negative misfire, 0 regression, 1 left wrong, support 4"),
        ("e1", "e2", "e3", "w1"),
    ),
    "too many left wrong: the candidate waits": (
        [F1, ESCALATIONS[0], fail("w1", BE, "route_general", "refund")],
        [],
        (
            "candidate",
            2,
            1,
            0,
            0,
            2,
            "pending: 1 of 2 held-out cases left wrong (outcome w1 wants refund), more "
            "than 25%; held-out 1/2 fixed, 0 negative misfire, 0 regression, 1 left wrong, "
            "support 2",
        ),
        ("e1", "w1"),
    ),
    "regression against an active lesson": (
        [F1, *ESCALATIONS, R1],
        [ACTIVE_BILLING],
        (
            "blocked",
            4,
            3,
            1,
            1,
            4,
            "blocked: 1 negative misfire (outcome r1 wants route_general), "
            "1 regression (outcome r1 answered by a1); "
            "held-out 3/4 fixed, 1 negative misfire, 1 regression, support 4",
        ),
        ("e1", "e2", "e3", "r1"),
    ),
    "regression against an equally specific active lesson": (
        [F1, *ESCALATIONS, ok("r2", BE, "route_general", task="t-r2")],
        [lesson("a4", BE, "route_general", status="active")],
        (
            "blocked",
            4,
            3,
            1,
            1,
            4,
            "blocked: 1 negative misfire (outcome r2 wants route_general), "
            "1 regression (outcome r2 answered by a4); "
            "held-out 3/4 fixed, 1 negative misfire, 1 regression, support 4",
        ),
        ("e1", "e2", "e3", "r2"),
    ),
    "no regression where a more specific active lesson keeps firing": (
        [F1, *ESCALATIONS, R1],
        [lesson("a2", ("billing", "enterprise", "smb"), "route_general", status="active")],
        (
            "blocked",
            4,
            3,
            1,
            0,
            4,
            "blocked: 1 negative misfire (outcome r1 wants route_general); "
            "held-out 3/4 fixed, 1 negative misfire, 0 regression, support 4",
        ),
        ("e1", "e2", "e3", "r1"),
    ),
    "other task types are ignored": (
        [F1, *ESCALATIONS[:2], ok("o1", BE, "route_general", tt="refunds")],
        [lesson("a3", BE, "x", status="active", tt="refunds")],
        ("active", 2, 2, 0, 0, 2, "held-out 2/2 fixed, 0 negative misfire, 0 regression, support 2"),
        ("e1", "e2"),
    ),
}


@pytest.mark.parametrize(("outcomes", "active", "expected", "evidence"), list(GATE.values()), ids=list(GATE))
def test_gate(
    outcomes: list[OutcomeView], active: list[LessonView], expected: tuple[object, ...], evidence: tuple[str, ...]
) -> None:
    d = judge_candidate(CANDIDATE, outcomes, active, policy=POLICY)
    assert (d.status, d.held_out, d.fixed, d.negatives, d.regressions, d.support, d.report) == expected
    assert d.evidence == evidence


def test_min_support_comes_from_the_policy() -> None:
    """One fixed held-out case promotes by default; a stricter setting makes the candidate wait."""
    d = judge_candidate(CANDIDATE, [F1, ESCALATIONS[0]], [], policy=POLICY)
    assert (d.status, d.report) == ("active", "held-out 1/1 fixed, 0 negative misfire, 0 regression, support 1")
    d = judge_candidate(CANDIDATE, [F1, ESCALATIONS[0]], [], policy=LessonPolicy(min_support=2))
    assert (d.status, d.report) == (
        "candidate",
        "pending: 1 of 2 held-out cases; held-out 1/1 fixed, 0 negative misfire, 0 regression, support 1",
    )


def test_no_tolerance_for_left_wrong_cases_when_set_to_zero() -> None:
    outcomes = [F1, *ESCALATIONS, fail("w1", BE, "route_general", "refund")]
    assert judge_candidate(CANDIDATE, outcomes, [], policy=LessonPolicy(max_unfixed_share=0)).status == "candidate"


# -- governance batch ---------------------------------------------------------------------------

PASSWORD = lesson("c2", ("password",), "reset_password", mined=("p0",))
BATCH_OUTCOMES = [
    F1,
    *ESCALATIONS,
    fail("p0", ("password",), "route_general", "reset_password"),
    ok("p1", ("password", "smb"), "reset_password"),
    ok("p2", ("password",), "reset_password"),
]


@pytest.mark.parametrize(
    ("max_promotions", "expected"),
    [
        (
            1,
            [
                ("c1", "active", "held-out 3/3 fixed, 0 negative misfire, 0 regression, support 3"),
                (
                    "c2",
                    "candidate",
                    "deferred: governance batch full; held-out 2/2 fixed, 0 negative misfire, 0 regression, support 2",
                ),
            ],
        ),
        (
            2,
            [
                ("c1", "active", "held-out 3/3 fixed, 0 negative misfire, 0 regression, support 3"),
                ("c2", "active", "held-out 2/2 fixed, 0 negative misfire, 0 regression, support 2"),
            ],
        ),
        (
            0,
            [
                (
                    "c1",
                    "candidate",
                    "deferred: governance batch full; held-out 3/3 fixed, 0 negative misfire, 0 regression, support 3",
                ),
                (
                    "c2",
                    "candidate",
                    "deferred: governance batch full; held-out 2/2 fixed, 0 negative misfire, 0 regression, support 2",
                ),
            ],
        ),
    ],
)
def test_governance_batch(max_promotions: int, expected: list[tuple[str, str, str]]) -> None:
    # Passed in the "wrong" order: the gate sorts by support, so c1 (support 3) goes first.
    got = run_gate(
        [PASSWORD, CANDIDATE], BATCH_OUTCOMES, [], policy=LessonPolicy(max_promotions_per_run=max_promotions)
    )
    assert [(c.lesson_id, d.status, d.report) for c, d in got] == expected


def test_later_candidates_are_judged_against_earlier_promotions() -> None:
    general = lesson("c1", ("billing",), "route_general", mined=("b0",))
    specific = lesson("c2", BE, "escalate_billing", mined=("f1",))
    # f1 (the specific one's own failure) is left out: it would be a misfire of the general one.
    outcomes = [
        fail("b0", ("billing",), "close", "route_general"),
        *[ok(f"b{n}", ("billing",), "route_general") for n in (1, 2, 3)],
        R1,
    ]
    alone = judge_candidate(specific, outcomes, [], policy=POLICY)
    assert (alone.status, alone.negatives, alone.regressions) == ("blocked", 1, 0)
    got = run_gate([specific, general], outcomes, [], policy=POLICY)
    assert [(c.lesson_id, d.status, d.negatives, d.regressions) for c, d in got] == [
        ("c1", "active", 0, 0),
        ("c2", "blocked", 1, 1),
    ]
    assert got[1][1].report.startswith(
        "blocked: 1 negative misfire (outcome r1 wants route_general), 1 regression (outcome r1 answered by c1); "
    )


def test_decision_is_a_frozen_value() -> None:
    d = judge_candidate(CANDIDATE, [F1, *ESCALATIONS], [], policy=POLICY)
    assert isinstance(d, Decision)
    with pytest.raises(AttributeError):
        d.status = "blocked"  # type: ignore[misc]


# -- selection and rollback ---------------------------------------------------------------------

SELECTABLE = [
    lesson("a", ("billing",), "route_general", status="active"),
    lesson("b", BE, "escalate_billing", status="active"),
    lesson("d", BE, "escalate_vip", status="active", version=2),
    lesson("c", ("billing", "enterprise", "smb"), "route_smb"),  # candidate: never fires
    lesson("z", ("password",), "reset_password", status="active"),
    lesson("y", ("password",), "reset_now", status="active"),
]


@pytest.mark.parametrize(
    ("features", "expected"),
    [
        (("billing",), "a"),
        (("billing", "smb"), "a"),
        (("billing", "enterprise"), "d"),  # most specific; tie → newest version
        (("billing", "enterprise", "smb"), "d"),  # the more specific one is only a candidate
        (("password", "smb"), "y"),  # same length, same version → lesson id
        (("refund",), None),
        ((), None),
    ],
)
def test_select_lesson(features: tuple[str, ...], expected: str | None) -> None:
    got = select_lesson(SELECTABLE, features)
    assert (got.lesson_id if got else None) == expected
