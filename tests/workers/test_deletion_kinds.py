"""Every kind of record named by id is erased to completion, with the words it stands for.

A fact, a transcript, a summary and a reflection note each end ``complete``, and none of the
words the request erases is left in any row. A request that names keys or records and matches
nothing ends ``nothing_matched`` (and the CLI says so, exit 1). After a deletion no row keeps a
speaker's name or a slot key built from the subject's words, and a finished plan keeps its keys
only as keyed hashes. Both databases.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlmodel import Session

from memworks.models.tables import DeletionRequest, Episode, Lineage, Memory, Outcome
from memworks.pipelines.deletion import hash_key
from memworks.store.deletion import NOTHING_MATCHED_DETAIL, erasure
from tests.factories import episode
from tests.workers.test_deletion import sql_residue

DAYS = "2025-01-{:02d}T09:00:00+00:00"
#: The subject's turns, one statement each; every capitalised word is the subject's own.
TURNS = [
    "I live in Vexhollow.",
    "My dog is called Zorblax.",
    "Zorblax loves the beach.",
    "I moved to Brindquall last week.",
    "I work at Quixotica.",
]


def feedback_outcome(i: int, *, user: str = "u1", **extra: Any) -> dict[str, Any]:
    """A failed triage task with a person's feedback: a reflection note is written about it."""
    return {
        "outcome_id": f"o{i}",
        "tenant_id": "t1",
        "user_id": user,
        "task_id": f"case{i}",
        "task_type": "triage",
        "features": ["refund", "card"],
        "action_taken": "route_billing",
        "verified_action": "route_fraud",
        "success": False,
        "occurred_at": DAYS.format(1 + i % 27),
        **extra,
    }


def world(make_memworks: Any, url: str) -> Any:
    mw = make_memworks(url)
    mw.enqueue_episodes([episode(i + 1, t, when=DAYS.format(6 + i)) for i, t in enumerate(TURNS)])
    mw.enqueue_episodes([episode(1, "I live in Oslo.", user="u2")])
    mw.report_outcomes(
        [feedback_outcome(1, task_text="Refund for a Trelvin order.", feedback="The card was stolen by Plovnik.")]
    )
    mw.drain()
    mw.consolidate("t1")
    mw.drain()
    return mw


def rows(mw: Any, **where: Any) -> list[Memory]:
    with Session(mw.runtime.engine) as s:
        q = select(Memory).where(Memory.tenant_id == "t1", Memory.user_id == "u1")
        return [m for m in s.scalars(q) if all(getattr(m, k) == v for k, v in where.items())]


def words(content: str) -> set[str]:
    return set(re.findall(r"\b[A-Z][a-z]{3,}\b", content)) - {"Please"}


def own_words(mw: Any, episode_ids: set[str]) -> set[str]:
    """Capitalised words said in ``episode_ids`` and in no other turn of the subject."""
    with Session(mw.runtime.engine) as s:
        texts = {e.episode_id: e.content for e in s.scalars(select(Episode).where(Episode.user_id == "u1"))}
    inside = set().union(*(words(texts[e]) for e in episode_ids))
    return inside - set().union(set(), *(words(t) for e, t in texts.items() if e not in episode_ids))


def delete(mw: Any, **request: Any) -> Any:
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1", **request})
    mw.drain()
    return mw.manifest(rid)


def assert_complete(m: Any) -> None:
    assert m.status == "complete", m
    assert set(m.targets) == set(erasure.PROJECTIONS)
    assert all(t.state == "CLOSED" and t.remaining == 0 for t in m.targets.values()), m.targets


def test_a_fact_by_id_takes_its_value_from_every_turn_and_leaves_the_rest(db_url: str, make_memworks: Any) -> None:
    mw = world(make_memworks, db_url)
    (dog,) = rows(mw, key="user.pet.dog")
    assert_complete(delete(mw, memory_ids=[dog.memory_id]))
    assert sql_residue(mw, ("Zorblax",)) == []  # the turn that named the dog went too
    assert {m.value for m in rows(mw, key="user.employer")} == {"Quixotica"}


def test_a_transcript_by_id_completes_and_takes_what_rested_only_on_its_turn(db_url: str, make_memworks: Any) -> None:
    # It used to fail: the transcript's fingerprint is its episode's, and the plan left the episode.
    mw = world(make_memworks, db_url)
    (moved,) = [m for m in rows(mw, extractor="transcript") if "Brindquall" in m.text]
    assert_complete(delete(mw, memory_ids=[moved.memory_id]))
    assert sql_residue(mw, ("Brindquall",)) == []  # the move it stated, and the summary quoting it
    with Session(mw.runtime.engine) as s:
        (turn,) = s.scalars(select(Episode).where(Episode.episode_id == "t1-u1-4")).all()
    assert turn.content == "" and turn.tombstoned_at is not None
    assert "Vexhollow" in {m.value for m in rows(mw)}  # said in another turn: its record stays


def test_a_summary_by_id_takes_the_turns_it_was_built_from(db_url: str, make_memworks: Any) -> None:
    mw = world(make_memworks, db_url)
    (summary,) = rows(mw, extractor="summary")
    with Session(mw.runtime.engine) as s:
        turns = set(
            s.scalars(
                select(Lineage.parent_id).where(Lineage.child_id == summary.memory_id, Lineage.parent_type == "episode")
            )
        )
    needles = tuple(own_words(mw, turns))
    assert needles and sql_residue(mw, needles)
    assert_complete(delete(mw, memory_ids=[summary.memory_id]))
    assert sql_residue(mw, needles) == []
    assert sql_residue(mw, ("Oslo",))  # the neighbour's turn is still there: the scan sees text


def test_a_reflection_note_by_id_takes_the_words_of_its_outcome(db_url: str, make_memworks: Any) -> None:
    mw = world(make_memworks, db_url)
    mw.report_outcomes([feedback_outcome(2, task_text="Refund for a Quellbrook order.", feedback="Fine by Dravin.")])
    mw.drain()
    note = next(m for m in rows(mw, extractor="reflection") if "Plovnik" in m.text)
    m = delete(mw, memory_ids=[note.memory_id])
    assert_complete(m)
    assert m.plan["outcomes"] == 1
    assert sql_residue(mw, ("Plovnik", "Trelvin")) == []
    assert {"Quellbrook", "Dravin"} <= {w for r in sql_residue(mw, ("Quellbrook", "Dravin")) for w in r.split(": ")}


def test_a_lesson_resting_on_an_erased_note_s_outcome_gets_a_decision(sqlite_url: str, make_memworks: Any) -> None:
    # Given a lesson mined from the subject's failures (each with feedback, so each has a note),
    mw = make_memworks(sqlite_url)
    mw.report_outcomes(
        [feedback_outcome(i, feedback=f"Stolen card, case {i}.") for i in range(1, 8)], reporter="tenant"
    )
    mw.drain()
    with Session(mw.runtime.engine) as s:
        resting = set(
            s.scalars(select(Lineage.child_id).where(Lineage.parent_id == "o3", Lineage.parent_type == "outcome"))
        )
    lessons = {l.lesson_id for l in mw.lessons("t1")}
    note = next(m for m in rows(mw, extractor="reflection") if "case 3." in m.text)
    assert resting - {note.memory_id} and resting - {note.memory_id} <= lessons, "a lesson rests on o3"
    # when one note is deleted by id, its outcome goes, and every lesson resting on it is decided.
    m = delete(mw, memory_ids=[note.memory_id])
    assert_complete(m)
    decided = {d["artifact"].split(":", 1)[1] for d in m.decisions}
    assert decided == resting - {note.memory_id}
    assert all(f"lesson {lid}:" in m.targets["lessons"].detail for lid in decided)
    with Session(mw.runtime.engine) as s:
        assert not s.scalars(select(Lineage).where(Lineage.parent_id == "o3", Lineage.parent_type == "outcome")).all()
        gone, kept = (s.scalars(select(Outcome).where(Outcome.outcome_id == o)).one() for o in ("o3", "o4"))
    assert gone.tombstoned_at is not None and gone.feedback is None
    assert kept.tombstoned_at is None and kept.feedback == "Stolen card, case 4."


def test_a_forget_request_in_the_same_batch_erases_the_turn_that_said_it(db_url: str, make_memworks: Any) -> None:
    # The forget request drops the slot's new records before they are stored; the gate's audit
    # still names the turn, so the plan tombstones it and the request completes.
    mw = make_memworks(db_url)
    mw.enqueue_episodes(
        [episode(1, "I live in Vexqabton.", when=DAYS.format(6)), episode(2, "Please forget where I live.")]
    )
    mw.drain()
    with Session(mw.runtime.engine) as s:
        (req,) = s.scalars(select(DeletionRequest)).all()
    assert_complete(mw.manifest(req.request_id))
    assert sql_residue(mw, ("Vexqabton",)) == []


@pytest.mark.parametrize(
    "request_",
    [{"keys": ["user.no_such_key"]}, {"memory_ids": ["0" * 32]}],
    ids=["key", "memory_id"],
)
def test_a_request_that_matches_nothing_ends_nothing_matched(
    sqlite_url: str, make_memworks: Any, request_: dict[str, Any]
) -> None:
    mw = world(make_memworks, sqlite_url)
    before = sql_residue(mw, ("Zorblax", "Vexhollow", "Plovnik"))
    m = delete(mw, **request_)
    assert m.status == "nothing_matched" and m.completed_at is not None
    assert set(m.targets) == set(erasure.PROJECTIONS)
    for t in m.targets.values():
        assert t.state == "CLOSED" and t.remaining == 0 and t.attempts == 0
        assert json.loads(t.detail)["checked"] == [NOTHING_MATCHED_DETAIL]
    assert sql_residue(mw, ("Zorblax", "Vexhollow", "Plovnik")) == before  # nothing was touched
    assert not mw.manifest(delete(mw).request_id).status == "nothing_matched"  # a whole subject never


def test_the_cli_says_nothing_matched_and_exits_1(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    env = dict(os.environ, MEMWORKS_DATABASE_URL=f"sqlite:///{db}", MEMWORKS_BROKER_URL="stub://")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "memworks.cli", "delete", "--tenant", "t1", "--user", "u1", *args]
        return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)

    res = cli("--key", "user.no_such_key", "--wait")
    assert res.returncode == 1, res.stderr
    assert "nothing matched" in res.stdout and "user.no_such_key" in res.stdout
    as_json = cli("--key", "user.no_such_key", "--wait", "--json")
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["status"] == "nothing_matched"
    assert cli("--key", "user.no_such_key").returncode == 0  # without --wait: the request was accepted


def test_after_a_deletion_no_row_keeps_a_speaker_name_or_a_slot_key(db_url: str, make_memworks: Any) -> None:
    # Given a speaker's statement (the record's subject is the name), slot keys built from the
    # subject's words, and an outward preference naming an address,
    mw = make_memworks(db_url)
    spoken = episode(1, "I love knitting scarves.", when=DAYS.format(6))
    spoken["metadata"] = {"speaker": "Wendeqab"}
    mw.enqueue_episodes(
        [
            spoken,
            episode(2, "My favorite glimqab is blue.", when=DAYS.format(7)),
            episode(3, "Always send my invoices to zorb@quixo.example.", when=DAYS.format(8)),
            episode(4, "I live in Vexhollow.", when=DAYS.format(9)),
        ]
    )
    mw.drain()
    keys = {m.key for m in rows(mw)}
    assert {"person.wendeqab.likes", "user.favorite.glimqab"} <= keys
    assert "Wendeqab" in {m.subject for m in rows(mw)}
    # when a topic and then the whole subject are deleted,
    topic = delete(mw, keys=["user.favorite.glimqab"])
    assert_complete(topic)
    whole = delete(mw)
    assert_complete(whole)
    # then no row holds the name, the words in the keys or the address (but the topic request as
    # its requester named it, which its manifest shows); tombstoned rows are blank;
    assert sql_residue(mw, ("Wendeqab", "zorb@quixo", "send_invoice", "Vexhollow")) == []
    assert sql_residue(mw, ("glimqab",)) == ["deletion_request: glimqab"]
    assert rows(mw) and all(
        (m.subject, m.key, m.value, m.text, m.event_at) == (None, None, "", "", None) for m in rows(mw)
    )
    # and each finished plan keeps its keys only as keyed hashes, counts intact.
    with Session(mw.runtime.engine) as s:
        plans = {r.request_id: json.loads(r.plan_json or "{}") for r in s.scalars(select(DeletionRequest))}
        raw = " ".join(s.scalars(text("SELECT plan_json FROM deletion_request")))
    assert "user." not in raw and "person." not in raw
    first = plans[topic.request_id]
    assert first["keys"] == [hash_key(first["keys_salt"], "user.favorite.glimqab")]
    assert len(plans[whole.request_id]["keys"]) >= 3 and whole.plan["memories"] >= 4
    assert topic.keys == ["user.favorite.glimqab"]  # the request as named stays readable in its manifest
