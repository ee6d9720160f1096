"""Standing requests, diet changes and misread objects (real spaCy parser, the open extractor).

"never book me X", "always send me X by email" are standing preferences when an adverb makes
them standing; the record speaks of the user and carries no order to act, and the gate judges
the sentence as said. A change of diet ("I've gone vegan") replaces the diet held before. A
word the parse did not take for the object ("I can't stand cilantro") or a clause the parse hung
under a fronted phrase ("For tests I always use pytest") is still read.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from memworks.adapters.nlp import SpacyParser
from memworks.models.drafts import Candidate, Turn
from memworks.models.enums import GateOutcome, Role, Source
from memworks.pipelines.extraction.open_vocab.extractor import OpenVocabularyExtractor
from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token
from memworks.pipelines.extraction.rules import RulesExtractor
from memworks.pipelines.extraction.standing import clauses as C
from memworks.pipelines.gate import judge
from memworks.pipelines.ingest.supersession import Accepted, decide_writes

NOW = datetime(2025, 3, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def extract() -> OpenVocabularyExtractor:
    return OpenVocabularyExtractor(SpacyParser(), rules=RulesExtractor())


def turn(content: str, ep: str = "e1", *, when: datetime = NOW) -> Turn:
    return Turn(episode_id=ep, role=Role.USER, source=Source.USER, content=content, occurred_at=when)


def standing(cands: Sequence[Candidate]) -> list[Candidate]:
    return [c for c in cands if c.extra.get("rule", "").startswith("standing.")]


# (request, key, text of the record)
REQUESTS = [
    (
        "And never book me a hotel room above the tenth floor, I get dizzy.",
        "user.pref.travel.hotel_room_floor",
        "User does not want the assistant to book them a hotel room above the tenth floor.",
    ),
    (
        "Please always send me receipts by email, not post.",
        "user.pref.contact.receipt_email",
        "User wants to be sent receipts by email.",
    ),
    (
        "Only text me about delays.",
        "user.pref.general.delay",
        "User only wants to be texted about delays.",
    ),
    # a request for something, made standing by "from now on" (which is when, not what)
    (
        "Put me by the window from now on, I can sleep on planes after all.",
        "user.pref.general.window",
        "User wants the assistant to always put them by the window.",
    ),
    # a label before a colon, which the parse hangs on the verb as its subject
    (
        "And one more standing rule: weekends, please don't put any calls before 10am.",
        "user.pref.contact.call",
        "User does not want the assistant to put any calls before 10am.",
    ),
    # a topic's label, then what is wanted for it
    (
        "Also commit messages: conventional commits please (feat:, fix:, chore: ...).",
        "user.pref.general.conventional_commit",
        "User wants conventional commits for commit messages.",
    ),
]


@pytest.mark.parametrize(("text", "key", "record"), REQUESTS, ids=[r[0] for r in REQUESTS])
def test_a_standing_request_becomes_an_accepted_preference(
    extract: OpenVocabularyExtractor, text: str, key: str, record: str
) -> None:
    # Given a request that an adverb makes standing, When it is read, Then one preference
    # record speaks of the user, and the gate accepts it as trusted (no order to send is kept)
    (c,) = standing(extract(turn(text)))
    assert (c.key, c.text) == (key, record)
    verdict = judge(c)
    assert verdict.outcome is GateOutcome.ACCEPTED and verdict.trusted


NOT_REQUESTS = [
    "Book me a flight to Berlin.",  # a task of the moment
    "Don't book it yet.",
    "Always forward my invoices to Ana.",  # outward to someone else: the rules' pending record
    "Always send Ana the minutes.",
    "Always send the report to ana@example.com.",
    "Always pay me by bank transfer.",  # money moves: never read as a preference
    "Always email me.",  # the outward action is the whole wish
    "Never ask me for confirmation before paying.",  # a safeguard switched off, refused as said
    "I want you to always book me the cheapest flight.",  # not an imperative
    "If you book me a flight, never pick Ryanair.",
    "The bill please.",  # a request of the moment: no topic it is the rule for
    "Book me a table for Friday, please.",
]


@pytest.mark.parametrize("text", NOT_REQUESTS)
def test_tasks_outward_actions_and_orders_against_the_user_leave_no_preference(
    extract: OpenVocabularyExtractor, text: str
) -> None:
    assert [
        c.text
        for c in standing(extract(turn(text)))
        if c.extra["rule"].startswith(("standing.request", "standing.fragment"))
    ] == []


def test_an_outward_request_still_waits_for_confirmation_in_the_rules_record(extract: OpenVocabularyExtractor) -> None:
    # The contact preference is a fact; the instruction to send stays pending at the gate
    cands = extract(turn("Please always send me receipts by email, not post."))
    outcomes = {c.extra["rule"]: judge(c).outcome for c in cands if c.key}
    assert outcomes == {"outward": GateOutcome.PENDING, "standing.request_always": GateOutcome.ACCEPTED}


@pytest.mark.parametrize(
    ("text", "diet"),
    [("I've gone fully vegan since January.", "vegan"), ("I have switched to a pescatarian diet.", "pescatarian")],
)
def test_a_change_of_diet_replaces_the_diet_held_before(extract: OpenVocabularyExtractor, text: str, diet: str) -> None:
    # Given "I'm vegetarian", When the user later says they changed diet, Then user.diet changes
    # (the old record closed, superseded by the new one)
    items: list[Accepted] = []
    for i, said in enumerate(["I'm vegetarian.", text]):
        when = datetime(2025, 3, 1 + i, tzinfo=UTC)
        for c in extract(turn(said, f"e{i}", when=when)):
            if c.key == "user.diet":
                items.append(Accepted(c, judge(c), f"e{i}", when))
    plan = decide_writes(items, [], scope_key="t\x1fu", now=datetime(2025, 3, 5, tzinfo=UTC))
    assert [(n.key, n.value) for n in plan.new] == [("user.diet", "vegetarian"), ("user.diet", diet)]
    assert [c.superseded_by for c in plan.closes] == [plan.new[1].memory_id]


@pytest.mark.parametrize("text", ["I went vegan for a month.", "I might go vegan.", "My sister went vegan."])
def test_a_trial_a_maybe_or_someone_elses_diet_is_no_diet_change(extract: OpenVocabularyExtractor, text: str) -> None:
    # (the sister's diet is hers: ``user.sister.diet``, never the user's)
    changes = [c for c in standing(extract(turn(text))) if c.extra["rule"] == "standing.diet_change"]
    assert [c for c in changes if c.key == "user.diet"] == []


def test_a_word_the_parse_misread_as_an_adverb_is_the_object(extract: OpenVocabularyExtractor) -> None:
    # "I can't stand cilantro": the parse hangs "cilantro" on the verb as an adverb
    (c,) = standing(extract(turn("I can't stand cilantro.")))
    assert (c.key, c.value) == ("user.pref.general.cilantro", "avoids cilantro")


def _tok(i: int, text: str, pos: str, tag: str, dep: str, head: int, lemma: str = "") -> Token:
    return Token(i, text, lemma or text.lower(), pos, tag, dep, head)


def test_a_clause_under_a_fronted_phrase_read_as_the_root_is_a_main_clause() -> None:
    # Given the parse "For(ROOT) notes I always use(relcl of notes) Obsidian", Then "use" is the
    # speaker's main clause; a relative clause under a verb's clause is not
    fronted = Sentence.build(
        "For notes I always use Obsidian.",
        [
            _tok(0, "For", "ADP", "IN", "ROOT", 0),
            _tok(1, "notes", "NOUN", "NNS", "pobj", 0, "note"),
            _tok(2, "I", "PRON", "PRP", "nsubj", 4),
            _tok(3, "always", "ADV", "RB", "advmod", 4),
            _tok(4, "use", "VERB", "VBP", "relcl", 1),
            _tok(5, "Obsidian", "PROPN", "NNP", "dobj", 4),
            _tok(6, ".", "PUNCT", ".", "punct", 0),
        ],
    )
    assert [t.text for t in C.heads(fronted)] == ["use"]
    relative = Sentence.build(
        "She likes the notes I use.",
        [
            _tok(0, "She", "PRON", "PRP", "nsubj", 1),
            _tok(1, "likes", "VERB", "VBZ", "ROOT", 1, "like"),
            _tok(2, "the", "DET", "DT", "det", 3),
            _tok(3, "notes", "NOUN", "NNS", "dobj", 1, "note"),
            _tok(4, "I", "PRON", "PRP", "nsubj", 5),
            _tok(5, "use", "VERB", "VBP", "relcl", 3),
            _tok(6, ".", "PUNCT", ".", "punct", 1),
        ],
    )
    assert [t.text for t in C.heads(relative)] == ["likes"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Please always give me type-annotated code.", "prefers type-annotated code"),
        ("Never give me long answers.", "avoids long answers"),
    ],
)
def test_a_request_to_hand_something_over_names_the_thing(
    extract: OpenVocabularyExtractor, text: str, value: str
) -> None:
    # "give me X" says nothing of X but that the user wants it: the value is X, not "giving them X"
    assert [c.value for c in standing(extract(turn(text)))] == [value]
