"""Cascading deletion: a manifest whose targets close only when each projection confirms absence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, text
from sqlmodel import Session

from memworks.models.schemas import Scope
from memworks.store.deletion import erasure
from tests.factories import episode

SUBJECT = Scope(tenant_id="t1", user_id="u1")
NEIGHBOUR = Scope(tenant_id="t1", user_id="u2")
#: Words only the subject ever said: any trace of them after deletion is residue.
SECRETS = ("Zorblax", "Quixotica", "Vexhollow")


def story(user: str, dog: str, employer: str, city: str) -> list[dict[str, Any]]:
    return [
        episode(1, f"I live in {city} and my dog is called {dog}.", user=user, when="2025-01-06T09:00:00+00:00"),
        episode(2, f"I work at {employer} as a nurse.", user=user, when="2025-01-07T09:00:00+00:00"),
        episode(3, "I moved to Berlin two weeks ago.", user=user, when="2025-03-15T09:00:00+00:00"),
        episode(4, f"{dog} loves the beach.", user=user, when="2025-03-16T09:00:00+00:00"),
    ]


QUESTIONS = ["Where do I live?", "What is my dog called?", "Where do I work?", "What does my dog love?"]


def loaded(make_memworks: Any, url: str, **kw: Any) -> Any:
    mw = make_memworks(url, **kw)
    mw.enqueue_episodes(story("u1", "Zorblax", "Quixotica", "Vexhollow") + story("u2", "Rex", "Initech", "Oslo"))
    mw.drain()
    for q in QUESTIONS:  # fill the read cache with answers that quote the subject
        assert not mw.retrieve(SUBJECT, q).abstained
        mw.retrieve(NEIGHBOUR, q)
    return mw


def sql_residue(mw: Any, needles: tuple[str, ...]) -> list[str]:
    """Every SQL table, every row, every column, searched for the needles (case-insensitive)."""
    found = []
    with Session(mw.runtime.engine) as s:
        for table in inspect(s.get_bind()).get_table_names():
            for row in s.execute(text(f'SELECT * FROM "{table}"')):
                blob = " ".join(str(v) for v in row).casefold()
                found += [f"{table}: {n}" for n in needles if n.casefold() in blob]
    return found


def remembered(mw: Any, scope: Scope) -> list[dict[str, Any]]:
    """A scope's records, attention clock left out (reading moves it)."""
    return [m.model_dump(exclude={"last_retrieved_at"}) for m in mw.memories(scope, include_history=True)]


def answers(mw: Any, scope: Scope) -> list[list[tuple[str | None, str]]]:
    return [[(h.key, h.value) for h in mw.retrieve(scope, q).hits] for q in QUESTIONS]


def test_subject_deletion_erases_everywhere_and_leaves_others_alone(db_url: str, make_memworks: Any) -> None:
    mw = loaded(make_memworks, db_url)
    neighbour_before = (remembered(mw, NEIGHBOUR), answers(mw, NEIGHBOUR))
    assert sql_residue(mw, SECRETS)  # the needles are really there before

    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    mw.drain()
    m = mw.manifest(rid)
    assert m.status == "complete", m
    assert {name for name, t in m.targets.items() if t.state == "CLOSED" and t.remaining == 0} == set(
        erasure.PROJECTIONS
    )
    assert all(t.checked_at is not None and t.attempts >= 1 and "checked" in t.detail for t in m.targets.values())

    for q in QUESTIONS:
        assert mw.retrieve(SUBJECT, q).abstained, q
    assert mw.memories(SUBJECT, include_history=True) == []
    assert sql_residue(mw, SECRETS) == []
    assert (remembered(mw, NEIGHBOUR), answers(mw, NEIGHBOUR)) == neighbour_before


def test_sqlite_files_hold_no_byte_of_the_erased_text(sqlite_url: str, make_memworks: Any) -> None:
    mw = loaded(make_memworks, sqlite_url)
    db = Path(sqlite_url.removeprefix("sqlite:///"))
    mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    mw.drain()
    raw = b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*")).lower()
    leaked = [n for n in SECRETS if n.lower().encode() in raw]
    assert leaked == [], f"erased text still on disk: {leaked}"
    assert b"oslo" in raw  # the neighbour's data is still there, so the scan can see text


def test_topic_deletion_takes_history_and_derived_time_zone_only(db_url: str, make_memworks: Any) -> None:
    mw = loaded(make_memworks, db_url)
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1", "keys": ["user.home_city"]})
    mw.drain()
    assert mw.manifest(rid).status == "complete"
    keys = {m.key for m in mw.memories(SUBJECT, include_history=True)}
    assert "user.home_city" not in keys and "user.timezone" not in keys
    assert {"user.pet.dog", "user.employer"} <= keys
    assert [h.value for h in mw.retrieve(SUBJECT, "What is my dog called?").hits if h.key == "user.pet.dog"] == [
        "Zorblax"
    ]
    assert not any(h.key == "user.home_city" for h in mw.retrieve(SUBJECT, "Where do I live?").hits)
    assert not any("Vexhollow" in h.value for q in QUESTIONS for h in mw.retrieve(SUBJECT, q).hits)
    assert sql_residue(mw, ("Vexhollow",)) == []


def test_deleting_twice_is_harmless_and_tombstones_block_recreation(sqlite_url: str, make_memworks: Any) -> None:
    mw = loaded(make_memworks, sqlite_url)
    first = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    mw.drain()
    second = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    mw.drain()
    assert mw.manifest(first).status == mw.manifest(second).status == "complete"
    # The agent replays the same episodes: they are known (tombstoned) and nothing comes back.
    receipt = mw.enqueue_episodes(story("u1", "Zorblax", "Quixotica", "Vexhollow"))
    mw.drain()
    assert len(receipt.duplicates) == 4
    assert mw.memories(SUBJECT, include_history=True) == [] and sql_residue(mw, SECRETS) == []


def test_dry_run_lists_the_plan_and_changes_nothing(sqlite_url: str, make_memworks: Any) -> None:
    mw = loaded(make_memworks, sqlite_url)
    before = mw.memories(SUBJECT, include_history=True)
    preview = mw.preview_deletion({"tenant_id": "t1", "user_id": "u1", "keys": ["user.pet.dog"]})
    assert {r["key"] for r in preview["records"] if not r["transcript"]} == {"user.pet.dog"}
    assert preview["episodes"] == ["t1-u1-1", "t1-u1-4"]  # the second one names the dog
    assert "lexical_index" in preview["targets"]
    assert mw.memories(SUBJECT, include_history=True) == before


def test_a_failing_projection_keeps_the_manifest_open_until_the_sweeper_closes_it(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a lexical index whose purge fails, when a subject is deleted, then once the job's
    # retries are used (none here) its target is FAILED with the error and the request never
    # reports complete; after the fault clears, a resume on demand closes it.
    mw = loaded(make_memworks, sqlite_url)
    purge, check = erasure.PROJECTIONS["lexical_index"]

    def broken(session: Any, subject: Any) -> int:
        raise OSError("index volume unavailable")

    monkeypatch.setitem(erasure.PROJECTIONS, "lexical_index", (broken, check))
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    with pytest.raises(OSError):
        mw.drain()
    m = mw.manifest(rid)
    assert m.status == "failed" and m.targets["lexical_index"].state == "FAILED"
    assert "index volume unavailable" in m.targets["lexical_index"].detail
    assert all(t.state == "CLOSED" for name, t in m.targets.items() if name != "lexical_index")

    monkeypatch.setitem(erasure.PROJECTIONS, "lexical_index", (purge, check))
    mw.resume_deletions()
    mw.drain()
    assert mw.manifest(rid).status == "complete"
    assert sql_residue(mw, SECRETS) == []


def purge_late_once(monkeypatch: pytest.MonkeyPatch, target: str) -> dict[str, int]:
    """Make ``target``'s first purge report success and erase nothing; returns its call count."""
    purge, check = erasure.PROJECTIONS[target]
    calls = {"n": 0}

    def late(session: Any, subject: Any) -> int:
        calls["n"] += 1
        return 0 if calls["n"] == 1 else purge(session, subject)

    monkeypatch.setitem(erasure.PROJECTIONS, target, (late, check))
    return calls


def test_residue_found_by_verification_is_purged_again(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A purge that reports success but leaves rows behind is caught by the check (by id and
    # fingerprint) and purged again until absent.
    mw = loaded(make_memworks, sqlite_url)
    calls = purge_late_once(monkeypatch, "vector_index")
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    mw.drain()
    target = mw.manifest(rid).targets["vector_index"]
    assert mw.manifest(rid).status == "complete" and target.attempts == 2 and calls["n"] == 2


def test_the_primary_store_closes_without_waiting_for_the_transcripts(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The plan's fingerprints cover all the subject's records, transcripts too; a target looks
    # for copies only outside the plan, so a slow transcripts purge does not hold the primary
    # store open (it used to cost a re-purge after 0.5 s).
    mw = loaded(make_memworks, sqlite_url)
    purge_late_once(monkeypatch, "transcripts")
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    mw.drain()
    m = mw.manifest(rid)
    assert m.status == "complete" and m.targets["transcripts"].attempts == 2
    assert m.targets["primary_store"].attempts == 1


def test_a_copy_outside_the_plan_keeps_the_manifest_open(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A record that repeats an erased one's text under another id and no key is not in the
    # plan: verification finds it by fingerprint, so the manifest never claims the text is gone.
    import memworks.services.deletion as workers_deletion
    from memworks.models.tables import Memory

    monkeypatch.setattr(workers_deletion, "MAX_ATTEMPTS", 2)
    mw = loaded(make_memworks, sqlite_url)
    with Session(mw.runtime.engine) as s:
        home = s.execute(
            text("SELECT memory_id FROM memory WHERE user_id = 'u1' AND key = 'user.home_city' AND value = 'Vexhollow'")
        ).scalar_one()
        row = s.get(Memory, home)
        assert row is not None
        s.add(Memory(**(row.model_dump() | {"memory_id": "c" * 32, "key": None})))
        s.commit()
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1", "keys": ["user.home_city"]})
    mw.drain()
    m = mw.manifest(rid)
    assert m.status != "complete"
    assert m.targets["primary_store"].state == "FAILED" and m.targets["primary_store"].remaining == 1
    assert m.targets["lexical_index"].state == "CLOSED"  # the indexes had only planned entries


def test_dead_letters_naming_the_subject_are_purged(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memworks.services import ingest

    mw = make_memworks(sqlite_url)

    def down(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("database away")

    monkeypatch.setattr("memworks.workers.ingest.extract", down)
    mw.enqueue_episodes(story("u1", "Zorblax", "Quixotica", "Vexhollow"))
    with pytest.raises(ConnectionError):
        mw.drain()
    assert len(mw.broker.dead_letters) == 1
    monkeypatch.setattr("memworks.workers.ingest.extract", ingest.extract)
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    mw.drain()
    m = mw.manifest(rid)
    assert m.status == "complete" and m.targets["dead_letters"].state == "CLOSED"
    assert mw.broker.dead_letters == []


def test_a_users_retraction_is_erased_with_a_manifest(sqlite_url: str, make_memworks: Any) -> None:
    # "Forget my dog's name": the slot, its evidence and every projection entry go, as for an
    # officer's topic deletion, and the rest of what the user said still answers.
    from sqlalchemy import select

    from memworks.models.tables import DeletionRequest

    mw = loaded(make_memworks, sqlite_url)
    mw.enqueue_episodes([episode(9, "Please forget my dog's name.", user="u1", when="2025-04-01T09:00:00+00:00")])
    mw.drain()
    with Session(mw.runtime.engine) as s:
        req = s.scalars(select(DeletionRequest)).one()
    assert req.requested_by == "retraction in episode t1-u1-9" and mw.manifest(req.request_id).status == "complete"
    assert not any(h.key == "user.pet.dog" for h in mw.retrieve(SUBJECT, "What is my dog called?").hits)
    assert [h.value for h in mw.retrieve(SUBJECT, "Where do I work?").hits if h.key == "user.employer"] == ["Quixotica"]
    # Episodes 1 and 4 named the dog: both are tombstoned, so the name is nowhere.
    assert sql_residue(mw, ("Zorblax",)) == []


def test_lessons_from_several_users_get_a_recorded_decision(sqlite_url: str, make_memworks: Any) -> None:
    # Given a lesson validated on three users' outcomes and one built from the subject's alone,
    # when the subject is deleted, then the shared one is rebuilt from survivors (and says why),
    # the private one is removed, and the subject's outcomes are tombstoned.
    from tests.workers.test_lesson_actor import outcome

    mw = make_memworks(sqlite_url)
    shared = [
        outcome(i, ["login", "breach"], "route_tech", "escalate_security", user=f"u{1 + i % 3}") for i in range(7)
    ]
    shared += [outcome(10 + i, ["login", "password"], "route_tech", "route_tech", user="u2") for i in range(3)]
    # The tenant vouches for its users' outcomes (a user's word alone never makes a lesson).
    mw.report_outcomes(shared[:1], reporter="tenant")
    mw.report_outcomes(shared[1:], reporter="tenant")
    private = [outcome(20 + i, ["invoice", "zorblax"], "route_billing", "refund_now", user="u1") for i in range(4)]
    mw.report_outcomes(private[:1], reporter="tenant")
    mw.report_outcomes(private[1:], reporter="tenant")
    mw.drain()
    active = {tuple(l.pattern): l for l in mw.lessons("t1") if l.status == "active"}
    assert set(active) >= {("breach",)} and any("zorblax" in p or "invoic" in p for p in active)  # stemmed features

    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1"})
    mw.drain()
    m = mw.manifest(rid)
    assert m.status == "complete" and m.targets["lessons"].state == "CLOSED"
    decisions = {d["artifact"].split(":")[1]: d for d in m.decisions}
    breach = decisions[active[("breach",)].lesson_id]
    assert breach["decision"] == "rebuilt" and "still passes the gate" in breach["basis"]
    removed = [d for d in m.decisions if d["decision"] == "removed"]
    assert removed and all("only" in d["basis"] for d in removed)
    assert mw.recommend("t1", "triage", ["login", "breach"]).action == "escalate_security"
    assert mw.recommend("t1", "triage", ["invoice", "zorblax"]).action is None
    assert sql_residue(mw, ("zorblax",)) == []
