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
and conditional sentences (if/suppose/imagine/what if) yield nothing. Unknown lowercase names
are rejected ("I live in fear"); employers and pet/relative names given with "called"/"named"/
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
                                             now, my place/flat/house in X (0.7) [title case]
user.home_country                semantic    the same phrasings with a country ("I live in
                                             Portugal"); no time zone is derived from it
user.timezone                    semantic    derived from user.home_city when the city is
                                             known: IANA zone, confidence <= 0.8,
                                             ``derived_from_key="user.home_city"``
user.hometown                    semantic    I'm (originally) from X / I come from X (known
                                             city or country only), I grew up in X, I was
                                             born (and raised) in X, my hometown is X
user.work_city                   semantic    I work in X, my office is in X (known city only)
user.employer                    semantic    I work at/for X, I joined X, I got a job at X,
                                             I got hired by X, I started at X, I'm employed
                                             by X, my employer is X, I'm an engineer at X
user.job_title                   semantic    I'm a/an <job noun>, I work as a <job noun>, my
                                             (job) title/role is X, I got promoted to X
                                             [title case; "I'm a good cook" is not a title]
user.diet                        semantic    I'm vegetarian/vegan/pescatarian/gluten-free/
                                             lactose intolerant (→ lactose-free), I keep
                                             kosher, I eat halal, I don't eat meat
                                             (→ vegetarian) / animal products (→ vegan)
user.allergy                     semantic    I'm allergic to X, I have a X allergy [lowercase]
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

import re
from collections.abc import Iterator, Sequence

from memworks.models.drafts import Candidate, Turn
from memworks.models.enums import CandidateOp, MemoryKind, Role, Source
from memworks.pipelines.extraction import patterns as P
from memworks.pipelines.extraction.places import is_known_city, timezone_for_city
from memworks.pipelines.extraction.statements import (
    ADV,
    DIET_ALT,
    HEDGED,
    IM,
    SPECIES_ALT,
    WERE,
    Clause,
    Fact,
    facts_for,
    preferences_for,
)
from memworks.pipelines.extraction.timeparse import TimeMatch, find_time, has_future_marker

__all__ = ["RulesExtractor"]

DERIVED_CAP = 0.8
_RETRACT = CandidateOp.RETRACT


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# --- retractions ----------------------------------------------------------------------------

_FORGET = _re(
    r"^(?:forget|delete|erase|remove|wipe|unlearn|stop\s+remembering|(?:don't|do\s+not)\s+"
    r"(?:remember|keep|store)|i\s+(?:don't|do\s+not)\s+want\s+you\s+to\s+(?:remember|know|keep|store)"
    r"|no\s+need\s+to\s+remember|you\s+can\s+forget)\s+(?:about\s+)?"
    r"(?:(?:everything|anything|all|what)\s+(?:that\s+)?(?:you\s+(?:know|have|'ve\s+got|remember)\s+)?"
    r"(?:about\s+)?)?(?P<topic>.+)$"
)
_TOPIC_TAIL = _re(
    r"(?<!\s)(?:\s+(?:please|from\s+(?:your\s+)?memory|any\s?more|for\s+now|for\s+good|entirely"
    r"|completely|too|as\s+well|now))+$"
)
_JOB = ("user.employer", "user.job_title")
# (topic, slots, label); pets and relatives are matched separately because the slot varies.
_TOPICS: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...] = (
    (
        _re(
            r"where\s+i\s+(?:live|stay|(?:'m|am)\s+(?:based|living))|my\s+(?:home\s+)?(?:address|city"
            r"|location|home|whereabouts)|my\s+home\s+city|where\s+my\s+home\s+is"
        ),
        ("user.home_city",),
        "where they live",
    ),
    (
        _re(
            r"my\s+(?:job|work|career|employment)|where\s+i\s+work|who\s+i\s+work\s+for"
            r"|what\s+i\s+do(?:\s+for\s+(?:a\s+)?(?:living|work))?"
        ),
        _JOB,
        "their job",
    ),
    (_re(r"my\s+(?:job\s+)?(?:title|role|position)"), ("user.job_title",), "their job title"),
    (_re(r"my\s+(?:employer|company)|the\s+company\s+i\s+work\s+(?:at|for)"), ("user.employer",), "their employer"),
    (
        _re(
            r"where\s+i(?:'m|\s+am)\s+from|where\s+i\s+(?:grew\s+up|come\s+from|was\s+born)"
            r"|my\s+home\s?town"
        ),
        ("user.hometown",),
        "where they are from",
    ),
    (_re(r"my\s+(?:full\s+)?name|what\s+my\s+name\s+is"), ("user.name",), "their name"),
    (
        _re(r"my\s+(?:diet|dietary\s+(?:preferences?|restrictions?|requirements?)|eating\s+habits)"),
        ("user.diet",),
        "their diet",
    ),
    (_re(r"my\s+(?:food\s+)?allerg(?:y|ies)"), ("user.allergy",), "their allergies"),
    (_re(r"my\s+time\s?zone"), ("user.timezone",), "their time zone"),
    (_re(r"my\s+(?:seat\s+preference|preferred\s+seat)"), ("user.pref.seat",), "their seat preference"),
    (_re(r"my\s+(?:language\s+preference|preferred\s+language)"), ("user.pref.language",), "their language preference"),
    (
        _re(r"my\s+(?:format(?:ting)?\s+preferences?|answer\s+format)|how\s+i\s+like\s+(?:my\s+)?answers"),
        ("user.pref.answer_format",),
        "their answer format preference",
    ),
)
_PET_TOPIC = _re(rf"my\s+(?P<w>{SPECIES_ALT})(?:'s|s)?(?:\s+names?)?")
_REL_TOPIC = _re(rf"my\s+(?P<w>{P.alt(P.RELATIONS)})(?:'s)?(?:\s+name)?")
_MEMBER_TOPICS = ((_PET_TOPIC, "user.pet.", P.SPECIES), (_REL_TOPIC, "user.family.", P.RELATIONS))
_FAV_TOPIC = _re(r"my\s+fav(?:ou?rite|e)\s+(?P<w>[a-z][a-z\s-]{0,30})")

# (rule, pattern, slot family, needs "no longer"/"anymore" somewhere in the clause)
_CHANGES: tuple[tuple[str, re.Pattern[str], str, bool], ...] = (
    (
        "retract.employer",
        _re(r"^i\s+(?:no\s+longer|don't|do\s+not)\s+work\s+(?:at|for|with)\s+(?P<v>.+)$"),
        "employer",
        True,
    ),
    (
        "retract.employer",
        _re(rf"^{IM}\s+(?:no\s+longer|not)\s+(?:at|with|employed\s+(?:at|by)|working\s+(?:at|for))\s+(?P<v>.+)$"),
        "employer",
        True,
    ),
    (
        "retract.employer",
        _re(
            rf"^i(?:'ve|\s+have)?\s+{ADV}(?:quit|left|resigned\s+from|(?:was|got|been)\s+(?:fired|laid\s+off"
            r"|let\s+go)\s+(?:from|by)|stopped\s+working\s+(?:at|for))\s+(?P<v>.+)$"
        ),
        "employer",
        False,
    ),
    ("retract.home", _re(r"^(?:i|we)\s+(?:no\s+longer|don't|do\s+not)\s+live\s+in\s+(?P<v>.+)$"), "home", True),
    (
        "retract.home",
        _re(rf"^(?:i|we)(?:'ve|\s+have)?\s+{ADV}moved\s+(?:away\s+from|out\s+of)\s+(?P<v>.+)$"),
        "home",
        False,
    ),
    ("retract.diet", _re(rf"^(?:{IM}|{WERE})\s+(?:no\s+longer|not)\s+(?:an?\s+)?(?P<v>{DIET_ALT})\b"), "diet", True),
    (
        "retract.diet",
        _re(rf"^(?:i|we)\s+{ADV}(?:eat|started\s+eating|(?:'m|am)\s+eating)\s+meat\s+again$"),
        "diet",
        False,
    ),
    (
        "retract.diet",
        _re(rf"^(?:i|we)\s+{ADV}(?:stopped|quit)\s+being\s+(?:an?\s+)?(?P<v>{DIET_ALT})\b"),
        "diet",
        False,
    ),
    (
        "retract.pet",
        _re(rf"^(?:i|we)\s+(?:no\s+longer|don't|do\s+not)\s+have\s+(?:an?\s+)?(?P<v>{SPECIES_ALT})\b"),
        "pet",
        True,
    ),
)
_ANYMORE = _re(r"\b(?:no\s+longer|any\s?more)\b")
_MY_JOB = _re(r"^(?:my\s+)?(?:job|position|role|company|work)\b(?:\s+(?:at|with)\s+(?P<org>.+))?")


def _retract(rule: str, key: str, text: str, old: str = "") -> Fact:
    extra = (("retracted_value", old),) if old else ()
    return Fact(rule, key, "", text, op=_RETRACT, extra=extra)


def _label(key: str) -> str:
    return key.removeprefix("user.").replace(".", " ").replace("_", " ")


def _forget(c: Clause) -> list[Fact]:
    m = _FORGET.match(c.text)
    if not m:
        return []
    topic = _TOPIC_TAIL.sub("", m["topic"]).strip(" ,")
    if that := re.match(r"(?:the\s+fact\s+)?that\s+(.+)$", topic, re.IGNORECASE):
        said = Clause(text=that[1], raw=that[1], casual=c.casual)
        return [
            _retract("forget.that", f.key, f"User asked to forget their {_label(f.key)}.", f.value)
            for f in facts_for(said)
        ]
    for rx, keys, label in _TOPICS:
        if rx.fullmatch(topic):
            return [_retract("forget.topic", key, f"User asked to forget {label}.") for key in keys]
    for rx, prefix, mapping in _MEMBER_TOPICS:
        if pm := rx.fullmatch(topic):
            what = mapping[" ".join(pm["w"].lower().replace("-", " ").split())]
            label = what.replace("_", " ")
            return [_retract("forget.topic", prefix + what, f"User asked to forget their {label}'s name.")]
    if fm := _FAV_TOPIC.fullmatch(topic):
        thing = " ".join(fm["w"].lower().split())
        key = f"user.favorite.{P.slug(thing)}"
        return [_retract("forget.topic", key, f"User asked to forget their favorite {thing}.")]
    return []


def _changes(c: Clause) -> list[Fact]:
    for rule, rx, slot, needs_anymore in _CHANGES:
        m = rx.match(c.text)
        if not m or (needs_anymore and not _ANYMORE.search(c.text)):
            continue
        v = m.groupdict().get("v") or ""
        if slot == "employer":
            if job := _MY_JOB.match(v):
                org = P.take_org(job["org"], False) if job["org"] else None
            elif (org := P.take_org(v, False)) is None or is_known_city(org):
                continue
            text = f"User no longer works at {org}." if org else "User left their job."
            return [_retract(rule, "user.employer", text, org or "")]
        if slot == "home" and (place := P.take_place(v)):
            key = "user.home_country" if place[1] == "country" else "user.home_city"
            return [_retract(rule, key, f"User no longer lives in {place[0]}.", place[0])]
        if slot == "diet":
            diet = P.DIETS.get(" ".join(v.lower().replace("-", " ").split()), "")
            text = f"User is no longer {diet}." if diet else "User eats meat again."
            return [_retract(rule, "user.diet", text, diet)]
        if slot == "pet":
            species = P.SPECIES[" ".join(v.lower().replace("-", " ").split())]
            text = f"User no longer has a {species.replace('_', ' ')}."
            return [_retract(rule, f"user.pet.{species}", text)]
    return []


# --- plans ----------------------------------------------------------------------------------

_WILL = (
    rf"^(?:i|we)(?:'m|'re|'ll|\s+(?:am|are|will|shall))?\s+{ADV}(?:(?:going|planning|about|hoping"
    r"|scheduled|set|intending)\s+to\s+|gonna\s+|plan(?:ning|s)?\s+(?:to|on)\s+|intend\s+to\s+)?"
    rf"(?:be\s+)?{ADV}"
)
_PLANS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    (
        "plan.move",
        _re(
            _WILL + r"(?:mov(?:e|ing)|relocat(?:e|ing)|transfer(?:ring|red)?|emigrat(?:e|ing))"
            r"\s+(?:back\s+|over\s+)?to\s+(?P<v>.+)$"
        ),
        "move to",
    ),
    (
        "plan.job",
        _re(
            _WILL + r"(?:start(?:ing)?|join(?:ing)?|begin(?:ning)?)\s+(?:(?:a\s+|my\s+)?(?:new\s+)?"
            r"(?:job|position|role|work(?:ing)?)\s+)?(?:at\s+|with\s+)?(?P<v>.+)$"
        ),
        "start at",
    ),
    ("plan.leave", _re(_WILL + r"(?:quit(?:ting)?|leav(?:e|ing)|resign(?:ing)?\s+from)\s+(?P<v>.+)$"), "leave"),
    (
        "plan.travel",
        _re(
            _WILL + r"(?:(?:fly(?:ing)?|travel(?:l?ing)?|go(?:ing)?|head(?:ing)?)\s+(?:back\s+)?"
            r"(?:to\s+)?|visit(?:ing)?\s+|in\s+)(?P<v>.+)$"
        ),
        "travel to",
    ),
)


def _plans(c: Clause) -> list[Fact]:
    for rule, rx, verb in _PLANS:
        if not (m := rx.match(c.text)):
            continue
        place = P.take_place(m["v"])
        if verb in ("move to", "travel to"):
            what = place[0] if place and (verb == "move to" or place[1] != "other") else None
        elif verb == "leave" and (job := _MY_JOB.match(m["v"])):
            what = P.take_org(job["org"], c.casual) if job["org"] else "their job"
        else:
            what = place[0] if place and place[1] != "other" else P.take_org(m["v"], c.casual)
        if what:
            value = f"{verb} {what}"
            text = f"User plans to {value}."
            return [Fact(rule, "user.plan", value, text, kind=MemoryKind.EPISODIC, plan=True)]
    return []


# --- segmentation ---------------------------------------------------------------------------

# Contractions are expanded so that patterns only need to know "i am", "we have", ...
_SPELLING = tuple(
    (re.compile(pattern, re.IGNORECASE), repl)
    for pattern, repl in (
        (r"[\u2018\u2019`\u00b4]", "'"),
        (r"\bim\b", "i am"),
        (r"\bive\b", "i have"),
        (r"\bdont\b", "don't"),
        (r"\bi'm\b", "i am"),
        (r"\bi've\b", "i have"),
        (r"\bi'll\b", "i will"),
        (r"\bi'd\b", "i would"),
        (r"\bwe're\b", "we are"),
        (r"\bwe've\b", "we have"),
        (r"\bwe'll\b", "we will"),
        (r"\bwe'd\b", "we would"),
    )
)


def _sentences(text: str) -> Iterator[tuple[str, bool]]:
    start = 0
    for m in P.SENT_END.finditer(text):
        chunk = text[start : m.start()]
        words = chunk.split()
        if m[0].startswith(".") and words and words[-1].lower().rstrip(".") in P.ABBREVIATIONS:
            continue  # "St. Louis", "e.g. Lisbon"
        yield chunk.strip(), "?" in m[0]
        start = m.end()
    yield text[start:].strip(), False


#: Rounds of peeling per clause (count). Each round scans the clause's end, so "hi hi hi ..."
#: repeated for 100 KB would cost quadratic time; no real sentence stacks this many fillers.
_MAX_PEELS = 8


def _peel(text: str) -> tuple[str, bool, bool, bool]:
    """Strip fillers, hedges, standing markers and politeness; report which were present."""
    hedged = standing = polite = False
    for _ in range(_MAX_PEELS):
        before = text
        text = P.REMEMBER.sub("", P.FILLER.sub("", text, count=1), count=1)
        for rx in (P.HEDGE_LEAD, P.STANDING_LEAD, P.POLITE):
            if m := rx.match(text):
                hedged |= rx is P.HEDGE_LEAD
                standing |= rx is P.STANDING_LEAD
                polite |= rx is P.POLITE
                text = text[m.end() :]
        tail = P.TRAILING.sub("", text)
        standing |= bool(P.STANDING_TAIL.search(tail))
        text = P.STANDING_TAIL.sub("", tail).strip(" ,.;:!?\"'")
        if text == before:
            break
    return text, hedged, standing, polite


_IGNORED_CAPITALS = re.compile(r"(?:^|[.!?]\s+|\n)\s*\S+|\bI(?:'[a-z]+)?\b")


def _casual(content: str) -> bool:
    """True for writers who never capitalise a name (sentence starts and "I" do not count)."""
    return not any(ch.isupper() for ch in _IGNORED_CAPITALS.sub(" ", content))


def _clauses(content: str) -> Iterator[Clause]:
    casual = _casual(content)
    text = content
    for rx, repl in _SPELLING:
        text = rx.sub(repl, text)
    for sentence, question in _sentences(text):
        if not sentence or P.CONDITIONAL.match(_peel(sentence)[0]):
            continue
        pieces: list[str] = []
        for part in P.CLAUSE_SPLIT.split(sentence):
            first, *rest = P.ELLIPSIS.split(part)
            if pieces and not _peel(pieces[-1])[0]:  # "From now on, | always cc ..." is one clause
                first = f"{pieces.pop()}, {first}"
            pieces += [first, *(f"I {r}" for r in rest)]
        for i, raw in enumerate(pieces):
            body, hedged, standing, polite = _peel(raw)
            asks = question and i == len(pieces) - 1 and not polite
            if not body or asks or P.INTERROGATIVE.match(body):
                continue
            hedged |= bool(P.HEDGE_ANY.search(body))
            yield Clause(text=body, raw=raw, casual=casual, hedged=hedged, standing=standing)


def _facts(c: Clause) -> list[Fact]:
    if changes := _forget(c) or _changes(c):
        return changes
    if has_future_marker(c.text):  # a plan is an event, never the current value of a slot
        return _plans(c) + preferences_for(c)
    return facts_for(c)


# --- extractor ------------------------------------------------------------------------------


class RulesExtractor:
    """Deterministic pattern extractor (see the module docstring for the vocabulary)."""

    name = "rules"

    def __call__(self, turn: Turn, *, context: Sequence[Turn] = ()) -> list[Candidate]:
        # ``context`` is unused: rules read one turn at a time and never resolve references.
        if turn.role != Role.USER or turn.source != Source.USER:
            return []
        out: list[Candidate] = []
        for clause in _clauses(turn.content):
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
    first = Candidate(
        op=fact.op,
        kind=fact.kind,
        key=fact.key,
        value=fact.value,
        text=text,
        confidence=confidence,
        valid_from=when.when if when else None,
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
