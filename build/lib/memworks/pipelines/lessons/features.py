"""Task features: the words a lesson's pattern is made of, normalised one deterministic way.

An agent may describe a task as keywords (``["Billing", "Late Payment"]``), as free text
(``"Refunds for an enterprise invoice, late payment"``) or both. The same words must give the
same features either way, because a lesson mined from one is matched against the other.

The rule (Snowball's English stemmer, no model: the same text always gives the same features):

* **Words**: lower-cased runs of ``[a-z0-9]``; tokens shorter than 2 characters and grammatical
  stop words (:data:`STOPWORDS`) are dropped; each word is stemmed (refunds → refund,
  billing → bill, security → secur).
* **Free text** (a ``str``): the stems of its words, plus the **bigrams** of content words that
  follow each other inside one clause (stop words between them do not break the pair;
  punctuation does), written ``first_second``: "late payment" → ``late_payment``, "refund for
  fraud" → ``refund_fraud``. A pair such as ``crash_secur`` lets a lesson tell a phrase from its
  words when the words alone are ambiguous. Unigrams are kept before bigrams when the text is
  long, each in order of first appearance, up to :data:`MAX_FEATURES`.
* **Keywords** (a list): each keyword is one phrase. Its words are stemmed and joined with
  ``_`` (``"Late Payment"`` and ``"late-payment"`` → ``late_payment``, as the bigram of the
  same words in text); stop words inside a phrase are dropped unless the phrase is nothing
  else (a keyword the caller chose is kept: ``["the"]`` → ``the``).
* **Result**: a sorted tuple of unique features.

Stems are features, not words for display: guidance shows them as they are (``secur``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from functools import lru_cache

import snowballstemmer  # type: ignore[import-untyped]

#: Most features an outcome keeps (pattern mining is combinatorial in this number).
MAX_FEATURES = 64

#: Grammatical words only: articles, pronouns, auxiliaries and modals, prepositions,
#: conjunctions and a few determiners. They say nothing about which action fits a task.
STOPWORDS = frozenset(
    # articles and determiners
    "a an the this that these those some any each every no all both either neither such "
    # pronouns
    "i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his "
    "himself she her hers herself it its itself they them their theirs themselves who whom whose "
    "which what "
    # auxiliaries and modals
    "am is are was were be been being do does did done doing have has had having will would "
    "shall should can could may might must "
    # prepositions
    "about above across after against along among around at before behind below beneath beside "
    "between beyond by down during except for from in inside into like near of off on onto out "
    "outside over past since through throughout to toward towards under until up upon via with "
    "within without "
    # conjunctions and particles
    "and or but nor so yet if then than as because while whereas whether not".split()
)

_WORD = re.compile(r"[a-z0-9]+")
#: Clause breaks: a bigram never spans one.
_CLAUSE = re.compile(r"[.,;:!?()\[\]{}\n\"|/]+|\s-\s")
_local = threading.local()  # Snowball stemmers keep state while stemming: one per thread


@lru_cache(maxsize=50_000)
def stem(word: str) -> str:
    """Snowball's English stem of a lower-case word."""
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = snowballstemmer.stemmer("english")
    return str(stemmer.stemWord(word))


def _content(words: Sequence[str]) -> list[str]:
    return [stem(w) for w in words if len(w) >= 2 and w not in STOPWORDS]


def _keyword(raw: str) -> str:
    # Every run of non-alphanumerics (spaces, hyphens, underscores, dots) separates words, so
    # "Late-Payment", "late_payment" and " late  payment " all give the same feature.
    words = _WORD.findall(raw.lower())
    kept = _content(words) or [stem(w) for w in words]
    return "_".join(kept)


def text_features(text: str) -> list[str]:
    """Stems of ``text`` then its in-clause bigrams, each in order of first appearance."""
    unigrams: list[str] = []
    bigrams: list[str] = []
    for clause in _CLAUSE.split(text.lower()):
        words = _content(_WORD.findall(clause))
        unigrams += words
        bigrams += [f"{a}_{b}" for a, b in zip(words, words[1:], strict=False) if a != b]
    return list(dict.fromkeys(unigrams + bigrams))


def normalize_features(raw: Sequence[str] | str) -> tuple[str, ...]:
    """Normalise keywords (a list) or free text (a ``str``) into sorted unique features.

    See the module docstring for the exact rule. ``["Refunds", "Enterprise"]`` and
    ``"refunds for an enterprise"`` share ``("enterpris", "refund")``; the text adds the
    bigram ``refund_enterpris``.
    """
    # A str is itself a Sequence[str]; test it first so text is not read letter by letter.
    found = text_features(raw) if isinstance(raw, str) else [_keyword(k) for k in raw]
    return tuple(sorted(_capped(found)))


def _capped(found: Sequence[str]) -> set[str]:
    # The first MAX_FEATURES in order of appearance: a long text keeps its opening words.
    return set(list(dict.fromkeys(f for f in found if f))[:MAX_FEATURES])


def outcome_features(features: Sequence[str] | str, task_text: str | None = None) -> tuple[str, ...]:
    """An outcome's features: its keywords (or text) and the words of its task description."""
    given = list(normalize_features(features)) if features else []
    extra = text_features(task_text) if task_text else []
    return tuple(sorted(_capped(given + extra)))
