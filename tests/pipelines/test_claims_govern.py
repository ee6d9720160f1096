"""The claims step's pure decisions: which current claims a new one meets, and what it does to them.

The pair model is replaced by one that answers from the texts (a fake is right for pure code: the
shipped model is measured by ``memworks eval decisions`` and exercised end to end elsewhere).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memworks.pipelines.claims import ClaimText, Decision, read_words, sentences
from memworks.pipelines.claims import govern as g
from memworks.pipelines.claims.cues import marks_restatement
from memworks.pipelines.claims.values import names

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def vec(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def st(mid: str, text: str, day: int, v: np.ndarray, subject: str = "user", source: str = "user") -> g.Statement:
    claim = ClaimText(text, subject, T0 + timedelta(days=day), source, v, None, read_words(text))
    return g.Statement(mid, f"ep-{mid}", claim)


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> dict[tuple[str, str], Decision]:
    """(new text, old text) → the decision the fake model gives; unlisted pairs are compatible."""
    table: dict[tuple[str, str], Decision] = {}

    def decide_all(new: ClaimText, olds: Sequence[ClaimText], model: object = None) -> list[tuple[Decision, float]]:
        return [(table.get((new.text, o.text), Decision.COMPATIBLE), 0.95) for o in olds]

    monkeypatch.setattr(g, "decide_all", decide_all)
    monkeypatch.setattr(sentences, "decide_all", decide_all)
    return table


def test_a_change_closes_the_old_claim_when_the_new_one_was_said(answers: dict) -> None:
    old = st("a", "I use VS Code.", 0, vec(1, 0.1, 0))
    new = st("b", "I switched to Neovim.", 20, vec(1, 0.2, 0))
    answers[(new.claim.text, old.claim.text)] = Decision.CHANGED
    plan = g.govern([new], [old])
    assert [(c.old, c.by, c.at, c.decision) for c in plan.closings] == [("a", "b", new.claim.said_at, Decision.CHANGED)]
    assert plan.restatements == []


def test_far_claims_other_subjects_and_other_sources_are_never_met(answers: dict) -> None:
    new = st("n", "I switched to Neovim.", 20, vec(1, 0, 0))
    far = st("far", "My cat is grey.", 0, vec(0, 1, 0))
    sam = st("sam", "I use VS Code.", 0, vec(1, 0, 0), subject="Sam")
    tool = st("tool", "editor: VS Code", 0, vec(1, 0, 0), source="verified_tool")
    later = st("later", "I use VS Code.", 30, vec(1, 0, 0))
    for o in (far, sam, tool, later):
        answers[(new.claim.text, o.claim.text)] = Decision.CHANGED
    assert g.govern([new], [far, sam, tool, later]).closings == []


def test_a_restatement_absorbs_the_new_claim_and_an_ending_closes_both(answers: dict) -> None:
    old = st("a", "I'm allergic to penicillin.", 0, vec(1, 0, 0))
    again = st("b", "Penicillin gives me hives.", 5, vec(1, 0.1, 0))
    change = st("c", "I'm no longer allergic to penicillin.", 9, vec(1, 0.05, 0))
    answers[(again.claim.text, old.claim.text)] = Decision.RESTATED
    answers[(change.claim.text, old.claim.text)] = Decision.ENDED
    answers[(change.claim.text, again.claim.text)] = Decision.ENDED
    plan = g.govern([change, again], [old])
    assert [(r.old.memory_id, r.new.memory_id, r.applies) for r in plan.restatements] == [("a", "b", True)]
    # Each pair is decided: the ending closes "a" and the copy "b" (a no-op on a copy).
    assert sorted((c.old, c.decision) for c in plan.closings) == [("a", Decision.ENDED), ("b", Decision.ENDED)]


def test_only_the_nearest_few_are_decided(answers: dict) -> None:
    new = st("n", "new", 9, vec(1, 0, 0))
    olds = [st(f"o{i}", f"old {i}", i, vec(1, 0.1 * (i + 1), 0)) for i in range(6)]
    for o in olds:
        answers[(new.claim.text, o.claim.text)] = Decision.CHANGED
    closed = {c.old for c in g.govern([new], olds, neighbours=3).closings}
    assert closed == {"o0", "o1", "o2"}  # the nearest by vector


def test_a_value_named_again_in_a_like_statement_is_a_mention(answers: dict) -> None:
    old = g.Statement("a", "ep-a", st("a", "I'm allergic to penicillin.", 0, vec(1, 0.1, 0)).claim, ("penicillin",))
    again = st("b", "Penicillin gives me hives, I can't take it.", 5, vec(1, 0.3, 0))
    denied = st("c", "Turns out I'm not allergic to penicillin at all.", 6, vec(1, 0.2, 0))
    news = st("d", "The penicillin shortage is in the news.", 7, vec(0.5, 1, 0))  # too far
    plan = g.govern([again, denied, news], [old])
    assert [(m.old.memory_id, m.new.memory_id, m.value) for m in plan.mentions] == [("a", "b", "penicillin")]
    assert plan.closings == [] and plan.restatements == []


def test_a_value_named_again_is_met_sentence_by_sentence(answers: dict) -> None:
    # Given a turn of two things whose whole vector is far from a later statement of one of them
    # (0.55 < MENTION_COSINE), but whose sentence naming the value is close (0.98): a mention.
    text = "I'm allergic to penicillin. And I hate phone calls."
    allergy = st("a", "I'm allergic to penicillin.", 0, vec(1, 0.1, 0)).claim
    calls = st("a", "And I hate phone calls.", 0, vec(0, 1, 0)).claim
    whole = st("a", text, 0, vec(0.3, 1, 0)).claim
    old = g.Statement("a", "ep-a", whole, ("penicillin",), parts=(allergy, calls))
    again = st("b", "Penicillin gives me hives, keep it in mind.", 5, vec(1, 0.3, 0))
    assert float(np.dot(whole.vector, again.claim.vector)) < g.MENTION_COSINE
    plan = g.govern([again], [old])
    assert [(m.old.memory_id, m.new.memory_id, m.value) for m in plan.mentions] == [("a", "b", "penicillin")]


def test_a_stance_named_again_in_another_slot_is_a_mention(answers: dict) -> None:
    # "no dairy for me" filed one slot and "dairy wrecks my stomach, nothing with milk for me" another;
    # the later one still says the earlier one's thing again, the negation being the stance itself.
    old = dataclasses.replace(
        st("a", "So no dairy for me from now on.", 0, vec(1, 0.1, 0)),
        keys=("user.pref.food.dairy",),
        values=("avoids dairy",),
    )
    again = dataclasses.replace(
        st("b", "Nothing with milk in for me, dairy wrecks my stomach.", 9, vec(1, 0.2, 0)),
        keys=("user.pref.food.milk",),
    )
    plan = g.govern([again], [old])
    assert [(m.old.memory_id, m.new.memory_id, m.value) for m in plan.mentions] == [("a", "b", "avoids dairy")]
    assert plan.closings == []


def test_across_slots_only_a_stance_is_said_again(answers: dict) -> None:
    colour = dataclasses.replace(
        st("a", "My favourite colour is red.", 0, vec(1, 0.1, 0)), keys=("user.favorite.colour",), values=("red",)
    )
    drink = dataclasses.replace(
        st("b", "My favourite drink is red wine.", 9, vec(1, 0.2, 0)),
        keys=("user.favorite.drink",),
        values=("red wine",),
    )
    assert g.govern([drink], [colour]).mentions == []


def test_across_slots_a_value_the_new_turn_keys_nothing_for_is_said_again(answers: dict) -> None:
    # The old turn keyed Poppy's allergy; the new one keyed something else of its other sentences.
    allergy = dataclasses.replace(
        st("a", "Poppy is allergic to peanuts.", 0, vec(1, 0.1, 0)), keys=("person.poppy.allergy",), values=("peanuts",)
    )
    text = "Remember that Poppy can't have anything with peanuts in. She carries her EpiPen now."
    parts = [
        ClaimText(t, "user", T0 + timedelta(days=9), "user", vec(1, 0.15, 0), None, read_words(t))
        for t in ("Remember that Poppy can't have anything with peanuts in.", "She carries her EpiPen now.")
    ]
    again = dataclasses.replace(
        st("b", text, 9, vec(1, 0.2, 0)), keys=("person.poppy.medication",), values=("EpiPen",), parts=tuple(parts)
    )
    # The whole turn carries a cue of change ("now"); the sentence naming the peanuts does not.
    assert [(m.old.memory_id, m.value) for m in g.govern([again], [allergy]).mentions] == [("a", "peanuts")]


def test_a_sentence_marked_as_said_again_restates_the_nearest_earlier_statement(answers: dict) -> None:
    coriander = st("a", "No coriander for me, it tastes like soap.", 0, vec(1, 0.6, 0))
    cooking = st("b", "I love cooking Thai food.", 1, vec(1, 0.2, 0.4))
    again = st("c", "Remember, hold the cilantro for me.", 9, vec(1, 0.5, 0.1))
    plan = g.govern([again], [coriander, cooking])  # the model calls both pairs compatible
    assert [(r.old.memory_id, r.new.memory_id, r.marked, r.applies) for r in plan.restatements] == [
        ("a", "c", True, True)
    ]
    # The old statement gains the evidence; the new turn is no copy of it.
    assert not plan.restatements[0].absorbs and plan.closings == []


def test_a_mark_in_lower_case_chat_is_read_in_its_own_sentence(answers: dict) -> None:
    # No sentence of its own: the mark's sentence decides, a condition in it is no wish, and a
    # cue of change in another sentence ("the new parser") is no news about it.
    rule = st("a", "i can't stand functions longer than ~50 lines, split them", 0, vec(1, 0.6, 0))
    again = st(
        "c",
        "ok. and again pls keep functions short, if it doesn't fit it gets split. the new parser is 90 lines",
        9,
        vec(1, 0.5, 0.1),
    )
    plan = g.govern([again], [rule])
    assert [(r.old.memory_id, r.marked, r.said) for r in plan.restatements] == [
        ("a", True, "and again pls keep functions short, if it doesn't fit it gets split.")
    ]
    # A wish in the mark's own sentence is one.
    wished = st("c", "ok. again pls, i might want longer functions after all", 9, vec(1, 0.5, 0.1))
    assert g.govern([wished], [rule]).restatements == []


@pytest.mark.parametrize(
    ("text", "source", "why"),
    [
        ("Hold the cilantro for me.", "user", "no mark"),
        ("Remember, I switched to eating cilantro now.", "user", "news: a cue of change"),
        ("reminder: 2026-03-01 09:00", "verified_tool", "a tool's field"),
        ("Remember, I take 2 coriander leaves at most.", "user", "another number than the old one's"),
        ("The thing I told you about coriander, please forget it.", "user", "a forget request"),
    ],
)
def test_no_mark_no_restatement(answers: dict, text: str, source: str, why: str) -> None:
    coriander = st("a", "No coriander for me, 1 leaf ruins a dish.", 0, vec(1, 0.6, 0), source=source)
    again = st("c", text, 9, vec(1, 0.5, 0.1), source=source)
    assert g.govern([again], [coriander]).restatements == [], why


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("just a reminder I can't have penicillin, I come out in hives", True),
        ("I'm allergic to penicillin", True),
        ("Turns out I'm not allergic to penicillin at all.", False),
        ("I don't take penicillin any more", False),
    ],
)
def test_keeping_away_from_a_value_names_it_a_denial_does_not(text: str, named: bool) -> None:
    assert names(text, "penicillin") is named


def test_a_statement_arriving_late_is_decided_against_the_later_ones(answers: dict) -> None:
    # "I use VS Code." redelivered after "I switched to Neovim." (said later) was stored.
    early = st("a", "I use VS Code.", 0, vec(1, 0.1, 0))
    later = st("b", "I switched to Neovim.", 20, vec(1, 0.2, 0))
    answers[(later.claim.text, early.claim.text)] = Decision.CHANGED
    plan = g.govern([early], [later])
    assert [(c.old, c.by, c.at) for c in plan.closings] == [("a", "b", later.claim.said_at)]


def test_a_restatement_of_what_had_ended_is_no_copy(answers: dict) -> None:
    lidl = st("a", "We shop at Lidl.", 0, vec(1, 0, 0))
    aldi = st("b", "We switched to Aldi.", 10, vec(1, 0.2, 0))
    again = st("c", "We shop at Lidl.", 20, vec(1, 0.01, 0))
    answers[(aldi.claim.text, lidl.claim.text)] = Decision.CHANGED
    answers[(again.claim.text, lidl.claim.text)] = Decision.RESTATED
    # In order: "a" was closed when "b" was said, before "c" restated it.
    ended = dataclasses.replace(lidl, ends_at=aldi.claim.said_at)
    plan = g.govern([again], [ended, aldi])
    assert [(r.old.memory_id, r.new.memory_id, r.applies) for r in plan.restatements] == [("a", "c", False)]
    # "a" redelivered last: its closing and the restatement meet in one plan, to the same end.
    plan = g.govern([lidl], [aldi, again])
    assert [(c.old, c.by) for c in plan.closings] == [("a", "b")]
    assert [(r.old.memory_id, r.new.memory_id, r.applies) for r in plan.restatements] == [("a", "c", False)]


def test_turns_keyed_into_other_slots_only_are_never_decided(answers: dict) -> None:
    colour = dataclasses.replace(
        st("a", "My favourite colour is red.", 0, vec(1, 0, 0)), keys=("user.favorite.colour",)
    )
    food = dataclasses.replace(st("b", "My favourite food is ramen.", 5, vec(1, 0.1, 0)), keys=("user.favorite.food",))
    blue = dataclasses.replace(
        st("c", "My favourite colour is blue.", 9, vec(1, 0.05, 0)), keys=("user.favorite.colour",)
    )
    for new, old in ((food, colour), (blue, colour), (blue, food)):
        answers[(new.claim.text, old.claim.text)] = Decision.CHANGED
    plan = g.govern([food, blue], [colour])
    assert sorted((c.old, c.by) for c in plan.closings) == [("a", "c")]


def _with_parts(s: g.Statement, *sentences: str) -> g.Statement:
    """``s`` with its sentences read from the parser, as ingestion reads them."""
    from memworks.adapters.nlp import SpacyParser
    from memworks.pipelines.claims import join_sentences, read_claim

    parsed = SpacyParser().parse(list(sentences))
    parts = tuple(
        read_claim(
            t,
            subject="user",
            said_at=s.claim.said_at,
            source="user",
            vector=s.claim.vector,
            sentence=join_sentences(p, t),
        )
        for t, p in zip(sentences, parsed, strict=True)
    )
    return dataclasses.replace(s, parts=parts)


def test_a_sentence_of_a_turn_closes_what_its_cue_acts_on(answers: dict) -> None:
    old = st("a", "And I've got a PureGym membership, I lift there on Saturday mornings.", 0, vec(1, 0.1, 0))
    new = _with_parts(
        st("b", "Cancelled the PureGym membership. I climb at The Depot now.", 20, vec(1, 0.2, 0)),
        "Cancelled the PureGym membership.",
        "I climb at The Depot now.",
    )
    answers[("Cancelled the PureGym membership.", old.claim.text)] = Decision.ENDED
    plan = g.govern([new], [old])
    assert [(c.old, c.by, c.decision, c.sentence) for c in plan.closings] == [
        ("a", "b", Decision.ENDED, "Cancelled the PureGym membership.")
    ]


def test_a_sentence_whose_cue_names_nothing_of_the_old_claim_closes_nothing(answers: dict) -> None:
    old = st("a", "Thanks! I'm going for my dreams!", 0, vec(1, 0.1, 0))
    new = _with_parts(
        st("b", "Sure thing, Gina! I'm not giving up.", 20, vec(1, 0.2, 0)), "Sure thing, Gina!", "I'm not giving up."
    )
    answers[("I'm not giving up.", old.claim.text)] = Decision.ENDED
    answers[("Sure thing, Gina!", old.claim.text)] = Decision.RESTATED  # only closings are taken from a sentence
    plan = g.govern([new], [old])
    assert plan.closings == [] and plan.restatements == []


def with_parts(s: g.Statement, *parts: tuple[str, np.ndarray]) -> g.Statement:
    c = s.claim
    return dataclasses.replace(
        s, parts=tuple(ClaimText(t, c.subject, c.said_at, c.source, v, None, read_words(t)) for t, v in parts)
    )


def test_a_sentence_of_a_turn_of_several_meets_a_later_turn_its_whole_is_too_far_from(answers: dict) -> None:
    # The turn as a whole (vector far from the change) pairs through its sentence about the gym.
    gym, sister = "I have a gym membership at PureGym.", "My sister Anne is staying with us."
    old = with_parts(st("a", f"{gym} {sister}", 0, vec(0, 1, 0)), (gym, vec(1, 0.1, 0)), (sister, vec(0, 1, 0)))
    new = st("b", "I quit the PureGym membership.", 20, vec(1, 0.2, 0))
    answers[(new.claim.text, gym)] = Decision.ENDED
    answers[(new.claim.text, sister)] = Decision.ENDED  # too far from it to be decided at all
    plan = g.govern([new], [old])
    assert [(c.old, c.by, c.decision, c.part) for c in plan.closings] == [("a", "b", Decision.ENDED, gym)]


def test_a_turn_that_restates_one_sentence_and_says_more_is_no_copy(answers: dict) -> None:
    aisle = "I always want an aisle seat."
    old = with_parts(
        st("a", f"{aisle} I live in Leeds.", 0, vec(0, 1, 0)), (aisle, vec(1, 0, 0)), ("I live in Leeds.", vec(0, 1, 0))
    )
    more = "Book me the aisle as usual."
    new = with_parts(
        st("b", f"{more} And I need a taxi.", 20, vec(0, 0, 1)),
        (more, vec(1, 0.1, 0)),
        ("And I need a taxi.", vec(0, 0, 1)),
    )
    answers[(more, aisle)] = Decision.RESTATED
    plan = g.govern([new], [old])
    assert [(r.old.memory_id, r.new.memory_id, r.part, r.applies) for r in plan.restatements] == [
        ("a", "b", aisle, True)
    ]
    assert plan.closings == []


@pytest.mark.parametrize(
    "said",
    ["Last Friday I took my kids to a pottery workshop.", "Mel: Last Friday I took my kids to a pottery workshop."],
)
def test_an_event_told_as_done_in_a_turn_of_several_is_not_ended(answers: dict, said: str) -> None:
    # A state told as holding can stop holding; an event told as done stays done, whatever the
    # model answers (and whether or not the sentence carries its turn's "Name: ").
    other = "My sister Anne is staying with us."
    old = with_parts(st("a", f"{said} {other}", 0, vec(0, 1, 0)), (said, vec(1, 0.1, 0)), (other, vec(0, 1, 0)))
    new = st("b", "I quit pottery.", 20, vec(1, 0.2, 0))
    answers[(new.claim.text, said)] = Decision.ENDED
    assert g.govern([new], [old]).closings == []


@pytest.mark.parametrize(
    ("text", "marked"),
    [
        ("just a reminder, UI text is UK spelling", True),
        ("and again pls keep functions short", True),
        ("like I said way back, skip the explanation", True),
        ("you know i'm not a morning person", True),
        ("I've told you before: phone calls are a no", True),
        ("Leah doesn't eat meat or fish, remember", True),
        ("don't forget I'm vegan", True),
        ("I remember the trip to Rome", False),
        ("Do you remember my dog's name?", False),
        ("We're closed on Mondays again", False),
        ("the thing I told you about Derek, please forget I ever mentioned it", False),
    ],
)
def test_what_marks_a_statement_as_said_before(text: str, marked: bool) -> None:
    assert marks_restatement(text) is marked


def test_a_plain_value_said_again_by_half_its_words_is_a_mention(answers: dict) -> None:
    # "Keep your replies brief and in bullet points" says 'short answers in bullet points' again by
    # half its words, in a statement as alike as a mention asks; a tool's fields never do.
    old = dataclasses.replace(
        st("a", "I prefer short answers in bullet points.", 0, vec(1, 0.1, 0)),
        keys=("user.likes",),
        values=("short answers in bullet points",),
    )
    again = st("b", "Keep your replies brief and in bullet points, please.", 9, vec(1, 0.3, 0))
    plan = g.govern([again], [old])
    assert [(m.old.memory_id, m.new.memory_id, m.value) for m in plan.mentions] == [
        ("a", "b", "short answers in bullet points")
    ]
    # Half the words, but not its head: "light mode in the terminal" is no 'dark mode in the editor'.
    other = st("c", "I prefer light mode in the terminal.", 9, vec(1, 0.3, 0))
    assert g.govern([other], [dataclasses.replace(old, values=("dark mode in the editor",))]).mentions == []
    tool_old = dataclasses.replace(old, claim=dataclasses.replace(old.claim, source="verified_tool"))
    tool_new = dataclasses.replace(again, claim=dataclasses.replace(again.claim, source="verified_tool"))
    assert g.govern([tool_new], [tool_old]).mentions == []
