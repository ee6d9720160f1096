"""Self-editing ops: ADD, NOOP, UPDATE, late corrections and DELETE, decided as pure data."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memworks.models.drafts import Candidate, ForgetRequest, MemoryView
from memworks.models.enums import CandidateOp, MemoryKind, MemoryStatus, Op, Source
from memworks.pipelines.gate import judge
from memworks.pipelines.ingest.supersession import Accepted, WritePlan, decide_writes, transcript_id

NOW = datetime(2025, 6, 1, tzinfo=UTC)
SCOPE = "t1\x1fu1"


def day(n: int) -> datetime:
    return datetime(2025, 1, 1, tzinfo=UTC) + timedelta(days=n)


def item(
    value: str,
    when: datetime,
    *,
    ep: str,
    key: str = "user.home_city",
    conf: float = 0.9,
    op: CandidateOp = CandidateOp.ASSERT,
    source: Source = Source.USER,
    forget: bool = False,
) -> Accepted:
    c = Candidate(
        op=op,
        key=key,
        value=value,
        text=f"User lives in {value}." if value else "forget",
        confidence=conf,
        evidence=(ep,),
        source=source,
        forget=ForgetRequest(topic="where they live") if forget else None,
    )
    return Accepted(c, judge(c), ep, when)


def apply(plan: WritePlan, existing: list[MemoryView], now: datetime = NOW) -> list[MemoryView]:
    """Replay a plan on plain views, as the store would."""
    rows = {m.memory_id: m for m in existing}
    for n in plan.new:
        rows[n.memory_id] = MemoryView(
            memory_id=n.memory_id,
            kind=n.kind,
            key=n.key,
            value=n.value,
            text=n.text,
            source=n.source,
            confidence=n.confidence,
            trusted=n.trusted,
            status=n.status,
            valid_from=n.valid_from,
            valid_to=n.valid_to,
            recorded_at=now,
            superseded_by=n.superseded_by,
            superseded_at=n.superseded_at,
            evidence=n.evidence,
            derived_from=n.derived_from,
        )
    for c in plan.closes:
        rows[c.memory_id] = rows[c.memory_id].model_copy(
            update={
                "valid_to": c.valid_to,
                "superseded_by": c.superseded_by,
                "superseded_at": now,
                "status": MemoryStatus.SUPERSEDED,
            }
        )
    for r in plan.reinforces:
        m = rows[r.memory_id]
        rows[r.memory_id] = m.model_copy(update={"evidence": m.evidence + r.evidence, "confidence": r.confidence})
    for mid in plan.revised:
        rows[mid] = rows[mid].model_copy(update={"retracted_at": now})
    for mid in plan.deleted:
        if mid in rows:
            rows[mid] = rows[mid].model_copy(update={"status": MemoryStatus.DELETED, "retracted_at": now})
    return list(rows.values())


def current(rows: list[MemoryView]) -> list[MemoryView]:
    return [m for m in rows if m.status is MemoryStatus.ACTIVE and m.retracted_at is None]


def test_add_then_restatement_is_noop_with_max_confidence_and_both_evidence() -> None:
    rows = apply(decide_writes([item("Lisbon", day(0), ep="e1", conf=0.7)], [], scope_key=SCOPE, now=NOW), [])
    plan = decide_writes([item("lisbon", day(10), ep="e2", conf=0.9)], rows, scope_key=SCOPE, now=NOW)
    assert plan.ops == [(Op.NOOP, rows[0].memory_id)]
    rows = apply(plan, rows)
    assert len(rows) == 1
    assert rows[0].evidence == ("e1", "e2") and rows[0].confidence == 0.9


def test_noop_never_lowers_confidence() -> None:
    rows = apply(decide_writes([item("Lisbon", day(0), ep="e1", conf=0.9)], [], scope_key=SCOPE, now=NOW), [])
    rows = apply(decide_writes([item("Lisbon", day(3), ep="e2", conf=0.5)], rows, scope_key=SCOPE, now=NOW), rows)
    assert rows[0].confidence == 0.9


def test_update_closes_valid_to_at_new_event_time_and_keeps_history() -> None:
    rows = apply(decide_writes([item("Lisbon", day(0), ep="e1")], [], scope_key=SCOPE, now=NOW), [])
    plan = decide_writes([item("Berlin", day(60), ep="e2")], rows, scope_key=SCOPE, now=NOW)
    assert plan.ops[0][0] is Op.UPDATE
    rows = apply(plan, rows)
    old = next(m for m in rows if m.value == "Lisbon")
    new = next(m for m in rows if m.value == "Berlin")
    assert old.status is MemoryStatus.SUPERSEDED and old.valid_to == day(60) and old.superseded_by == new.memory_id
    assert [m.value for m in current(rows)] == ["Berlin"]


def test_two_moves_in_one_batch_chain_correctly() -> None:
    plan = decide_writes(
        [item("Lisbon", day(0), ep="e1"), item("Berlin", day(5), ep="e2"), item("Oslo", day(9), ep="e3")],
        [],
        scope_key=SCOPE,
        now=NOW,
    )
    rows = apply(plan, [])
    assert [m.value for m in current(rows)] == ["Oslo"]
    by = {m.value: m for m in rows}
    assert by["Lisbon"].valid_to == day(5) and by["Berlin"].valid_to == day(9)


def test_late_arrival_before_everything_is_history_not_current() -> None:
    rows = apply(decide_writes([item("Berlin", day(60), ep="e2")], [], scope_key=SCOPE, now=NOW), [])
    plan = decide_writes([item("Lisbon", day(0), ep="e1")], rows, scope_key=SCOPE, now=NOW)
    rows = apply(plan, rows)
    lisbon = next(m for m in rows if m.value == "Lisbon")
    assert lisbon.status is MemoryStatus.SUPERSEDED and lisbon.valid_to == day(60)
    assert [m.value for m in current(rows)] == ["Berlin"]


def test_late_correction_inside_a_closed_interval_re_records_the_holder() -> None:
    # Lisbon [0, 60) then Berlin [60, ∞); we later learn of Porto from day 30.
    rows = apply(
        decide_writes(
            [item("Lisbon", day(0), ep="e1"), item("Berlin", day(60), ep="e3")], [], scope_key=SCOPE, now=NOW
        ),
        [],
    )
    later = NOW + timedelta(days=1)
    plan = decide_writes([item("Porto", day(30), ep="e2")], rows, scope_key=SCOPE, now=later)
    rows = apply(plan, rows, later)
    believed = [m for m in rows if m.retracted_at is None]
    intervals = sorted((m.valid_from, m.valid_to, m.value) for m in believed)
    assert intervals == [(day(0), day(30), "Lisbon"), (day(30), day(60), "Porto"), (day(60), None, "Berlin")]
    # The old Lisbon row stays, retracted at the correction's transaction time (known_at still sees it).
    old = [m for m in rows if m.value == "Lisbon" and m.retracted_at is not None]
    assert len(old) == 1 and old[0].valid_to == day(60) and old[0].retracted_at == later


def test_the_same_value_said_earlier_extends_the_record_back() -> None:
    # Berlin is known from day 60; then an older "I live in Berlin" from day 10 arrives.
    rows = apply(decide_writes([item("Berlin", day(60), ep="e2")], [], scope_key=SCOPE, now=NOW), [])
    later = NOW + timedelta(days=1)
    rows = apply(decide_writes([item("Berlin", day(10), ep="e1")], rows, scope_key=SCOPE, now=later), rows, later)
    believed = [m for m in rows if m.retracted_at is None]
    assert [(m.valid_from, m.valid_to, m.value, sorted(m.evidence)) for m in believed] == [
        (day(10), None, "Berlin", ["e1", "e2"])
    ]
    assert [m.valid_from for m in rows if m.retracted_at == later] == [day(60)]  # what was believed, kept


def test_a_late_statement_of_the_next_value_moves_the_change_earlier() -> None:
    # Lisbon [0, 60), Berlin [60, ∞); then "I live in Berlin" from day 30 arrives: one Berlin, from day 30.
    rows = apply(
        decide_writes(
            [item("Lisbon", day(0), ep="e1"), item("Berlin", day(60), ep="e3")], [], scope_key=SCOPE, now=NOW
        ),
        [],
    )
    later = NOW + timedelta(days=1)
    rows = apply(decide_writes([item("Berlin", day(30), ep="e2")], rows, scope_key=SCOPE, now=later), rows, later)
    believed = sorted((m.valid_from, m.valid_to, m.value) for m in rows if m.retracted_at is None)
    assert believed == [(day(0), day(30), "Lisbon"), (day(30), None, "Berlin")]
    lisbon = next(m for m in rows if m.value == "Lisbon" and m.retracted_at is None)
    berlin = next(m for m in rows if m.value == "Berlin" and m.retracted_at is None)
    assert lisbon.superseded_by == berlin.memory_id and sorted(berlin.evidence) == ["e2", "e3"]


def test_forget_request_deletes_chain_derived_records_and_evidence_transcripts() -> None:
    tz = Candidate(
        key="user.timezone", value="Europe/Lisbon", text="tz", evidence=("e1",), derived_from_key="user.home_city"
    )
    items = [item("Lisbon", day(0), ep="e1"), Accepted(tz, judge(tz), "e1", day(0)), item("Berlin", day(9), ep="e2")]
    rows = apply(decide_writes(items, [], scope_key=SCOPE, now=NOW), [])
    assert next(m for m in rows if m.key == "user.timezone").derived_from
    plan = decide_writes(
        [item("", day(20), ep="e3", op=CandidateOp.RETRACT, forget=True)], rows, scope_key=SCOPE, now=NOW
    )
    assert plan.ops == [(Op.DELETE, None)]
    assert {m.memory_id for m in rows} <= set(plan.deleted)
    assert transcript_id(SCOPE, "e1") in plan.deleted and transcript_id(SCOPE, "e2") in plan.deleted


def test_untrusted_claims_never_supersede_trusted_ones() -> None:
    rows = apply(decide_writes([item("Lisbon", day(0), ep="e1")], [], scope_key=SCOPE, now=NOW), [])
    plan = decide_writes(
        [item("Paris", day(5), ep="e2", source=Source.MODEL_INFERENCE)], rows, scope_key=SCOPE, now=NOW
    )
    rows = apply(plan, rows)
    trusted_current = [m.value for m in current(rows) if m.trusted]
    assert trusted_current == ["Lisbon"] and plan.closes == []


def test_same_input_gives_same_ids() -> None:
    a = decide_writes([item("Lisbon", day(0), ep="e1")], [], scope_key=SCOPE, now=NOW)
    b = decide_writes([item("Lisbon", day(0), ep="e1")], [], scope_key=SCOPE, now=NOW + timedelta(hours=1))
    assert [n.memory_id for n in a.new] == [n.memory_id for n in b.new]
    other = decide_writes([item("Lisbon", day(0), ep="e1")], [], scope_key="t2\x1fu1", now=NOW)
    assert other.new[0].memory_id != a.new[0].memory_id


def test_keyless_events_are_added_once() -> None:
    c = Candidate(kind=MemoryKind.EPISODIC, value="went hiking", text="went hiking", evidence=("e1",))
    plan = decide_writes(
        [Accepted(c, judge(c), "e1", day(0)), Accepted(c, judge(c), "e1", day(0))], [], scope_key=SCOPE, now=NOW
    )
    assert [op for op, _ in plan.ops] == [Op.ADD, Op.NOOP] and len(plan.new) == 1


def test_forget_request_in_the_same_batch_drops_the_new_transcript_too() -> None:
    from memworks.models.drafts import Turn
    from memworks.models.enums import Role
    from memworks.pipelines.ingest import transcript_candidate

    turn = Turn(
        episode_id="e1", role=Role.USER, source=Source.USER, content="My dog is called Pixel.", occurred_at=day(0)
    )
    t = transcript_candidate(turn)
    dog = Candidate(key="user.pet.dog", value="Pixel", text="User's dog is called Pixel.", evidence=("e1",))
    forget = Candidate(
        op=CandidateOp.RETRACT,
        key="user.pet.dog",
        text="forget",
        evidence=("e2",),
        forget=ForgetRequest(topic="their dog"),
    )
    items = [
        Accepted(t, judge(t), "e1", day(0)),
        Accepted(dog, judge(dog), "e1", day(0)),
        Accepted(forget, judge(forget), "e2", day(1)),
    ]
    plan = decide_writes(items, [], scope_key=SCOPE, now=NOW)
    assert plan.new == []
    assert transcript_id(SCOPE, "e1") in plan.deleted


def test_leaving_an_employer_ends_the_title_said_with_it_and_only_that() -> None:
    """ "I'm head baker at Ovenly" then "I quit Ovenly": the title of that job ends with it; a
    title said in another turn, and another person's, stay."""
    said = [
        item("Ovenly", day(0), ep="e1", key="user.employer"),
        item("Head Baker", day(0), ep="e1", key="user.job_title"),
        item("Brooklyn", day(0), ep="e1", key="user.work_city"),
        item("Baker", day(0), ep="e1", key="person.sam.job_title"),
    ]
    rows = apply(decide_writes(said, [], scope_key=SCOPE, now=NOW), [])
    quit_ = item("", day(30), ep="e2", key="user.employer", op=CandidateOp.RETRACT)
    rows = apply(decide_writes([quit_], rows, scope_key=SCOPE, now=NOW), rows)
    assert sorted((m.key, m.value) for m in current(rows)) == [("person.sam.job_title", "Baker")]
    assert {m.key: m.valid_to for m in rows if m.valid_to} == {
        "user.employer": day(30),
        "user.job_title": day(30),
        "user.work_city": day(30),
    }


def test_leaving_an_employer_keeps_a_title_said_on_its_own() -> None:
    rows = apply(
        decide_writes(
            [
                item("Ovenly", day(0), ep="e1", key="user.employer"),
                item("Pastry Chef", day(5), ep="e2", key="user.job_title"),
            ],
            [],
            scope_key=SCOPE,
            now=NOW,
        ),
        [],
    )
    quit_ = item("", day(30), ep="e3", key="user.employer", op=CandidateOp.RETRACT)
    rows = apply(decide_writes([quit_], rows, scope_key=SCOPE, now=NOW), rows)
    assert [(m.key, m.value) for m in current(rows)] == [("user.job_title", "Pastry Chef")]
