"""Task features: the words a lesson's pattern is made of, normalised one deterministic way.

An agent may describe a task as a list of keywords (``["Billing", "Late Payment"]``) or as
free text (``"Refunds for an enterprise invoice"``). Both must give the same features for
the same words, because a lesson mined from one is matched against the other.

The rule (no stemmer, no model — so it never drifts between versions):

* **Keywords** (a list): each keyword is lower-cased and trimmed; every inner run of
  whitespace or punctuation becomes ``_`` (``"Late Payment"`` → ``late_payment``); a
  single-word keyword then gets the plural rule; empty keywords are dropped. Keywords are
  kept even when they are stop words: the caller chose them.
* **Free text** (a ``str``): the lower-cased words ``[a-z0-9]+``; grammatical stop words
  (:data:`STOPWORDS`) and tokens shorter than 2 characters are dropped; each word gets the
  plural rule. Domain words ("customer", "please") are kept: whether they matter is for the
  miner to find out, not for the normaliser to guess.
* **Plural rule**: strip one trailing ``s`` when the word is longer than 3 characters and
  does not end in ``ss``, ``us`` or ``is`` (refunds → refund, invoices → invoice; status,
  access, analysis and bus stay).
* **Result**: a sorted tuple of unique features, cut at :data:`MAX_FEATURES` (in sorted
  order, so the cut is deterministic).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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
_SEPARATORS = re.compile(r"[^a-z0-9]+")


def singular(word: str) -> str:
    """Apply the plural rule: strip a trailing ``s`` unless the word is short or ends in ss/us/is."""
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _keyword(raw: str) -> str:
    # Every run of non-alphanumerics (spaces, hyphens, underscores, dots) is one separator, so
    # "Late-Payment", "late_payment" and " late  payment " all give the same feature.
    parts = [p for p in _SEPARATORS.split(raw.strip().lower()) if p]
    if len(parts) == 1:
        return singular(parts[0])
    return "_".join(parts)


def _free_text(text: str) -> list[str]:
    words = _WORD.findall(text.lower())
    # Stop words are checked before the plural rule: they are listed in their surface form.
    return [singular(w) for w in words if len(w) >= 2 and w not in STOPWORDS]


def normalize_features(raw: Sequence[str] | str) -> tuple[str, ...]:
    """Normalise keywords (a list) or free text (a ``str``) into sorted unique features.

    See the module docstring for the exact rule. ``["Refunds", "Enterprise"]`` and
    ``"refunds for an enterprise"`` both give ``("enterprise", "refund")``.
    """
    # A str is itself a Sequence[str]; test it first so text is not read letter by letter.
    found = _free_text(raw) if isinstance(raw, str) else [_keyword(k) for k in raw]
    return tuple(sorted({f for f in found if f}))[:MAX_FEATURES]
