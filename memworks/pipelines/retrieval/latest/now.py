"""The latest answer to a question about now.

A change nobody keyed ("Switched banks, everything's with Revolut now" after "I bank with
Millennium BCP") leaves both statements current: no pair decision closed the first. A question
asking for the one thing that holds now says, by its own wording, that both answer the same
thing, so at read time the later one is the answer and the earlier one leaves the top.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np
import numpy.typing as npt

from memworks.pipelines.claims import cues as C
from memworks.pipelines.text.terms import terms

__all__ = [
    "BELOW",
    "CHANGE_GAP",
    "LATEST_GAP",
    "LATEST_MIN_SIMILARITY",
    "LATEST_TOP",
    "asks_latest",
    "asks_now",
    "below_replaced",
    "definite_terms",
    "latest_first",
    "lexical_query",
    "out_of_top",
    "says_change",
]

#: How far below its best record a demoted one scores (just below: it keeps its place among the rest).
BELOW = 0.999

#: Words of a question that ask about the past, a count or a span, or more than one thing.
_NOT_NOW = frozenset(
    "did was were had used ago before previously first originally last ever how many much long".split()
)
#: "When" asks about now only with a present verb next ("When is the conference?", not "When did ...").
_WHEN_NOW = frozenset({"is", "are", "'s"})
_NOW = frozenset("do does am is are have has 's now currently these nowadays still".split())
_DO = frozenset({"do", "does"})
_WH = frozenset({"what", "which"})
#: Words that place a present question in time, not in what it asks about.
_PRESENT_MARKS = re.compile(r"\b(?:now|currently|nowadays|these days|at the moment)\b", re.I)
_NOT_PLURAL = frozenset({"is", "was", "does", "has", "this", "yes", "its", "his", "hers", "ours", "yours"})


#: Verbs that say a state changed or ended ("switched", "moved", "left", "joined"), in every form,
#: with the irregular past forms.
_CHANGE_VERBS = frozenset(
    form
    for v in C.CHANGE_VERBS
    | C.END_VERBS
    | {"join", "adopt", "buy", "hire", "rewrite", "rebuild", "redo", "push", "delay", "defer"}
    for form in C.inflections(v)
) | {"left", "sold", "bought", "gave", "given", "quit", "rewrote", "rewritten", "rebuilt", "redid", "redone", "lost"}
#: Words that mark a state as new or over: "now", "instead", "new", "finally", "anymore".
_CHANGE_WORDS = C.CHANGE_ADVERBS | C.NEW_WORDS | C.END_ADVERBS | {"finally"}


def says_change(text: str) -> bool:
    """Whether ``text`` says something changed: a verb of changing or ending, or a word that marks
    a state as new ("Switched banks, everything's with Revolut now"; "I'm on an iPhone 15 now")."""
    words = re.findall(r"[a-z]+", text.casefold())
    return any(w in _CHANGE_WORDS or w in _CHANGE_VERBS for w in words)


#: A determiner and the words after it: how a statement refers back to a thing already said.
_DEFINITE = re.compile(r"\b(?:the|this|that|these|those|our|my)\s+((?:[\w'-]+\s+){0,2}[\w'-]+)")


def definite_terms(text: str) -> frozenset[str]:
    """The index terms of the (up to three) words after each determiner in ``text``: "The
    conference has been pushed back" refers back to a conference said before."""
    return frozenset(t for m in _DEFINITE.findall(text.casefold()) for t in terms(m))


def asks_now(text: str) -> bool:
    """Whether ``text`` asks for the one thing that holds now ("Where do I live?", "What phone do
    I have?"): of two answers, the later statement is the one. Not what was, when, how often or
    how long; not what has been so far ("What books has she read?", a perfect) nor things in the
    plural ("What pets ...?"), whose answers add up over time."""
    words = re.findall(r"[\w]+|'s", text.casefold().replace("\u2019", "'"))
    if not words or _NOT_NOW.intersection(words):
        return False
    if any(w == "when" and words[i + 1 : i + 2] != [] and words[i + 1] not in _WHEN_NOW for i, w in enumerate(words)):
        return False
    # "have" is a possession at the end ("What phone do I have?") or before "got", else a
    # perfect's auxiliary.
    # After "do" or "does" it is a main verb ("Does Rosa have to work on Christmas Day?").
    if any(
        w in ("has", "have") and "got" not in words[i + 1 :] and _DO.isdisjoint(words[:i])
        for i, w in enumerate(words[:-1])
    ):
        return False
    after_wh = [b for a, b in zip(words, words[1:], strict=False) if a in _WH]
    if any(w == "are" or (len(w) > 3 and w[-1] == "s" and w[-2] != "s" and w not in _NOT_PLURAL) for w in after_wh):
        return False
    return bool(_NOW.intersection(words))


_LATEST = re.compile(
    r"\b(?:latest|most\s+recent|newest)\b"
    r"|\bthe\s+last\s+(?:[\w-]+\s+){0,2}(?:run|result|build|deploy(?:ment)?|check|release|update|test)s?\b",
    re.I,
)


def asks_latest(text: str) -> bool:
    """Whether ``text`` asks for the newest of something said more than once ("What was the result
    of the latest test run?", "How many tests passed in the last pytest run?"): in a present read,
    the latest answer wins as it does for a question of what holds now (:func:`asks_now`)."""
    return _LATEST.search(text) is not None


#: An idiom whose words mislead the index: "do for a living" asks for work, not where one lives.
_FOR_A_LIVING = re.compile(r"\bfor\s+a\s+living\b", re.IGNORECASE)


def lexical_query(text: str, *, present: bool = True) -> str:
    """``text`` for the lexical index: "for a living" read as "for work" (its stem is the one of
    "lives in Chorlton"); in a present read also without the words that only say *now* ("Where do
    I exercise now?" matched "we're in Leeds now" by its "now"), unless nothing is left."""
    text = _FOR_A_LIVING.sub("for work", text)
    left = _PRESENT_MARKS.sub(" ", text) if present else text
    return left if left.strip(" ?!.") else text


#: How much less like the question a later statement may be and still be the present answer.
LATEST_GAP = 0.08
#: ... and a later statement that says something changed ("... with Revolut now").
CHANGE_GAP = 0.16
#: How like the question a later statement must be at least to be an answer.
LATEST_MIN_SIMILARITY = 0.35
#: ... and one that refers back to the best one's thing by all the question's words it has
#: ("so we've swapped the car ... now we've got an MG4"): relevant at all (the read's floor), as
#: its other sentences say what it changed to in words the question does not use.
REFERRED_MIN_SIMILARITY = 0.25
#: How many of the best hits are weighed against each other (the answer and its rivals).
LATEST_TOP = 3
#: The shortest time between two statements for the later one to be news.
LATEST_AFTER = timedelta(hours=12)


#: Share of their index terms two statements must have in common to be one said again.
RESTATED_JACCARD = 0.5


def _restates(a: frozenset[str], b: frozenset[str]) -> bool:
    return bool(a | b) and len(a & b) / len(a | b) >= RESTATED_JACCARD


def latest_first(
    score: npt.NDArray[np.float64],
    sims: npt.NDArray[np.float64],
    said: Sequence[datetime],
    who: Sequence[str | None],
    source: npt.NDArray[np.int64],
    summary: Sequence[bool],
    parts: Sequence[tuple[int, ...]],
    changed: Sequence[bool] = (),
    covers: Sequence[frozenset[str]] = (),
    words: Sequence[frozenset[str]] = (),
    definite: Sequence[frozenset[str]] = (),
    speakers: Sequence[str | None] = (),
    *,
    anywhere: bool = False,
) -> npt.NDArray[np.float64]:
    """For a question about what holds now: of the best hits by one speaker that answer it about
    as well as the best, the latest is the answer ("Which bank am I with?": "I bank with
    Millennium BCP" in January, "everything's with Revolut now" in March), and the earlier ones,
    with the facts read from them and the summaries that repeat them, leave the top 3: what the
    question asks about has changed since. No pair decision closed them (nothing keyed the
    change), so the question's own wording is what says they answer the same thing.

    ``said``: when each was said (a fact takes its turn's time, ``source``); ``who``: whom each
    is about; ``summary``/``parts``: the summaries and the candidates each one summarises;
    ``covers``: the question's terms each holds; ``definite``: the terms each names after a
    determiner (:func:`definite_terms`); ``speakers``: who said each.
    """
    n = len(score)
    if n < 2 or len(said) != n or len(sims) != n:
        return score
    turn = [int(source[i]) if len(source) == n and source[i] >= 0 else i for i in range(n)]
    # A fact was said when its turn was (its own valid time may be the event's).
    said = [said[turn[i]] for i in range(n)]
    # ... and answers as well as its turn does (it stands for it: a short fact is less like any question).
    sims = np.maximum(sims, sims[turn])
    order = sorted(range(n), key=lambda i: -score[i])
    # A summary is dated by its consolidation, not its statements: it follows its parts (below_parts).
    top = [i for i in order if not summary[i]][:LATEST_TOP]
    if not top:
        return score
    best = top[0]
    # The best by score may answer the question poorly by meaning ("What language is tidepool
    # written in?": "It's written in Python 3.12" shares its words); then only a later statement
    # that says it changed and does answer it ("… being rewritten in Rust") can take its place.
    weak = sims[best] < LATEST_MIN_SIMILARITY
    floor = max(LATEST_MIN_SIMILARITY, float(sims[best]) - LATEST_GAP)
    # A later statement that says it changed may answer less like the question and still rival it.
    cue_floor = max(LATEST_MIN_SIMILARITY, float(sims[best]) - CHANGE_GAP)
    news = changed if len(changed) == n else [False] * n
    # Without a word of change, a statement that lacks a word of the question the best one has is
    # about something else ("Which mode do I like in the editor?": "light mode in the terminal").
    asked = covers if len(covers) == n else [frozenset[str]()] * n
    referred = definite if len(definite) == n else [frozenset[str]()] * n
    speaker = speakers if len(speakers) == n else [None] * n

    def rival(j: int) -> bool:
        if who[j] != who[best]:
            return False
        if weak:
            return j == best or (news[j] and said[j] > said[best] and sims[j] >= weak_floor)
        if sims[j] >= floor and (news[j] or asked[best] <= asked[j]):
            return True
        # A later statement that says it changed, or the earlier one it is the change of ("it's on
        # October 12 now" is the best answer; "on October 5" means the question a little less).
        later_news = news[j] and said[j] > said[best]
        # ... or one that refers back to the best one's thing ("the", "this", "our" ...) by fewer
        # of the question's words, all of them the best one's: "The conference has been pushed
        # back, it's on October 12 now" (0.53) after "The Madrid UX conference is on October 5"
        # (0.81), days later, by the same speaker. Not in a question naming someone: a conversation
        # between two people says "new" and "now" of too much.
        if (
            anywhere
            and speaker[j] == speaker[best]
            and later_news
            and said[j] - said[best] >= LATEST_AFTER
            and asked[j]
            and asked[j] <= asked[best] & referred[j]
            and sims[j] >= REFERRED_MIN_SIMILARITY
        ):
            return True
        return (later_news or (news[best] and said[j] < said[best])) and sims[j] >= cue_floor

    # With ``anywhere`` (a question naming no one: "What phone do I use?"), a statement that says it
    # changed rivals them from anywhere below: its new words are often not the question's ("I'm
    # on an iPhone 15 now" shares none), so the ranker's lexical side puts it low though it means
    # the question about as well. A conversation between two people says "now" and "new" about too
    # many other things (on LoCoMo, recall@1 fell by 3 questions of 250 with questions naming them).
    pool = top + [j for j in order if anywhere and j not in top and not summary[j] and news[j]]
    # When the best answers poorly: the later statements of change that answer it best (within
    # the usual gap of the best of them), not any that says "now".
    later = [float(sims[j]) for j in pool if news[j] and said[j] > said[best]]
    weak_floor = max(LATEST_MIN_SIMILARITY, max(later, default=1.0) - LATEST_GAP)
    rivals = [j for j in pool if rival(j)]
    answer = max(rivals, key=lambda j: said[j])
    if news[answer]:
        # A change is also the change of an earlier statement that answers about as well as it
        # does ("Tomás quit restaurants ... runs his own food truck now" 0.63, "Tomás just got
        # promoted to head chef" 0.62), though the best by score was neither.
        bar = max(LATEST_MIN_SIMILARITY, float(sims[answer]) - LATEST_GAP)
        rivals += [j for j in pool if j not in rivals and who[j] == who[answer] and sims[j] >= bar]
    # An earlier statement in mostly the same words says it again: a restatement, not outdated.
    terms = words if len(words) == n else [frozenset[str]()] * n
    old = {i for i in rivals if said[answer] - said[i] >= LATEST_AFTER and not _restates(terms[i], terms[answer])}
    if not old:
        return score
    out = score.copy()
    out[answer] = max(score[answer], score[best] / BELOW)
    # The facts read from an outdated turn, and the turn an outdated fact was read from.
    old |= {turn[i] for i in old}
    old = {i for i in range(n) if turn[i] in old or i in old} - {answer, turn[answer]}
    # ... and a summary that repeats one of them.
    old |= {i for i in range(n) if summary[i] and len(parts) == n and old.intersection(parts[i])}
    return out_of_top(out, old, summary)


def out_of_top(score: npt.NDArray[np.float64], old: set[int], summary: Sequence[bool]) -> npt.NDArray[np.float64]:
    """``old`` out of the top, just below the best others, in their own order: still there for a
    question that needs the history too. (Summaries take their places from their parts next.)"""
    n = len(score)
    others = sorted((score[i] for i in range(n) if i not in old and not summary[i]), reverse=True)[:LATEST_TOP]
    if not old or not others:
        return score
    out = score.copy()
    factor = min(1.0, others[-1] * BELOW / max(out[i] for i in old))
    for i in old:
        out[i] *= factor
    return out


def below_replaced(
    score: npt.NDArray[np.float64],
    keys: Sequence[str | None],
    replaced: Sequence[frozenset[str]],
    summary: Sequence[bool],
) -> npt.NDArray[np.float64]:
    """For a question about what holds now: a turn whose value of a slot was replaced leaves the
    top when that slot's current record is among the best answers ("Where do I live?": "User
    lives in Lisbon" answers; "I'm Maya, I live in Porto and ..." said the value the move
    replaced). The turn's other facts ("I'm Maya") still answer their own questions: only a
    question the replaced slot answers moves it.

    ``keys``: each candidate's key; ``replaced``: each transcript's superseded slots
    (:attr:`memworks.store.turns.Layout.replaced`).
    """
    n = len(score)
    if n < 2 or len(keys) != n or len(replaced) != n or len(summary) != n:
        return score
    top = sorted(range(n), key=lambda i: -score[i])[:LATEST_TOP]
    answering = {k for i in top if (k := keys[i])}
    old = {i for i in range(n) if replaced[i] & answering}
    return out_of_top(score, old, summary)
