"""Deletion plans: what each form of request erases (pure)."""

from __future__ import annotations

from datetime import UTC, datetime

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus, Source
from memworks.pipelines.deletion import DeletionPlan, DeletionSubject, EpisodeRef, expand_keys, plan_deletion

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def view(
    mid: str,
    key: str | None,
    *,
    ev: tuple[str, ...],
    derived: tuple[str, ...] = (),
    transcript: bool = False,
    status: MemoryStatus = MemoryStatus.ACTIVE,
) -> MemoryView:
    return MemoryView(
        memory_id=mid,
        kind=MemoryKind.EPISODIC if transcript else MemoryKind.SEMANTIC,
        key=key,
        value=mid,
        text=mid,
        source=Source.USER,
        confidence=0.9,
        trusted=True,
        status=status,
        extractor="transcript" if transcript else "rules",
        valid_from=T0,
        recorded_at=T0,
        evidence=ev,
        derived_from=derived,
    )


RECORDS = [
    view("city1", "user.home_city", ev=("e1",), status=MemoryStatus.SUPERSEDED),
    view("city2", "user.home_city", ev=("e3",)),
    view("tz1", "user.timezone", ev=("e1",), derived=("city1",), status=MemoryStatus.SUPERSEDED),
    view("tz2", "user.timezone", ev=("e3",), derived=("city2",)),
    view("dog", "user.pet.dog", ev=("e1",)),
    view("job", "user.employer", ev=("e4",)),
    view("tr1", None, ev=("e1",), transcript=True),
    view("tr3", None, ev=("e3",), transcript=True),
    view("tr4", None, ev=("e4",), transcript=True),
    view("tr5", None, ev=("e5",), transcript=True).model_copy(update={"text": "dog loves the beach"}),
]
EPISODES = [EpisodeRef(f"e{i}", i, f"fp-e{i}") for i in (1, 3, 4, 5)]
TRANSCRIPTS = {"e1": "tr1", "e3": "tr3", "e4": "tr4", "e5": "tr5"}
FPS = {m.memory_id: f"fp-{m.memory_id}" for m in RECORDS}


def plan(keys: tuple[str, ...] = (), memory_ids: tuple[str, ...] = ()) -> DeletionPlan:
    subject = DeletionSubject("t", "u", keys=keys, memory_ids=memory_ids)
    return plan_deletion(subject, records=RECORDS, fingerprints=FPS, episodes=EPISODES, transcript_of=TRANSCRIPTS)


def test_whole_subject_takes_everything() -> None:
    p = plan()
    assert set(p.memory_ids) == {m.memory_id for m in RECORDS}
    assert p.episode_ids == ["e1", "e3", "e4", "e5"] and p.episode_row_ids == [1, 3, 4, 5]
    assert "fp-e1" in p.fingerprints and "fp-dog" in p.fingerprints


def test_topic_takes_history_revealed_keys_derived_records_and_evidence() -> None:
    p = plan(keys=("user.home_city",))
    assert set(p.memory_ids) == {"city1", "city2", "tz1", "tz2", "tr1", "tr3"}
    assert set(p.derived_ids) == {"tz1", "tz2"}
    assert p.episode_ids == ["e1", "e3"]
    assert "dog" not in p.memory_ids and "job" not in p.memory_ids


def test_topic_of_work_leaves_home_alone() -> None:
    p = plan(keys=("user.employer",))
    assert set(p.memory_ids) == {"job", "tr4"} and p.episode_ids == ["e4"]


def test_explicit_id_takes_its_slot_history() -> None:
    p = plan(memory_ids=("city2",))
    assert {"city1", "city2", "tz1", "tz2"} <= set(p.memory_ids)


def test_unknown_ids_plan_nothing() -> None:
    p = plan(memory_ids=("nope",))
    assert p.memory_ids == [] and p.episode_ids == []


def test_location_topics_reveal_the_time_zone() -> None:
    assert expand_keys(["user.work_city"]) == ["user.work_city", "user.timezone"]
    assert expand_keys(["user.diet"]) == ["user.diet"]


def test_topic_takes_other_episodes_that_name_the_erased_value() -> None:
    p = plan(keys=("user.pet.dog",))
    assert set(p.memory_ids) == {"dog", "tr1", "tr5"} and p.episode_ids == ["e1", "e5"]


def test_a_record_quoting_an_erased_turn_goes_with_it() -> None:
    """A tool result quotes the request it answers; forgetting the request reaches the quote."""
    said = "the buzzer's broken, they should've used the door code. it's 4471# for next time"
    records = [
        view("tr7", None, ev=("e7",), transcript=True).model_copy(update={"value": said, "text": said}),
        view("tool", "tool.tck-1", ev=("e8",)).model_copy(
            update={"extractor": "tool", "text": f"ticket create: status=open (asked: {said})"}
        ),
        view("other", "tool.tck-2", ev=("e9",)).model_copy(
            update={"extractor": "tool", "text": "ticket create: status=open (asked: is the engineer coming?)"}
        ),
    ]
    episodes = [EpisodeRef(f"e{i}", i, f"fp-e{i}") for i in (7, 8, 9)]
    subject = DeletionSubject("t", "u", memory_ids=("tr7",))
    p = plan_deletion(
        subject,
        records=records,
        fingerprints={m.memory_id: f"fp-{m.memory_id}" for m in records},
        episodes=episodes,
        transcript_of={"e7": "tr7"},
    )
    assert set(p.memory_ids) == {"tr7", "tool"}
