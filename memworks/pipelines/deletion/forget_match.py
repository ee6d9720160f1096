"""Which records a forget request's topic is about: by meaning, words and the kind of value.

A request names a topic ("my old address", "what I told you about my ex", "that I see a
therapist"); the user means every record that says it, whatever its shape: a keyed slot, an
open-vocabulary claim or the transcript of the turn that said it. A record matches when

* it holds every content word of the topic (a simple stem: "diagnosis" / "diagnosed"), one
  of them more than a common verb, and its best sentence is at least
  :attr:`Thresholds.all_words` similar to the topic; or
* it holds some of them and is at least :attr:`Thresholds.some_words` similar; or
* the topic names a kind of value the record holds (a phone number, an e-mail address, a
  street address) and it is at least :attr:`Thresholds.typed` similar; or
* it is at least :attr:`Thresholds.meaning` similar on meaning alone; or
* it names a person a matched record introduced as the topic ("my ex, Julien": every record
  naming Julien is about the ex); or
* it is the statement a matched reply of the assistant answers ("That sounds very hard for
  Sheila" says back the turn that told it), said just before the reply and naming a topic word.

"old", "previous", "used to" and "before X" ask for what no longer holds: records naming X are
left out, and of the matches only those no longer current, or said before the newest matching
statement (the current value), are kept. The thresholds were calibrated on labelled pairs
(``tests/unit/test_forget_match.py``) with the shipped MiniLM embedder.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np
import numpy.typing as npt

from memworks.models.drafts import ForgetRequest
from memworks.models.enums import Source
from memworks.pipelines.extraction.tools.results import own_words
from memworks.pipelines.text.spans import spans

__all__ = [
    "DEFAULT_THRESHOLDS",
    "Known",
    "Thresholds",
    "Topic",
    "match_topic",
    "query_text",
    "read_topic",
]

#: Words that ask for a value that no longer holds ("my old address", "my previous job").
EARLIER = frozenset({"old", "previous", "former", "earlier", "prior", "past", "formerly", "once"})
#: Words of a topic that carry no subject of their own ("what I told you about ...").
_LIGHT = frozenset(
    "use be have do get tell say mention share know want thing stuff part bit detail one lot info information".split()
)
#: Words a topic's kind of value is named by, and what finds that kind in a record's text.
_KIND_WORDS: dict[str, frozenset[str]] = {
    "phone": frozenset({"phone", "number", "cell", "mobile", "telephone", "landline", "whatsapp", "cellphone"}),
    "email": frozenset({"email", "e-mail", "mail", "inbox"}),
    "address": frozenset({"address", "live", "home", "flat", "apartment", "house", "street", "postcode", "zip"}),
    "pay": frozenset({"salary", "pay", "income", "wage", "wages", "earn", "earnings", "paycheck", "payslip"}),
    "weight": frozenset({"weight", "weigh", "weighs", "kg", "kilos", "pounds", "lbs", "bmi"}),
    "birth": frozenset({"birth", "birthday", "dob", "born", "birthdate"}),
}
# A sum the size of a pay ("€52,000", "52k") said as one's pay ("The pay is ...", "I earn ..."):
# not a rent, a price or savings of the same size.
_SUM = (
    r"(?:[$€£¥]\s?\d{1,3}(?:[,.\s]?\d{3})+|[$€£¥]?\s?\d{2,3}\s?k\b|\d{1,3}(?:[,.]\d{3})+\s?(?:euros?|dollars?|pounds?))"
)
_PAID = r"\b(?:salary|pay|paid|income|wages?|earn(?:s|ing|ings)?|make|makes)\b"
_PAY = rf"{_PAID}[^.!?]{{0,40}}?{_SUM}|{_SUM}[^.!?]{{0,40}}?{_PAID}"
_STREET = (
    r"street|st|avenue|ave|road|rd|rue|place|boulevard|blvd|lane|ln|drive|dr|way|court|ct|square|sq|terrace"
    r"|close|crescent|alley|allee|allée|via|calle|avenida|strasse|straße|platz|quai|chemin|cours|plaza"
)
_KIND_PATTERNS: dict[str, re.Pattern[str]] = {
    # A number dialled: international (+), with a trunk 0, or (555) 123-4567; never a date
    # ("2025-09-01", "01.02.2025"), an amount or an id, which a looser pattern took for one.
    "phone": re.compile(
        r"(?<![\w-])(?!\d{1,4}[./-]\d{1,2}[./-]\d{1,4}(?!\d))"
        r"(?:\+\d[\d ().-]{6,}\d|0\d[\d ().-]{6,}\d|\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4})(?![\w-])"
    ),
    "email": re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+"),
    "address": re.compile(rf"\b\d{{1,5}}[a-z]?,?\s+(?:[^\W\d_][\w'-]*\s+){{0,3}}?(?:{_STREET})\b", re.IGNORECASE),
    "pay": re.compile(_PAY, re.IGNORECASE),
    # A body's weight: "71kg", "11 stone 4", "165 lbs" ("2kg of flour" too; the meaning bar still holds).
    "weight": re.compile(r"\b\d{2,3}(?:\.\d)?\s?(?:kg|kgs|kilos?|lbs?|pounds|st|stone)\b", re.IGNORECASE),
    # A day with its year, as a date of birth is given ("14/08/1987", "1987-08-14").
    "birth": re.compile(r"\b(?:\d{1,2}[/.-]\d{1,2}[/.-](?:19|20)\d\d|(?:19|20)\d\d-\d{1,2}-\d{1,2})\b"),
}
#: Verbs so common that sharing one says little ("where I work" / "I take the train to work"):
#: a match on them alone needs :attr:`Thresholds.some_words`.
_COMMON = frozenset(
    "work live go see like love take make play eat feel think need come start try call meet visit stay move buy".split()
)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_NAME = re.compile(r"[A-Z\u00c0-\u00de][^\W\d_]+")
#: Words between a topic's noun and the name it is introduced by ("my ex, Julien", "my
#: therapist, Dr. Claire Benoît", "my ex-wife Meera", "my boss is called Tom").
_BRIDGE = frozenset({",", "is", "was", "called", "named", "dr", "mr", "mrs", "ms", "prof", "-", "—", "("})
_NOT_NAMES = frozenset({"I", "I'm", "I've", "I'd", "The", "My", "And", "But", "So", "He", "She", "They", "We"})


@dataclass(frozen=True)
class Thresholds:
    """Cosine similarities (topic to a record's best sentence) each kind of evidence needs."""

    all_words: float = 0.2
    some_words: float = 0.45
    typed: float = 0.2
    meaning: float = 0.5
    #: When nothing clears the bars above: the one statement clearly closest to the topic, at
    #: least this similar ...
    lead: float = 0.4
    #: ... and this much closer than any said in another turn.
    lead_margin: float = 0.06


#: The calibrated thresholds (see the module doc).
DEFAULT_THRESHOLDS = Thresholds()


@dataclass(frozen=True)
class Known:
    """A record a request may match: stored (``ref`` its memory id) or written in the same batch."""

    ref: str
    text: str
    #: Unit vectors, one per row: the whole text's, then its sentences'.
    vectors: npt.NDArray[np.float32]
    #: When it was said (its valid-from): "old" keeps what was said before the newest match.
    said_at: datetime
    #: Still current: active and its valid time open.
    current: bool = True
    episodes: tuple[str, ...] = ()
    #: Its slot, for a keyed record (naming one erases its whole slot: see :mod:`.plan`).
    key: str | None = None
    #: The named people who said its turns (a conversation's ``metadata.speaker``); empty when
    #: none was named.
    speakers: frozenset[str] = frozenset()
    #: Who it came from (``Source`` value: "user", "verified_tool", ...); "" when not known.
    source: str = ""


@dataclass(frozen=True)
class Topic:
    """A request's topic as the matcher reads it."""

    #: Content words (lower case) a record about it says.
    terms: tuple[str, ...]
    #: What it is before ("where I used to live before Grenoble"): records naming it are not it.
    anchors: tuple[str, ...] = ()
    #: Asks for what no longer holds ("old", "previous", "used to", "before X").
    earlier: bool = False
    #: Kinds of value it names (``phone``, ``email``, ``address``).
    kinds: frozenset[str] = field(default_factory=frozenset)
    #: Points at what was just said ("that key", "the code I just sent"): the latest record that
    #: names its words is it, however unlike the words of the request its text is.
    recent: bool = False


def read_topic(request: ForgetRequest) -> Topic:
    """The content words, anchors and time qualifiers of ``request``."""
    topic = request.topic
    before = re.search(r"\bbefore\s+(.+)$", topic, re.IGNORECASE)
    anchors = tuple(sorted(_words(before[1]))) if before else ()
    words = [w for t in request.terms for w in _words(t.replace("_", " "))]
    earlier = (
        bool(before)
        or any(w in EARLIER for w in words)
        or bool(re.search(r"\bused\s+to\b|\bno\s+longer\b|\bany\s?more\b", topic, re.IGNORECASE))
    )
    terms = tuple(dict.fromkeys(w for w in words if w not in EARLIER and w not in _LIGHT and w not in anchors))
    kinds = frozenset(k for k, named in _KIND_WORDS.items() if any(_spelt(t, w) for t in terms for w in named))
    recent = request.recent or _RECENT.search(topic) is not None
    return Topic(terms, anchors, earlier, kinds, recent)


#: A topic pointing at what was just said: "that key", "this one", "the code I just sent".
#: (A demonstrative before a short noun phrase, not the "that" of a clause: "that they see a therapist".)
_RECENT = re.compile(
    r"^(?:that|this|those|these)(?:\s+(?!(?:i|they|we|you|he|she|it|my|their|our)\b)[\w'-]+){1,3}$|\bjust\b",
    re.IGNORECASE,
)


def query_text(request: ForgetRequest) -> str:
    """The topic as the user would say it, without its time qualifiers: what is embedded
    ("their old address" → "my address", "where they used to live before X" → "where I live")."""
    text = re.sub(r"\s+before\s+.+$", "", request.topic, flags=re.IGNORECASE)
    text = re.sub(r"\bused\s+to\s+", "", text, flags=re.IGNORECASE)
    out = []
    for w in text.split():
        low = w.lower()
        if low in EARLIER:
            continue
        out.append({"their": "my", "they": "I", "them": "me", "theirs": "mine"}.get(low, w))
    if out and out[0].lower() == "that":
        out = out[1:]
    return " ".join(out) or request.topic


def match_topic(
    topic: Topic,
    query: npt.NDArray[np.float32],
    known: Sequence[Known],
    *,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    speaker: str | None = None,
) -> list[str]:
    """The refs of the records in ``known`` that are about ``topic``, in input order.

    Args:
        topic: the request read by :func:`read_topic`.
        query: the unit vector of :func:`query_text`.
        known: the candidates (the request's own turn left out by the caller).
        thresholds: the calibrated similarities.
        speaker: the named person who asked: in a conversation of several, what they told
            (or what nobody named said), never what another person said.
    """
    pool = [
        k
        for k in known
        if not set(topic.anchors) & _words(k.text) and (speaker is None or not k.speakers or speaker in k.speakers)
    ]
    hit = (
        _latest_naming(topic, pool)
        or [k for k in pool if is_about(topic, query, k, thresholds)]
        or _leading(query, pool, thresholds)
    )
    hit += [k for k in _replied_to(hit, pool, topic) if k not in hit]
    names = {n for k in hit for n in introduced_names(topic.terms, k.text)}
    if names:
        hit += [k for k in pool if k not in hit and names.intersection(_NAME.findall(k.text))]
    if topic.earlier:
        hit = _no_longer_current(hit)
    refs = {k.ref for k in hit}
    return [k.ref for k in known if k.ref in refs]


#: Longest time between a statement and the assistant's reply to it.
REPLY_WITHIN = timedelta(hours=6)


def _replied_to(hit: Sequence[Known], pool: Sequence[Known], topic: Topic) -> list[Known]:
    """The statements the assistant's matched replies answer: its reply says back what it was
    told ("That sounds very hard for Sheila" of "Sheila next door told me ..."), and the one who
    asks to forget it told it. The statement said last before the reply, when it names a word of
    the topic."""
    out = []
    for r in (k for k in hit if k.source == Source.MODEL_INFERENCE.value):
        told = [k for k in pool if k.source == Source.USER.value and r.said_at - REPLY_WITHIN <= k.said_at <= r.said_at]
        last = max(told, key=lambda k: k.said_at, default=None)
        if last is not None and any(same_word(t, w) for t in topic.terms for w in _words(own_words(last.text))):
            out.append(last)
    return out


def is_about(topic: Topic, query: npt.NDArray[np.float32], k: Known, t: Thresholds) -> bool:
    """Does record ``k`` say something about ``topic`` (the evidence rules of the module doc)?"""
    sim = similarity(query, _told(k))
    said = _words(own_words(k.text))  # a tool result's quote of the user's turn is the turn's words
    found = [term for term in topic.terms if any(same_word(term, w) for w in said)]
    strong = any(term not in _COMMON for term in found)
    if topic.terms and len(found) == len(topic.terms) and strong and sim >= t.all_words:
        return True
    if found and sim >= t.some_words:
        return True
    if sim >= t.typed and any(_holds_kind(kind, k) for kind in topic.kinds):
        return True
    return sim >= t.meaning


def _holds_kind(kind: str, k: Known) -> bool:
    """``k`` holds a value of ``kind``; a date of birth is of a year before ``k`` was said (an
    engineer's visit "2025-05-15", said in 2025, is no one's birthday)."""
    if kind != "birth":
        return _KIND_PATTERNS[kind].search(k.text) is not None
    days = (m[0] for m in _KIND_PATTERNS[kind].finditer(k.text))
    return any(int(y) < k.said_at.year for day in days for y in re.findall(r"(?:19|20)\d\d", day))


def _latest_naming(topic: Topic, pool: Sequence[Known]) -> list[Known]:
    """For a topic pointing at what was just said ("that key"), the records of the latest turn
    that says every word of it (as ``STRIPE_SECRET_KEY=...`` says "key"), else of the user's
    latest turn (the pool holds only what was said before the request, by its speaker)."""
    if not topic.recent or not topic.terms:
        return []
    naming = [k for k in pool if all(any(same_word(t, w) for w in _words(own_words(k.text))) for t in topic.terms)]
    # "the security word I just told you" ("Lindesnes"): no turn names it, the speaker's last did.
    # A question ("How long does that usually take?") told nothing to forget.
    naming = naming or [k for k in pool if k.source == "user" and not k.text.rstrip().endswith("?")]
    if not naming:
        return []
    latest = max(naming, key=lambda k: k.said_at)
    return [k for k in pool if set(k.episodes) & set(latest.episodes)]


def _leading(query: npt.NDArray[np.float32], pool: Sequence[Known], t: Thresholds) -> list[Known]:
    """The records of the one turn clearly closest to the topic ("my tablets for flying" and "my
    GP has put me on propranolol for flights", 0.43, nothing else near), when no record clears the
    usual bars: the user who asks to forget what they told you told it; a topic as close to two
    turns says too little to choose."""
    sims = [(similarity(query, _told(k)), k) for k in pool]
    best = max(sims, key=lambda x: x[0], default=None)
    if best is None or best[0] < t.lead:
        return []
    turn = set(best[1].episodes)
    rival = max((s for s, k in sims if not turn & set(k.episodes)), default=0.0)
    if best[0] - rival < t.lead_margin:
        return []
    return [k for s, k in sims if turn & set(k.episodes) and s >= t.lead]


def _told(k: Known) -> npt.NDArray[np.float32]:
    """``k``'s vectors less those of its questions: "Can you fix the calendar?" in a turn of
    several things asks, and is no record of a calendar entry a request could be about."""
    said = spans(k.text)
    if len(k.vectors) != len(said) + 1 or not any(p.rstrip().endswith("?") for p in said):
        return k.vectors
    keep = [0, *(i + 1 for i, p in enumerate(said) if not p.rstrip().endswith("?"))]
    return k.vectors[keep]


def similarity(query: npt.NDArray[np.float32], vectors: npt.NDArray[np.float32]) -> float:
    """Cosine of ``query`` to the best of a record's vectors (whole text or one sentence)."""
    if not len(vectors) or vectors.shape[1] != query.shape[0]:  # no vector yet, or another model's
        return 0.0
    return float(np.max(vectors @ query))


def _spelt(said: str, word: str) -> bool:
    """``said`` is ``word``, or ``word`` with one letter left out or doubled ("adress" for
    "address"): a typed request still names its kind."""
    if said == word:
        return True
    if len(word) < 6 or abs(len(said) - len(word)) != 1:
        return False
    short, long_ = sorted((said, word), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def same_word(term: str, word: str) -> bool:
    """``word`` is ``term`` or a form of it ("see"/"seeing", "diagnosis"/"diagnosed",
    "gambling"/"gamblers"); short words match only whole or with an inflection."""
    if word == term:
        return True
    if len(term) < 5:
        stem = term[:-1] if term.endswith("e") and len(term) > 3 else term
        return word.startswith(stem) and word[len(stem) :] in ("s", "es", "ing", "ed", "d", "er", "ers", "'s")
    n = len(_common_prefix(term, word))
    return n >= 5 and n >= max(len(term), len(word)) - 3


def introduced_names(terms: Sequence[str], text: str) -> set[str]:
    """Names ``text`` introduces a topic word with: "my ex, Julien" → {"Julien"}, "Julien, my
    ex" → {"Julien"}, "my therapist, Dr. Claire Benoît" → {"Claire", "Benoît"}."""
    tokens = re.findall(r"[^\W_]+(?:'[^\W_]+)?|[,(—-]", text)
    out: set[str] = set()
    for i, tok in enumerate(tokens):
        if not any(same_word(term, tok.lower()) for term in terms):
            continue
        j = i + 1
        while j < len(tokens) and j <= i + 3 and tokens[j].lower() in _BRIDGE:
            j += 1
        run = []
        while j < len(tokens) and _NAME.fullmatch(tokens[j]) and tokens[j] not in _NOT_NAMES:
            run.append(tokens[j])
            j += 1
        if not run and i >= 3 and tokens[i - 1].lower() in ("my", "our") and tokens[i - 2] == ",":
            if _NAME.fullmatch(tokens[i - 3]) and tokens[i - 3] not in _NOT_NAMES:
                run.append(tokens[i - 3])
        out.update(w for w in run if w.lower() not in _BRIDGE)
    return out


def _no_longer_current(hit: list[Known]) -> list[Known]:
    """Of the matches, those that no longer hold: not current, or said before the newest
    current statement among them (it is the value now). A lone match is what the user calls
    old: it goes."""
    current = [k for k in hit if k.current]
    if len({k.said_at for k in hit}) < 2 or not current:
        return hit
    newest = max(k.said_at for k in current)
    return [k for k in hit if not k.current or k.said_at < newest]


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]
