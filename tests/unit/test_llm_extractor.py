"""The llm extractor's prompt/parse pipeline, with a fake completer (no network)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from memworks.models.drafts import Candidate, Turn
from memworks.models.enums import CandidateOp, MemoryKind, Role, Source
from memworks.pipelines.extraction.base import ExtractionRejected
from memworks.pipelines.extraction.llm import (
    EXTRACTION_PROMPT,
    MAX_OPERATIONS,
    LLMExtractor,
    build_prompt,
    parse_operations,
)

LISBON_TZ = timezone(timedelta(hours=1))
TURN = Turn(
    episode_id="ep-42",
    role=Role.USER,
    source=Source.USER,
    content="I moved to Lisbon last month and I'm vegetarian now.",
    occurred_at=datetime(2025, 3, 10, 9, 30, tzinfo=LISBON_TZ),
)


def _op(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "op": "assert",
        "kind": "semantic",
        "key": "user.home_city",
        "value": "Lisbon",
        "text": "User lives in Lisbon.",
        "confidence": 0.9,
        "valid_from": None,
        "plan": False,
        "outward_action": False,
    }
    base.update(overrides)
    return base


def _reply(*ops: dict[str, Any]) -> str:
    return json.dumps({"operations": list(ops)})


def _rejection(raw: str) -> str:
    with pytest.raises(ExtractionRejected) as info:
        parse_operations(raw, TURN)
    return info.value.reason


def test_valid_operations_become_exact_candidates() -> None:
    raw = _reply(
        _op(valid_from="2025-02-01T00:00:00+00:00"),
        _op(key="user.diet", value="vegetarian", text="User is vegetarian.", confidence=1),
        _op(op="retract", key="user.pref.seat", value="", text="", confidence=0.7),
        _op(
            kind="procedural",
            key="user.pref.outward.cc_manager",
            value="always",
            text="User wants their manager copied on emails.",
            confidence=0.6,
            outward_action=True,
        ),
        _op(
            kind="episodic",
            key="user.plan",
            value="visit Porto",
            text="User plans to visit Porto.",
            plan=True,
            confidence=0.5,
        ),
    )
    common: dict[str, Any] = {"evidence": ("ep-42",), "source": Source.USER, "extractor": "llm"}
    assert parse_operations(raw, TURN) == [
        Candidate(
            op=CandidateOp.ASSERT,
            kind=MemoryKind.SEMANTIC,
            key="user.home_city",
            value="Lisbon",
            text="User lives in Lisbon.",
            confidence=0.9,
            valid_from=datetime(2025, 2, 1, tzinfo=UTC),
            **common,
        ),
        Candidate(key="user.diet", value="vegetarian", text="User is vegetarian.", confidence=1.0, **common),
        Candidate(op=CandidateOp.RETRACT, key="user.pref.seat", confidence=0.7, **common),
        Candidate(
            kind=MemoryKind.PROCEDURAL,
            key="user.pref.outward.cc_manager",
            value="always",
            text="User wants their manager copied on emails.",
            confidence=0.6,
            outward_action=True,
            **common,
        ),
        Candidate(
            kind=MemoryKind.EPISODIC,
            key="user.plan",
            value="visit Porto",
            text="User plans to visit Porto.",
            confidence=0.5,
            plan=True,
            **common,
        ),
    ]


def test_empty_operations_is_an_empty_list() -> None:
    assert parse_operations('{"operations": []}', TURN) == []


def test_source_comes_from_the_turn() -> None:
    tool_turn = TURN.model_copy(update={"source": Source.VERIFIED_TOOL})
    [candidate] = parse_operations(_reply(_op()), tool_turn)
    assert candidate.source is Source.VERIFIED_TOOL


def test_fenced_json_is_accepted() -> None:
    raw = "```json\n" + _reply(_op()) + "\n```\n"
    [candidate] = parse_operations(raw, TURN)
    assert (candidate.key, candidate.value) == ("user.home_city", "Lisbon")


def test_naive_valid_from_takes_the_turns_timezone() -> None:
    [candidate] = parse_operations(_reply(_op(valid_from="2025-03-01T08:00:00")), TURN)
    assert candidate.valid_from == datetime(2025, 3, 1, 8, 0, tzinfo=LISBON_TZ)
    assert candidate.valid_from is not None
    assert candidate.valid_from.utcoffset() == timedelta(hours=1)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("User lives in Lisbon.", "not JSON: Invalid JSON"),
        ("Sure! " + _reply(_op()), "not JSON: Invalid JSON"),
        ("[" + json.dumps(_op()) + "]", "reply: Input should be an object"),
        ('{"ops": []}', "operations: Field required"),
        (json.dumps({"operations": [], "note": "x"}), "note: Extra inputs are not permitted"),
        (_reply(_op(), _op(surprise=1)), "operations[1].surprise: Extra inputs are not permitted"),
        (_reply(_op(), _op(confidence=1.5)), "operations[1].confidence: Input should be less than or equal to 1"),
        (_reply(_op(confidence=-0.1)), "operations[0].confidence: Input should be greater than or equal to 0"),
        (_reply(_op(confidence="0.9")), "operations[0].confidence: Input should be a valid number"),
        (
            _reply(_op(kind="belief")),
            "operations[0].kind: Input should be 'semantic', 'episodic', 'procedural' or 'working'",
        ),
        (
            _reply(_op(op="upsert")),
            "operations[0].op: Input should be 'assert', 'retract', 'add', 'update', 'noop' or 'delete'",
        ),
        (_reply(_op(key="User.Home City")), "operations[0].key: String should match pattern"),
        (_reply(_op(key="user..city")), "operations[0].key: String should match pattern"),
        (_reply(_op(plan="yes")), "operations[0].plan: Input should be a valid boolean"),
        (_reply(_op(valid_from="next tuesday")), "operations[0].valid_from: Input should be a valid datetime"),
        (_reply(_op(valid_from=1741600000)), "operations[0].valid_from: Input should be a valid datetime"),
        (_reply(_op(value="")), "operations[0]: Value error, an assert needs a non-empty value and text"),
        (_reply(_op(op="retract", value="Lisbon")), "operations[0]: Value error, a retract must leave value empty"),
        (_reply(*[_op()] * (MAX_OPERATIONS + 1)), f"operations: List should have at most {MAX_OPERATIONS} items"),
    ],
)
def test_malformed_replies_are_rejected_naming_the_problem(raw: str, expected: str) -> None:
    assert _rejection(raw).startswith(expected)


def test_exactly_max_operations_is_accepted() -> None:
    assert len(parse_operations(_reply(*[_op()] * MAX_OPERATIONS), TURN)) == MAX_OPERATIONS


def test_one_bad_operation_rejects_the_whole_reply() -> None:
    calls: list[str] = []

    def complete(prompt: str) -> str:
        calls.append(prompt)
        return _reply(_op(), _op(), _op(kind="nope"))

    with pytest.raises(ExtractionRejected, match=r"^operations\[2\]\.kind: "):
        LLMExtractor(complete)(TURN)
    assert len(calls) == 1


@pytest.mark.parametrize("role", [Role.ASSISTANT, Role.TOOL, Role.SYSTEM])
def test_non_user_turns_never_call_the_completer(role: Role) -> None:
    def complete(prompt: str) -> str:
        raise AssertionError("completer must not be called")

    assert LLMExtractor(complete)(TURN.model_copy(update={"role": role})) == []


def test_extractor_sends_prompt_with_context_and_last_turn() -> None:
    earlier = Turn(
        episode_id="ep-41",
        role=Role.ASSISTANT,
        source=Source.MODEL_INFERENCE,
        content='Where do you live? "quoted"',
        occurred_at=TURN.occurred_at,
    )
    prompts: list[str] = []

    def complete(prompt: str) -> str:
        prompts.append(prompt)
        return _reply(_op())

    extractor = LLMExtractor(complete)
    assert extractor.name == "llm"
    [candidate] = extractor(TURN, context=[earlier])
    assert candidate.evidence == ("ep-42",)
    assert prompts == [build_prompt(TURN, [earlier])]
    prompt = prompts[0]
    assert prompt.startswith(EXTRACTION_PROMPT)
    # Context comes before the last turn, and both are JSON-encoded.
    context_at = prompt.index(json.dumps('Where do you live? "quoted"'))
    last_at = prompt.index(json.dumps(TURN.content))
    assert context_at < prompt.index("LAST turn (extract from this one only):") < last_at
    for key in ("user.home_city", "user.pet.<species>", "user.pref.outward.<slug>", "user.plan"):
        assert key in EXTRACTION_PROMPT


def test_prompt_without_context_says_none() -> None:
    assert "reference only):\n(none)\n" in build_prompt(TURN)


def _stored(key: str, value: str) -> Any:
    from memworks.models.drafts import MemoryView
    from memworks.models.enums import MemoryStatus

    return MemoryView(
        memory_id=key,
        kind=MemoryKind.SEMANTIC,
        key=key,
        value=value,
        text=f"{key}: {value}",
        source=Source.USER,
        confidence=0.9,
        trusted=True,
        status=MemoryStatus.ACTIVE,
        valid_from=TURN.occurred_at,
        recorded_at=TURN.occurred_at,
    )


def test_mem0_operations_map_to_the_candidate_contract_on_stored_slots() -> None:
    """Given the stored slots in the prompt, add / update / noop become assertions (supersession
    decides ADD, UPDATE or NOOP against the slot) and delete a retraction; the event time is kept."""
    prompts: list[str] = []
    ops = [
        _op(op="update", key="user.phone", value="iPhone", text="User uses an iPhone."),
        _op(op="noop", key="user.car", value="Volvo", text="User drives a Volvo."),
        _op(op="delete", key="user.employer", value="", text="User no longer works at Acme."),
        _op(
            op="add",
            key="user.sister.wedding",
            value="in September",
            text="User's sister's wedding is in September.",
            event_at="2025-09-01T00:00:00",
        ),
    ]

    def complete(prompt: str) -> str:
        prompts.append(prompt)
        return _reply(*ops)

    known = [_stored("user.phone", "Android phone"), _stored("user.car", "Volvo"), _stored("user.employer", "Acme")]
    out = LLMExtractor(complete)(TURN, known=known)
    assert [(c.op, c.key) for c in out] == [
        (CandidateOp.ASSERT, "user.phone"),
        (CandidateOp.ASSERT, "user.car"),
        (CandidateOp.RETRACT, "user.employer"),
        (CandidateOp.ASSERT, "user.sister.wedding"),
    ]
    assert out[3].event_at == datetime(2025, 9, 1, tzinfo=LISBON_TZ)
    assert '{"key": "user.phone", "value": "Android phone"}' in prompts[0]
    assert prompts[0].index("STORED SLOTS (") < prompts[0].index("LAST turn (extract")


def test_an_update_of_a_slot_that_is_not_stored_is_refused_whole() -> None:
    reply = _reply(_op(op="add"), _op(op="update", key="user.phone", value="iPhone", text="User uses an iPhone."))
    with pytest.raises(ExtractionRejected, match=r"^operations\[1\]\.key: update names a slot that is not stored"):
        LLMExtractor(lambda prompt: reply)(TURN, known=[])


def test_a_malformed_reply_is_asked_again_with_its_reason() -> None:
    replies = iter(["not json", _reply(_op())])
    prompts: list[str] = []

    def complete(prompt: str) -> str:
        prompts.append(prompt)
        return next(replies)

    (c,) = LLMExtractor(complete, attempts=2)(TURN)
    assert c.key == "user.home_city" and len(prompts) == 2
    assert "Your previous reply was refused: not JSON" in prompts[1] and "not JSON" not in prompts[0]


def test_replies_malformed_every_time_are_refused_naming_the_last_reason() -> None:
    calls: list[str] = []

    def complete(prompt: str) -> str:
        calls.append(prompt)
        return _reply(_op(confidence=7))

    with pytest.raises(ExtractionRejected, match=r"^operations\[0\]\.confidence: .* \(after 3 replies\)$"):
        LLMExtractor(complete, attempts=3)(TURN)
    assert len(calls) == 3
