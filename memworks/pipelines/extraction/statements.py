"""Statement patterns of the ``rules`` extractor: one clause in, facts out.

The key vocabulary and the reasoning behind the patterns are documented in :mod:`.rules`.
Every pattern is matched with ``re.match`` against a clause whose fillers, hedges and
standing markers have already been removed, so "^i" really is the start of the statement.
This module holds where the user lives and works; :mod:`.personal` holds name, diet, pets
and family, :mod:`.preferences` the preferences, and :func:`facts_for` runs them all.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memworks.pipelines.extraction.clauses import Clause
from memworks.pipelines.extraction.facts import ADV, EXPLICIT, IM, INDIRECT, WERE, Fact, ci
from memworks.pipelines.extraction.personal import diet_facts, medication_facts, member_facts, name_facts
from memworks.pipelines.extraction.phrases import take_org, take_place, take_title
from memworks.pipelines.extraction.places import is_known_city
from memworks.pipelines.extraction.preferences import preferences_for

__all__ = ["facts_for"]

# --- places ---------------------------------------------------------------------------------

#: Words of a stay away from home: "I'm finally in Tokyo, the hotel is lovely" is a trip.
_AWAY = r"trip|holidays?|vacation|hotel|hostel|visit|visiting|conference|weekend|layover|airport"

# (rule, pattern, key, known places only, confidence)
_PLACE_RULES: tuple[tuple[str, re.Pattern[str], str, bool, float], ...] = (
    (
        "home.live_in",
        ci(
            rf"^(?:i|we)\s+{ADV}(?:(?:'m|am|'re|are)\s+{ADV}living|live|(?:'ve|have)\s+{ADV}"
            rf"(?:been\s+living|lived))\s+{ADV}(?:here\s+)?in\s+(?P<place>.+)$"
        ),
        "user.home_city",
        False,
        EXPLICIT,
    ),
    (
        "home.based_in",
        ci(rf"^(?:{IM}|{WERE})\s+{ADV}(?:based|located|settled|living)\s+(?:out\s+of|in)\s+(?P<place>.+)$"),
        "user.home_city",
        False,
        EXPLICIT,
    ),
    (
        "home.moved_to",
        ci(rf"^(?:i|we)(?:'ve|\s+have)?\s+{ADV}(?:moved|relocated)\s+(?:here\s+)?(?:back\s+)?to\s+(?P<place>.+)$"),
        "user.home_city",
        False,
        EXPLICIT,
    ),
    (
        # "We're finally in Lisbon!", "Right, we're in Leeds now", "I'm still in Cardiff": arriving
        # where one now lives, or staying. Only with "now", "finally" or "still" in the clause, and
        # never on a stay away (a trip, a hotel).
        "home.now_in",
        ci(
            rf"^(?=[^,]*\b(?:finally|now|still)\b)(?!.*\b(?:{_AWAY})\b)(?:{IM}|{WERE})\s+(?:(?:finally|now|all|still)\s+)*"
            r"(?:settled\s+)?in\s+(?P<place>[^,]+?)(?:\s+now)?(?:\s*,.*)?$"
        ),
        "user.home_city",
        False,
        INDIRECT,
    ),
    (
        "home.home_is",
        ci(r"^(?:my\s+)?home\s+is\s+(?:now\s+)?(?:in\s+)?(?P<place>.+)$"),
        "user.home_city",
        False,
        EXPLICIT,
    ),
    (
        "home.is_home",
        ci(r"^(?P<place>.+?)(?<!\s)\s+is\s+(?:now\s+)?(?:my\s+)?home(?:\s+now)?$"),
        "user.home_city",
        True,
        EXPLICIT,
    ),
    (
        "home.my_place",
        ci(r"^(?:my|our)\s+(?:place|apartment|flat|house|home)\s+in\s+(?P<place>.+)$"),
        "user.home_city",
        False,
        INDIRECT,
    ),
    (
        # "We rent a flat in Marchmont", "Renting a little terrace in Headingley", "We've bought a
        # house in Portobello!": the home one has, never a holiday one's.
        "home.rent_own",
        ci(
            rf"^(?:(?:i|we)(?:'ve|\s+have|'re|\s+are|'m|\s+am)?\s+)?{ADV}(?:rent(?:ing)?|own|bought|"
            r"(?:just\s+)?(?:got|have)|shar(?:e|ing)|got\s+the\s+keys\s+to|moved\s+into)\s+(?:a|an|our|my)\s+"
            rf"(?!.*\b(?:{_AWAY}|holiday|summer|beach|ski|country|second)\b)"
            r"(?:[\w-]+\s+){0,2}?(?:flat|apartment|house|place|terrace|cottage|studio|condo|bungalow)"
            r"\s+(?:in|near)\s+(?P<place>.+)$"
        ),
        "user.home_city",
        False,
        INDIRECT,
    ),
    (
        # "... I can cycle there from my flat in Stoke Newington", "Finally unpacked, the new place
        # in Bristol is great": one's home, said in passing.
        "home.my_place_in",
        ci(
            r"^(?:.+?\b(?:from|at|to|in)\s+(?:my|our)\s+(?:new\s+)?|(?:.+?\s)?the\s+new\s+)"
            r"(?:flat|apartment|house|place|home)\s+in\s+(?P<place>.+)$"
        ),
        "user.home_city",
        False,
        INDIRECT,
    ),
    (
        "hometown.from",
        ci(rf"^(?:{IM}|{WERE}|(?:i|we)\s+{ADV}come)\s+{ADV}(?:originally\s+)?from\s+(?P<place>.+)$"),
        "user.hometown",
        True,
        EXPLICIT,
    ),
    (
        "hometown.grew_up",
        ci(r"^i\s+(?:grew\s+up|was\s+(?:born\s+and\s+raised|born|raised))\s+in\s+(?P<place>.+)$"),
        "user.hometown",
        False,
        EXPLICIT,
    ),
    ("hometown.is", ci(r"^my\s+home\s?town\s+is\s+(?P<place>.+)$"), "user.hometown", False, EXPLICIT),
    (
        "work_city.work_in",
        ci(rf"^(?:i|we)\s+{ADV}(?:work|'m\s+working|am\s+working)\s+(?:here\s+)?in\s+(?P<place>.+)$"),
        "user.work_city",
        True,
        EXPLICIT,
    ),
    ("work_city.office", ci(r"^my\s+office\s+is\s+in\s+(?P<place>.+)$"), "user.work_city", True, EXPLICIT),
)
_PLACE_TEXT = {
    "user.home_city": "User lives in {}.",
    "user.hometown": "User is from {}.",
    "user.work_city": "User works in {}.",
}


#: "My new address is 3 place Grenette in Grenoble", "I live at 12 Rua Augusta, Lisbon": the
#: address (a number in it), and the known city it ends in.
_ADDRESS = ci(
    r"^(?:(?:my|our)\s+(?:new\s+|current\s+|home\s+)?address\s+is\s+(?:now\s+)?|(?:i|we)\s+(?:now\s+)?live\s+at\s+)"
    r"(?P<addr>[^,;]*\d[^;]{0,80}?)\.?$"
)
_CITY_AT_END = ci(r"(?:,|\bin)\s+(?P<place>[^,]+?)\s*$")


def _address(c: Clause) -> list[Fact]:
    if not (m := _ADDRESS.match(c.text)):
        return []
    addr = " ".join(m["addr"].split()).rstrip(" .!")
    out = [Fact("home.address", "user.address", addr, f"User's address is {addr}.")]
    end = _CITY_AT_END.search(addr)
    found = take_place(end["place"]) if end else None
    # A known city, or a capitalised place after "in" ("... in Grenoble").
    if end and found and (found[1] == "city" or found[1] == "other" and end.group(0).lower().startswith("in")):
        out.append(Fact("home.address_city", "user.home_city", found[0], f"User lives in {found[0]}."))
    return out


#: Rules that say outright where one lives: from a writer who never capitalises a name, a plain
#: word there is the place ("i live in chorlton"); elsewhere it need not be ("still in bed").
_SAYS_HOME = frozenset({"home.live_in", "home.based_in", "home.moved_to"})


def _places(c: Clause) -> list[Fact]:
    if address := _address(c):
        return address
    out: list[Fact] = []
    for rule, rx, key, known_only, conf in _PLACE_RULES:
        m = rx.match(c.text)
        found = take_place(m["place"], c.casual and rule in _SAYS_HOME) if m else None
        if found is None or (known_only and found[1] == "other"):
            continue
        name, what = found
        if what == "country" and key == "user.work_city":
            continue
        key = "user.home_country" if what == "country" and key == "user.home_city" else key
        out.append(Fact(rule, key, name, _PLACE_TEXT.get(key, "User lives in {}.").format(name), confidence=conf))
    return out[:1] if out else out


# --- work -----------------------------------------------------------------------------------

_TITLE_AT = ci(rf"^{IM}\s+{ADV}(?:(?:an?|the)\s+)?(?P<title>.+?)\s+(?:at|for|with|of)\s+(?P<org>.+)$")
_AS_TITLE = ci(r"\bas\s+(?P<title>(?:an?\s+|the\s+)?.+)$")
_AT_ORG = ci(r"\s(?:at|for|with)\s+(?P<org>.+)$")
# (rule, pattern, lowercase names accepted from all-lowercase writers)
_EMPLOYER_RULES: tuple[tuple[str, re.Pattern[str], bool], ...] = (
    (
        "employer.work_at",
        ci(
            rf"^i\s+{ADV}(?:work|am\s+{ADV}working|have\s+{ADV}(?:been\s+working|worked))"
            rf"(?:\s+(?:remotely|full[\s-]time|part[\s-]time|freelance))?\s+(?:at|for)\s+(?P<org>.+)$"
        ),
        True,
    ),
    ("employer.joined", ci(rf"^i(?:'ve|\s+have)?\s+{ADV}joined\s+(?P<org>.+)$"), True),
    (
        "employer.got_job",
        ci(
            # chat drops the "I": "got the job at the GP surgery in southville!!"
            rf"^(?:i\s+)?{ADV}(?:got|landed|accepted|took|started)\s+(?:a\s+|the\s+|my\s+)?(?:new\s+)?"
            r"(?:job|position|role|gig)\s+(?:at|with)\s+(?P<org>.+)$"
        ),
        True,
    ),
    (
        "employer.offer",
        ci(
            rf"^i\s+{ADV}(?:accepted|took|signed)\s+(?:an?\s+|the\s+|their\s+)?(?:job\s+)?offer\s+(?:from|at|with)\s+(?P<org>.+)$"
        ),
        True,
    ),
    ("employer.hired", ci(rf"^i\s+{ADV}(?:got|was|'ve\s+been|have\s+been)\s+hired\s+(?:at|by)\s+(?P<org>.+)$"), True),
    ("employer.started_at", ci(rf"^i\s+{ADV}started\s+(?:working\s+)?(?:at|with)\s+(?P<org>.+)$"), True),
    ("employer.employed", ci(rf"^{IM}\s+{ADV}employed\s+(?:at|by)\s+(?P<org>.+)$"), True),
    ("employer.my_employer", ci(r"^my\s+(?:current\s+)?employer\s+is\s+(?P<org>.+)$"), True),
    ("employer.my_company", ci(r"^(?:my\s+company|the\s+company\s+i\s+work\s+(?:at|for))\s+is\s+(?P<org>.+)$"), False),
    # A first stretch at a workplace behind one: "first week at fenwick done!!", "Survived my
    # first two weeks at Brightwater" (not "my first day at X is on Monday": a plan).
    (
        "employer.first_stretch",
        ci(
            rf"^(?:i\s+)?{ADV}(?:(?:survived|finished|completed|did|had|done)\s+)?(?:my\s+)?first\s+"
            r"(?:(?:two|three|few|couple\s+of)\s+)?(?:day|days|week|weeks|month|months|shift|shifts)\s+at\s+"
            r"(?P<org>.+?)(?:\s+(?:done|over|complete|completed|finished|survived|in\s+the\s+bag))$"
        ),
        True,
    ),
    (
        "employer.first_stretch",
        ci(
            rf"^(?:i\s+)?{ADV}(?:survived|finished|completed)\s+(?:my\s+)?first\s+"
            r"(?:(?:two|three|few|couple\s+of)\s+)?(?:day|days|week|weeks|month|months|shift|shifts)\s+at\s+(?P<org>.+)$"
        ),
        True,
    ),
)
# (rule, pattern, the last word must be a known job noun)
_TITLE_RULES: tuple[tuple[str, re.Pattern[str], bool], ...] = (
    ("job.im_a", ci(rf"^{IM}\s+{ADV}(?P<title>an?\s+.+)$"), True),
    ("job.work_as", ci(rf"^i\s+{ADV}(?:work|'m\s+working|am\s+working)\s+as\s+(?P<title>.+)$"), True),
    (
        "job.title_is",
        ci(r"^my\s+(?:(?:job|official|current|new)\s+)?(?:title|role|position)\s+is\s+(?:now\s+)?(?P<title>.+)$"),
        False,
    ),
    ("job.job_is", ci(r"^my\s+job\s+is\s+(?P<title>.+)$"), True),
    (
        "job.start_as",
        ci(
            rf"^i\s+{ADV}(?:start|started|begin|began|'ll\s+start|will\s+start|'m\s+starting|am\s+starting)\s+as\s+(?P<title>an?\s+.+)$"
        ),
        True,
    ),
    (
        "job.promoted",
        ci(rf"^i\s+{ADV}(?:got|was|'ve\s+been|have\s+been|just\s+got)\s+promoted\s+to\s+(?P<title>.+)$"),
        False,
    ),
)


#: What people join that is not an employer ("I joined Fitness Hut", "joined a running club").
_LEISURE = ci(
    r"\b(?:gym|fitness|club|team|league|choir|band|orchestra|class|classes|course|studio|yoga|pilates"
    r"|crossfit|pool|society|group|community|meetup|book\s+club|waitlist|discord|forum|library)\b"
)


def _employer(rule: str, org: str) -> Fact:
    return Fact(rule, "user.employer", org, f"User works at {org}.")


def _title(rule: str, title: str) -> Fact:
    return Fact(rule, "user.job_title", title, f"User's job title is {title}.")


def _work(c: Clause) -> list[Fact]:
    out: list[Fact] = []
    if m := _TITLE_AT.match(c.text):
        title, org = take_title(m["title"], True), take_org(m["org"], c.casual)
        out += [_title("job.title_at", title)] if title else []
        out += [_employer("employer.title_at", org)] if title and org else []
        if out:
            return out
    for rule, rx, casual_ok in _EMPLOYER_RULES:
        if (m := rx.match(c.text)) and (org := take_org(m["org"], c.casual and casual_ok)):
            if not is_known_city(org) and not (rule == "employer.joined" and _LEISURE.search(m["org"])):
                out.append(_employer(rule, org))
                t = _AS_TITLE.search(m["org"])
                if t and (title := take_title(t["title"], True)):
                    out.append(_title(rule, title))
            break
    for rule, rx, need_head in _TITLE_RULES:
        if (m := rx.match(c.text)) and (title := take_title(m["title"], need_head)):
            out.append(_title(rule, title))
            o = _AT_ORG.search(m["title"])
            if o and (org := take_org(o["org"], c.casual)):
                out.append(_employer(rule, org))
            break
    return out


_HANDLERS: tuple[Callable[[Clause], list[Fact]], ...] = (
    name_facts,
    _places,
    _work,
    diet_facts,
    medication_facts,
    member_facts,
    preferences_for,
)


def facts_for(c: Clause) -> list[Fact]:
    """Every assertion the clause states about the user (no plans, no retractions)."""
    return [fact for handler in _HANDLERS for fact in handler(c)]
