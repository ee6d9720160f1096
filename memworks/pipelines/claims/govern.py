"""What new statements do to the current ones they meet: close them, absorb them, or leave them.

Every trusted statement (a user's turn, a verified tool's result) is a claim, whether or not a
rule or the parser turned it into a keyed record. :func:`govern` meets each new claim, in the
order they were said, with the subject's current claims nearest to it (by vector; said before
it; same subject and kind of source) and asks the learned pair model
(:func:`~memworks.pipelines.claims.decision.decide_all`) what the pair is:

* *changed* / *ended*: the old claim stops holding when the new one was said (history keeps it);
* *restated*: the old claim gains the new one's evidence and the new one adds no current claim;
* *compatible* / *unrelated*: both stay.

The model abstains (answers *compatible*) below the thresholds calibrated for its precision goal,
so a closing decision is made only where it is likely right. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from memworks.pipelines.claims.decision import Decision, DecisionModel, decide_all
from memworks.pipelines.claims.features import ClaimText

__all__ = [
    "MENTION_COSINE",
    "MIN_COSINE",
    "NEIGHBOURS",
    "ClaimPlan",
    "Closing",
    "Mention",
    "Restatement",
    "Statement",
    "govern",
]

#: Current claims each new claim meets (its nearest, by vector).
NEIGHBOURS = 3
#: Least cosine similarity of a pair worth deciding: below it the claims are about other things
#: (the labelled pairs' "related" bound).
MIN_COSINE = 0.45
#: Least cosine similarity at which a statement naming a stored value again restates it ("Penicillin
#: gives me hives" after "I'm allergic to penicillin": 0.74; "The XC40 needs new tyres" after "I
#: drive a Volvo XC40": 0.48, news about the car, not the car again).
MENTION_COSINE = 0.6


@dataclass(frozen=True)
class Statement:
    """One claim as stored: the record holding it and the episode it was said in."""

    memory_id: str
    episode_id: str
    claim: ClaimText
    #: Values of the current records resting on this statement's turn ("penicillin", "Spotify").
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class Closing:
    """``old`` stops holding when ``new`` was said (``decision``: changed or ended)."""

    old: str
    new: Statement
    decision: Decision
    probability: float

    @property
    def by(self) -> str:
        return self.new.memory_id

    @property
    def at(self) -> datetime:
        return self.new.claim.said_at


@dataclass(frozen=True)
class Restatement:
    """``new`` says again what ``old`` said: ``old`` rests on ``new``'s episode as well."""

    old: Statement
    new: Statement
    probability: float


@dataclass(frozen=True)
class Mention:
    """``new`` names again ``value``, held by a record resting on ``old``'s turn, in a statement
    much like it: that record rests on ``new``'s turn as well (nothing is retired)."""

    old: Statement
    new: Statement
    value: str


@dataclass
class ClaimPlan:
    closings: list[Closing] = field(default_factory=list)
    restatements: list[Restatement] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)


def _nearest(new: Statement, pool: Sequence[Statement], k: int, min_cosine: float) -> list[Statement]:
    mine = [
        o
        for o in pool
        if o.claim.subject == new.claim.subject
        and o.claim.source == new.claim.source
        and o.claim.said_at < new.claim.said_at
        and o.episode_id != new.episode_id
        and o.claim.vector.size == new.claim.vector.size
    ]
    if not mine:
        return []
    sims = np.array([float(np.dot(o.claim.vector, new.claim.vector)) for o in mine])
    order = np.argsort(-sims)[:k]
    return [mine[i] for i in order if sims[i] >= min_cosine]


def govern(
    new: Sequence[Statement],
    current: Sequence[Statement],
    *,
    model: DecisionModel | None = None,
    neighbours: int = NEIGHBOURS,
    min_cosine: float = MIN_COSINE,
) -> ClaimPlan:
    """The closings and restatements ``new`` claims make among ``current`` ones (and each other).

    ``new`` are met in the order they were said; a new claim that is not a restatement joins the
    pool the later ones meet, so a change said twice in one batch closes the first value once.
    """
    plan = ClaimPlan()
    pool = list(current)
    closed: set[str] = set()
    for n in sorted(new, key=lambda s: s.claim.said_at):
        olds = [o for o in _nearest(n, pool, neighbours, min_cosine) if o.memory_id not in closed]
        decisions = decide_all(n.claim, [o.claim for o in olds], model)
        restated = False
        for o, (d, p) in zip(olds, decisions, strict=True):
            if d in (Decision.CHANGED, Decision.ENDED):
                plan.closings.append(Closing(o.memory_id, n, d, p))
                closed.add(o.memory_id)
            elif d is Decision.RESTATED and not restated:
                plan.restatements.append(Restatement(o, n, p))
                restated = True
            elif (value := _named_again(n, o, min_cosine=MENTION_COSINE)) is not None:
                plan.mentions.append(Mention(o, n, value))
        if not restated:
            pool.append(n)
    return plan


def _named_again(new: Statement, old: Statement, *, min_cosine: float) -> str | None:
    """A value of ``old``'s records that ``new`` names again in a statement close to ``old``'s,
    with no cue of change or ending (which would make it news about the value, not the value)."""
    r = new.claim.reading
    if r.change_verb or r.change_word or r.end_verb or r.end_word or r.question:
        return None
    if float(np.dot(new.claim.vector, old.claim.vector)) < min_cosine:
        return None
    text = _fold(new.claim.text)
    for v in old.values:
        m = re.search(rf"\b{re.escape(_fold(v))}\b", text) if len(v) >= 3 else None
        # "I'm not allergic to penicillin" names the value to deny it.
        if m and not _NEGATION.search(" ".join(text[: m.start()].split()[-_NEGATION_REACH:])):
            return v
    return None


#: Words before a named value within which a negation denies it (count).
_NEGATION_REACH = 4
_NEGATION = re.compile(r"\b(?:not|no|never|n't|nor|without)\b|n't\b")


def _fold(s: str) -> str:
    return " ".join(s.replace("\u2019", "'").split()).casefold()
