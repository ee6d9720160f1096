"""Deletion plans and their checks agree by construction (pure).

A target's check counts what the plan names by id, plus the subject's rows holding one of the
plan's fingerprints. So a plan may list a fingerprint only if it erases everything of the
subject that holds it; otherwise a check finds residue no purge removes, and the request can
only fail. These tests state that invariant over random plans, then what each kind of record
takes with it, when a request matches nothing, and how a finished plan keeps its keys.
"""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus, Source
from memworks.pipelines.deletion import (
    DeletionPlan,
    DeletionSubject,
    EpisodeRef,
    hash_key,
    nothing_matched,
    plan_deletion,
    redact_keys,
)

T0 = datetime(2025, 1, 1, tzinfo=UTC)
KEYS = ("user.home_city", "user.timezone", "user.pet.dog", "user.likes", "summary.session.s1", "reflection.triage")
WORDS = ("oslo", "rex", "tea", "berlin", "chess")


def view(mid: str, key: str | None, extractor: str, evidence: tuple[str, ...], **kw: object) -> MemoryView:
    fields: dict[str, object] = {
        "memory_id": mid,
        "kind": MemoryKind.EPISODIC if extractor != "rules" else MemoryKind.SEMANTIC,
        "key": key,
        "value": mid,
        "text": mid,
        "source": Source.USER,
        "confidence": 0.9,
        "trusted": True,
        "status": MemoryStatus.ACTIVE,
        "extractor": extractor,
        "valid_from": T0,
        "recorded_at": T0,
        "evidence": evidence,
    }
    return MemoryView.model_validate(fields | kw)


class World:
    """A subject's records, episodes and lineage as the store hands them to the planner."""

    def __init__(self) -> None:
        self.records: list[MemoryView] = []
        self.prints: dict[str, str] = {}
        self.episodes: list[EpisodeRef] = []
        self.outcomes_of: dict[str, list[str]] = {}
        self.proposed: dict[str, list[str]] = {}

    def episode(self, eid: str, text: str) -> None:
        self.episodes.append(EpisodeRef(eid, len(self.episodes) + 1, f"fp:{text}"))
        self.add(view(f"tr-{eid}", None, "transcript", (eid,), value=text, text=text), f"fp:{text}")

    def add(self, m: MemoryView, fp: str) -> None:
        self.records.append(m)
        self.prints[m.memory_id] = fp

    def plan(self, keys: tuple[str, ...] = (), ids: tuple[str, ...] = ()) -> DeletionPlan:
        return plan_deletion(
            DeletionSubject("t", "u", keys=keys, memory_ids=ids),
            records=self.records,
            fingerprints=self.prints,
            episodes=self.episodes,
            transcript_of={e.episode_id: f"tr-{e.episode_id}" for e in self.episodes},
            outcomes_of=self.outcomes_of,
            proposed=self.proposed,
        )


@st.composite
def worlds(draw: st.DrawFn) -> tuple[World, tuple[str, ...], tuple[str, ...]]:
    """A small random history (repeated utterances and repeated record texts included) and a
    random request: whole subject, some keys, or some records of any kind."""
    w = World()
    n = draw(st.integers(1, 6))
    eids = [f"e{i}" for i in range(n)]
    for eid in eids:
        w.episode(eid, " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))))
    for i in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["rules", "rules", "summary", "reflection", "stray"]))
        mid = f"m{i}"
        fp = f"fp:rec{draw(st.integers(0, 4))}"  # a small pool: some texts repeat under other ids
        if kind == "reflection":
            w.add(view(mid, "reflection.triage", "reflection", ()), fp)
            w.outcomes_of[mid] = [f"o{i}"]
        elif kind == "stray":
            w.add(view(mid, None, "rules", ()), fp)  # no lineage at all
        else:
            ev = tuple(draw(st.lists(st.sampled_from(eids), min_size=1, max_size=3, unique=True)))
            key = "summary.session.s1" if kind == "summary" else draw(st.sampled_from(KEYS[:4]))
            parents = [m.memory_id for m in w.records if m.extractor == "rules" and m.evidence]
            derived = (draw(st.sampled_from(parents)),) if parents and draw(st.booleans()) else ()
            value = draw(st.sampled_from(WORDS)) if kind == "rules" else mid
            w.add(view(mid, key, kind, ev, derived_from=derived, value=value), fp)
    for key in draw(st.lists(st.sampled_from(KEYS[:4]), max_size=2)):
        w.proposed[key] = [draw(st.sampled_from(eids))]
    ids = tuple(m.memory_id for m in w.records)
    form = draw(st.sampled_from(["whole", "keys", "ids"]))
    keys = tuple(draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=2))) if form == "keys" else ()
    picked = tuple(draw(st.lists(st.sampled_from(ids), min_size=1, max_size=2))) if form == "ids" and ids else ()
    return w, keys, picked


@settings(max_examples=200, deadline=None)
@given(worlds())
def test_every_fingerprint_a_plan_lists_belongs_to_something_it_erases(case: tuple[World, tuple, tuple]) -> None:
    w, keys, ids = case
    p = w.plan(keys, ids)
    planned, gone = set(p.memory_ids), set(p.episode_ids)
    listed = set(p.fingerprints)
    # The plan lists exactly the fingerprints of what it erases ...
    assert listed == {w.prints[m] for m in planned} | {e.fingerprint for e in w.episodes if e.episode_id in gone}
    # ... and erases everything of the subject holding one of them, so no check can find residue
    # the purges leave: only a record with no provenance at all is left for the check to report.
    for e in w.episodes:
        assert e.fingerprint not in listed or e.episode_id in gone, e
    for m in w.records:
        provenance = m.evidence or m.derived_from or w.outcomes_of.get(m.memory_id)
        assert w.prints[m.memory_id] not in listed or m.memory_id in planned or not provenance, m.memory_id
    # A tombstoned episode's transcript goes, and a transcript goes only with its episode.
    assert {f"tr-{e}" for e in gone} <= planned
    assert {m.evidence[0] for m in w.records if m.extractor == "transcript" and m.memory_id in planned} <= gone
    # Every reflection note erased takes the outcome it repeats; nothing else names outcomes.
    assert set(p.outcome_ids) == {o for m in planned for o in w.outcomes_of.get(m, [])}
    assert set(p.derived_ids) <= planned


def story() -> World:
    """e1 "oslo rex" (home city and dog), e2 "berlin" (a move), e3 the same words as e1 again."""
    w = World()
    for eid, text in (("e1", "oslo rex"), ("e2", "berlin"), ("e3", "oslo rex"), ("e4", "chess")):
        w.episode(eid, text)
    w.add(view("city1", "user.home_city", "rules", ("e1", "e3"), value="oslo"), "fp:city1")
    w.add(view("dog", "user.pet.dog", "rules", ("e1", "e3"), value="rex"), "fp:dog")
    w.add(view("city2", "user.home_city", "rules", ("e2",), value="berlin"), "fp:city2")
    w.add(view("tz2", "user.timezone", "rules", ("e2",), derived_from=("city2",), value="Europe/Berlin"), "fp:tz2")
    w.add(view("hobby", "user.likes", "rules", ("e4",), value="chess"), "fp:hobby")
    w.add(view("sum", "summary.session.s1", "summary", ("e2", "e4")), "fp:sum")
    w.add(view("note1", "reflection.triage", "reflection", ()), "fp:note")
    w.add(view("note2", "reflection.triage", "reflection", ()), "fp:other-note")
    w.outcomes_of.update(note1=["o1"], note2=["o2"])
    return w


def test_a_transcript_takes_its_episode_and_the_records_resting_only_on_it() -> None:
    p = story().plan(ids=("tr-e2",))
    assert p.episode_ids == ["e2"]  # the episode holds the transcript's words: it is tombstoned
    # The move rested only on e2 (and the time zone on the move): they go; so does the summary
    # built from e2. The earlier home city and the dog rest on other turns and stay.
    assert set(p.memory_ids) == {"tr-e2", "city2", "tz2", "sum"}
    assert "fp:berlin" in p.fingerprints


def test_a_transcript_said_twice_goes_with_its_twin_and_what_rested_on_both() -> None:
    p = story().plan(ids=("tr-e1",))
    assert p.episode_ids == ["e1", "e3"]  # the same words, said again
    assert {"tr-e1", "tr-e3", "city1", "dog"} <= set(p.memory_ids)
    assert "city2" not in p.memory_ids


def test_a_fact_keeps_the_other_claims_of_its_episodes() -> None:
    p = story().plan(ids=("dog",))
    assert set(p.episode_ids) == {"e1", "e3"} and "city1" not in p.memory_ids  # tombstones stay provenance
    assert p.keys == ["user.pet.dog"]


def test_a_summary_takes_its_turns_and_stands_alone() -> None:
    p = story().plan(ids=("sum",))
    assert p.episode_ids == ["e2", "e4"]
    assert set(p.memory_ids) == {"sum", "tr-e2", "tr-e4", "city2", "tz2", "hobby"}
    assert p.keys == []  # a summary's key names a session, not a slot with history


def test_a_reflection_note_takes_its_outcome_and_no_other_note() -> None:
    p = story().plan(ids=("note1",))
    assert p.memory_ids == ["note1"] and p.outcome_ids == ["o1"] and p.episode_ids == []


def test_a_verbatim_copy_with_provenance_goes_and_a_stray_one_is_left_to_the_check() -> None:
    w = story()
    w.add(view("note3", "reflection.triage", "reflection", ()), "fp:note")  # the same note text
    w.outcomes_of["note3"] = ["o3"]
    w.add(view("stray", None, "rules", ()), "fp:dog")  # no lineage at all
    p = w.plan(ids=("note1",))
    assert p.memory_ids == ["note1", "note3"] and p.outcome_ids == ["o1", "o3"]
    assert "stray" not in w.plan(ids=("dog",)).memory_ids


def test_a_candidate_judged_but_never_stored_still_names_its_episode() -> None:
    # A forget request in the same batch drops the slot's new records before they are written;
    # the gate's audit still names the episode that said it.
    w = World()
    w.episode("e1", "oslo rex")
    w.proposed = {"user.home_city": ["e1"]}
    p = w.plan(keys=("user.home_city",))
    assert p.episode_ids == ["e1"] and p.memory_ids == ["tr-e1"]


def test_nothing_matched_only_for_a_named_request_that_erases_nothing() -> None:
    w = story()
    for keys, ids, expected in (
        (("user.no_such_key",), (), True),
        ((), ("no-such-id",), True),
        (("user.pet.dog",), (), False),
        ((), ("note1",), False),
    ):
        subject = DeletionSubject("t", "u", keys=keys, memory_ids=ids)
        assert nothing_matched(subject, w.plan(keys, ids)) is expected, (keys, ids)
    assert not nothing_matched(DeletionSubject("t", "u"), World().plan())  # a whole subject never


def test_a_finished_plan_keeps_keyed_hashes_of_its_keys_and_every_count() -> None:
    p = story().plan(keys=("user.home_city",))
    redacted = redact_keys(p, "salt")
    assert redacted.summary() == p.summary() and len(redacted.keys) == len(p.keys)
    assert not any("home_city" in k or "timezone" in k for k in redacted.keys)
    assert hash_key("salt", "user.home_city") in redacted.keys  # a key named to an auditor can be checked
    assert hash_key("pepper", "user.home_city") not in redacted.keys
    assert redact_keys(redacted, "other") == redacted  # once only
