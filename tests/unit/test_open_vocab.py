"""The open-vocabulary extractor with the real spaCy parser, the gate and slot resolution.

The scenario replays one user's turns through extraction → gate → ``decide_writes`` and a
plain replay of each write plan (what the store does), then checks keys, ops, event dates,
what a present read sees and what history keeps.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from memworks.adapters.nlp import SpacyParser
from memworks.models.drafts import Candidate, MemoryView, Turn
from memworks.models.enums import CandidateOp, MemoryKind, MemoryStatus, Op, Role, Source
from memworks.pipelines.extraction.base import BatchExtractor, Extractor
from memworks.pipelines.extraction.open_vocab.extractor import OpenVocabularyExtractor, refusal
from memworks.pipelines.extraction.open_vocab.parse import Parser
from memworks.pipelines.extraction.rules import RulesExtractor
from memworks.pipelines.gate import judge
from memworks.pipelines.ingest.supersession import Accepted, WritePlan, decide_writes

SCOPE = "t1\x1fu1"


@pytest.fixture(scope="module")
def extract() -> OpenVocabularyExtractor:
    return OpenVocabularyExtractor(SpacyParser(), rules=RulesExtractor())


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def turn(content: str, when: datetime, ep: str = "e1", *, role: Role = Role.USER, speaker: str | None = None) -> Turn:
    return Turn(episode_id=ep, role=role, source=Source.USER, content=content, occurred_at=when, speaker=speaker)


def keyed(cands: Sequence[Candidate]) -> list[tuple[str, str | None, str]]:
    return [(c.op.value, c.key, c.value) for c in cands]


class Memory:
    """Write plans replayed on plain records, as the store applies them."""

    def __init__(self) -> None:
        self.rows: dict[str, MemoryView] = {}
        self.now = day(2025, 1, 1)

    def ingest(self, ex: Extractor, t: Turn) -> list[tuple[Op, str | None, str | None]]:
        self.now = t.occurred_at
        items = []
        for c in ex(t):
            verdict = judge(c)
            assert verdict.accepted, (c, verdict.reason)
            items.append(
                Accepted(c, verdict, t.episode_id, c.valid_from if c.valid_from and not c.plan else t.occurred_at)
            )
        plan = decide_writes(items, list(self.rows.values()), scope_key=SCOPE, now=self.now)
        self._apply(plan)
        return [(op, mid, self.rows[mid].key if mid else None) for op, mid in plan.ops]

    def _apply(self, plan: WritePlan) -> None:
        for n in plan.new:
            self.rows[n.memory_id] = MemoryView(
                memory_id=n.memory_id,
                kind=n.kind,
                key=n.key,
                value=n.value,
                text=n.text,
                source=n.source,
                confidence=n.confidence,
                trusted=n.trusted,
                status=n.status,
                extractor=n.extractor,
                valid_from=n.valid_from,
                valid_to=n.valid_to,
                recorded_at=self.now,
                superseded_by=n.superseded_by,
                superseded_at=n.superseded_at,
                evidence=n.evidence,
                derived_from=n.derived_from,
            )
        for c in plan.closes:
            self.rows[c.memory_id] = self.rows[c.memory_id].model_copy(
                update={
                    "valid_to": c.valid_to,
                    "superseded_by": c.superseded_by,
                    "superseded_at": self.now,
                    "status": MemoryStatus.SUPERSEDED,
                }
            )
        for r in plan.reinforces:
            m = self.rows[r.memory_id]
            self.rows[r.memory_id] = m.model_copy(
                update={"evidence": m.evidence + r.evidence, "confidence": r.confidence}
            )
        for mid in plan.revised:
            self.rows[mid] = self.rows[mid].model_copy(update={"retracted_at": self.now})
        for mid in plan.deleted:
            if mid in self.rows:
                self.rows[mid] = self.rows[mid].model_copy(update={"status": MemoryStatus.DELETED})

    def present(self, key: str) -> list[str]:
        """Values a present read sees in ``key``."""
        return sorted(
            m.value
            for m in self.rows.values()
            if m.key == key and m.status is MemoryStatus.ACTIVE and m.retracted_at is None
        )

    def as_of(self, key: str, when: datetime) -> list[str]:
        """Values that held in ``key`` at ``when`` (valid-time history; deleted never)."""
        return sorted(
            m.value
            for m in self.rows.values()
            if m.key == key
            and m.status is not MemoryStatus.DELETED
            and m.retracted_at is None
            and m.valid_from <= when
            and (m.valid_to is None or when < m.valid_to)
        )

    def one(self, key: str, value: str) -> MemoryView:
        return next(m for m in self.rows.values() if m.key == key and m.value == value and m.retracted_at is None)


# --- the scenario ------------------------------------------------------------------------------


def test_open_vocabulary_scenario_keys_changes_retraction_restatement_and_redated_event(
    extract: OpenVocabularyExtractor,
) -> None:
    """Nine open-vocabulary facts, two changes, a retraction, a restatement, a re-dated event."""
    mem = Memory()
    jan, feb, mar = day(2025, 1, 10), day(2025, 2, 1), day(2025, 3, 3)
    A, U, N, D = Op.ADD, Op.UPDATE, Op.NOOP, Op.DELETE

    # Given durable facts in open vocabulary (the rules' fixed keys cover none of them)
    assert [
        (op, key) for op, _, key in mem.ingest(extract, turn("I started learning the cello last month.", jan, "e1"))
    ] == [(A, "user.instrument.learning")]
    assert mem.one("user.instrument.learning", "cello").valid_from == day(2024, 12, 10)
    facts = [
        ("I use an Android phone.", "user.phone"),
        ("I have two kids, Tom and Lia.", "user.children"),
        ("My birthday is May 3rd.", "user.birthday"),
        ("These days my favourite author is Ursula Le Guin.", "user.favorite.author"),
        ("I drive a Toyota Corolla.", "user.car"),
        ("I use a dark theme in my code editor.", "user.code_editor.theme"),
        ("In the terminal I use a light theme.", "user.terminal.theme"),
        ("My sister's wedding is on June 14.", "user.sister.wedding"),
    ]
    for i, (text, key) in enumerate(facts, start=2):
        assert [(op, k) for op, _, k in mem.ingest(extract, turn(text, jan, f"e{i}"))] == [(A, key)], text
    assert [(op, k) for op, _, k in mem.ingest(extract, turn("I speak Spanish and French.", jan, "e10"))] == [
        (A, "user.language.speaking"),
        (A, "user.language.speaking"),
    ]
    wedding = mem.one("user.sister.wedding", "on 14 June 2025")

    # Neighbouring topics stay two records
    assert mem.present("user.code_editor.theme") == ["dark"] and mem.present("user.terminal.theme") == ["light"]

    # When the user changes phone and favourite author (other wording, same slot)
    assert [(op, k) for op, _, k in mem.ingest(extract, turn("I switched to an iPhone.", feb, "e11"))] == [
        (U, "user.phone")
    ]
    assert [
        (op, k) for op, _, k in mem.ingest(extract, turn("Lately my favourite author is N. K. Jemisin.", feb, "e12"))
    ] == [(U, "user.favorite.author")]
    # Then each change supersedes with history
    assert mem.present("user.phone") == ["iPhone"] and mem.present("user.favorite.author") == ["N. K. Jemisin"]
    android = mem.one("user.phone", "Android phone")
    assert android.status is MemoryStatus.SUPERSEDED and android.valid_to == feb
    assert mem.as_of("user.phone", day(2025, 1, 20)) == ["Android phone"]

    # When the user gives up the cello (a retraction dated "last week")
    ops = mem.ingest(extract, turn("I gave up the cello last week.", mar, "e13"))
    cello = mem.one("user.instrument.learning", "cello")
    assert ops == [(D, cello.memory_id, "user.instrument.learning")]
    # Then its valid time ends there; it is history, not erased
    assert cello.status is MemoryStatus.SUPERSEDED and cello.valid_to == day(2025, 2, 24)
    assert mem.present("user.instrument.learning") == []
    assert mem.as_of("user.instrument.learning", day(2025, 1, 15)) == ["cello"]

    # When a fact is restated in other words, it is reinforced, not duplicated
    assert [(op, k) for op, _, k in mem.ingest(extract, turn("My car is a Corolla.", mar, "e14"))] == [(N, "user.car")]
    car = mem.one("user.car", "Toyota Corolla")
    assert car.evidence == ("e6", "e14") and len([m for m in mem.rows.values() if m.key == "user.car"]) == 1

    # When the event is moved to another date, the slot holds the new date, the old one is history
    ops = mem.ingest(extract, turn("My sister moved her wedding to September.", mar, "e15"))
    assert [(op, k) for op, _, k in ops] == [(U, "user.sister.wedding")]
    moved = mem.one("user.sister.wedding", "in September 2025")
    assert moved.text == "User's sister's wedding is in September 2025."
    assert mem.rows[wedding.memory_id].superseded_by == moved.memory_id
    assert mem.present("user.sister.wedding") == ["in September 2025"]

    # Finally every other fact still answers
    assert mem.present("user.children") == ["two kids, Tom and Lia"]
    assert mem.present("user.birthday") == ["May 3rd"]
    assert mem.present("user.language.speaking") == ["French", "Spanish"]


def test_event_dates_are_read_against_the_episode_time(extract: OpenVocabularyExtractor) -> None:
    at = day(2025, 3, 12)  # a Wednesday
    cases = {
        "I went to a pottery workshop on Tuesday.": day(2025, 3, 11),
        "I ran a half marathon last weekend.": day(2025, 3, 8),
        "I visited Kyoto last summer.": day(2024, 6, 1),
        "We adopted a dog last Christmas.": day(2024, 12, 25),
        "I joined a climbing gym in June.": day(2024, 6, 1),
    }
    for text, want in cases.items():
        got = [c for c in extract(turn(text, at)) if c.key]
        assert got and got[0].valid_from == want, (text, got)
    mass = extract(turn("I attended the Sunday mass at St. Mary's Church on January 2nd.", at))
    assert [(c.text, c.valid_from) for c in mass] == [
        ("User attended the Sunday mass at St. Mary's Church on 2 January 2025.", day(2025, 1, 2))
    ]
    nxt = extract(turn("My brother's wedding is next October.", at))
    assert [(c.key, c.event_at) for c in nxt] == [("user.brother.wedding", day(2025, 10, 1))]
    assert nxt[0].valid_from is None  # the statement holds from when it was said


def test_retractions_name_the_slot_they_end(extract: OpenVocabularyExtractor) -> None:
    at = day(2025, 3, 12)
    got = {
        text: [(c.op, c.key, c.extra.get("retracted_value"), c.key_is_prefix) for c in extract(turn(text, at))]
        for text in (
            "I gave up the cello.",
            "I sold my Prius.",
            "I'm not learning Spanish anymore.",
            "I no longer play tennis.",
            "I don't have a car anymore.",
        )
    }
    R = CandidateOp.RETRACT
    assert got == {
        "I gave up the cello.": [(R, "user.instrument", "cello", True)],
        "I sold my Prius.": [(R, "user.car", "Prius", False)],
        "I'm not learning Spanish anymore.": [(R, "user.language.learning", "Spanish", False)],
        "I no longer play tennis.": [(R, "user.sport.playing", "tennis", False)],
        "I don't have a car anymore.": [(R, "user.car", "car", False)],
    }
    # Selling one car and buying another is a change, not an ending
    assert keyed(extract(turn("I sold my Prius and bought a Tesla.", at))) == [("assert", "user.car", "Tesla")]


def test_forget_requests_are_their_own_candidates(extract: OpenVocabularyExtractor) -> None:
    at = day(2025, 3, 12)
    cello = extract(turn("Forget about the cello.", at))
    wedding = extract(turn("Please forget what you know about my sister's wedding.", at))
    home = extract(turn("Forget where I live.", at))
    assert [(c.op, c.key, c.forget and c.forget.terms) for c in cello] == [(CandidateOp.RETRACT, None, ("cello",))]
    assert [(c.key, c.forget and c.forget.terms, c.text) for c in wedding] == [
        (None, ("sister", "wedding"), "User asked to forget their sister's wedding.")
    ]
    # the rules' fixed topics keep their key and become forget requests too
    assert [(c.key, c.forget is not None) for c in home] == [("user.home_city", True)]
    assert all(judge(c).accepted for c in cello + wedding + home)
    # "what I just said about my pay" points at the speaker's last words, "forget my address" does not
    (pay,) = [c for c in extract(turn("please forget what i just said about my pay, the band and the number", at))]
    (home,) = [c for c in extract(turn("Please just forget my address.", at)) if c.forget is not None]
    assert pay.forget is not None and pay.forget.recent and home.forget is not None and not home.forget.recent
    # a bare adverbial noun before "can you delete it?" names no topic: what "it" is was said before
    assert [c for c in extract(turn("Yesterday, can you delete it?", at)) if c.forget is not None] == []
    # what was read, not read out, was never told
    assert [c for c in extract(turn("I read a great book last week. Please forget it.", at)) if c.forget] == []


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        # a request to the listener after "and" or an @-mention is still one
        ("And could you delete what I told you the other week about my tablets for flying?", "their tablets"),
        (
            "@assistant can you delete what I said last week about where I go on Thursdays?",
            "where they go on Thursdays",
        ),
        ("Oh, and scrap what I told you about my old flat.", "their old flat"),
        # "it" points back at what an earlier sentence of the turn told ...
        (
            "I feel rotten about that business I passed on about Sheila's lad and the money. "
            "Would you be a dear and forget I ever said it?",
            "Sheila's lad and the money",
        ),
        # ... told by the speaker, not what someone else says
        (
            "Theo told me off for having told you where I keep the spare key. He says one never tells a "
            "computer that sort of thing. So please forget it, there's a dear.",
            "where they keep the spare key",
        ),
        # a request twice over, the first naming what ...
        ("Wait no. Please forget that key completely, don't keep it anywhere.", "that key"),
        # a topic ends where a clause of its own follows its comma; a token the tagger cannot
        # place ("crates.io") is still a word of it
        ("and please don't remember that crates.io token, wipe it, pasting it was dumb.", "that crates.io token"),
        ("please forget my old address, the one in Leeds", "their old address the one in Leeds"),
        # where it is kept is not what it is
        ("can you remove my old adress from your notes, i don't live there anymore", "their old adress"),
        # a noun phrase set before "can you delete it?" is what "it" is, less the clause reporting it
        (
            "one thing, the weight stuff i gave you a while back, can you delete it?",
            "the weight stuff they gave you a while back",
        ),
        # ... a topic set before a bare imperative that points back at it ...
        (
            "Also, the thing I told you about Laura's brother wanting money — please forget I ever mentioned it.",
            "Laura's brother wanting money",
        ),
        # ... and what the speaker explained before asking for "it" to go
        (
            "The first time I wrote I explained why I'm at home during the day. Please delete it from your notes.",
            "why they're at home during the day",
        ),
        # ... what a report of saying was about ("the therapy stuff I told you about") ...
        (
            "The therapy stuff I told you about a couple of weeks back, I don't want any of that stored. "
            "Please delete all of it.",
            "The therapy stuff they told you about a couple of weeks back",
        ),
        # ... or something of the speaker's own they read out, the "'d" of "I'd rather" no plan
        (
            "Oh, and I read my date of birth out in the chat a couple of weeks ago. "
            "I'd rather that wasn't kept in your notes — please remove it.",
            "their date of birth",
        ),
    ],
)
def test_forget_requests_in_everyday_words(extract: OpenVocabularyExtractor, said: str, topic: str) -> None:
    got = [c.forget.topic for c in extract(turn(said, day(2025, 3, 12))) if c.forget is not None]
    assert got == [topic]


def test_named_speakers_and_pronouns(extract: OpenVocabularyExtractor) -> None:
    at = day(2023, 5, 8)
    got = extract(
        turn("Caroline: I went to a LGBTQ support group yesterday and it was so powerful.", at, speaker="Caroline")
    )
    assert [(c.key, c.text, c.valid_from) for c in got] == [
        ("person.caroline.support_group.go", "Caroline went to a LGBTQ support group on 7 May 2023.", day(2023, 5, 7))
    ]
    rules = extract(turn("Melanie: I live in Lisbon.", at, speaker="Melanie"))
    assert [(c.key, c.text) for c in rules][:1] == [("person.melanie.home_city", "Melanie lives in Lisbon.")]
    assert rules[1].derived_from_key == "person.melanie.home_city"
    she = extract(turn("My sister Ines got engaged. She moved her wedding to September.", at))
    assert ("user.sister.wedding", day(2023, 9, 1)) in [(c.key, c.event_at) for c in she]


def test_rules_keys_stay_and_favourites_meet(extract: OpenVocabularyExtractor) -> None:
    at = day(2025, 3, 12)
    assert keyed(extract(turn("My favorite band these days is Wet Leg.", at))) == [
        ("assert", "user.favorite.band", "Wet Leg")
    ]
    assert keyed(extract(turn("Lately my favorite band is Fontaines D.C.", at))) == [
        ("assert", "user.favorite.band", "Fontaines D.C.")
    ]
    # the fixed key wins over an open reading of the same clause
    assert [c.extractor for c in extract(turn("I work at Initech and I play the violin.", at))] == ["rules", "open"]


# --- bad input ---------------------------------------------------------------------------------

_LONG = "I live in a small town. " * 420  # ~10k characters


@pytest.mark.parametrize(
    "content",
    [
        "Do you think I should learn the cello?",
        "What's my favourite author?",
        "If I had a car I would drive to work.",
        "Imagine I had a Tesla.",
        "I would love to learn the piano someday.",
        "I want to buy a new phone.",
        "Me encanta la música y vivo en Madrid con mis dos hijos.",
        "Ich habe zwei Kinder und spiele Cello.",
        "```python\nclass Car:\n    def drive(self): return 'I drive a Tesla'\n```",
        "`I use vim` is what my script prints",
        "😀😀😀 🎻🎻",
        "!!! ??? ...",
        "Shopping list:\n- eggs\n- 2 apples\n- milk",
        "I have a question about my phone.",
        "She said I use an iPhone.",
        "I loved your painting!",
        "I think I have a cold.",
        "",
    ],
)
def test_bad_input_yields_no_open_fact(extract: OpenVocabularyExtractor, content: str) -> None:
    assert [c for c in extract(turn(content, day(2025, 3, 12))) if c.extractor == "open"] == []


def test_long_turns_and_other_roles_are_left_alone(extract: OpenVocabularyExtractor) -> None:
    at = day(2025, 3, 12)
    assert (
        refusal(_LONG) is not None and refusal("😀😀") is not None and refusal("Hola, ¿qué tal estás hoy?") is not None
    )
    assert [c for c in extract(turn(_LONG + " I play the cello.", at)) if c.extractor == "open"] == []
    assert extract(turn("I play the cello.", at, role=Role.ASSISTANT)) == []


def test_lists_and_code_keep_the_prose(extract: OpenVocabularyExtractor) -> None:
    content = "Some facts:\n- I play the cello\n- I drive a Prius\n```\nx = {'a': 1}\n```"
    assert sorted(keyed(extract(turn(content, day(2025, 3, 12))))) == [
        ("assert", "user.car", "Prius"),
        ("assert", "user.instrument.playing", "cello"),
    ]


def test_batches_and_single_turns_agree(extract: OpenVocabularyExtractor) -> None:
    turns = [turn(t, day(2025, 3, 12), f"e{i}") for i, t in enumerate(["I play the cello.", "I drive a Prius.", "hi"])]
    extract.warm(turns)
    assert extract.extract_many(turns) == [extract(t) for t in turns]
    assert all(c.kind in (MemoryKind.SEMANTIC, MemoryKind.EPISODIC) for cs in extract.extract_many(turns) for c in cs)


def test_extractor_and_parser_keep_their_contracts(extract: OpenVocabularyExtractor) -> None:
    parser: Parser = extract.parser
    batch: BatchExtractor = extract
    assert batch.name == "open" and parser.parse(["", "I play the cello."])[0] == []
