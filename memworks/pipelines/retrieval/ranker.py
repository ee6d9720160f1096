"""The learned ranker: features of (question, candidate) pairs and a linear model over them.

The store hands over what it measured of each candidate (lexical and vector scores, the best
sentence's similarity, who said it, when, its neighbouring turns' scores); this module turns
that into one feature row per candidate, scores the rows with a logistic model shipped as
JSON (``ranker_model.json``, written by ``memworks_tools.evaluation.train_ranker``), and gives each
candidate's probability of being the evidence a question rests on. Pure: no I/O except
reading the packaged model file.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memworks.pipelines.retrieval.names import named_subjects
from memworks.pipelines.retrieval.timerange import TimeRange, asks_when, interval_match, question_range, range_match
from memworks.pipelines.text.spans import sentence_at, voice
from memworks.pipelines.text.terms import terms

#: Feature names, in model column order.
FEATURES = (
    "lex_rel",
    "lex_rr",
    "cover",
    "cos",
    "span",
    "span_gap",
    "cos_gap",
    "span_rr",
    "log_len",
    "named_speaker",
    "named_about",
    "other_about",
    "asks_when_timed",
    "timed",
    "period_event",
    "period_session",
    "prev_span_gap",
    "next_span_gap",
    "prev_lex_rel",
    "next_lex_rel",
    "fact",
)
#: Features that say whom a candidate is about; left out of the content score that decides
#: whether the evidence belongs to someone other than the person asked about.
SUBJECT_FEATURES = ("named_speaker", "named_about", "other_about")
#: Query types, each with its own relevance floor.
QUERY_TYPES = ("when", "short", "named", "other")
#: Most content terms of a "short" factual question ("What is my cat's name?").
SHORT_TERMS = 3
MODEL_FILE = "ranker_model.json"


#: Words that ask about the conversation itself ("have I told you") or place the question in
#: time ("now", "before"), not about what to find.
_ABOUT_TALK = frozenset(
    "tell told telling mention mentioned say said talk talked remember know knew ask asked "
    "now currently current nowadays today still anymore lately recently ever before after since".split()
)

#: Verbs that only carry a question ("how do I get to work", "where do I go swimming"): a record
#: that answers it seldom uses them, so they are no word the evidence must hold.
_LIGHT_VERBS = frozenset("get gets got go goes going went do does did doing make makes made take takes took".split())
#: Words standing for the answer, negated auxiliaries: "Is there anything I don't eat?" asks about eating.
_NOT_CONTENT = frozenset(
    "anything something everything nothing anyone someone everyone anybody somebody nobody don't doesn't "
    "didn't can't cannot won't isn't aren't wasn't weren't haven't hasn't".split()
)


@dataclass(frozen=True)
class Question:
    """What ranking reads of a question."""

    text: str
    #: The one known subject the question names (a speaker of the scope), if exactly one.
    named: str | None
    asks_when: bool
    period: TimeRange | None
    kind: str
    #: A short question's content words and their index terms (what the evidence must hold).
    words: tuple[tuple[str, str], ...] = ()
    #: It asks what holds now ("Which bank am I with?"), in a present read: the latest answer wins.
    present: bool = False
    #: The question as asked, before the user's own names in it read as "my" and "I" (empty: ``text``).
    asked: str = ""

    @property
    def names_user(self) -> bool:
        """It named the user by their own name ("What does Ngozi do?" in Ngozi's store)."""
        return bool(self.asked) and self.asked != self.text


def content_words(text: str, period: TimeRange | None = None) -> list[tuple[str, str]]:
    """(word, index term) of the words that say what is asked about: no stop words, no words of
    the period it names, none that only ask about the conversation ("have I told you")."""
    if period is not None:
        text = text.replace(period.phrase, " ")
    out: list[tuple[str, str]] = []
    for w in re.findall(r"[\w']+", text.casefold()):
        t = terms(w)
        if t and w not in _ABOUT_TALK | _LIGHT_VERBS | _NOT_CONTENT and t[0] not in {x for _, x in out}:
            out.append((w, t[0]))
    return out


def read_question(text: str, *, subjects: Iterable[str], asked_at: datetime) -> Question:
    """Who the question names (among ``subjects``), whether it asks *when*, the period it names
    (resolved against ``asked_at``) and its type."""
    named = named_subjects(text, subjects)
    one = named[0] if len(named) == 1 else None
    when = asks_when(text)
    period = question_range(text, asked_at)
    words = content_words(text, period)
    short = not when and one is None and 0 < len(words) <= SHORT_TERMS
    kind = "when" if when else "short" if short else "named" if one else "other"
    return Question(text, one, when, period, kind, tuple(words) if short else ())


@dataclass
class Signals:
    """Per-candidate measurements from the store, aligned with ``ids``.

    Neighbour arrays hold the scores of the turn just before / after the candidate in its
    session (NaN where there is none).
    """

    ids: list[str]
    lex: npt.NDArray[np.float64]
    cover: npt.NDArray[np.float64]
    cos: npt.NDArray[np.float64]
    span: npt.NDArray[np.float64]
    #: Index of the best-matching span of each candidate's text, -1 when the whole text is best.
    best_span: npt.NDArray[np.int64]
    length: npt.NDArray[np.float64]
    texts: list[str]
    subjects: list[str | None]
    #: Whom a second-person statement addresses: the speaker of the nearest turn of someone else.
    addressees: list[str | None]
    event_at: list[datetime]
    session_at: list[datetime]
    timed: npt.NDArray[np.bool_]
    #: Where a record is a fact (a state that holds over its valid interval), when it stopped holding.
    valid_to: list[datetime | None] = field(default_factory=list)
    facts: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    #: What a verified tool reported (its keyed result or the transcript of its output).
    reported: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    prev_lex: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    prev_span: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    next_lex: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    next_span: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    #: Position among the candidates of the turn each fact was read from (-1: none there).
    source: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: For a summary: the candidates' positions of the records of the turns it summarises.
    parts: list[tuple[int, ...]] = field(default_factory=list)
    #: For a short question: the vectors of the candidates' texts and sentences (rows in any
    #: order), and the vectors of :func:`phrases`.
    vectors: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    phrase_vectors: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    #: The question's terms that no record of the scope holds.
    unseen: frozenset[str] = frozenset()
    #: The question's own vector (empty when not measured).
    question_vector: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    #: For a question naming someone: each candidate's similarity (best sentence, with spans)
    #: to the question without the name (:func:`without_name`); None when not measured.
    unnamed: npt.NDArray[np.float64] | None = None
    #: ... and of its whole index text (a fact's slot words are a sentence of their own there).
    unnamed_whole: npt.NDArray[np.float64] | None = None
    #: For a question asking something of a thing of the user's ("my dog's name"): each
    #: candidate's similarity (best sentence) to that thing's word; None when not measured.
    owned: npt.NDArray[np.float64] | None = None
    #: For a question whose asked-for thing no record names (:func:`~.asked_thing.asked_thing`):
    #: each candidate's similarity (best sentence) to that thing's word; None when not measured.
    thing: npt.NDArray[np.float64] | None = None
    #: For a present question about the user's relative or animal that a keyed record names: each
    #: candidate's similarity to the question asked of it by that name (:func:`named_question`).
    renamed: npt.NDArray[np.float64] | None = None
    #: Each candidate's value ("cat" for "User adopted a cat."), key (None: no fact) and, for a
    #: transcript, the keys of its turn's records that a later value superseded.
    values: list[str] = field(default_factory=list)
    keys: list[str | None] = field(default_factory=list)
    replaced: list[frozenset[str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ids)


def about(sig: Signals) -> list[str | None]:
    """Whom each candidate's best-matching sentence is about: its speaker, or the one it
    addresses when it speaks in the second person or asks without saying "I"."""
    out: list[str | None] = []
    for i, text in enumerate(sig.texts):
        sentence = sentence_at(text, int(sig.best_span[i]))
        addressed = voice(sentence).about_addressee and sig.addressees[i] is not None
        out.append(sig.addressees[i] if addressed else sig.subjects[i])
    return out


def _rr(scores: npt.NDArray[np.float64], present: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    """1 / (1 + rank) among the candidates with ``present``, 0 elsewhere."""
    order = np.argsort(-scores, kind="stable")
    rank = np.empty(len(scores))
    rank[order] = np.arange(len(scores))
    return np.where(present, 1.0 / (1.0 + rank), 0.0)


def features(q: Question, sig: Signals, *, who: Sequence[str | None] | None = None) -> npt.NDArray[np.float64]:
    """One row of :data:`FEATURES` per candidate (``who``: :func:`about`, computed if not given)."""
    n = len(sig)
    if n == 0:
        return np.zeros((0, len(FEATURES)))
    max_lex = float(sig.lex.max()) or 1.0
    lex_rel = sig.lex / max_lex
    # A neighbour's score is relative to the best candidate's, as the ranker learnt it; one that
    # outscores every candidate (the lexical side found nothing among them) counts as the best.
    neighbour_max = (
        max_lex
        if sig.lex.max() > 0
        else max(float(sig.prev_lex.max(initial=0.0)), float(sig.next_lex.max(initial=0.0)), 1.0)
    )
    top_span, top_cos = float(sig.span.max()), float(sig.cos.max())
    who = about(sig) if who is None else who
    named = q.named
    named_speaker = np.array([named is not None and s == named for s in sig.subjects], dtype=float)
    named_about = np.array([named is not None and w == named for w in who], dtype=float)
    other_about = np.array([named is not None and w is not None and w != named for w in who], dtype=float)
    timed = sig.timed.astype(float)
    if q.period is not None:
        period = q.period
        period_event = np.array([range_match(period, t) for t in sig.event_at])
        facts: npt.NDArray[np.bool_] = sig.facts if len(sig.facts) == n else np.zeros(n, dtype=np.bool_)
        until = sig.valid_to if len(sig.valid_to) == n else [None] * n
        # A fact matches a period it held in; anything else, one it was said in.
        period_session = np.array(
            [
                interval_match(period, t, end) if fact else range_match(period, t)
                for t, end, fact in zip(sig.session_at, until, facts, strict=True)
            ]
        )
    else:
        period_event = period_session = np.zeros(n)

    def near(values: npt.NDArray[np.float64], fill: float) -> npt.NDArray[np.float64]:
        return np.where(np.isnan(values), fill, values) if len(values) == n else np.full(n, fill)

    floor_gap = float((sig.span - top_span).min())
    cols = {
        "lex_rel": lex_rel,
        "lex_rr": _rr(sig.lex, sig.lex > 0),
        "cover": sig.cover,
        "cos": sig.cos,
        "span": sig.span,
        "span_gap": sig.span - top_span,
        "cos_gap": sig.cos - top_cos,
        "span_rr": _rr(sig.span, np.ones(n, dtype=bool)),
        "log_len": np.log1p(sig.length),
        "named_speaker": named_speaker,
        "named_about": named_about,
        "other_about": other_about,
        "asks_when_timed": timed * q.asks_when,
        "timed": timed,
        "period_event": period_event,
        "period_session": period_session,
        "prev_span_gap": near(sig.prev_span - top_span, floor_gap),
        "next_span_gap": near(sig.next_span - top_span, floor_gap),
        "prev_lex_rel": near(np.minimum(sig.prev_lex / neighbour_max, 1.0), 0.0),
        "next_lex_rel": near(np.minimum(sig.next_lex / neighbour_max, 1.0), 0.0),
        "fact": (sig.facts if len(sig.facts) == n else np.zeros(n, dtype=np.bool_)).astype(float),
    }
    return np.column_stack([cols[f] for f in FEATURES])


@dataclass(frozen=True)
class RankerModel:
    """A logistic model over standardised :data:`FEATURES`, with its calibrated decisions."""

    coef: npt.NDArray[np.float64]
    intercept: float
    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    #: Lowest top probability that counts as an answer, by query type.
    floors: dict[str, float]
    #: Content-score lead (logit) of someone else's statement over the named person's own
    #: that makes the answer "not theirs".
    mismatch_margin: float
    info: dict[str, Any] = field(default_factory=dict)

    def logits(self, x: npt.NDArray[np.float64], *, content_only: bool = False) -> npt.NDArray[np.float64]:
        coef = self.coef
        if content_only:
            coef = np.array([0.0 if f in SUBJECT_FEATURES else c for f, c in zip(FEATURES, coef, strict=True)])
        return np.asarray(((x - self.mean) / self.scale) @ coef + self.intercept, dtype=np.float64)

    def floor(self, kind: str) -> float:
        return self.floors.get(kind, self.floors.get("other", 0.0))

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(FEATURES),
            "coef": self.coef.tolist(),
            "intercept": self.intercept,
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "floors": self.floors,
            "mismatch_margin": self.mismatch_margin,
            "info": self.info,
        }


def sigmoid(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(z, -30, 30))), dtype=np.float64)


def model_from_json(data: dict[str, Any]) -> RankerModel:
    """A model from its JSON form.

    Raises:
        ValueError: the file was written for other features than this code computes.
    """
    if list(data.get("features", [])) != list(FEATURES):
        raise ValueError(f"ranker model features {data.get('features')} differ from {list(FEATURES)}: retrain it")

    def arr(k: str) -> npt.NDArray[np.float64]:
        return np.asarray(data[k], dtype=np.float64)

    scale = arr("scale")
    return RankerModel(
        arr("coef"),
        float(data["intercept"]),
        arr("mean"),
        np.where(scale > 0, scale, 1.0),
        {k: float(v) for k, v in data["floors"].items()},
        float(data["mismatch_margin"]),
        dict(data.get("info", {})),
    )


@lru_cache(maxsize=4)
def load_model(path: str | None = None) -> RankerModel:
    """The packaged model (or the one at ``path``), read once per process."""
    text = (
        Path(path).read_text()
        if path
        else resources.files("memworks.pipelines.retrieval").joinpath(MODEL_FILE).read_text()
    )
    return model_from_json(json.loads(text))


def log_odds(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))
