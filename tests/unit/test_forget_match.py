"""Forget requests matched to records by meaning, words and kind of value (pure, real embedder).

The labelled pairs below are the calibration set of :mod:`memworks.pipelines.deletion.forget_match`'s
thresholds: no pair that must survive may match (a forget must not erase unrelated memories);
most pairs that must go do (the rest stay a pending request the user can see).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memworks.adapters.embedder import get_embedder
from memworks.models.drafts import ForgetRequest
from memworks.pipelines.deletion.forget_match import (
    DEFAULT_THRESHOLDS,
    Known,
    introduced_names,
    is_about,
    match_topic,
    query_text,
    read_topic,
    same_word,
)
from memworks.pipelines.deletion.told import told_within
from memworks.pipelines.extraction.open_vocab.forget import told_when
from memworks.pipelines.protocols import Embedder
from memworks.pipelines.text.spans import spans

T0 = datetime(2026, 1, 1, tzinfo=UTC)

# (topic as the extractor shows it, its terms, a record, must the record go?)
PAIRS = [
    ("their sister's wedding", ("sister", "wedding"), "My sister Ana is getting married in June in Porto.", True),
    ("their email", ("email",), "You can reach me at dana.k@example.org any time.", True),
    ("their cat", ("cat",), "My cat Biscuit knocked my coffee over again.", True),
    ("their divorce", ("divorce",), "The divorce was finalised last month, it was messy.", True),
    ("their back surgery", ("back", "surgery"), "I had surgery on my lower back in March.", True),
    ("their boss", ("boss",), "My boss, Tom, keeps scheduling meetings at 6pm.", True),
    ("their phone number", ("phone", "number"), "Text me on +44 7700 900123 if you need me.", True),
    ("their address", ("address",), "We're at 221 Baker Street, flat B, ring twice.", True),
    ("that they have diabetes", ("have", "diabetes"), "I was diagnosed with type 2 diabetes in 2019.", True),
    ("their old car", ("old", "car"), "I drive a 2012 Honda Civic, it's falling apart.", True),
    ("their salary", ("salary",), "I make about 85k a year before tax.", True),
    ("their medication", ("medication",), "I take 50mg of sertraline every morning for my anxiety.", True),
    ("their debt", ("debt",), "I still owe about 20k on my student loans.", True),
    ("their kids' school", ("kid", "school"), "The kids go to Riverside Elementary, two blocks away.", True),
    ("their old car", ("old", "car"), "I take the bus to work most days.", False),
    ("their sister's wedding", ("sister", "wedding"), "My brother lives in Berlin with his wife.", False),
    ("their salary", ("salary",), "I work as a data analyst at a bank.", False),
    ("their salary", ("salary",), "The pay is €52,000 which is a decent bit more than I was on", True),
    ("their salary", ("salary",), "Our rent is £1,450 a month, savage.", False),
    ("their salary", ("salary",), "We saved $10,000 for the wedding.", False),
    ("their email", ("email",), "I prefer short answers in bullet points.", False),
    ("their cat", ("cat",), "I'm allergic to peanuts.", False),
    ("their divorce", ("divorce",), "My daughter starts school in September.", False),
    ("their back surgery", ("back", "surgery"), "I go running three times a week.", False),
    ("their boss", ("boss",), "I work from home on Fridays.", False),
    ("their medication", ("medication",), "I'm allergic to penicillin.", False),
    ("their phone number", ("phone", "number"), "I live at 12 Elm Road, the blue door.", False),
    ("their address", ("address",), "Call me on 555-0199 after six.", False),
    ("their debt", ("debt",), "I'm saving up for a trip to Japan next spring.", False),
    ("that they have diabetes", ("have", "diabetes"), "I have two dogs and a cat.", False),
    ("their kids' school", ("kid", "school"), "My kids love football.", False),
    ("their therapist", ("therapist",), "My dentist appointment is on Thursday at ten.", False),
    ("their ex", ("ex",), "My brother Tom is visiting next week.", False),
    ("where they work", ("work",), "I take the train to work every morning.", False),
    ("their job", ("job",), "I'm vegetarian, no meat or fish.", False),
]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return get_embedder("minilm")


def _known(embedder: Embedder, ref: str, text: str, *, days: int = 0, current: bool = True) -> Known:
    return Known(ref, text, embedder.embed([text, *spans(text)]), T0 + timedelta(days=days), current, (ref,))


def _decide(embedder: Embedder, topic: str, terms: tuple[str, ...], text: str) -> bool:
    request = ForgetRequest(topic=topic, terms=terms)
    query = embedder.embed([query_text(request)])[0]
    return is_about(read_topic(request), query, _known(embedder, "m", text), DEFAULT_THRESHOLDS)


def test_thresholds_erase_no_unrelated_record_and_most_related_ones(embedder: Embedder) -> None:
    """Given labelled (request, record) pairs, when each is decided, then no record that must
    survive matches, and at least 60% of those that must go do."""
    decided = [(_decide(embedder, topic, terms, text), want, text) for topic, terms, text, want in PAIRS]
    wrong = [text for got, want, text in decided if got and not want]
    assert wrong == []
    caught = sum(got for got, want, _ in decided if want)
    assert caught / sum(want for *_, want in PAIRS) >= 0.6


def test_a_topic_reads_its_words_kinds_and_time() -> None:
    old = read_topic(ForgetRequest(topic="their old address", terms=("old", "address")))
    assert (old.terms, old.earlier, old.kinds) == (("address",), True, frozenset({"address"}))
    before = ForgetRequest(topic="where they used to live before Grenoble", terms=("live", "grenoble"))
    t = read_topic(before)
    assert (t.terms, t.anchors, t.earlier) == (("live",), ("grenoble",), True)
    assert query_text(before) == "where I live"
    plain = read_topic(ForgetRequest(topic="the gambling thing", terms=("gambling",)))
    assert (plain.terms, plain.earlier, plain.kinds) == (("gambling",), False, frozenset())
    assert query_text(ForgetRequest(topic="that they see a therapist", terms=("see", "therapist"))) == (
        "I see a therapist"
    )


@pytest.mark.parametrize(
    ("term", "word", "same"),
    [
        ("diagnosis", "diagnosed", True),
        ("gambling", "gamblers", True),
        ("see", "seeing", True),
        ("live", "living", True),
        ("ex", "ex", True),
        ("ex", "excited", False),
        ("car", "career", False),
        ("therapist", "therapy", True),
        ("school", "scholar", False),
    ],
)
def test_a_word_matches_its_forms_only(term: str, word: str, same: bool) -> None:
    assert same_word(term, word) is same


def test_names_a_topic_word_is_introduced_with() -> None:
    assert introduced_names(("ex",), "My ex, Julia, kept the car.") == {"Julia"}
    assert introduced_names(("wife",), "My ex-wife Priya has the kids on weekdays.") == {"Priya"}
    assert introduced_names(("boss",), "Marco, my boss, is on leave.") == {"Marco"}
    assert introduced_names(("therapist",), "My therapist, Dr. Ines Moreau, is great.") == {"Ines", "Moreau"}
    assert introduced_names(("ex",), "My sister Ana met my ex at a party.") == set()


def test_old_keeps_the_newest_current_value_and_anchor_records(embedder: Embedder) -> None:
    """Given an address said, then a new one, when "their old address" is forgotten, then only
    the first goes; "where they used to live before Oslo" leaves records naming Oslo."""
    first = _known(embedder, "a1", "We're at 221 Baker Street, flat B, ring twice.")
    second = _known(embedder, "a2", "We moved, the new address is 9 Harbour Road in Oslo.", days=30)
    other = _known(embedder, "x", "I'm allergic to penicillin.", days=5)
    old = ForgetRequest(topic="their old address", terms=("old", "address"))
    q = embedder.embed([query_text(old)])[0]
    assert match_topic(read_topic(old), q, [first, second, other]) == ["a1"]
    plain = ForgetRequest(topic="their address", terms=("address",))
    q = embedder.embed([query_text(plain)])[0]
    assert match_topic(read_topic(plain), q, [first, second, other]) == ["a1", "a2"]
    before = ForgetRequest(topic="where they used to live before Oslo", terms=("live", "oslo"))
    q = embedder.embed([query_text(before)])[0]
    assert match_topic(read_topic(before), q, [second, other]) == []


def test_a_person_introduced_as_the_topic_takes_every_record_naming_them(embedder: Embedder) -> None:
    intro = _known(embedder, "b1", "My boss, Tom, keeps scheduling meetings at 6pm.")
    later = _known(embedder, "b2", "Tom wants the quarterly report by Friday.", days=2)
    kept = _known(embedder, "k", "My brother Luis is visiting next week.", days=3)
    boss = ForgetRequest(topic="their boss", terms=("boss",))
    q = embedder.embed([query_text(boss)])[0]
    assert match_topic(read_topic(boss), q, [intro, later, kept]) == ["b1", "b2"]


def test_a_topic_pointing_at_what_was_just_said_takes_the_latest_turn_naming_it(embedder: Embedder) -> None:
    """Given a key pasted in a turn no sentence of the request is like, when "that key" is
    forgotten, then the latest turn naming a key goes, not an earlier one."""
    early = _known(embedder, "e", "The spare key is under the plant pot.")
    pasted = _known(embedder, "p", "here's my .env:\nSTRIPE_SECRET_KEY=sk_live_4fJ9xQ2m\nTIMEOUT=300", days=3)
    other = _known(embedder, "o", "The webhook retries three times.", days=4)
    request = ForgetRequest(topic="that key", terms=("key",))
    q = embedder.embed([query_text(request)])[0]
    assert match_topic(read_topic(request), q, [early, pasted, other]) == ["p"]
    unmarked = ForgetRequest(topic="the key", terms=("key",))
    q = embedder.embed([query_text(unmarked)])[0]
    assert "p" not in match_topic(read_topic(unmarked), q, [early, pasted, other])


def test_what_was_just_said_is_the_speakers_latest_turn_when_no_turn_names_it(embedder: Embedder) -> None:
    """Given a security word said alone ("Lindesnes") after other turns, when "the security word
    they just told you" is forgotten, then the user's latest turn goes: no turn names a security
    word, and an assistant's reply said after it is not the user's."""
    older = replace(_known(embedder, "o", "My router keeps dropping out in the evenings."), source="user")
    word = replace(_known(embedder, "w", "Lindesnes", days=1), source="user")
    reply = replace(_known(embedder, "a", "Thanks, that's set on the account.", days=2), source="model_inference")
    # a question asked since told nothing to forget
    asked = replace(_known(embedder, "q", "How long does that usually take?", days=3), source="user")
    request = ForgetRequest(topic="the security word they just told you", terms=("security", "word"), recent=True)
    q = embedder.embed([query_text(request)])[0]
    assert match_topic(read_topic(request), q, [older, word, reply, asked]) == ["w"]
    # a date of birth is what forgetting one's date of birth means, whatever the words around it
    assert read_topic(ForgetRequest(topic="their date of birth", terms=("date", "birth"))).kinds == {"birth"}


def test_a_date_of_birth_is_of_a_year_before_it_was_said(embedder: Embedder) -> None:
    """Given the user's date of birth and bookings dated in the year they were made, when "their
    date of birth" is forgotten, then the date of birth goes and the bookings stay."""
    born = replace(_known(embedder, "b", "14/08/1987"), source="user")
    booked = _known(embedder, "k", f'{{"tool": "engineer_booking", "date": "{T0.year}-05-09", "slot": "13:00-18:00"}}')
    request = ForgetRequest(topic="their date of birth", terms=("date", "birth"))
    q = embedder.embed([query_text(request)])[0]
    assert match_topic(read_topic(request), q, [born, booked]) == ["b"]


def test_a_phone_number_is_a_number_dialled_never_a_date_or_an_id() -> None:
    from memworks.pipelines.deletion.forget_match import _KIND_PATTERNS

    phone = _KIND_PATTERNS["phone"]
    for dialled in ("+49 170 1234567", "my number is 0170 1234567", "(555) 123-4567", "555-123-4567"):
        assert phone.search(dialled), dialled
    for other in ('"date": "2025-09-01"', "01.02.2025", "amount 39.00 on 2025-09-22", "SUB-88213", "run 8860412"):
        assert not phone.search(other), other
    # a request typed with a letter left out still names its kind
    assert read_topic(ForgetRequest(topic="their old adress", terms=("old", "adress"))).kinds == {"address"}


def test_a_weight_said_in_kilos_is_what_forgetting_the_weight_means(embedder: Embedder) -> None:
    """Given a turn giving the speaker's weight in kilos (no word "weight" in it), when "the
    weight stuff they gave you a while back" is forgotten, then that turn goes and a turn about swimming does not."""
    said = _known(
        embedder,
        "w",
        "also fyi i'm 71kg right now and trying to get down to 65kg, so if i ask about meal stuff thats why",
    )
    other = _known(embedder, "s", "my shoulder's loads better since i started swimming btw", days=1)
    request = ForgetRequest(topic="the weight stuff they gave you a while back", terms=("weight",))
    q = embedder.embed([query_text(request)])[0]
    assert match_topic(read_topic(request), q, [said, other]) == ["w"]


def test_that_token_is_the_turn_that_pasted_it_not_a_result_quoting_it(embedder: Embedder) -> None:
    """Given a turn pasting a token, then a tool result whose record quotes that turn (the request
    it ran for), when "that token" is forgotten, then the pasting turn goes: the result names no
    token in its own words, and the latest turn naming it is the one that pasted it."""
    pasted = _known(embedder, "p", 'kicked it off with curl --header "PRIVATE-TOKEN: glpat-4hQm8Zt" and it failed')
    quoted = " ".join(pasted.text.split())
    run = _known(embedder, "r", f"Pipeline #4466 failed: stage=lint (asked: {quoted})", days=1)
    request = ForgetRequest(topic="that token", terms=("token",))
    q = embedder.embed([query_text(request)])[0]
    assert match_topic(read_topic(request), q, [pasted, run]) == ["p"]


def test_a_question_in_a_turn_of_several_things_is_no_record_a_request_is_about(embedder: Embedder) -> None:
    """Given a long turn one sentence of which asks the assistant about the calendar, when "the
    calendar entry" is forgotten, then the turn is not erased for its question; a calendar entry
    a tool recorded is."""
    turn = _known(
        embedder,
        "t",
        "Long run this morning was 11 miles and my legs felt great. I joined the Ballard YMCA last week. "
        "Can you fix the calendar? The vegetarian thing is going okay.",
    )
    entry = _known(embedder, "c", 'calendar.create {"title": "Call with the Northwind recruiter", "start": "10:00"}')
    request = ForgetRequest(topic="the calendar entry", terms=("calendar", "entry"))
    q = embedder.embed([query_text(request)])[0]
    assert match_topic(read_topic(request), q, [turn, entry]) == ["c"]


def test_a_record_without_vectors_matches_on_nothing_but_a_name() -> None:
    bare = Known("m", "My cat Biscuit is asleep.", np.zeros((0, 0), dtype=np.float32), T0)
    cat = ForgetRequest(topic="their cat", terms=("cat",))
    assert match_topic(read_topic(cat), np.full(4, 0.5, dtype=np.float32), [bare]) == []


def test_the_one_turn_clearly_closest_is_matched_when_nothing_clears_the_bars(embedder: Embedder) -> None:
    """Given a topic no record clears the usual bars for, when one turn is clearly the closest,
    then its records match; when two turns are about as close, nothing does."""
    request = ForgetRequest(topic="their tablets for flying", terms=("tablet", "fly"))
    query = embedder.embed([query_text(request)])[0]
    meds = _known(embedder, "m1", "I get panic attacks on take-off, and my GP has put me on propranolol for flights.")
    others = [
        _known(embedder, "m2", "We're going to Lisbon on April 3 for a long weekend."),
        _known(embedder, "m3", "My wife Leila hates early flights."),
    ]
    assert not any(is_about(read_topic(request), query, k, DEFAULT_THRESHOLDS) for k in [meds, *others])
    assert match_topic(read_topic(request), query, [meds, *others]) == ["m1"]
    # a second turn as close as the first: the topic says too little to choose
    twin = _known(embedder, "m4", "I get panic attacks on take-off, and my GP gave me propranolol for flights.")
    assert match_topic(read_topic(request), query, [meds, twin, *others]) == []


def test_a_named_speaker_forgets_what_they_said_not_what_another_said(embedder: Embedder) -> None:
    """Given a conversation of several named people, when one asks to forget a topic, then their
    statements about it (and unattributed ones) match, never another person's."""
    request = ForgetRequest(topic="their therapy", terms=("therapy",))
    query = embedder.embed([query_text(request)])[0]
    eli = replace(
        _known(embedder, "m1", "I've started therapy with Dr Okafor on Thursdays."), speakers=frozenset({"Eli"})
    )
    noor = replace(_known(embedder, "m2", "My therapy sessions moved to Mondays."), speakers=frozenset({"Noor"}))
    nobody = _known(embedder, "m3", "Therapy with Dr Okafor is at 5pm.")
    topic = read_topic(request)
    assert match_topic(topic, query, [eli, noor, nobody], speaker="Eli") == ["m1", "m3"]
    assert match_topic(topic, query, [eli, noor, nobody]) == ["m1", "m2", "m3"]


@pytest.mark.parametrize(
    ("sentence", "told"),
    [
        ("Can you delete what I said last week about where I go on Thursdays?", "last week"),
        ("the therapy stuff I told you about a couple of weeks back, delete it", "a couple of weeks back"),
        ("forget what I told you yesterday about my ex", "yesterday"),
        # a day or a date may be what the thing was about, not when it was told
        ("forget what I said about Thursday", ""),
        ("please forget my appointment on 3 March", ""),
    ],
)
def test_a_request_says_when_its_thing_was_told(sentence: str, told: str) -> None:
    assert told_when(sentence) == told


def test_the_telling_is_looked_for_around_the_day_named() -> None:
    at = datetime(2025, 6, 2, 8, 15, tzinfo=UTC)  # a Monday
    window = told_within("last week", at)
    assert window is not None
    assert window[0] <= datetime(2025, 5, 25, 11, 0, tzinfo=UTC) <= window[1]  # eight days before
    assert not window[0] <= datetime(2025, 5, 10, tzinfo=UTC) <= window[1]
    assert not window[0] <= at - timedelta(hours=1) <= window[1]  # today is not last week
    assert told_within("", at) is None and told_within("next week", at) is None


def test_a_reply_that_matches_takes_the_statement_it_answers(embedder: Embedder) -> None:
    """Given a neighbour's news told in a long turn, the assistant's reply to it (closer to the topic
    than the turn itself) and an older turn about the same neighbour's garden, when "Sheila's lad and
    the money" is forgotten, then the turn the reply answers goes with the reply, and the older turn
    stays: the one who asks told it, just before the reply."""
    garden = replace(_known(embedder, "g", "Sheila next door gave me cuttings of her lovely roses."), source="user")
    told = replace(
        _known(
            embedder,
            "t",
            "Now, I oughtn't to say this, but Sheila next door told me over the fence that her son Gavin has run "
            "up thousands on one of those online casino apps, and they've had to remortgage the house.",
            days=20,
        ),
        source="user",
    )
    said = "That sounds very hard for Sheila, and it was kind of you to listen."
    vectors = embedder.embed([said, *spans(said)])
    reply = Known("r", said, vectors, told.said_at + timedelta(minutes=1), True, ("r",), source="model_inference")
    request = ForgetRequest(
        topic="that business they passed on about Sheila's lad and the money", terms=("sheila", "lad", "money")
    )
    q = embedder.embed([query_text(request)])[0]
    assert match_topic(read_topic(request), q, [garden, told, reply]) == ["t", "r"]
