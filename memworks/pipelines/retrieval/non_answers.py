"""Candidates that name what a question asks about without answering it.

* **A fact that only says back what the question names.** The answer to a question asking what,
  which or where is something the question does not say yet: "What is Dev's baby daughter
  called?" is not answered by ``user.name = 'Dev'``, "Where is the house Priya and Ben are
  buying?" not by Ben's 'avoids priya', "What's my cat called?" not by ``pets = 'cat'``. A keyed
  fact made only of the question's own words (a stance's value by its thing) leaves the top. A
  question of who is answered by whom such a fact is about ("Who hates cilantro?": 'avoids
  cilantro'), one of when by the time of the event a fact names ("When did she go to the support
  group?": the record of the support group, dated), and a yes-or-no question by the fact it names:
  none of them is judged.
* **A statement that something stopped**, for a question about what holds now. "What exercise do I
  do?" is not answered by "I've stopped playing netball": it names the thing asked about, so it
  ranks high, but says only that it no longer holds. For such a question asking for a thing (what,
  which, where, who, how), a candidate whose sentence that best matches the question tells an
  ending, and says nothing of what replaced it ("now", "instead", "new", "switched"), leaves the
  top. A question of yes or no ("Do I still play netball?") is answered by the ending itself.

Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from memworks.pipelines.claims import cues as C
from memworks.pipelines.claims.values import STANCE
from memworks.pipelines.retrieval.latest.now import LATEST_TOP, out_of_top
from memworks.pipelines.text.spans import sentence_at

__all__ = ["asks_anew", "asks_for_thing", "below_echoes", "below_endings", "echoes", "tells_end"]

# -- a fact that says back the question -------------------------------------------------------

#: A question asking for a thing or a place ("which of them" asks for a person).
_ASKS_ANEW = re.compile(r"^\W*(?:what|where|which(?!\s+of\b))\b", re.I)
_WORD = re.compile(r"\w+")


def asks_anew(question: str) -> bool:
    """``question`` asks what, which or where: its answer is news to it."""
    return _ASKS_ANEW.match(question) is not None


def echoes(question: str, value: str) -> bool:
    """Every word of ``value`` (a stance's by its thing) is a word of ``question``."""
    stance = STANCE.match(value)
    said = set(_WORD.findall((value[stance.end() :] if stance else value).casefold()))
    return bool(said) and said <= set(_WORD.findall(question.casefold()))


def below_echoes(
    score: npt.NDArray[np.float64],
    question: str,
    values: Sequence[str],
    facts: npt.NDArray[np.bool_],
    summary: Sequence[bool],
) -> npt.NDArray[np.float64]:
    """For a question asking anew (:func:`asks_anew`), the keyed facts that echo it
    (:func:`echoes`) below the best others, in their own order."""
    n = len(score)
    if not asks_anew(question) or len(values) != n or len(facts) != n:
        return score
    return out_of_top(score, {i for i in range(n) if facts[i] and echoes(question, values[i])}, summary)


# -- a statement that something stopped ----------------------------------------------------------

_ASKS_THING = re.compile(r"^\W*(?:what|which|where|who|how)\b", re.I)
_WORDS = re.compile(r"[a-z]+(?:'[a-z]+)?")
#: Words beside a wish or a doubt (:func:`~memworks.pipelines.claims.cues.wishes`) under which an
#: ending is only planned or supposed ("I plan to quit", "if I stop").
_PLANNED = frozenset({"plan", "planning", "if"})
#: Verbs of beginning that tell what took an ended thing's place.
_BEGIN = frozenset("join adopt buy purchase start begin pick get".split())
#: Words that say what replaced the ended thing (the statement then tells what holds): "now",
#: "new", a verb of changing or beginning ("switched", "joined", "picked it up").
_NEWS = (
    C.CHANGE_ADVERBS
    | C.NEW_WORDS
    | frozenset(f for v in C.CHANGE_VERBS | _BEGIN for f in C.inflections(v))
    | {"bought", "began", "begun", "got"}
)
#: Phrases of ending, the participle of "give up" too, and a job's ("last day at Brightwell",
#: "handed my notice in").
_END_PHRASES = (*C.END_PHRASES, "given up", "last day", "my notice")
#: "Ended up going with the Niro" ends nothing.
_NOT_ENDING = re.compile(r"\bend(?:ed|s|ing)? up\b")


def asks_for_thing(question: str) -> bool:
    """``question`` asks what, which, where, who or how (not yes or no)."""
    return _ASKS_THING.match(question) is not None


def _words(text: str) -> list[str]:
    return _WORDS.findall(_NOT_ENDING.sub(" ", text.casefold().replace("\u2019", "'")))


def tells_end(sentence: str, whole: str = "") -> bool:
    """``sentence`` says something stopped ("I've stopped playing netball", "gave up on
    low-carb", "quit the gym"), not only a wish to stop it, and neither it nor the ``whole``
    statement it is part of says what replaced it ("Tomás quit restaurants. He runs a food truck now")."""
    words = _words(sentence)
    if C.wishes(sentence) or _PLANNED.intersection(words) or _NEWS.intersection(words + _words(whole)):
        return False
    text = " ".join(words)
    return bool(C.END_PAST.intersection(words)) or any(f" {p} " in f" {text} " for p in _END_PHRASES)


def below_endings(
    score: npt.NDArray[np.float64],
    question: str,
    texts: Sequence[str],
    best_span: npt.NDArray[np.int64],
    facts: npt.NDArray[np.bool_],
    summary: Sequence[bool],
) -> npt.NDArray[np.float64]:
    """For a present question asking for a thing (:func:`asks_for_thing`), the candidates whose
    best-matching sentence (``best_span``) tells an ending (:func:`tells_end`) below the best
    others; keyed facts and summaries tell what holds. Read from the best down, only until the top
    holds :data:`~.latest.LATEST_TOP` others: those below it stay below it."""
    n = len(score)
    if not asks_for_thing(question) or not len(texts) == len(best_span) == len(facts) == n:
        return score
    ended: set[int] = set()
    kept = 0
    for i in sorted(range(n), key=lambda i: -score[i]):
        if kept == LATEST_TOP:
            break
        if not facts[i] and not summary[i] and tells_end(sentence_at(texts[i], int(best_span[i])), texts[i]):
            ended.add(i)
        else:
            kept += 1
    return out_of_top(score, ended, summary)
