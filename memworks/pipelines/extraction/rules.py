"""The ``rules`` extractor: deterministic patterns for first-person statements by the user.

Pure: no I/O, no logging, no settings, no clock. Same turn in → same candidates out.

Only turns with ``role == user`` and ``source == user`` yield anything; ``context`` is ignored
(one turn at a time, no cross-turn references). Contractions are expanded first ("I'm" → "i am",
"im" → "i am"), then each turn is split into sentences and clauses ("I'm Sam, I live in Lisbon
and my dog is called Rex" → three clauses; "... and work in London" gets its "I" back). Every
pattern is anchored at the start of a clause, after fillers ("btw", "oh and", "fyi"),
"remember that", hedges ("I think"), politeness ("can you", "please") and standing markers
("from now on") are peeled off. Anchoring is what keeps "my friend lives in Oslo", "she said I
live in Paris", negations ("I don't live in Paris") and past habits ("I used to live in Madrid")
out. Questions (a trailing "?" unless it is a polite request, or a leading do/should/what/...)
and conditional sentences (if/suppose/imagine/what if) yield nothing. A sentence that opens on a
past-tense verb of the speaker's doings ("Started at Monzo yesterday") gets its left-out "I" back.
Unknown lowercase names are rejected ("I live in fear"); employers and pet/relative names given with "called"/"named"/
"name is" are accepted in lowercase only from casual writers, i.e. turns without any capital
letter besides sentence starts and "I" ("i work at google").

Key vocabulary (``value`` normalisation in brackets):

===============================  ==========  ===============================================
key                              kind        phrasings
===============================  ==========  ===============================================
user.name                        semantic    my name is Sam, call me Sam, I'm Sam (whole
                                             clause, capitalised) [capitalised]
user.home_city                   semantic    I live/I'm living/I'm based/we relocated/I
                                             (just) moved to X, home is X (now), X is home
                                             now, my place/flat/house in X, we rent/bought
                                             a flat in X, ... from my flat in X (0.7), we're
                                             finally in X / I'm in X now (0.7; not with
                                             trip, hotel, visit...) [title case]
user.home_country                semantic    the same phrasings with a country ("I live in
                                             Portugal"); no time zone is derived from it
user.timezone                    semantic    derived from user.home_city when the city is
                                             known: IANA zone, confidence <= 0.8,
                                             ``derived_from_key="user.home_city"``
user.hometown                    semantic    I'm (originally) from X / I come from X (known
                                             city or country only), I grew up in X, I was
                                             born (and raised) in X, my hometown is X
user.address                     semantic    my (new) address is X, I live at X (X with a
                                             number; its city also keys user.home_city)
user.work_city                   semantic    I work in X, my office is in X (known city only)
user.employer                    semantic    I work at/for X, I joined X, I got a job at X,
                                             I got hired by X, I started at X, I accepted
                                             an offer from X, I'm employed
                                             by X, my employer is X, I'm an engineer at X
user.job_title                   semantic    I'm a/an <job noun>, I work as a <job noun>, my
                                             (job) title/role is X, I got promoted to X, I'm
                                             (still) head baker at X (no article: job noun),
                                             I start(ed) as a <job noun>
                                             [title case; "I'm a good cook" is not a title]
user.diet                        semantic    I'm vegetarian/vegan/pescatarian/gluten-free/
                                             lactose intolerant (→ lactose-free), I keep
                                             kosher, I eat halal, I don't eat meat
                                             (→ vegetarian) / animal products (→ vegan),
                                             "…, so pescatarian basically", "Vegan now."
user.allergy                     semantic    I'm allergic to X, I have a X allergy [lowercase]
user.medication.<name>           semantic    X put me on Y, I was prescribed Y, I'm on /
                                             I take Y with a dose, schedule or "for my Z"
                                             after it ("I'm on an iPhone" is not) [lowercase]
user.pet.<species>               semantic    my dog is called Rex, my dog's name is Rex, I
                                             have a cat named Luna, our parrot Kiwi, we
                                             adopted a puppy (→ dog) / kitten (→ cat) named X
user.family.<relation>           semantic    my sister is Anna, my sister's name is Anna, my
                                             wife, Maria, my son Tom (mom/mum → mother,
                                             dad → father, grandma → grandmother, ...)
user.pref.answer_format          procedural  answer in bullet points, I prefer short answers,
                                             keep replies under 3 sentences, give me answers
                                             as tables, be concise
user.pref.language               procedural  reply in Spanish, speak French to me, I prefer
                                             German [capitalised]
user.pref.seat                   semantic    I prefer aisle seats, always book me a window
                                             seat ("aisle" / "window")
user.pref.<a>_vs_<b>             semantic    I prefer tea over/to coffee, I like X better
                                             than Y (slugs sorted, value = preferred one)
user.favorite.<thing>            semantic    my favourite colour is blue
user.pref.outward.<verb_object>  procedural  standing outward instruction (from now on /
                                             always / automatically + send, forward, share,
                                             email, cc, pay, book, ...); ``outward_action``;
                                             the slug drops the recipient
user.plan                        episodic    future move/job/leave/travel: "I'm transferring
                                             to Tokyo next week" → "move to Tokyo",
                                             ``plan=True``; a plan never also sets the slot
===============================  ==========  ===============================================

Retractions (``op=retract``, empty ``value``): "forget / delete / erase / remove / stop
remembering / don't remember" + a topic — where I live (home_city), my job / where I work /
what I do (employer + job_title), my title/role (job_title), my employer/company, where I'm
from, my name, my <pet>('s name), my <relative>('s name), my diet, my allergies, my time zone,
my favourite X, my seat/language/format preference — or "that <statement>" (the slots that
statement would set). State changes: "I no longer work at X", "I don't work at X anymore",
"I quit/left X", "I was laid off from X" (employer), "I no longer live in X", "I moved away
from X" (home_city), "I'm not vegan anymore", "I eat meat again" (diet), "I no longer have a
dog" (pet). A named old value goes to ``extra["retracted_value"]``; a retraction of a slot
that the same turn asserts again is dropped ("I left Acme and joined Globex").

Confidence: 0.9 for explicit statements, 0.7 when hedged ("I think", "probably", "mostly",
...) or indirect ("my flat in Lisbon"). ``valid_from`` is the clause's resolved time expression
(:mod:`.timeparse`), else None. ``extra`` carries ``rule`` (the pattern id, for audits) and,
when a time was read, ``time_expression``.
"""

from __future__ import annotations

from collections.abc import Sequence

from memworks.models.drafts import Candidate, Turn
from memworks.models.enums import CandidateOp, Role, Source
from memworks.pipelines.extraction.clauses import Clause, clauses_of
from memworks.pipelines.extraction.dates.timeparse import TimeMatch, find_time, has_future_marker
from memworks.pipelines.extraction.facts import HEDGED, Fact
from memworks.pipelines.extraction.personal import member_facts
from memworks.pipelines.extraction.places import timezone_for_city
from memworks.pipelines.extraction.plans import plan_facts
from memworks.pipelines.extraction.preferences import preferences_for
from memworks.pipelines.extraction.retractions import change_facts, forget_facts
from memworks.pipelines.extraction.statements import facts_for

__all__ = ["RulesExtractor"]

DERIVED_CAP = 0.8
_RETRACT = CandidateOp.RETRACT


def _facts(c: Clause) -> list[Fact]:
    if changes := forget_facts(c) or change_facts(c):
        return changes
    if has_future_marker(c.text):  # a plan is an event, never the current value of a slot
        # ... but the relative or pet it names is theirs now ("My sister Ines is moving to Amsterdam").
        return plan_facts(c) + preferences_for(c) + member_facts(c)
    return facts_for(c)


class RulesExtractor:
    """Deterministic pattern extractor (see the module docstring for the vocabulary)."""

    name = "rules"

    def __call__(self, turn: Turn, *, context: Sequence[Turn] = ()) -> list[Candidate]:
        # ``context`` is unused: rules read one turn at a time and never resolve references.
        if turn.role != Role.USER or turn.source != Source.USER:
            return []
        out: list[Candidate] = []
        for clause in clauses_of(turn.content):
            when = find_time(clause.raw, turn.occurred_at)
            for fact in _facts(clause):
                out += _candidates(fact, clause, when, turn)
        return _dedupe(out)


def _candidates(fact: Fact, clause: Clause, when: TimeMatch | None, turn: Turn) -> list[Candidate]:
    confidence = min(fact.confidence, HEDGED) if clause.hedged else fact.confidence
    extra = {"rule": fact.rule, **dict(fact.extra)}
    text = fact.text
    if when:
        extra["time_expression"] = when.phrase
        text = f"{text[:-1]} ({when.phrase})." if fact.plan else text
    # A fact said now holds from now or earlier: a date after the turn dates something else in
    # the clause ("my brother Pablo's wedding is on September 8" dates the wedding, not Pablo).
    start = when.when if when and (fact.plan or when.when <= turn.occurred_at) else None
    first = Candidate(
        op=fact.op,
        kind=fact.kind,
        key=fact.key,
        value=fact.value,
        text=text,
        confidence=confidence,
        valid_from=start,
        evidence=(turn.episode_id,),
        source=turn.source,
        plan=fact.plan,
        outward_action=fact.outward,
        extractor=RulesExtractor.name,
        extra=extra,
    )
    if fact.key != "user.home_city" or fact.op == _RETRACT:
        return [first]
    zone = timezone_for_city(fact.value)
    if zone is None:
        return [first]
    derived = first.model_copy(
        update={
            "key": "user.timezone",
            "value": zone,
            "text": f"User's time zone is {zone} (derived from home city).",
            "confidence": min(confidence, DERIVED_CAP),
            "derived_from_key": "user.home_city",
            "extra": {**extra, "rule": "timezone.from_home_city"},
        }
    )
    return [first, derived]


def _dedupe(candidates: list[Candidate]) -> list[Candidate]:
    asserted = {c.key for c in candidates if c.op == CandidateOp.ASSERT and not c.plan}
    seen: set[tuple[str, str | None, str]] = set()
    out: list[Candidate] = []
    for c in candidates:
        ident = (c.op.value, c.key, c.value)
        if ident in seen or (c.op == _RETRACT and c.key in asserted):
            continue
        seen.add(ident)
        out.append(c)
    return out
