"""What statements do to each other: close the earlier one, absorb the later one, or leave both.

Every trusted statement (a user's turn, a verified tool's result) is a claim, whether or not a
rule or the parser turned it into a keyed record. :func:`govern` pairs each new claim with the
subject's stored claims nearest to it (by vector; same subject and kind of source; said earlier
*or later*: a redelivered turn may arrive after the ones said after it) and asks the learned pair
model (:func:`~memworks.pipelines.claims.decision.decide_all`) what the later claim does to the
earlier one:

* *changed* / *ended*: the earlier claim stops holding when the later one was said (history keeps
  it; of several closings the earliest wins);
* *restated*: the later claim says again what the earlier one, still holding then, said: the
  earlier one gains the later one's evidence and the later one adds no current claim (a *copy*);
* *compatible* / *unrelated*: both stay.

Each pair is decided once, when the second of the two arrives, and what it does depends on the
pair and on what was said, never on which arrived first: the same statements in any order end in
the same state (within the :data:`NEIGHBOURS` nearest). The model abstains (answers *compatible*)
below the thresholds calibrated for its precision goal, so a closing decision is made only where
it is likely right. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from memworks.models.enums import Source
from memworks.pipelines.claims.cues import marking_sentence, marks_restatement, wishes
from memworks.pipelines.claims.decision import Decision, DecisionModel, decide_all
from memworks.pipelines.claims.features import ClaimText, cue_acts_on, other_person
from memworks.pipelines.claims.reading import Reading, read_words, stem
from memworks.pipelines.claims.sentences import PartDecision, closeness_to, part_decision
from memworks.pipelines.claims.values import STANCE, head_said, mostly_said, names, said_in

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
    "pairs",
]

#: Stored claims each new claim is paired with (its nearest, by vector). Arrival order can matter
#: only for a claim with more than this many like claims above :data:`MIN_COSINE`.
NEIGHBOURS = 64
#: Least cosine of a pair worth deciding (the labelled pairs' "related" bound).
MIN_COSINE = 0.45
#: Least cosine similarity at which a statement naming a stored value again restates it ("Penicillin
#: gives me hives" after "I'm allergic to penicillin": 0.74; "The XC40 needs new tyres" after "I
#: drive a Volvo XC40": 0.48, news about the car, not the car again).
MENTION_COSINE = 0.6
#: Words of a value that a verb of ending need not govern ("Klara and the Sun").
_VALUE_STOP = frozenset({"a", "an", "the", "and", "of", "my", "our", "to", "in", "on", "at", "for"})
#: Tenses in which a statement tells a state that holds, which a later ending can end.
_STATE_TENSES = frozenset({"present"})
#: Decisions that close the earlier claim.
_CLOSING = (Decision.CHANGED, Decision.ENDED)


@dataclass(frozen=True)
class Statement:
    """One claim as stored: the record holding it and the episode it was said in."""

    memory_id: str
    episode_id: str
    claim: ClaimText
    #: Values of the records resting on this statement's turn ("penicillin", "Spotify").
    values: tuple[str, ...] = ()
    #: When it stopped holding, if it did.
    ends_at: datetime | None = None
    #: It was absorbed by an earlier statement it restated (it holds nothing of its own).
    copy: bool = False
    #: Keys of the keyed records its turn said ("user.home_city"): the precise layer's slots.
    keys: tuple[str, ...] = ()
    #: Each sentence of a turn of several, read as a claim of its own: a turn's one sentence may
    #: end what an earlier one said ("Cancelled the PureGym membership. I climb at The Depot now.")
    #: though the turn as a whole reads as neither (the model learnt its decisions on sentences).
    parts: tuple[ClaimText, ...] = ()

    def holds_at(self, t: datetime) -> bool:
        return not self.copy and (self.ends_at is None or self.ends_at > t)


@dataclass(frozen=True)
class Closing:
    """``old`` stops holding when ``new`` was said (``decision``: changed or ended)."""

    old: str
    new: Statement
    decision: Decision
    probability: float
    #: The sentence of ``new`` that decided it, when one of its sentences did, not the whole turn.
    sentence: str = ""
    #: The sentence of ``old`` that stops holding, when only one of its sentences does (its
    #: other sentences still hold); empty when the whole of ``old`` does.
    part: str = ""

    @property
    def by(self) -> str:
        return self.new.memory_id

    @property
    def at(self) -> datetime:
        return self.new.claim.said_at


@dataclass(frozen=True)
class Restatement:
    """``new`` says again what ``old`` said. When ``applies`` (``old`` held then and is no copy),
    ``old`` rests on ``new``'s episode as well and ``new`` becomes a copy of it."""

    old: Statement
    new: Statement
    probability: float
    applies: bool = True
    #: The sentence of ``old`` said again, when ``new`` restates only that one of its sentences.
    part: str = ""
    #: Found by the speaker's own mark ("remember", "like I said") on the nearest earlier
    #: statement, not by the model: ``old`` gains the evidence, and ``new`` is no copy of it.
    marked: bool = False
    #: The sentence of ``new`` that says it again, when one of its sentences does.
    said: str = ""

    @property
    def absorbs(self) -> bool:
        """``new`` becomes a copy of ``old``: it applies, the model found it, and ``new`` says
        nothing besides (a turn that restates one sentence of another and says more is no copy)."""
        return self.applies and not self.marked and not (self.part and self.new.parts)


@dataclass(frozen=True)
class Mention:
    """``new`` names again ``value``, held by a record resting on ``old``'s turn, in a statement
    much like it: that record, if it held then, rests on ``new``'s turn as well."""

    old: Statement
    new: Statement
    value: str


@dataclass
class ClaimPlan:
    closings: list[Closing] = field(default_factory=list)
    restatements: list[Restatement] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)


def _comparable(a: Statement, b: Statement) -> bool:
    return (
        a.memory_id != b.memory_id
        and a.episode_id != b.episode_id
        and a.claim.subject == b.claim.subject
        and a.claim.source == b.claim.source
        and a.claim.said_at != b.claim.said_at
        and a.claim.vector.size == b.claim.vector.size
    )


def _nearest(new: Statement, pool: Sequence[Statement], k: int, min_cosine: float) -> list[Statement]:
    mine = [o for o in pool if _comparable(o, new)]
    if not mine:
        return []
    sims = closeness_to((new.claim, *new.parts), [(o.claim, *o.parts) for o in mine])
    order = np.argsort(-sims, kind="stable")[:k]
    return [mine[i] for i in order if sims[i] >= min_cosine]


def pairs(
    new: Sequence[Statement],
    stored: Sequence[Statement],
    *,
    neighbours: int = NEIGHBOURS,
    min_cosine: float = MIN_COSINE,
) -> list[tuple[Statement, Statement]]:
    """Each (earlier, later) pair a new claim makes with its nearest, once, in a fixed order."""
    pool = [*stored, *new]
    found: dict[tuple[str, str], tuple[Statement, Statement]] = {}
    for n in new:
        for o in _nearest(n, pool, neighbours, min_cosine):
            early, late = (o, n) if o.claim.said_at < n.claim.said_at else (n, o)
            found.setdefault((early.memory_id, late.memory_id), (early, late))
    return sorted(found.values(), key=lambda p: (p[1].claim.said_at, p[1].memory_id, p[0].memory_id))


def govern(
    new: Sequence[Statement],
    stored: Sequence[Statement],
    *,
    model: DecisionModel | None = None,
    neighbours: int = NEIGHBOURS,
    min_cosine: float = MIN_COSINE,
) -> ClaimPlan:
    """The closings, restatements and mentions the pairs of ``new`` claims (with ``stored`` ones
    and each other) make; see the module."""
    found = pairs(new, stored, neighbours=neighbours, min_cosine=min_cosine)
    by_late: dict[str, list[Statement]] = {}
    lates: dict[str, Statement] = {}
    for early, late in found:
        by_late.setdefault(late.memory_id, []).append(early)
        lates[late.memory_id] = late
    decided: list[tuple[Statement, Statement, Decision, float]] = []
    by_sentence: dict[tuple[str, str], str] = {}
    by_part: dict[tuple[str, str], PartDecision] = {}
    marked: set[tuple[str, str]] = set()
    # Pairs decided as nothing but whose later turn may name a value of the earlier one again.
    apart: list[tuple[Statement, Statement]] = []
    for lid, all_earlies in by_late.items():
        late = lates[lid]
        # Turns the rules keyed into other slots only are about other things, however alike
        # their words ("My favourite colour is red" beside "My favourite food is ramen") ...
        earlies = [o for o in all_earlies if not o.keys or not late.keys or set(o.keys) & set(late.keys)]
        # ... though one may still say a value of the other again ("dairy wrecks my stomach"
        # after "no dairy for me": another slot, the same dairy).
        apart += [(o, late) for o in all_earlies if o not in earlies]
        # A sentence its speaker marks as said again restates its nearest earlier statement,
        # whatever slots the two turns' other words were keyed into.
        said_again = _marked_restatements(late, all_earlies, min_cosine)
        for o in (o for o in all_earlies if o not in earlies and o.memory_id in said_again):
            by_part[(o.memory_id, late.memory_id)] = said_again[o.memory_id]
            marked.add((o.memory_id, late.memory_id))
            decided.append((o, late, Decision.RESTATED, said_again[o.memory_id].probability))
        if not earlies:
            continue
        olds = [o.claim for o in earlies]
        whole = decide_all(late.claim, olds, model)
        # Each sentence of a turn of several is decided too: a closing one of them makes, the whole
        # turn makes (the likeliest, where the turn as a whole closes nothing), when the sentence's
        # cue acts on a thing the earlier one said.
        sentences = [(part, decide_all(part, olds, model)) for part in late.parts]
        for i, (o, (d, p)) in enumerate(zip(earlies, whole, strict=True)):
            closing = [
                (ds[i], part.text) for part, ds in sentences if ds[i][0] in _CLOSING and cue_acts_on(part, o.claim)
            ]
            if d not in _CLOSING and closing:
                (d, p), by_sentence[(o.memory_id, late.memory_id)] = max(closing, key=lambda c: c[0][1])
            elif d not in _CLOSING and (ender := _ends_value(late, o)) is not None:
                # The parse says it outright: a verb of ending whose object is a value of the state
                # the earlier turn told ("Finished Piranesi" after "I'm reading Piranesi"), which
                # the model, weighing the whole turn, may call compatible (its doubt in that is the
                # probability kept).
                d, p = Decision.ENDED, 1.0 - p
                if ender != late.claim.text:
                    by_sentence[(o.memory_id, late.memory_id)] = ender
            elif (
                d not in _CLOSING
                and d is not Decision.RESTATED
                and o.parts
                and (piece := part_decision(late.parts or (late.claim,), o.parts, model=model, min_cosine=min_cosine))
            ):
                # Neither turn as a whole: one sentence of the earlier turn, changed or said again.
                d, p, by_part[(o.memory_id, late.memory_id)] = piece.decision, piece.probability, piece
                by_sentence[(o.memory_id, late.memory_id)] = piece.said if piece.said != late.claim.text else ""
            elif d not in _CLOSING and d is not Decision.RESTATED and (mark := said_again.get(o.memory_id)):
                # The speaker says they are saying it again: what they say it of is the nearest
                # earlier statement, in whatever words ("hold the cilantro" after "no coriander").
                d, p, by_part[(o.memory_id, late.memory_id)] = Decision.RESTATED, mark.probability, mark
                marked.add((o.memory_id, late.memory_id))
            decided.append((o, late, d, p))
    plan = ClaimPlan()
    ends = {s.memory_id: s.ends_at for s in (*stored, *new)}
    for o, n, d, p in decided:
        if d in _CLOSING:
            pd = by_part.get((o.memory_id, n.memory_id))
            said = by_sentence.get((o.memory_id, n.memory_id), "")
            plan.closings.append(Closing(o.memory_id, n, d, p, said, pd.part if pd else ""))
            t = n.claim.said_at
            ends[o.memory_id] = t if ends[o.memory_id] is None else min(t, ends[o.memory_id])  # type: ignore[type-var]
    copies = {s.memory_id for s in (*stored, *new) if s.copy}
    # Later statements after earlier ones: whether an earlier one is a copy is settled first.
    restated = sorted(
        ((o, n, p) for o, n, d, p in decided if d is Decision.RESTATED),
        key=lambda r: (r[1].claim.said_at, r[1].memory_id, -r[2], r[0].memory_id),
    )
    for o, n, p in restated:
        end = ends[o.memory_id]
        applies = o.memory_id not in copies and (end is None or end > n.claim.said_at)
        pd = by_part.get((o.memory_id, n.memory_id))
        by_mark = (o.memory_id, n.memory_id) in marked
        r = Restatement(o, n, p, applies, pd.part if pd else "", by_mark, pd.said if pd else "")
        plan.restatements.append(r)
        if r.absorbs:
            copies.add(n.memory_id)
    mentioning = [(o, n, False) for o, n, d, _ in decided if d not in _NOT_MENTIONS]
    # Across slots only a stance's thing is said again: "red" in "my favourite drink is red wine"
    # is no mention of "my favourite colour is red".
    for o, n, stances in [*mentioning, *((o, n, True) for o, n in apart)]:
        if (value := _named_again(n, o, min_cosine=MENTION_COSINE, stances_only=stances)) is not None:
            plan.mentions.append(Mention(o, n, value))
    return plan


def _marked_restatements(late: Statement, earlies: Sequence[Statement], min_cosine: float) -> dict[str, PartDecision]:
    """For each sentence of ``late`` that marks itself as said before (:func:`~.cues.marks_restatement`)
    and tells no news, the nearest earlier statement holding then (by its closest sentence, at
    least ``min_cosine`` alike and about the same person): old statement id → what was said of it
    (the probability is the cosine)."""
    found: dict[str, PartDecision] = {}
    at = late.claim.said_at
    if late.claim.source != Source.USER.value:
        return found  # a tool's "reminder: 09:00" is a field, not a speaker's mark
    for said in late.parts or (late.claim,):
        # The sentence that bears the mark: a turn of lower-case chat has no sentences of its own
        # ("and again pls keep functions short. the new parser ..."), so its mark's sentence is
        # read from its words, and the turn's vector stands for it.
        marking = said.text if late.parts else marking_sentence(said.text)
        if marking is None:
            continue
        # A request after it ("remember Hana can't have sesame, so could you ...?") asks about
        # something else: only a cue of change or ending makes the sentence news.
        parsed = bool(late.parts) or marking == said.text
        r = said.reading if parsed else read_words(marking)
        # Read from words alone, a condition is no wish ("again pls keep functions short, if it
        # doesn't fit on my screen it gets split"): only a plan or a wish makes it one.
        unsure = r.hypothetical if parsed else wishes(marking)
        if _cue(r) or unsure or not marks_restatement(marking):
            continue
        views = [
            (float(np.dot(said.vector, v.vector)), o, v)
            for o in earlies
            if o.holds_at(at) and o.claim.vector.size == said.vector.size
            for v in o.parts or (o.claim,)
            # Another number where the earlier one had its own is a new value ("still high, so
            # she's put me up to 75 micrograms" after "50 micrograms"), not the same said again.
            if not other_person(said.reading, v.reading) and not (v.reading.numbers and r.numbers - v.reading.numbers)
        ]
        if not views:
            continue
        cos, o, v = max(views, key=lambda c: c[0])
        if cos >= min_cosine and (o.memory_id not in found or cos > found[o.memory_id].probability):
            found[o.memory_id] = PartDecision(Decision.RESTATED, cos, v.text if o.parts else "", marking)
    return found


def _cue(r: Reading) -> bool:
    """A cue of change or ending."""
    return r.change_verb or r.change_word or r.end_verb or r.end_word


def _news(c: ClaimText) -> bool:
    """A cue of change or ending, or a question: news about what it names, not the thing again."""
    return _cue(c.reading) or c.reading.question


def _ends_value(new: Statement, old: Statement) -> str | None:
    """The sentence of ``new`` (or ``new`` whole) whose verb of ending has for its object a value
    of ``old``'s records: every word of the value in what the verb governs, one of them its head.
    Only a state ``old`` told as holding (present tense: "I'm reading Piranesi"): an event it
    told ("I also lost my job") is not ended by being named again. Not when denied, asked,
    wished or about another person."""
    if not old.values or old.claim.reading.tense not in _STATE_TENSES:
        return None
    for part in (new.claim, *new.parts):
        r = part.reading
        if not r.end_verb or r.negated or r.hypothetical or r.question or other_person(r, old.claim.reading):
            continue
        for value in old.values:
            words = frozenset(stem(w) for w in re.findall(r"[\w'-]+", value.casefold()) if w not in _VALUE_STOP)
            if words and words <= r.end_scope and words & r.end_heads:
                return part.text
    return None


def _named_again(new: Statement, old: Statement, *, min_cosine: float, stances_only: bool = False) -> str | None:
    """A value of ``old``'s records that ``new`` names again in a statement close to ``old``'s,
    with no cue of change or ending (which would make it news about the value, not the value).
    The cues are read in the statement that names the value: in a turn of several, another
    sentence's news ("She carries her EpiPen now") says nothing of it."""
    for v in old.values:
        # A stance's value names its thing ("avoids dairy"): said again whether the turn denies it
        # or not ("no dairy for me", "dairy wrecks my stomach"), the negation being the stance.
        stance = STANCE.match(v)
        # Across slots a plain value is said again only where the new turn keys nothing naming it:
        # "red" of "my favourite colour is red" is not said again by a turn keyed "red wine".
        if stances_only and not stance and any(said_in(w, v) or said_in(v, w) for w in new.values):
            continue
        thing, said = (v[stance.end() :], said_in) if stance else (v, names)
        # Sentence by sentence: a turn of several things says the value in one of them ("I'm allergic
        # to penicillin. And I hate phone calls"), which the whole turn's vector blurs. A speaker's
        # value of several words is said by half of them ("brief, in bullet points" of 'short answers
        # in bullet points'); a tool's fields are no words said again.
        half = new.claim.source == Source.USER.value and not stance and len(v.split()) >= 3
        parts = [c for c in (new.claim, *new.parts) if not _news(c)]
        mine = [c for c in parts if said(c.text, thing) or (half and mostly_said(c.text, v) and head_said(c.text, v))]
        theirs = [c for c in (old.claim, *old.parts) if said(c.text, thing)]
        if any(float(np.dot(a.vector, b.vector)) >= min_cosine for a in mine for b in theirs):
            return v
    return None


_NOT_MENTIONS = (Decision.CHANGED, Decision.ENDED, Decision.RESTATED)
