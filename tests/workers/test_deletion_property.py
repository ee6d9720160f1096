"""Property: whatever the history and whatever is deleted, the manifest finishes and the words go.

Each example builds a small random history for a user of its own (a tenant of its own too, so a
consolidation or a learning round reads only its rows): facts, a fact that changes, transcripts,
a speaker's statement, turns said again under a new id or redelivered under the same one,
summaries (consolidation), failed outcomes with feedback (reflection notes), enough of them for
a lesson, and forget requests in conversation ("please forget where I live"), each in a batch of
its own. Then it deletes one thing: the whole subject, a key (one that matches nothing too), or
one record of any kind by id (a fact, a transcript, a summary, a reflection note).

After every deletion (the forget requests' too) the request ends ``complete``, or
``nothing_matched`` exactly when its plan erases nothing, every target CLOSED; and none of the
distinctive words the history generated for what was deleted is left in any column of any table,
in the read cache or in the dead letters. The words a deletion must take are worked out from the
history alone, not from the plan: the whole subject takes all; a key takes every word said for
that slot; a fact, its slot's; a transcript, what was said only in its turn (or the same words
said again); a summary, what was said only in its turns; a reflection note, its outcome's words.
Only a topic request's own keys, as named, stay (its manifest shows them).

Every example is small (at most eight steps); one store serves every example of a test function.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from sqlalchemy import inspect, select, text
from sqlalchemy.types import LargeBinary
from sqlmodel import Session

from memworks.models.schemas import Scope
from memworks.models.tables import DeletionRequest, Episode, Lineage, Memory
from memworks.pipelines.deletion import expand_keys
from tests.factories import episode

#: Syllables of the per-example code: every generated word is unique to its example.
SYLLABLES = ("ba", "ke", "lo", "mu", "ri", "sa", "te", "vo", "zi", "du", "fe", "go", "hu", "ji", "ny", "po")
#: History steps; a forget request names the slot it forgets.
STEPS = (
    "city",
    "move",
    "dog",
    "mention",
    "job",
    "favorite",
    "like",
    "speaker",
    "repeat",
    "redeliver",
    "outcome",
    "lesson",
    "consolidate",
    "retrieve",
    "forget_city",
    "forget_dog",
    "forget_favorite",
)
FORGETS = {
    "forget_city": ("Please forget where I live.", "user.home_city"),
    "forget_dog": ("Please forget my dog's name.", "user.pet.dog"),
}


def code(n: int) -> str:
    return "".join(SYLLABLES[(n // len(SYLLABLES) ** i) % len(SYLLABLES)] for i in range(4))


@dataclass
class Turn:
    """One turn the history sent: its episode, its words (lower case) and the slot it states."""

    episode: dict[str, Any]
    words: set[str]
    key: str | None = None
    #: A forget request erased it: the store no longer knows what it said.
    forgotten: bool = False


@dataclass
class History:
    """What an example sent, kept apart from what the store made of it."""

    tenant: str
    code: str
    turns: list[Turn] = field(default_factory=list)
    outcomes: dict[str, set[str]] = field(default_factory=dict)
    n: int = 0

    def word(self, stem: str, tail: str = "") -> str:
        self.n += 1
        return f"{stem}{self.code}{'xwy'[self.n % 3]}{SYLLABLES[self.n % 16]}{tail}"

    def turn(self, content: str, words: set[str], key: str | None = None, **meta: Any) -> Turn:
        ep = episode(
            len(self.turns) + 1, content, tenant=self.tenant, when=f"2025-01-01T09:{len(self.turns):02d}:00+00:00"
        )
        if meta:
            ep["metadata"] = meta
        t = Turn(ep, {w.lower() for w in words}, key)
        self.turns.append(t)
        return t

    def all_words(self) -> set[str]:
        return set().union(*(t.words for t in self.turns), *self.outcomes.values())

    def slot_words(self, keys: list[str]) -> set[str]:
        """Every word said for these slots (the value mentioned elsewhere goes with it)."""
        return set().union(set(), *(t.words for t in self.turns if t.key in keys))

    def said_only_in(self, episode_ids: set[str]) -> set[str]:
        """Words of these turns (and of turns with the same text) said in no other turn."""
        texts = {t.episode["content"] for t in self.turns if t.episode["episode_id"] in episode_ids}
        inside = [t for t in self.turns if t.episode["content"] in texts]
        outside = [t for t in self.turns if t.episode["content"] not in texts]
        return set().union(set(), *(t.words for t in inside)) - set().union(set(), *(t.words for t in outside))


def feedback_outcome(h: History, i: int, words: tuple[str, str], *, features: list[str]) -> dict[str, Any]:
    return {
        "outcome_id": f"{h.tenant}-o{i}",
        "tenant_id": h.tenant,
        "user_id": "u1",
        "task_id": f"case{i}",
        "task_type": "triage",
        "features": features,
        "action_taken": "route_billing",
        "verified_action": "route_fraud",
        "success": False,
        "occurred_at": f"2025-01-02T09:{i % 60:02d}:00+00:00",
        "task_text": f"Refund for a {words[0].capitalize()} order.",
        "feedback": f"The card was stolen by {words[1].capitalize()}.",
    }


class Store:
    """One embedded store for every example of a test function, and a scan of all its rows."""

    def __init__(self, mw: Any) -> None:
        self.mw = mw
        self.examples = itertools.count()
        with Session(mw.runtime.engine) as s:
            insp = inspect(s.get_bind())
            self.columns = {
                t: [c["name"] for c in insp.get_columns(t) if not isinstance(c["type"], LargeBinary)]
                for t in insp.get_table_names()
            }

    def residue(self, words: set[str], tenant: str) -> list[str]:
        """``table: word`` for every generated word a row of ``tenant`` (or of no tenant) still
        holds, a request's own keys aside; then the tenant's read cache and the dead letters."""
        if not words:
            return []
        found = []
        ordered = sorted(words)
        params = {"tenant": tenant} | {f"w{i}": f"%{w}%" for i, w in enumerate(ordered)}
        with Session(self.mw.runtime.engine) as s:
            for table, cols in self.columns.items():
                blob = " || ' ' || ".join(
                    f"coalesce(lower(CAST(\"{c}\" AS TEXT)), '')"
                    for c in cols
                    if (table, c) != ("deletion_request", "keys_json")
                )
                hits = " OR ".join(f"({blob}) LIKE :w{i}" for i in range(len(ordered)))
                own = "(tenant_id = :tenant OR tenant_id IS NULL) AND " if "tenant_id" in cols else ""
                for row in s.execute(text(f'SELECT {blob} FROM "{table}" WHERE {own}({hits})'), params):
                    found += [f"{table}: {w}" for w in ordered if w in row[0]]
        cached = " ".join(v for _, v in self.mw.runtime.cache.entries(tenant)).lower()
        letters = json.dumps(self.mw.dead_letters()).lower()
        found += [f"cache: {w}" for w in words if w in cached] + [f"dead letters: {w}" for w in words if w in letters]
        return found


@pytest.fixture
def database_url(sqlite_url: str) -> str:
    """SQLite here; ``test_deletion_property_pg`` runs the same search on PostgreSQL (a file of its
    own, so the two searches run in parallel test processes)."""
    return sqlite_url


@pytest.fixture
def store(database_url: str, make_memworks: Any) -> Iterator[Store]:
    mw = make_memworks(database_url)
    mw.enqueue_episodes([episode(1, "I live in Oslo.", tenant="neighbours", user="u9")])
    mw.drain()
    yield Store(mw)


def play(store: Store, h: History, steps: list[str], cuts: list[bool]) -> None:
    """Send the history: turns in batches (cut where ``cuts`` says), a forget request in a batch
    of its own and checked at once, outcomes, consolidation and reads between batches."""
    mw, scope = store.mw, Scope(tenant_id=h.tenant, user_id="u1")
    batch: list[dict[str, Any]] = []

    def flush() -> None:
        if batch:
            mw.enqueue_episodes(list(batch))
            mw.drain()
            batch.clear()

    for i, (step, cut) in enumerate(zip(steps, cuts, strict=True)):
        if cut:
            flush()
        # A name said again after its dog was forgotten is news to the store, which no longer
        # knows it was the dog's: a mention names a dog the store still holds.
        dogs = [t for t in h.turns if t.key == "user.pet.dog" and not t.forgotten]
        favs = [t for t in h.turns if t.key and t.key.startswith("user.favorite.")]
        said = [t for t in h.turns if t.key]
        if step == "city" or (step == "move" and not any(t.key == "user.home_city" for t in h.turns)):
            city = h.word("Vex", "ton").capitalize()
            batch.append(h.turn(f"I live in {city}.", {city}, "user.home_city").episode)
        elif step == "move":
            city = h.word("Brind", "quall").capitalize()
            batch.append(h.turn(f"I moved to {city} last week.", {city}, "user.home_city").episode)
        elif step == "dog" or (step == "mention" and not dogs):
            dog = h.word("Zor").capitalize()
            batch.append(h.turn(f"My dog is called {dog}.", {dog}, "user.pet.dog").episode)
        elif step == "mention":
            (dog,) = dogs[-1].words
            batch.append(h.turn(f"{dog.capitalize()} loves the beach.", {dog}).episode)
        elif step == "job":
            org = h.word("Quix", "tica").capitalize()
            batch.append(h.turn(f"I work at {org}.", {org}, "user.employer").episode)
        elif step == "favorite" or (step == "forget_favorite" and not favs):
            thing = h.word("glim")
            batch.append(h.turn(f"My favorite {thing} is blue.", {thing}, f"user.favorite.{thing}").episode)
        elif step == "like":
            hobby = h.word("trel", "s")
            batch.append(h.turn(f"I love painting {hobby}.", {hobby}, "user.likes").episode)
        elif step == "speaker":
            name, hobby = h.word("Wen").capitalize(), h.word("scarf")
            t = h.turn(f"I love knitting {hobby}.", {name, hobby}, f"person.{name.lower()}.likes", speaker=name)
            batch.append(t.episode)
        elif step == "repeat" and said:
            t = said[i % len(said)]
            batch.append(h.turn(t.episode["content"], set(t.words), t.key, **t.episode.get("metadata", {})).episode)
        elif step == "redeliver" and h.turns:
            batch.append(dict(h.turns[i % len(h.turns)].episode))  # the same id again: a duplicate
        elif step in ("outcome", "lesson"):
            count = 1 if step == "outcome" else 3
            rows = []
            for _ in range(count):
                words = (h.word("qel"), h.word("plov"))
                oid = f"{h.tenant}-o{len(h.outcomes)}"
                h.outcomes[oid] = set(words)
                rows.append(feedback_outcome(h, len(h.outcomes) - 1, words, features=["refund", "card"]))
            mw.report_outcomes(rows, reporter="tenant" if step == "lesson" else None)  # learnt at the next drain
        elif step == "consolidate":
            flush()
            mw.consolidate(h.tenant)
            mw.drain()
        elif step == "retrieve":
            flush()
            for q in ("Where do I live?", "What is my dog called?", "What do I love?"):
                mw.retrieve(scope, q)
        elif step.startswith("forget_"):
            flush()
            if step == "forget_favorite":
                (thing,) = favs[-1].words
                content, key, named = f"Please forget my favorite {thing}.", f"user.favorite.{thing}", {thing}
            else:
                (content, key), named = FORGETS[step], set()
            forget = h.turn(content, named, None)
            mw.enqueue_episodes([forget.episode])
            mw.drain()
            check_forget(store, h, forget.episode["episode_id"], key)
            for t in h.turns:
                t.forgotten |= t.key in expand_keys([key])
    flush()
    mw.drain()  # outcomes reported since the last batch are learnt from before anything is deleted


def check_forget(store: Store, h: History, episode_id: str, key: str) -> None:
    with Session(store.mw.runtime.engine) as s:
        made = list(
            s.scalars(select(DeletionRequest.request_id).where(DeletionRequest.requested_by.contains(episode_id)))  # type: ignore[attr-defined]
        )
    for rid in made:
        assert_finished(store, rid)
        gone = h.slot_words(expand_keys([key]))
        assert store.residue(gone, h.tenant) == [], ("forget", key)


def assert_finished(store: Store, rid: str) -> Any:
    m = store.mw.manifest(rid)
    erased = m.plan.get("memories", 0) + m.plan.get("episodes", 0) + m.plan.get("outcomes", 0)
    assert m.status == ("complete" if erased or not (m.keys or m.memory_ids) else "nothing_matched"), m
    assert all(t.state == "CLOSED" and t.remaining == 0 for t in m.targets.values()), m.targets
    with Session(store.mw.runtime.engine) as s:
        plan = s.scalar(select(DeletionRequest.plan_json).where(DeletionRequest.request_id == rid)) or ""
    assert '"user.' not in plan and '"person.' not in plan  # a finished plan keeps no key in the clear
    return m


def live(store: Store, h: History) -> list[Memory]:
    with Session(store.mw.runtime.engine) as s:
        q = select(Memory).where(Memory.tenant_id == h.tenant, Memory.user_id == "u1", Memory.status != "deleted")
        return list(s.scalars(q))


def parents(store: Store, memory_id: str, kind: str) -> set[str]:
    with Session(store.mw.runtime.engine) as s:
        q = select(Lineage.parent_id).where(Lineage.child_id == memory_id, Lineage.parent_type == kind)
        return set(s.scalars(q))


def choose(data: st.DataObject, store: Store, h: History) -> tuple[dict[str, Any], set[str]]:
    """A deletion request, and the words it must take (from the history, not from the plan)."""
    records = live(store, h)
    form = data.draw(st.sampled_from(["whole", "key", "memory_id"]), label="form")
    if form == "whole" or (form == "memory_id" and not records):
        return {}, h.all_words()
    if form == "key":
        keys = sorted({t.key for t in h.turns if t.key}) + ["user.no_such_key"]
        key = keys[data.draw(st.integers(0, 63), label="key") % len(keys)]
        return {"keys": [key]}, h.slot_words(expand_keys([key]))
    # Indexes, not the rows themselves: a replayed example draws the same way from a new store.
    kinds = sorted({r.extractor for r in records})
    kind = kinds[data.draw(st.integers(0, 63), label="kind") % len(kinds)]
    of_kind = sorted((r for r in records if r.extractor == kind), key=lambda r: (r.recorded_at, r.memory_id))
    m = of_kind[data.draw(st.integers(0, 63), label="record") % len(of_kind)]
    if m.extractor == "reflection":
        gone = set().union(set(), *(h.outcomes.get(o, set()) for o in parents(store, m.memory_id, "outcome")))
    elif m.extractor in ("transcript", "summary"):
        gone = h.said_only_in(parents(store, m.memory_id, "episode"))
    else:
        gone = h.slot_words(expand_keys([m.key])) if m.key else set()
    return {"memory_ids": [m.memory_id]}, gone


@pytest.mark.timeout(900)
@settings(
    # 50 examples per database in the suite, the same ones every run (CI must not pass or fail
    # by chance; 200 cost the suite seven minutes of a process); the soak, a longer random search:
    # DX_EXAMPLES=2000 DX_RANDOM=1 (README, "Soak runs").
    max_examples=int(os.environ.get("DX_EXAMPLES", "50")),
    derandomize=not os.environ.get("DX_RANDOM"),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    steps=st.lists(st.sampled_from(STEPS), min_size=1, max_size=8),
    cuts=st.lists(st.booleans(), min_size=8, max_size=8),
    data=st.data(),
)
def test_every_deletion_finishes_and_leaves_none_of_the_deleted_words(
    store: Store, steps: list[str], cuts: list[bool], data: st.DataObject
) -> None:
    n = next(store.examples)
    h = History(tenant=f"p{n}", code=code(n))
    note(f"steps={steps} cuts={cuts[: len(steps)]} code={h.code}")
    play(store, h, steps, cuts[: len(steps)])
    request, gone = choose(data, store, h)
    rid = store.mw.submit_deletion({"tenant_id": h.tenant, "user_id": "u1", **request})
    store.mw.drain()
    assert_finished(store, rid)
    assert store.residue(gone, h.tenant) == [], (request, sorted(gone))
    if not request:
        with Session(store.mw.runtime.engine) as s:
            left = s.scalars(select(Episode).where(Episode.tenant_id == h.tenant, Episode.content != "")).all()
        assert left == []
    if n % 25 == 0:
        assert store.residue({"oslo"}, "neighbours")  # the neighbour's words are still there: the scan sees text
