"""The kind of answer a question asks for, and whether a text holds one of that kind.

"What is the name of my dentist?" asks for a name, "How much are we paying for the house?" for
a sum, "What coverage percentage does CI enforce?" for a percentage, "Which Python version ...?"
for a version ("3.12"). A record about the dentist that names no one ("I've got the dentist
thursday at 4:15") or about the house that states no sum does not answer it, however close its
topic: when no candidate holds an answer of the kind asked, the question is about something
never said. Only kinds whose answers have a written form are read; any other question is left
to the ranker's floor.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from memworks.pipelines.retrieval.possessor import below_holders

__all__ = ["KIND_CHECKED", "KIND_SHARE", "PRECISE_KINDS", "answer_kind", "holds_answer", "kind_answered", "kind_first"]

#: The candidates looked at for an answer of the kind asked for: at most this many of the best,
#: each at least this share of the best one's probability.
KIND_CHECKED, KIND_SHARE = 5, 0.1

_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("percent", re.compile(r"\bpercent(?:age)?\b|%", re.I)),
    (
        "sum",
        re.compile(
            r"\bhow\s+much\b.{0,60}\b(?:cost|costs|pay|paid|paying|price|spend|spent|spending|charge|charged|rent"
            r"|salary|earn|earns|owe|worth|fee|bill)\b|\bhow\s+much\s+(?:is|was|does|did)\b|\bwhat(?:'s|\s+is|\s+was)\s+"
            r"(?:the\s+|my\s+|our\s+|their\s+)?(?:price|cost|rent|salary|fee)\b|\bwhat\s+(?:salary|wage|rent)\b",
            re.I,
        ),
    ),
    ("version", re.compile(r"\bversion\b", re.I)),
    ("name", re.compile(r"\bname\s+of\b|\bwhat(?:'s|\s+is|\s+was|\s+are)\s+(?:[\w']+\s+){1,3}names?\b", re.I)),
    ("email", re.compile(r"\be-?mail\s+address(?:es)?\b|\bwhat(?:'s|\s+is)\s+(?:[\w']+\s+){0,2}e-?mail\s*\?", re.I)),
    ("phone", re.compile(r"\b(?:phone|mobile|cell|telephone|landline|contact)\s+numbers?\b", re.I)),
    (
        "number",
        re.compile(
            r"\b(?:account|order|case|ticket|reference|tracking|booking|membership|customer|policy|loyalty|flyer|"
            r"passport|return|claim|invoice|confirmation|serial|room)\s+(?:number|no\b|id\b|code\b)",
            re.I,
        ),
    ),
)
#: Kinds whose written form is precise enough to put the records holding one first.
PRECISE_KINDS = frozenset({"percent", "sum", "email", "phone", "number", "version"})
#: Anchored at the start of a run and possessive: linear on a long run with no "@".
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]++@[\w-]++\.[\w.-]")
#: Seven digits or more, spaced or not ("07700 900412", "+40 755 630 112").
_PHONE = re.compile(r"\+?\d(?:[\s().-]?\d){6,}")
#: An identifier or a long number ("RMA-77120", "NW-4471902", "482913775").
_NUMBER = re.compile(r"\b[A-Za-z]{0,6}[-#]?\d{4,}\b")
#: A version as written: "3.12", "v1.6.0", "v14", "0.121.0", "version 16".
_VERSION = re.compile(r"\b[vV]\d+(?:\.\d+)*\b|\b\d+\.\d+(?:\.\d+)*\b|\bversion\s+\d+", re.I)
#: The thing a question asks the version of: "Which Postgres version ...?", "Which version of
#: fastapi ...?" (not the question's own words: "Which version").
_VERSION_OF = re.compile(
    r"(?!(?:which|what|the|a|an|this|that|my|our|its)\b)\b([\w.+#-]+)\s+version\b|\bversion\s+of\s+([\w.+#-]+)", re.I
)
_PERCENT = re.compile(r"\d\s?(?:%|percent\b|per\s+cent\b)", re.I)
_SUM = re.compile(
    r"[$£€¥]\s?\d|\d\s?(?:k\b|grand\b|quid\b|bucks\b|pounds?\b|dollars?\b|euros?\b|eur\b|usd\b|gbp\b|p/?m\b)"
    r"|\b(?:eur|usd|gbp|cad|aud|chf)\s?\d|_(?:gbp|eur|usd|cad)\b|\b(?:price|cost|rent|salary|fee|amount)\w*\W{1,3}\d",
    re.I,
)
#: Capitalised words that are no one's name.
_NOT_NAMES = frozenset(
    """i i'm i've i'd i'll monday tuesday wednesday thursday friday saturday sunday january february march april
    may june july august september october november december user ok okay hi hey""".split()
)
# A name said in lower case: "called pepper", "my dentist is dr okafor", "her name's bia".
_NAMED = re.compile(r"\b(?:called|named|(?:dr|mr|mrs)\.?|(?:my|his|her|their|its)\s+name(?:'s|\s+is))\s+[a-z]", re.I)


_FORMS = {"email": _EMAIL, "phone": _PHONE, "number": _NUMBER, "version": _VERSION}


def answer_kind(question: str) -> str | None:
    """``percent``, ``sum``, ``version``, ``name``, ``email``, ``phone`` or ``number`` when the
    question asks for an answer of that kind."""
    return next((kind for kind, rx in _KINDS if rx.search(question)), None)


def holds_answer(kind: str, text: str, question: str) -> bool:
    """Whether ``text`` holds an answer of ``kind`` to ``question``: a percentage, a sum of
    money, or a name that the question does not already say."""
    if kind == "percent":
        return _PERCENT.search(text) is not None
    if kind == "sum":
        return _SUM.search(text) is not None
    if kind == "number":
        return labelled_number(text, question)
    if kind == "version" and (of := _VERSION_OF.search(question)):  # "Postgres 16" is one
        return bool(_VERSION.search(text) or re.search(rf"\b{re.escape(of[1] or of[2])}\s+\d", text, re.I))
    if kind in _FORMS:
        return _FORMS[kind].search(text) is not None
    asked = {w.removesuffix("'s").casefold() for w in re.findall(r"[\w'-]+", question)}
    if _NAMED.search(text):
        return True
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        words = re.findall(r"[\w'-]+", sentence)[1:]  # a sentence's first word is capitalised anyway
        for w in words:
            bare = w.removesuffix("'s").casefold()
            if w[:1].isupper() and bare not in asked and bare not in _NOT_NAMES and not w.isupper():
                return True
    return False


#: The word a question's number is named by ("tracking" of "the courier tracking number").
_LABEL = re.compile(r"\b([a-z]+)\s+(?:number|no\b|id\b|code\b)", re.I)
#: How far (characters) a number may stand from the word naming it ("account": "NW-4471902").
LABEL_REACH = 40


def labelled_number(text: str, question: str) -> bool:
    """``text`` holds an identifier named as the question names it: "What's the courier tracking
    number?" is not answered by an order's id, nor "Peggy's room number" by a calendar event's,
    though both are numbers; "What's Hanne's account number?" is by ``"account": "NW-4471902"``,
    and "What's my TAP frequent flyer number?" by "My TAP Miles&Go number is 482913775"."""
    label = _LABEL.search(question)
    if label is None:
        return _NUMBER.search(text) is not None
    # ... or that the text itself calls a number ("My TAP Miles&Go number is 482913775").
    word = re.compile(rf"\b(?:{re.escape(label[1])}|number\b)", re.I)
    return any(
        word.search(text, max(0, m.start() - LABEL_REACH), m.end() + LABEL_REACH) for m in _NUMBER.finditer(text)
    )


def kind_first(
    score: npt.NDArray[np.float64], kind: str, question: str, texts: Sequence[str], source: npt.NDArray[np.int64]
) -> npt.NDArray[np.float64]:
    """Of the best candidates (as :func:`kind_answered` looks at them), those holding an answer of
    a :data:`PRECISE_KINDS` kind come first, in their own order: "What's her email address?" is
    answered by the customer record that holds one, before the turn about her new address."""
    if kind not in PRECISE_KINDS or not len(score):
        return score
    order = np.argsort(-score, kind="stable")
    best = {int(i) for i in order[:KIND_CHECKED] if score[i] >= KIND_SHARE * score[order[0]]}
    return below_holders(score, [i in best and _holds(kind, question, texts, source, i) for i in range(len(score))])


def kind_answered(
    kind: str,
    question: str,
    p: npt.NDArray[np.float64],
    texts: Sequence[str],
    keys: Sequence[str | None],
    summary: Sequence[bool],
    source: npt.NDArray[np.int64],
) -> bool:
    """Whether one of the best candidates (by ``p``) holds an answer of ``kind``. Summaries name
    everything they sum up (the records they rest on answer for them), and the user's own name
    answers no question of someone else's ("the name of my dentist"); a fact stands for the turn
    it was read from (``source``: "Nadia got a cat." for "... a black rescue called Pepper")."""
    mine = "my name" in question.lower()
    own = [i for i in np.argsort(-p, kind="stable") if not summary[i] and (keys[i] != "user.name" or mine)]
    if not own:
        return True
    best = [i for i in own[:KIND_CHECKED] if p[i] >= KIND_SHARE * p[own[0]]]
    return any(_holds(kind, question, texts, source, i) for i in best)


def _holds(kind: str, question: str, texts: Sequence[str], source: npt.NDArray[np.int64], i: int) -> bool:
    """Candidate ``i`` holds an answer of ``kind``, or the turn its fact was read from does."""
    return holds_answer(kind, texts[i], question) or (source[i] >= 0 and holds_answer(kind, texts[source[i]], question))
