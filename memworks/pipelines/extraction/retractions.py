"""Retractions of the ``rules`` extractor: forget requests and state changes.

A forget request names a topic ("forget where I live") or a statement ("forget that I work at
Acme") and retracts the slots behind it; a state change ("I no longer work at X", "I quit X",
"I'm not vegan anymore") retracts the slot it ends. Retractions carry an empty ``value`` and,
when the old value was named, ``extra["retracted_value"]``.
"""

from __future__ import annotations

import re

from memworks.models.enums import CandidateOp
from memworks.pipelines.extraction.clauses import Clause
from memworks.pipelines.extraction.facts import (
    ADV,
    ANYMORE,
    DIET_ALT,
    IM,
    MY_JOB,
    REL_ALT,
    SPECIES_ALT,
    WERE,
    Fact,
    ci,
)
from memworks.pipelines.extraction.phrases import slug, take_org, take_place
from memworks.pipelines.extraction.places import is_known_city
from memworks.pipelines.extraction.statements import facts_for
from memworks.pipelines.extraction.vocabulary import DIETS, RELATIONS, SPECIES

__all__ = ["change_facts", "forget_facts"]

_RETRACT = CandidateOp.RETRACT

_FORGET = ci(
    r"^(?:forget|delete|erase|remove|wipe|unlearn|stop\s+remembering|(?:don't|do\s+not)\s+"
    r"(?:remember|keep|store)|i\s+(?:don't|do\s+not)\s+want\s+you\s+to\s+(?:remember|know|keep|store)"
    r"|no\s+need\s+to\s+remember|you\s+can\s+forget)\s+(?:about\s+)?"
    r"(?:(?:everything|anything|all|what)\s+(?:that\s+)?(?:you\s+(?:know|have|'ve\s+got|remember)\s+)?"
    r"(?:about\s+)?)?(?P<topic>.+)$"
)
_TOPIC_TAIL = ci(
    r"(?<!\s)(?:\s+(?:please|from\s+(?:your\s+)?memory|any\s?more|for\s+now|for\s+good|entirely"
    r"|completely|too|as\s+well|now))+$"
)
_JOB = ("user.employer", "user.job_title")
# (topic, slots, label); pets and relatives are matched separately because the slot varies.
_TOPICS: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...] = (
    (
        ci(
            r"where\s+i\s+(?:live|stay|(?:'m|am)\s+(?:based|living))|my\s+(?:home\s+)?(?:address|city"
            r"|location|home|whereabouts)|my\s+home\s+city|where\s+my\s+home\s+is"
        ),
        ("user.home_city",),
        "where they live",
    ),
    (
        ci(
            r"my\s+(?:job|work|career|employment)|where\s+i\s+work|who\s+i\s+work\s+for"
            r"|what\s+i\s+do(?:\s+for\s+(?:a\s+)?(?:living|work))?"
        ),
        _JOB,
        "their job",
    ),
    (ci(r"my\s+(?:job\s+)?(?:title|role|position)"), ("user.job_title",), "their job title"),
    (ci(r"my\s+(?:employer|company)|the\s+company\s+i\s+work\s+(?:at|for)"), ("user.employer",), "their employer"),
    (
        ci(
            r"where\s+i(?:'m|\s+am)\s+from|where\s+i\s+(?:grew\s+up|come\s+from|was\s+born)"
            r"|my\s+home\s?town"
        ),
        ("user.hometown",),
        "where they are from",
    ),
    (ci(r"my\s+(?:full\s+)?name|what\s+my\s+name\s+is"), ("user.name",), "their name"),
    (
        ci(r"my\s+(?:diet|dietary\s+(?:preferences?|restrictions?|requirements?)|eating\s+habits)"),
        ("user.diet",),
        "their diet",
    ),
    (ci(r"my\s+(?:food\s+)?allerg(?:y|ies)"), ("user.allergy",), "their allergies"),
    (ci(r"my\s+time\s?zone"), ("user.timezone",), "their time zone"),
    (ci(r"my\s+(?:seat\s+preference|preferred\s+seat)"), ("user.pref.seat",), "their seat preference"),
    (ci(r"my\s+(?:language\s+preference|preferred\s+language)"), ("user.pref.language",), "their language preference"),
    (
        ci(r"my\s+(?:format(?:ting)?\s+preferences?|answer\s+format)|how\s+i\s+like\s+(?:my\s+)?answers"),
        ("user.pref.answer_format",),
        "their answer format preference",
    ),
)
_PET_TOPIC = ci(rf"my\s+(?P<w>{SPECIES_ALT})(?:'s|s)?(?:\s+names?)?")
_REL_TOPIC = ci(rf"my\s+(?P<w>{REL_ALT})(?:'s)?(?:\s+name)?")
_MEMBER_TOPICS = ((_PET_TOPIC, "user.pet.", SPECIES), (_REL_TOPIC, "user.family.", RELATIONS))
_FAV_TOPIC = ci(r"my\s+fav(?:ou?rite|e)\s+(?P<w>[a-z][a-z\s-]{0,30})")

# (rule, pattern, slot family, needs "no longer"/"anymore" somewhere in the clause)
_CHANGES: tuple[tuple[str, re.Pattern[str], str, bool], ...] = (
    (
        "retract.employer",
        ci(r"^i\s+(?:no\s+longer|don't|do\s+not)\s+work\s+(?:at|for|with)\s+(?P<v>.+)$"),
        "employer",
        True,
    ),
    (
        "retract.employer",
        ci(rf"^{IM}\s+(?:no\s+longer|not)\s+(?:at|with|employed\s+(?:at|by)|working\s+(?:at|for))\s+(?P<v>.+)$"),
        "employer",
        True,
    ),
    (
        "retract.employer",
        ci(
            rf"^i(?:'ve|\s+have)?\s+{ADV}(?:quit|left|resigned\s+from|(?:was|got|been)\s+(?:fired|laid\s+off"
            r"|let\s+go)\s+(?:from|by)|stopped\s+working\s+(?:at|for))\s+(?P<v>.+)$"
        ),
        "employer",
        False,
    ),
    ("retract.home", ci(r"^(?:i|we)\s+(?:no\s+longer|don't|do\s+not)\s+live\s+in\s+(?P<v>.+)$"), "home", True),
    (
        "retract.home",
        ci(rf"^(?:i|we)(?:'ve|\s+have)?\s+{ADV}moved\s+(?:away\s+from|out\s+of)\s+(?P<v>.+)$"),
        "home",
        False,
    ),
    ("retract.diet", ci(rf"^(?:{IM}|{WERE})\s+(?:no\s+longer|not)\s+(?:an?\s+)?(?P<v>{DIET_ALT})\b"), "diet", True),
    (
        "retract.diet",
        ci(
            rf"^(?:i|we)\s+{ADV}(?:eat|started\s+eating|(?:'m|am|'re|are)\s+eating)\s+"
            r"(?P<food>meat|fish|seafood|chicken|pork|beef)\s+again$"
        ),
        "diet",
        False,
    ),
    (
        "retract.diet",
        ci(rf"^(?:i|we)\s+{ADV}(?:stopped|quit)\s+being\s+(?:an?\s+)?(?P<v>{DIET_ALT})\b"),
        "diet",
        False,
    ),
    (
        "retract.pet",
        ci(rf"^(?:i|we)\s+(?:no\s+longer|don't|do\s+not)\s+have\s+(?:an?\s+)?(?P<v>{SPECIES_ALT})\b"),
        "pet",
        True,
    ),
)


def _retract(rule: str, key: str, text: str, old: str = "") -> Fact:
    extra = (("retracted_value", old),) if old else ()
    return Fact(rule, key, "", text, op=_RETRACT, extra=extra)


def _label(key: str) -> str:
    return key.removeprefix("user.").replace(".", " ").replace("_", " ")


def forget_facts(c: Clause) -> list[Fact]:
    """Retractions asked for by a forget request ("forget where I live", "forget that ...")."""
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
        key = f"user.favorite.{slug(thing)}"
        return [_retract("forget.topic", key, f"User asked to forget their favorite {thing}.")]
    return []


def change_facts(c: Clause) -> list[Fact]:
    """The retraction a state change implies ("I quit Acme", "I'm not vegan anymore")."""
    for rule, rx, slot, needs_anymore in _CHANGES:
        m = rx.match(c.text)
        if not m or (needs_anymore and not ANYMORE.search(c.text)):
            continue
        v = m.groupdict().get("v") or ""
        if slot == "employer":
            if job := MY_JOB.match(v):
                org = take_org(job["org"], False) if job["org"] else None
            elif (org := take_org(v, False)) is None or is_known_city(org):
                continue
            text = f"User no longer works at {org}." if org else "User left their job."
            return [_retract(rule, "user.employer", text, org or "")]
        if slot == "home" and (place := take_place(v)):
            key = "user.home_country" if place[1] == "country" else "user.home_city"
            return [_retract(rule, key, f"User no longer lives in {place[0]}.", place[0])]
        if slot == "diet":
            diet = DIETS.get(" ".join(v.lower().replace("-", " ").split()), "")
            food = (m.groupdict().get("food") or "meat").lower()
            text = f"User is no longer {diet}." if diet else f"User eats {food} again."
            return [_retract(rule, "user.diet", text, diet)]
        if slot == "pet":
            species = SPECIES[" ".join(v.lower().replace("-", " ").split())]
            text = f"User no longer has a {species.replace('_', ' ')}."
            return [_retract(rule, f"user.pet.{species}", text)]
    return []
