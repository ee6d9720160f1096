"""Every statement governed, through the facade: a statement no rule keys still meets later ones.

"We shop at Lidl for groceries." keys nothing; "We've switched from Lidl to Aldi for groceries." said
a month later closes it (the shipped pair model decides *changed*): the old transcript leaves present reads
with ``superseded_by`` the new one, ``as_of`` before the switch still finds it, and the decision is
audited. Unrelated statements of the same user stay current.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from memworks.models.enums import MemoryStatus
from memworks.models.schemas import Scope
from memworks.models.tables import GateDecision
from memworks.store.sql.db import get_engine
from tests.factories import day_episode

S = Scope(tenant_id="t1", user_id="u1")
ep = day_episode


def test_a_change_no_rule_keys_closes_the_old_statement(make_memworks: Any, db_url: str) -> None:
    mw = make_memworks(db_url, claims=True)
    mw.enqueue_episodes(
        [ep(1, "2026-02-01", "We shop at Lidl for groceries."), ep(2, "2026-02-02", "My cat Miso is a grey tabby.")]
    )
    mw.drain()
    mw.enqueue_episodes([ep(3, "2026-03-01", "We've switched from Lidl to Aldi for groceries.")])
    mw.drain()
    mw.enqueue_episodes(
        [ep(3, "2026-03-01", "We've switched from Lidl to Aldi for groceries.")]
    )  # a replay changes nothing
    mw.drain()

    rows = {m.text: m for m in mw.memories(S, include_history=True) if m.key is None and m.value == m.text}
    old, new, cat = (
        rows["We shop at Lidl for groceries."],
        rows["We've switched from Lidl to Aldi for groceries."],
        rows["My cat Miso is a grey tabby."],
    )
    assert old.status is MemoryStatus.SUPERSEDED and old.superseded_by == new.memory_id
    assert old.valid_to is not None and old.valid_to.date().isoformat() == "2026-03-01"
    assert new.status is MemoryStatus.ACTIVE and cat.status is MemoryStatus.ACTIVE

    present = [h.text for h in mw.retrieve(S, "Where do we buy groceries?", k=5).hits]
    assert "We shop at Lidl for groceries." not in present
    before = [h.text for h in mw.retrieve(S, "Where do we buy groceries?", k=5, as_of="2026-02-15T00:00:00+00:00").hits]
    assert "We shop at Lidl for groceries." in before

    with Session(get_engine(db_url)) as s:
        audited = s.exec(select(GateDecision).where(GateDecision.extractor == "claims")).all()
    assert [(a.episode_id, a.op, a.memory_id) for a in audited] == [("u1-3", "update", old.memory_id)]
    assert audited[0].reason.startswith("claims: changed")


ORDERLESS = [
    ("2026-01-05", "We shop at Lidl for groceries."),
    ("2026-01-20", "I go to the gym on Tuesdays."),
    ("2026-02-01", "I take oat milk in my coffee."),
    ("2026-02-10", "We've switched from Lidl to Aldi for groceries."),
    ("2026-03-01", "We shop at Lidl for groceries, it is close."),
    ("2026-04-02", "I take oat milk in my coffee, always."),
    ("2026-05-03", "We shop at Lidl for groceries again."),
]


def test_claims_end_in_the_same_state_whatever_order_the_turns_arrive_in(make_memworks: Any, tmp_path: Any) -> None:
    # Given statements a change closes, one restates and one restates after it had ended, when they
    # arrive in order, reversed, shuffled in batches (redelivery) and all in one message, then the memory table and the
    # audited decisions are the same.
    from memworks_tools.chaos.snapshot import snapshot

    eps = [ep(i, day, text) for i, (day, text) in enumerate(ORDERLESS)]
    runs = []
    for name, order, batch in (
        ("in order", eps, 1),
        ("reversed", eps[::-1], 1),
        ("shuffled", [eps[i] for i in (4, 1, 6, 0, 3, 5, 2)], 3),
        ("one batch", eps, len(eps)),
    ):
        mw = make_memworks(f"sqlite:///{tmp_path / (name.replace(' ', '-') + '.db')}", claims=True)
        for i in range(0, len(order), batch):
            mw.enqueue_episodes(order[i : i + batch])
            mw.drain()
        runs.append((name, snapshot(mw.runtime.engine)))
    (_, first), *others = runs
    claims_rows = [k for c in first.decisions.values() for k in c if str(k[4]).startswith("claims:")]
    assert any("changed" in k[4] for k in claims_rows) and any("restated" in k[4] for k in claims_rows)
    for name, snap in others:
        assert snap.memories == first.memories, name
        assert snap.decisions == first.decisions, name
    # The change closed the first Lidl statement; the restatement said after it holds again.
    held = {row[4] for row in first.memories if row[2] == "episodic" and row[5] == "active"}
    assert "We shop at Lidl for groceries." not in held and "We shop at Lidl for groceries again." in held


def test_a_change_that_names_the_old_value_again_keeps_its_record(make_memworks: Any, sqlite_url: str) -> None:
    # Given home in Berlin, then Tokyo, then "I moved to Berlin last week": the last statement
    # changes the earlier ones, but Berlin as the home is what it says, not what it ends.
    mw = make_memworks(sqlite_url, claims=True)
    for n, (day, text) in enumerate(
        [
            ("2025-01-11", "I live in Berlin."),
            ("2025-01-18", "I moved to Tokyo last week."),
            ("2025-02-25", "I moved to Berlin last week."),
        ]
    ):
        mw.enqueue_episodes([ep(n, day, text)])
        mw.drain()
    homes = [m for m in mw.memories(S) if m.key == "user.home_city"]
    assert [m.value for m in homes] == ["Berlin"], homes
    assert mw.retrieve(S, "Where do I live?").hits[0].value == "Berlin"


def test_a_transcript_ends_when_its_statement_ends_whatever_order_the_changes_arrive_in(
    make_memworks: Any, tmp_path: Any
) -> None:
    # Given a home, then two moves, when the later move arrives before the earlier one (a
    # redelivered message), then the first home's transcript ends at the earlier move, as in order.
    from memworks_tools.chaos.snapshot import snapshot

    eps = [
        ep(0, "2025-01-14", "I live in Madrid."),
        ep(1, "2025-01-23", "I live in Lima."),
        ep(2, "2025-01-29", "I live in Oslo."),
    ]
    snaps = []
    for name, order in (("in-order", eps), ("late", [eps[0], eps[2], eps[1]]), ("reversed", eps[::-1])):
        mw = make_memworks(f"sqlite:///{tmp_path / (name + '.db')}")
        for e in order:
            mw.enqueue_episodes([e])
            mw.drain()
        # Transcripts only: a keyed record corrected late keeps its first version as history.
        snaps.append({row: n for row, n in snapshot(mw.runtime.engine).memories.items() if row[3] is None})
        madrid = [m for m in mw.memories(S, include_history=True) if m.text == "I live in Madrid."]
        ends = {m.key: m.valid_to.date().isoformat() for m in madrid if m.valid_to is not None}
        assert ends.get(None) == "2025-01-23", (name, ends)  # the transcript (no key)
    assert snaps[1] == snaps[0] and snaps[2] == snaps[0]


def test_a_turn_said_again_after_its_slot_changed_sets_the_slot_again(make_memworks: Any, tmp_path: Any) -> None:
    # Given "I work at Acme as a nurse", then Initech, then the first sentence again: the third
    # turn restates the first (its job title still holds) but Acme had stopped holding, so Acme is
    # the employer again, in one message or three.
    turns = [
        ep(0, "2025-01-18", "I work at Acme as a nurse."),
        ep(1, "2025-01-28", "I work at Initech as a nurse."),
        ep(2, "2025-02-06", "I work at Acme as a nurse."),
    ]
    for name, batches in (("apart", [[t] for t in turns]), ("together", [turns])):
        mw = make_memworks(f"sqlite:///{tmp_path / (name + '.db')}")
        for b in batches:
            mw.enqueue_episodes(b)
            mw.drain()
        assert [m.value for m in mw.memories(S) if m.key == "user.employer"] == ["Acme"], name


def test_one_sentence_of_a_turn_ends_what_an_earlier_turn_said(make_memworks: Any, db_url: str) -> None:
    """A turn of several sentences closes an earlier statement when one of its sentences ends a
    thing the earlier one named; chit-chat that names nothing of it closes nothing."""
    mw = make_memworks(db_url, claims=True)
    mw.enqueue_episodes(
        [
            ep(1, "2026-02-01", "And I've got a PureGym membership, I lift there on Saturday mornings."),
            ep(2, "2026-02-02", "Thanks! I'm going for my dreams!"),
        ]
    )
    mw.drain()
    cancelled = "Cancelled the PureGym membership. I climb at The Depot on Monday and Wednesday evenings now."
    mw.enqueue_episodes([ep(3, "2026-03-01", cancelled), ep(4, "2026-03-02", "Sure thing! I'm not giving up.")])
    mw.drain()

    rows = {m.text: m for m in mw.memories(S, include_history=True) if m.key is None and m.value == m.text}
    gym = rows["And I've got a PureGym membership, I lift there on Saturday mornings."]
    assert gym.status is MemoryStatus.SUPERSEDED and gym.superseded_by == rows[cancelled].memory_id
    assert rows["Thanks! I'm going for my dreams!"].status is MemoryStatus.ACTIVE
    with Session(get_engine(db_url)) as s:
        audited = s.exec(select(GateDecision).where(GateDecision.extractor == "claims")).all()
    assert [(a.episode_id, a.memory_id) for a in audited] == [("u1-3", gym.memory_id)]
    assert "by the sentence 'Cancelled the PureGym membership.'" in audited[0].reason


def _ended_on(mw: Any, records: list[Any], day: str) -> None:
    """Each of ``records`` is superseded now, its valid time closed on ``day``."""
    rows = {m.memory_id: m for m in mw.memories(S, include_history=True)}
    for m in records:
        assert rows[m.memory_id].status is MemoryStatus.SUPERSEDED, rows[m.memory_id]
        assert rows[m.memory_id].valid_to is not None and rows[m.memory_id].valid_to.date().isoformat() == day


def test_an_ending_that_names_the_old_value_ends_its_records_too(make_memworks: Any, sqlite_url: str) -> None:
    # Given "I play netball on Tuesday nights", keyed, then "I've stopped playing netball, my knee
    # can't take it any more" (the other clause's "can't" does not make the stop a wish): the
    # turn's records end with its transcript, as of the later turn.
    mw = make_memworks(sqlite_url, claims=True)
    mw.enqueue_episodes([ep(1, "2026-01-26", "I play netball on Tuesday nights with a team from work.")])
    mw.drain()
    keyed = [m for m in mw.memories(S) if m.key is not None and "netball" in m.value.casefold()]
    assert keyed, mw.memories(S)
    mw.enqueue_episodes([ep(2, "2026-03-18", "I've stopped playing netball, my knee can't take it any more.")])
    mw.drain()
    _ended_on(mw, keyed, "2026-03-18")
    assert not [m for m in mw.memories(S) if m.key is not None and "netball" in m.value.casefold()]


def test_a_verb_of_ending_on_a_keyed_value_ends_it(make_memworks: Any, sqlite_url: str) -> None:
    # Given "I'm reading Piranesi", keyed, then "Finished Piranesi, now I'm on Klara and the Sun."
    # (the pair model, weighing the whole turn, calls it compatible): the parse's verb of ending
    # has the keyed value for its object, so the reading and its transcript end, as of the later
    # turn; "I finished the Piranesi review" (its object a review) would end nothing.
    mw = make_memworks(sqlite_url, claims=True)
    mw.enqueue_episodes([ep(1, "2026-02-20", "I'm reading Piranesi by Susanna Clarke at the moment.")])
    mw.drain()
    keyed = [m for m in mw.memories(S) if m.key is not None and m.value == "Piranesi"]
    assert keyed, mw.memories(S)
    mw.enqueue_episodes([ep(2, "2026-03-01", "I finished the Piranesi review for the magazine.")])
    mw.drain()
    assert [m for m in mw.memories(S) if m.key is not None and m.value == "Piranesi"]
    mw.enqueue_episodes([ep(3, "2026-05-30", "Finished Piranesi, now I'm on Klara and the Sun.")])
    mw.drain()
    _ended_on(mw, keyed, "2026-05-30")
    assert not [m for m in mw.memories(S) if "Piranesi by Susanna" in m.text]


def test_an_event_named_again_by_a_verb_of_ending_is_not_ended(make_memworks: Any, sqlite_url: str) -> None:
    # Given an event told in the past ("I also lost my job at Door Dash") and a later turn naming
    # it again with the verb ("Since I lost my job at Door Dash, things have been tough"): there was
    # no state to end, so the earlier statement stays as it was.
    mw = make_memworks(sqlite_url, claims=True)
    mw.enqueue_episodes([ep(1, "2026-01-20", "I'm a courier at Door Dash, mostly evenings.")])
    mw.enqueue_episodes([ep(2, "2026-02-20", "Unfortunately, I lost my job at Door Dash last week.")])
    mw.drain()
    told = next(m for m in mw.memories(S) if m.text.startswith("Unfortunately"))
    mw.enqueue_episodes([ep(3, "2026-04-01", "Since I lost my job at Door Dash, things have been tough.")])
    mw.drain()
    rows = {m.memory_id: m for m in mw.memories(S, include_history=True)}
    assert rows[told.memory_id].status is MemoryStatus.ACTIVE, rows[told.memory_id]


def test_what_replaced_the_best_answer_answers_a_question_about_now(make_memworks: Any, sqlite_url: str) -> None:
    # Given "I'm reading Piranesi" closed by "Finished Piranesi, now I'm on Klara and the Sun"
    # (which the embedder finds little like the question), when asked what is being read now,
    # then the later turn answers: it holds what the closed record held; as of before, the old.
    mw = make_memworks(sqlite_url, claims=True)
    mw.enqueue_episodes(
        [
            ep(1, "2026-01-12", "Hi, I'm Hana. I'm a vet at a small animal practice in Leith."),
            ep(2, "2026-02-20", "I'm reading Piranesi by Susanna Clarke at the moment."),
            ep(3, "2026-05-30", "Finished Piranesi, now I'm on Klara and the Sun."),
        ]
    )
    mw.drain()
    now = mw.retrieve(S, "What book am I reading?", asked_at="2026-06-01T12:00:00+00:00")
    assert now.hits and "Klara" in now.hits[0].value, now.hits
    before = mw.retrieve(S, "What book am I reading?", as_of="2026-03-01T12:00:00+00:00")
    assert before.hits and "Piranesi" in before.hits[0].value, before.hits


def test_a_change_to_one_sentence_of_a_turn_leaves_the_rest_of_it_current(make_memworks: Any, db_url: str) -> None:
    # Given a turn of several things, one of which a later turn changes: the turn as a whole is too
    # far from the change to pair (its other sentences blur it), its sentence is not.
    mw = make_memworks(db_url, claims=True)
    said = "Quick update on the house. We shop at Lidl for groceries. My sister Anne is staying with us until June."
    mw.enqueue_episodes([ep(1, "2026-02-01", said)])
    mw.drain()
    for _ in range(2):  # a replay writes nothing twice
        mw.enqueue_episodes([ep(2, "2026-03-05", "We've switched from Lidl to Aldi for groceries.")])
        mw.drain()

    rows = mw.memories(S, include_history=True)
    old = next(m for m in rows if m.text == said)
    rest = [m for m in rows if m.status is MemoryStatus.ACTIVE and m.key is None and "Anne" in m.text]
    assert old.status is MemoryStatus.SUPERSEDED and old.valid_to is not None
    assert [m.text for m in rest] == ["Quick update on the house. My sister Anne is staying with us until June."]
    assert rest[0].evidence == ["u1-1"] and rest[0].valid_from == old.valid_to
    assert any(m.key == "user.family.sister" and m.status is MemoryStatus.ACTIVE for m in rows)  # not named: holds

    present = " ".join(h.text for h in mw.retrieve(S, "Where do we buy groceries?", k=3).hits)
    assert "Lidl for groceries." not in present.replace("from Lidl to Aldi for groceries.", "")
    assert "Anne" in mw.retrieve(S, "Who is staying with us?", k=3).hits[0].text
    before = [h.text for h in mw.retrieve(S, "Where do we buy groceries?", k=3, as_of="2026-02-15T00:00:00+00:00").hits]
    assert said in before

    # Deleting the turn's transcript erases what still held of it.
    rid = mw.submit_deletion({"tenant_id": "t1", "user_id": "u1", "memory_ids": [old.memory_id]})
    mw.drain()
    assert mw.manifest(rid).status == "complete"
    assert not [m for m in mw.memories(S, include_history=True) if "Anne" in m.text]


def _said_weeks_apart(mw: Any, first: str, again: str) -> None:
    """``first`` on 2 March, ``again`` on 20 March, each processed before the next arrives."""
    for n, (day, text) in enumerate([("2026-03-02", first), ("2026-03-20", again)]):
        mw.enqueue_episodes([ep(n, day, text)])
        mw.drain()


def test_a_statement_its_speaker_marks_as_said_again_rests_on_both_turns(make_memworks: Any, sqlite_url: str) -> None:
    # Other words, a model that calls the pair compatible, and the speaker's own "just a reminder".
    mw = make_memworks(sqlite_url, claims=True)
    first = "Separate thing: all user-facing copy has to be British English."
    again = "And just a reminder, UI text is UK spelling."
    _said_weeks_apart(mw, first, again)
    mw.enqueue_episodes([ep(1, "2026-03-20", again)])  # a replay changes nothing
    mw.drain()
    rows = mw.memories(S)
    # The fact's keyed record rests on both turns (its transcript is no second record of it) ...
    assert [(m.key, m.evidence) for m in rows if m.key and "u1-0" in m.evidence] == [
        ("user.pref.general.british_english", ["u1-0", "u1-1"])
    ]
    # ... and the later turn stays, as it was said: no copy is made of it.
    assert [m.evidence for m in rows if m.key is None and m.text == again] == [["u1-1"]]
    with Session(get_engine(sqlite_url)) as s:
        audited = s.exec(select(GateDecision).where(GateDecision.extractor == "claims")).all()
    first_id = next(m.memory_id for m in rows if m.key is None and m.text == first)
    assert [(a.episode_id, a.op, a.memory_id) for a in audited] == [("u1-1", "noop", first_id)]
    assert "said again as the speaker marks it" in audited[0].reason


def test_a_restatement_keyed_only_in_the_later_turn_rests_its_record_on_both(
    make_memworks: Any, sqlite_url: str
) -> None:
    # The first turn keys nothing; the later one, marked as said again, keys the rule: its record
    # is the fact's, and it rests on both turns (the first turn's transcript gains nothing).
    mw = make_memworks(sqlite_url, claims=True)
    first = (
        "ugh and while you're in main.rs, i can't stand functions longer than ~50 lines, run() is at 140 now. split it"
    )
    again = (
        "acceptable. and again pls keep functions short, if it doesn't fit on my screen it gets split. "
        "the new parse_args is creeping past 60 lines"
    )
    _said_weeks_apart(mw, first, again)
    rows = mw.memories(S)
    assert [(m.key, sorted(m.evidence)) for m in rows if m.key] == [("user.pref.general.function", ["u1-0", "u1-1"])]
    assert [m.evidence for m in rows if m.key is None and m.text == first] == [["u1-0"]]


def test_a_marked_restatement_rests_the_later_turns_record_of_what_both_said_on_both(
    make_memworks: Any, sqlite_url: str
) -> None:
    # Both turns say the user is coeliac; only the later one keys it. Its record rests on both
    # turns, beside the first turn's own records, which gain the later turn.
    mw = make_memworks(sqlite_url, claims=True)
    first = "food first. I'm coeliac, so nothing with gluten for me — wheat, barley, rye, and normal oats are all out."
    again = (
        "and a reminder that gluten is a hard no for me — I've got coeliac disease, even crumbs from a shared "
        "toaster make me ill."
    )
    _said_weeks_apart(mw, first, again)
    keyed = {m.key: sorted(m.evidence) for m in mw.memories(S) if m.key}
    assert keyed.get("user.condition.coeliac_disease") == ["u1-0", "u1-1"]
    assert keyed.get("user.pref.food.gluten") == ["u1-0", "u1-1"]
