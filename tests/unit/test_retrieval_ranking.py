"""The read path's pure parts: sentence spans and voice, question periods, the learned ranker's
features and model file, and the ranking decisions (floor, unknown words, someone else's words)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from memworks.models.enums import MemoryKind
from memworks.pipelines.retrieval import names, ranker, ranking, timerange, unheard
from memworks.pipelines.retrieval.facts import facts_meet_turns
from memworks.pipelines.retrieval.ranker import FEATURES, Question, RankerModel, Signals, features, read_question
from memworks.pipelines.retrieval.ranking import RankPolicy, rank_signals
from memworks.pipelines.text import spans

ASKED = datetime(2023, 12, 20, 15, 0, tzinfo=UTC)

# -- spans and voice ------------------------------------------------------------------------


def test_a_long_turn_splits_into_sentences_that_keep_the_speaker() -> None:
    text = "Caroline: Thanks, Mel! I ran a charity race last Saturday. It was tough but great. Ok!"
    # "Thanks, Mel!" and "Ok!" are too short to stand alone.
    assert spans.spans(text) == ["Caroline: I ran a charity race last Saturday.", "Caroline: It was tough but great."]


def test_a_title_or_an_initial_ends_no_sentence() -> None:
    text = "Hana has piano with Mrs. Kowalski on Wednesdays. I am reading Ursula K. Le Guin again. Dr. Okafor says hi."
    assert spans.spans(text) == [
        "Hana has piano with Mrs. Kowalski on Wednesdays.",
        "I am reading Ursula K. Le Guin again.",
        "Dr. Okafor says hi.",
    ]


@pytest.mark.parametrize("text", ["I live in Lisbon.", "Hi! Ok. Sure thing.", "Caroline: Thanks so much, Mel!", ""])
def test_short_texts_have_no_spans(text: str) -> None:
    assert spans.spans(text) == []


@pytest.mark.parametrize(
    ("text", "about_addressee"),
    [
        ("Melanie: I ran a charity race for mental health.", False),
        ("Melanie: That charity race of yours sounds great, you must be proud!", True),
        ("Melanie: Love the necklace, any special meaning to it?", True),  # a question, no "I"
        ("Melanie: Did I tell you about my race?", False),
    ],
)
def test_voice_says_whom_a_sentence_is_about(text: str, about_addressee: bool) -> None:
    assert spans.voice(text).about_addressee is about_addressee


# -- time in questions ----------------------------------------------------------------------


def _day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("What did I do in May 2023?", _day(2023, 5, 1), _day(2023, 6, 1)),
        ("Which book did Tim recommend on 8th December, 2023?", _day(2023, 12, 8), _day(2023, 12, 9)),
        ("What did I cook last year?", _day(2022, 1, 1), _day(2023, 1, 1)),
        ("What did John get in December?", _day(2023, 12, 1), _day(2024, 1, 1)),
        ("What happened in 2022?", _day(2022, 1, 1), _day(2023, 1, 1)),
        ("What did Andrew do on the Monday before July 24, 2023?", _day(2023, 7, 17), _day(2023, 7, 25)),
    ],
)
def test_a_named_period_resolves_against_the_question_time(question: str, start: datetime, end: datetime) -> None:
    r = timerange.question_range(question, ASKED)
    assert r is not None and (r.start, r.end) == (start, end)


def test_open_and_recent_periods() -> None:
    as_of = timerange.question_range("How many pets did Andrew have, as of September 2023?", ASKED)
    assert as_of is not None and as_of.start.year == 1 and as_of.end == _day(2023, 10, 1)
    since = timerange.question_range("What has she painted since 2016?", ASKED)
    assert since is not None and since.start == _day(2016, 1, 1) and since.end.year == 9999
    recent = timerange.question_range("What cult did Tim join recently?", ASKED)
    assert recent is not None and recent.start == ASKED - timedelta(days=timerange.RECENT_DAYS)
    assert timerange.question_range("What did Melanie make for a local church?", ASKED) is None


@pytest.mark.parametrize(
    ("question", "when"),
    [
        ("When did Caroline go to the support group?", True),
        ("What year did she move?", True),
        ("How long ago was her birthday?", True),
        ("What did Caroline paint?", False),
    ],
)
def test_asks_when(question: str, when: bool) -> None:
    assert timerange.asks_when(question) is when


def test_a_records_event_time_comes_from_its_words() -> None:
    said = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert timerange.event_time("Caroline: I went to a support group yesterday.", said) == _day(2023, 5, 7)
    assert timerange.event_time("Caroline: Hey Mel! How are you?", said) is None


def test_range_match_is_one_inside_and_fades_outside() -> None:
    r = timerange.TimeRange(_day(2023, 5, 1), _day(2023, 6, 1), "May 2023")
    assert timerange.range_match(r, _day(2023, 5, 20)) == 1.0
    assert 0.0 < timerange.range_match(r, _day(2023, 6, 10)) < 1.0
    assert timerange.range_match(r, _day(2024, 1, 1)) == 0.0


# -- questions, features, the model file ----------------------------------------------------


def test_read_question_names_a_known_speaker_and_types_the_question() -> None:
    speakers = {"Caroline", "Melanie", "user"}
    q = read_question("What did Caroline's friend give her?", subjects=speakers, asked_at=ASKED)
    assert (q.named, q.kind) == ("Caroline", "named")
    both = read_question("Did Caroline and Melanie go out?", subjects=speakers, asked_at=ASKED)
    assert both.named is None
    assert read_question("When did Melanie run?", subjects=speakers, asked_at=ASKED).kind == "when"
    short = read_question("Which of my siblings have I told you about?", subjects=speakers, asked_at=ASKED)
    assert short.kind == "short" and [t for _, t in short.words] == ["sibl"]
    timed = read_question("Who was I working for in February 2025?", subjects=(), asked_at=ASKED)
    assert [t for _, t in timed.words] == ["work"]  # the period's words are not what is asked about


def signals(n: int, **over: Any) -> Signals:
    """``n`` candidates: candidate 0 is the best match on both sides."""
    base: dict[str, Any] = dict(
        ids=[f"m{i}" for i in range(n)],
        lex=np.linspace(5.0, 0.0, n),
        cover=np.linspace(1.0, 0.0, n),
        cos=np.linspace(0.7, 0.1, n),
        span=np.linspace(0.75, 0.1, n),
        best_span=np.full(n, -1, dtype=np.int64),
        length=np.full(n, 12.0),
        texts=[f"Ann: I ran race number {i}." for i in range(n)],
        subjects=["Ann"] * n,
        addressees=["Bo"] * n,
        event_at=[ASKED] * n,
        session_at=[ASKED] * n,
        timed=np.zeros(n, dtype=np.bool_),
    )
    base.update(over)
    return Signals(**base)


def model(**over: Any) -> RankerModel:
    coef = np.zeros(len(FEATURES))
    for name, w in {"lex_rel": 2.0, "span": 3.0, "named_speaker": 1.0, "named_about": 1.0, "other_about": -1.0}.items():
        coef[FEATURES.index(name)] = w
    base = RankerModel(
        coef,
        -2.0,
        np.zeros(len(FEATURES)),
        np.ones(len(FEATURES)),
        {"when": 0.05, "short": 0.05, "named": 0.05, "other": 0.05},
        1.0,
    )
    return replace(base, **over)


def test_features_are_one_row_per_candidate_in_model_order() -> None:
    q = Question("What race did Ann run?", "Ann", False, None, "named")
    x = features(q, signals(4))
    assert x.shape == (4, len(FEATURES))
    assert x[0, FEATURES.index("lex_rel")] == 1.0 and x[0, FEATURES.index("span_gap")] == 0.0
    assert (x[:, FEATURES.index("named_speaker")] == 1.0).all()


def test_a_neighbours_lexical_score_counts_at_most_as_the_best_candidates() -> None:
    # Given candidates none of which matched lexically, when a neighbouring turn did, then its
    # relative score is at most 1 (as the best candidate's would be), never its raw BM25
    sig = signals(3, lex=np.zeros(3), prev_lex=np.array([4.5, 0.0, 2.0]), next_lex=np.zeros(3))
    x = features(Question("What laptop?", None, False, None, "other"), sig)
    assert list(x[:, FEATURES.index("prev_lex_rel")]) == [1.0, 0.0, 2.0 / 4.5]
    # with lexical matches among the candidates, relative to the best of them
    sig = signals(3, lex=np.array([2.0, 1.0, 0.0]), prev_lex=np.array([1.0, 4.0, 0.0]), next_lex=np.zeros(3))
    x = features(Question("What laptop?", None, False, None, "other"), sig)
    assert list(x[:, FEATURES.index("prev_lex_rel")]) == [0.5, 1.0, 0.0]


def test_the_model_file_round_trips_and_refuses_other_features(tmp_path: Any) -> None:
    m = model()
    again = ranker.model_from_json(json.loads(json.dumps(m.to_json())))
    x = features(Question("q", None, False, None, "other"), signals(3))
    assert np.allclose(again.logits(x), m.logits(x))
    bad = m.to_json() | {"features": ["lex_rel"]}
    with pytest.raises(ValueError, match="retrain"):
        ranker.model_from_json(bad)
    shipped = ranker.load_model()  # the packaged file loads and matches this code's features
    assert set(shipped.floors) == set(ranker.QUERY_TYPES) and shipped.info.get("cross_validated")


# -- ranking decisions ----------------------------------------------------------------------


class _Rec:
    def __init__(self, mid: str, extractor: str = "transcript", kind: MemoryKind = MemoryKind.EPISODIC) -> None:
        self.memory_id, self.extractor, self.kind, self.confidence = mid, extractor, kind, 1.0


def _recs(sig: Signals) -> dict[str, Any]:
    return {m: _Rec(m) for m in sig.ids}


def test_the_learned_ranker_orders_by_probability_and_abstains_below_the_floor() -> None:
    sig = signals(5)
    q = Question("What race did someone run?", None, False, None, "other")
    ranked = rank_signals(_recs(sig), sig, q, k=3, policy=RankPolicy(model=model()))
    assert [h.memory.memory_id for h in ranked.hits] == ["m0", "m1", "m2"]
    high = model(floors={k: 0.999 for k in ranker.QUERY_TYPES})
    assert rank_signals(_recs(sig), sig, q, k=3, policy=RankPolicy(model=high)).hits == []


def test_someone_elses_statement_is_flagged_not_offered_as_theirs() -> None:
    # Given candidates about Bo only (Bo said them in the first person), when the question
    # names Ann, then every hit is flagged and the ranking says so.
    sig = signals(4, subjects=["Bo"] * 4, addressees=["Ann"] * 4)
    q = Question("What race did Ann run?", "Ann", False, None, "named")
    r = rank_signals(_recs(sig), sig, q, k=3, policy=RankPolicy(model=model(mismatch_margin=0.5)))
    assert r.subject_mismatch and r.hits and all(h.subject_mismatch and h.about == "Bo" for h in r.hits)
    # The same candidates said by Ann answer the question.
    own = signals(4)
    r = rank_signals(_recs(own), own, q, k=3, policy=RankPolicy(model=model(mismatch_margin=0.5)))
    assert not r.subject_mismatch and not any(h.subject_mismatch for h in r.hits)


def test_a_word_for_where_the_question_is_asked_from_is_no_thing_unheard_of() -> None:
    # "project" names the user's own work, which a store about it rarely calls so: it alone is
    # no reason to abstain; beside a thing unheard of ("licence") it adds to it.
    sig = signals(3, vectors=np.eye(3, 4, dtype=np.float32), unseen=frozenset({"project", "licence"}))
    sig.phrase_vectors = np.zeros((5, 4), dtype=np.float32)
    used = Question(
        "Which ORM did the project use?", None, False, None, "short", (("orm", "orm"), ("project", "project"))
    )
    assert unheard.unknown_words(used, sig, min_similarity=0.42) == []
    never = Question(
        "What licence does the project have?",
        None,
        False,
        None,
        "short",
        (("licence", "licenc"), ("project", "project")),
    )
    sig.unseen = frozenset({"project", "licenc"})
    assert unheard.unknown_words(never, sig, min_similarity=0.42) == ["licence", "project"]


def test_a_short_question_about_something_unheard_of_abstains() -> None:
    sig = signals(3, vectors=np.eye(3, 4, dtype=np.float32), unseen=frozenset({"cat"}))
    q = Question("What is my cat's name?", None, False, None, "short", (("cat", "cat"), ("name", "name")))
    near = np.array([[0.1, 0.1, 0.1, 0.0], [0.1, 0.1, 0.1, 0.0], [0.1, 0.1, 0.1, 0.0]], dtype=np.float32)
    far = sig
    far.phrase_vectors = near
    assert unheard.unknown_words(q, far, min_similarity=0.42) == ["cat"]
    assert rank_signals(_recs(far), far, q, k=3, policy=RankPolicy(model=model())).hits == []
    # A word the scope never used but a candidate means ("siblings" ~ "sister") is no reason to abstain.
    far.phrase_vectors = np.array([[0.9, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], dtype=np.float32)
    assert unheard.unknown_words(q, far, min_similarity=0.42) == []
    far.texts = [f"Our tabby is called Miso, she is {i}." for i in range(3)]  # a name, as the question asks
    assert rank_signals(_recs(far), far, q, k=3, policy=RankPolicy(model=model())).hits
    # ... and none where no candidate names anyone
    far.texts = [f"Ann: I ran race number {i}." for i in range(3)]
    assert rank_signals(_recs(far), far, q, k=3, policy=RankPolicy(model=model())).hits == []


def test_a_pronoun_or_a_question_word_is_no_thing_unheard_of() -> None:
    # "What was Dev taking for his back?" in Dev's store reads "What was I taking for his back?":
    # "his" is used by no record and meant by none, yet names no thing.
    sig = signals(3, vectors=np.eye(3, 4, dtype=np.float32), unseen=frozenset({"his", "whose"}))
    sig.phrase_vectors = np.zeros((3, 4), dtype=np.float32)
    q = Question("What was I taking for his back?", None, False, None, "short", (("taking", "take"), ("his", "his")))
    assert unheard.unknown_words(q, sig, min_similarity=0.42) == []
    who = Question("Whose sister just had a baby?", None, False, None, "short", (("whose", "whose"), ("baby", "babi")))
    assert unheard.unknown_words(who, sig, min_similarity=0.42) == []


def test_a_question_about_a_thing_nothing_names_or_means_abstains() -> None:
    # Given candidates close to the question's topic, when no record names the thing it asks for
    # (the store measured each one's closeness to that word), then it abstains below the bar ...
    sig = signals(3)
    q = Question("Which terminal do we fly from?", None, False, None, "other")
    assert rank_signals(_recs(sig), sig, q, k=3, policy=RankPolicy(model=model())).hits
    sig.thing = np.array([0.12, 0.18, 0.1])
    assert rank_signals(_recs(sig), sig, q, k=3, policy=RankPolicy(model=model())).hits == []
    # ... and answers when a candidate means it without its word ("Terminal 2" is said as "T2")
    sig.thing = np.array([0.12, 0.45, 0.1])
    assert rank_signals(_recs(sig), sig, q, k=3, policy=RankPolicy(model=model())).hits


def test_a_question_asking_who_is_answered_by_what_a_person_said_first() -> None:
    # Given a tool's result as the best match among what Ann and Bo said, when the question asks
    # who did something, then a person's statement answers before the tool's result; asked what
    # happened, the tool's result keeps its place.
    sig = signals(3, subjects=["tool", "Bo", "Ann"])
    who = Question("Who asked for the move?", None, False, None, "other")
    hits = rank_signals(_recs(sig), sig, who, k=3, policy=RankPolicy(model=model(), subjects=False)).hits
    assert [h.memory.memory_id for h in hits] == ["m1", "m2", "m0"]
    what = Question("What moved?", None, False, None, "other")
    hits = rank_signals(_recs(sig), sig, what, k=3, policy=RankPolicy(model=model(), subjects=False)).hits
    assert [h.memory.memory_id for h in hits] == ["m0", "m1", "m2"]


def test_a_fact_ranks_with_the_turn_it_was_read_from() -> None:
    # Given a fact (m3) read from the best turn (m0) and as close to the question as that turn
    sig = signals(4, source=np.array([-1, -1, -1, 0], dtype=np.int64), span=np.array([0.75, 0.5, 0.3, 0.72]))
    recs = _recs(sig)
    recs["m3"] = _Rec("m3", extractor="rules", kind=MemoryKind.SEMANTIC)
    q = Question("What race did someone run?", None, False, None, "other")
    hits = rank_signals(recs, sig, q, k=2, policy=RankPolicy(model=model())).hits
    assert [h.memory.memory_id for h in hits] == ["m3", "m0"]


def test_a_fact_about_something_else_its_turn_said_does_not_stand_for_it() -> None:
    # Given a fact read from the best turn but far less like the question ("User's name is
    # Kwame" under "I'm Kwame, I work at Aviva" for "Who do I work for?"), it keeps its own score.
    sig = signals(4, source=np.array([-1, -1, -1, 0], dtype=np.int64), span=np.array([0.75, 0.5, 0.3, 0.2]))
    recs = _recs(sig)
    recs["m3"] = _Rec("m3", extractor="rules", kind=MemoryKind.SEMANTIC)
    q = Question("Who do I work for?", None, False, None, "other")
    hits = rank_signals(recs, sig, q, k=2, policy=RankPolicy(model=model())).hits
    assert [h.memory.memory_id for h in hits] == ["m0", "m1"]


def test_a_question_naming_someone_is_measured_without_the_name() -> None:
    assert names.without_name("What's the name of Nadia's cat?", "Nadia") == "What's the name of cat?"
    assert names.without_name("Where does Omar Haddad live?", "Omar Haddad") == "Where does live?"
    assert names.without_name("Is Omarion here?", "Omar") == "Is Omarion here?"


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What car does Tomasz have?", "What car do I have?"),
        ("When is Tomasz's dentist appointment?", "When is my dentist appointment?"),
        ("is tomasz vegan?", "am I vegan?"),
        ("Who did Kasia get engaged to? Tomasz?", "Who did Kasia get engaged to? I?"),
        ("What did Kasia say to Tomasz Nowak?", "What did Kasia say to me?"),
        ("Where does Tomaszewski live?", "Where does Tomaszewski live?"),
    ],
)
def test_a_question_naming_the_user_is_asked_as_the_users_own(question: str, asked: str) -> None:
    assert names.as_user(question, ["Tomasz", "Tomasz Nowak"]) == asked


def test_a_user_named_like_a_word_is_not_every_such_word() -> None:
    assert names.as_user("What will I do when May comes?", ["Will"]) == "What will I do when May comes?"
    assert names.as_user("Where does Will live?", ["Will"]) == "Where do I live?"


def test_a_question_naming_someone_abstains_when_no_record_means_what_it_asks() -> None:
    # Given Ann's records, which the model scores high (they are hers and say her name), but
    # none of which is like the question without her name ("Does Ann have a husband?"): abstain.
    q = Question("What is Ann's husband called?", "Ann", False, None, "named")
    policy = RankPolicy(model=model())
    unlike = signals(4, unnamed=np.array([0.18, 0.15, 0.1, 0.05]))
    assert rank_signals(_recs(unlike), unlike, q, k=3, policy=policy).hits == []
    # One of her records means it without the name: answered, in the order the model gives.
    like = signals(4, unnamed=np.array([0.1, 0.1, ranking.NAMED_MIN_SIMILARITY + 0.05, 0.1]))
    hits = rank_signals(_recs(like), like, q, k=2, policy=policy).hits
    assert [h.memory.memory_id for h in hits] == ["m0", "m1"]
    # Not measured without the name: the similarities to the whole question decide.
    low = signals(4, span=np.array([0.2, 0.15, 0.1, 0.05]), cos=np.array([0.2, 0.15, 0.1, 0.05]))
    assert rank_signals(_recs(low), low, q, k=3, policy=policy).hits == []


def test_light_verbs_are_no_word_the_evidence_must_hold() -> None:
    q = read_question("How do I get to work?", subjects=(), asked_at=ASKED)
    assert q.kind == "short" and [w for w, _ in q.words] == ["work"]


def test_words_that_stand_for_the_answer_and_negated_auxiliaries_are_no_word_either() -> None:
    q = read_question("Is there anything I don't eat?", subjects=(), asked_at=ASKED)
    assert q.kind == "short" and [w for w, _ in q.words] == ["eat"]


def test_the_rest_of_a_short_question_can_say_what_a_lone_word_does_not() -> None:
    # Given "exercise", used by no record and, alone, like none (0.1), but the question without
    # its known words ("Where do I exercise") close to one candidate
    q = Question("Where do I exercise?", None, False, None, "short", (("exercise", "exercis"),))
    assert unheard.residue("What medication do I take?", {"medic"}) == "What medication do I"
    sig = signals(2, vectors=np.eye(2, 4, dtype=np.float32), unseen=frozenset({"exercis"}))
    sig.phrase_vectors = np.array([[0.1, 0, 0, 0], [0.5, 0, 0, 0]], dtype=np.float32)
    assert unheard.unknown_words(q, sig, min_similarity=0.42) == ["exercise"]
    assert unheard.unknown_words(q, sig, min_similarity=0.42, min_residue=0.28) == []
    # A rest like nothing either (0.2): the question is about something unheard of.
    sig.phrase_vectors = np.array([[0.1, 0, 0, 0], [0.2, 0, 0, 0]], dtype=np.float32)
    assert unheard.unknown_words(q, sig, min_similarity=0.42, min_residue=0.28) == ["exercise"]


def test_each_further_word_nothing_means_asks_more_of_the_rest() -> None:
    # Given "car" and "drive", both used by no record and meant by none (0.1 each, 0.1 as a pair),
    # and the rest of the question 0.30 from one candidate
    q = Question("What car do I drive?", None, False, None, "short", (("car", "car"), ("drive", "drive")))
    sig = signals(2, vectors=np.eye(2, 4, dtype=np.float32), unseen=frozenset({"car", "drive"}))
    sig.phrase_vectors = np.array([[0.1, 0, 0, 0]] * 3 + [[0.30, 0, 0, 0]], dtype=np.float32)
    # One such word would let that rest answer; two ask for 0.05 more.
    assert unheard.unknown_words(q, sig, min_similarity=0.42, min_residue=0.28) == []
    got = unheard.unknown_words(q, sig, min_similarity=0.42, min_residue=0.28, residue_step=0.05)
    assert got == ["car", "drive"]
    # A rest that close (0.40) still answers.
    sig.phrase_vectors[3, 0] = 0.40
    assert unheard.unknown_words(q, sig, min_similarity=0.42, min_residue=0.28, residue_step=0.05) == []


def test_a_frame_verb_counts_only_beside_a_thing_unheard_of() -> None:
    # "What car do I drive?" where the car was said ("the car failed its test, a 2011 Yaris") but
    # "drive" never was: "drive" frames the question, it is no thing unheard of.
    q = Question("What car do I drive?", None, False, None, "short", (("car", "car"), ("drive", "drive")))
    sig = signals(2, vectors=np.eye(2, 4, dtype=np.float32), unseen=frozenset({"drive"}))
    sig.phrase_vectors = np.array([[0.1, 0, 0, 0]] * 3 + [[0.30, 0, 0, 0]], dtype=np.float32)
    assert unheard.unknown_words(q, sig, min_similarity=0.42, min_residue=0.5) == []
    # No car said either: both count, and the step asks more of the rest.
    sig.unseen = frozenset({"car", "drive"})
    assert unheard.unknown_words(q, sig, min_similarity=0.42, min_residue=0.28, residue_step=0.05) == ["car", "drive"]


@pytest.mark.parametrize("mode", ["fusion", "dense", "lexical"])
def test_the_other_rankers_order_what_they_are_given(mode: str) -> None:
    sig = signals(4)
    q = Question("What race?", None, False, None, "other")
    hits = rank_signals(_recs(sig), sig, q, k=2, policy=RankPolicy(ranker=mode, model=None)).hits
    assert [h.memory.memory_id for h in hits] == ["m0", "m1"]


def test_the_ranker_falls_back_to_fusion_without_a_model() -> None:
    sig = signals(3)
    q = Question("What race?", None, False, None, "other")
    learned = rank_signals(_recs(sig), sig, q, k=3, policy=RankPolicy(ranker="learned", model=None))
    fused = rank_signals(_recs(sig), sig, q, k=3, policy=RankPolicy(ranker="fusion"))
    assert [h.memory.memory_id for h in learned.hits] == [h.memory.memory_id for h in fused.hits]
    assert ranking.RRF_K > 0


def test_a_named_persons_fact_ranks_below_their_turn_that_means_the_question_better() -> None:
    # "What does Keiko do for work?": her fact "Keiko lives in Astoria" (name-heavy, so it scored
    # high) against her turn about the stall, which means the question better without the name.
    score = np.array([0.9, 0.2, 0.5, 0.4])
    facts = np.array([True, False, True, False])
    unnamed = np.array([0.10, 0.40, 0.30, 0.60])
    theirs = [True, True, False, False]  # the last two are someone else's
    out = facts_meet_turns(score, facts, unnamed, theirs)
    assert out[0] < out[1] and out[0] > 0.19  # just below her better turn, not to the bottom
    assert list(out[1:]) == [0.2, 0.5, 0.4]  # others' records and the turns themselves keep their scores


def test_a_named_persons_fact_that_means_the_question_keeps_its_place() -> None:
    score = np.array([0.9, 0.2])
    out = facts_meet_turns(score, np.array([True, False]), np.array([0.50, 0.52]), [True, True])
    assert list(out) == [0.9, 0.2]  # the turn is not better by the margin


def test_a_named_persons_fact_is_judged_by_its_whole_text_not_its_slot_words() -> None:
    # "(home, where I live, city)", a sentence of its own in the fact's index text, is as close to
    # "What does do for work now?" as her stall turn is; the whole fact is not.
    score = np.array([0.9, 0.2])
    facts, theirs = np.array([True, False]), [True, True]
    best_sentence, whole = np.array([0.24, 0.25]), np.array([0.11, 0.20])
    assert list(facts_meet_turns(score, facts, best_sentence, theirs)) == [0.9, 0.2]
    out = facts_meet_turns(score, facts, best_sentence, theirs, whole)
    assert out[0] < out[1] and out[1] == 0.2  # the turn keeps its own (best sentence) measure


def test_when_only_someone_elses_record_means_the_question_it_is_flagged_not_offered_as_theirs() -> None:
    # "What instrument does Nadia play?": Omar's "I'm learning piano" (0) means it, name left out;
    # Nadia's own records (1, 2) do not, though the model scores them as the person asked about
    q = Question("What instrument does Nadia play?", "Nadia", False, None, "named")
    sig = signals(
        3,
        subjects=["Omar", "Nadia", "Nadia"],
        addressees=[None] * 3,
        span=np.array([0.6, 0.5, 0.4]),
        unnamed=np.array([0.55, 0.12, 0.10]),
    )
    policy = RankPolicy(model=model(mismatch_margin=50.0))  # no lead would flag it
    r = rank_signals(_recs(sig), sig, q, k=3, policy=policy)
    assert r.subject_mismatch and [h.about for h in r.hits] == ["Omar"]
    # A record of hers that means it is answered as hers
    own = signals(
        3,
        subjects=["Omar", "Nadia", "Nadia"],
        addressees=[None] * 3,
        span=np.array([0.6, 0.5, 0.4]),
        unnamed=np.array([0.55, 0.40, 0.10]),
    )
    r = rank_signals(_recs(own), own, q, k=3, policy=policy)
    assert not r.subject_mismatch and r.hits[0].about == "Nadia"


def test_someone_elses_relative_is_not_the_one_a_question_about_a_named_persons_asks() -> None:
    # "What is Jess's sister called?": Keiko's "my sister Yumi" (0) and a summary of Keiko's turn
    # (2) hold "sister"; Jess's own turns (1, 3) do not: nothing answers
    q = Question("What is Jess's sister called?", "Jess", False, None, "named")
    texts = ["my sister Yumi lives close", "I adopted a greyhound", "Session: my sister Yumi", "I bike to work"]
    sig = signals(
        4,
        texts=texts,
        subjects=["Keiko", "Jess", None, "Jess"],
        addressees=[None] * 4,
        unnamed=np.array([0.5, 0.3, 0.4, 0.2]),
        owned=np.array([0.6, 0.1, 0.5, 0.1]),
        parts=[(), (), (0,), ()],
    )
    assert rank_signals(_recs(sig), sig, q, k=3, policy=RankPolicy(model=model())).hits == []
    # When the sister is Jess's, she is found
    sig.subjects[0] = "Jess"
    hits = rank_signals(_recs(sig), sig, q, k=3, policy=RankPolicy(model=model())).hits
    assert hits and hits[0].memory.memory_id == "m0"


@pytest.mark.parametrize(
    ("question", "wanted", "left_out"),
    [
        ("Where do I work out these days?", set(), {"work"}),
        ("Where do I work?", {"work"}, set()),
        ("What did I give up last year?", {"last", "year"}, {"give"}),
        # "out of", "up to": a preposition, not a particle.
        ("What did I run out of?", {"run"}, set()),
        # A noun after a determiner: "my day off" is a day.
        ("When is my next day off?", {"day"}, set()),
    ],
)
def test_the_verb_of_a_phrasal_verb_is_no_query_term(question: str, wanted: set[str], left_out: set[str]) -> None:
    from memworks.pipelines.text.terms import query_terms, terms

    got = set(query_terms(question))
    assert {t for w in wanted for t in terms(w)} <= got
    assert not {t for w in left_out for t in terms(w)} & got


def test_a_verb_that_frames_the_question_is_never_the_thing_unheard_of() -> None:
    # Given "What database does deskly use?" where no record says "use" (nor means it alone)
    q = Question(
        "What database does deskly use?", None, False, None, "short", (("database", "databas"), ("use", "use"))
    )
    sig = signals(2, vectors=np.eye(2, 4, dtype=np.float32), unseen=frozenset({"use"}))
    sig.phrase_vectors = np.array([[0.5, 0, 0, 0], [0.1, 0, 0, 0], [0.5, 0, 0, 0], [0.1, 0, 0, 0]], dtype=np.float32)
    assert unheard.unknown_words(q, sig, min_similarity=0.42) == []
    # ... while a thing nobody mentioned still is, and the frame verb beside it adds to it
    q = Question("What car do I use?", None, False, None, "short", (("car", "car"), ("use", "use")))
    sig.unseen = frozenset({"car", "use"})
    sig.phrase_vectors = np.array([[0.1, 0, 0, 0]] * 4, dtype=np.float32)
    assert unheard.unknown_words(q, sig, min_similarity=0.42) == ["car", "use"]


def test_a_named_persons_way_of_travelling_answers_a_question_of_their_way() -> None:
    # "How does Ann get to work?": none of Ann's records is like the question without her name
    # (the named floor would abstain), but one names a way of travelling ("cycling in now").
    texts = ["Ann: the new job is great.", "Ann: parking is a joke so I'm cycling in now.", "Ann: I ran a 10k."]
    sig = signals(3, texts=texts, unnamed=np.array([0.15, 0.12, 0.05]), span=np.array([0.3, 0.2, 0.1]))
    q = Question("How does Ann get to work?", "Ann", False, None, "named")
    hits = rank_signals(_recs(sig), sig, q, k=3, policy=RankPolicy(model=model())).hits
    assert hits and hits[0].memory.memory_id == "m1"
    # Without a statement of a way, the floor still abstains.
    plain = signals(3, texts=[texts[0], "Ann: parking is a joke.", texts[2]], unnamed=sig.unnamed, span=sig.span)
    assert rank_signals(_recs(plain), plain, q, k=3, policy=RankPolicy(model=model())).hits == []
