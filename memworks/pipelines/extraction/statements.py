"""Statement patterns of the ``rules`` extractor: one clause in, facts out.

The key vocabulary and the reasoning behind the patterns are documented in :mod:`.rules`.
Every pattern is matched with ``re.match`` against a clause whose fillers, hedges and
standing markers have already been removed, so "^i" really is the start of the statement.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from memworks.models.enums import CandidateOp, MemoryKind
from memworks.pipelines.extraction import patterns as P
from memworks.pipelines.extraction.places import is_known_city

__all__ = ["Clause", "Fact", "facts_for", "preferences_for"]

EXPLICIT, HEDGED, INDIRECT = 0.9, 0.7, 0.7


@dataclass(frozen=True, slots=True)
class Clause:
    """A statement ready for matching; ``raw`` keeps the original words for time parsing."""

    text: str
    raw: str
    casual: bool
    hedged: bool = False
    standing: bool = False


@dataclass(frozen=True, slots=True)
class Fact:
    """What a pattern found; the extractor turns it into a :class:`Candidate`."""

    rule: str
    key: str
    value: str
    text: str
    kind: MemoryKind = MemoryKind.SEMANTIC
    op: CandidateOp = CandidateOp.ASSERT
    plan: bool = False
    outward: bool = False
    confidence: float = EXPLICIT
    extra: tuple[tuple[str, str], ...] = ()


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _norm(word: str) -> str:
    return " ".join(word.lower().replace("-", " ").split())


IM = r"i(?:'m|\s+am)"
WERE = r"we(?:'re|\s+are)"
ADV = (
    r"(?:(?:just|recently|finally|actually|currently|now|still|also|officially|already|basically"
    r"|permanently|mostly|probably|definitely|only|really|kinda|happily|always|usually"
    r"|generally|strictly|fully|totally|completely|mainly|largely)\s+)*"
)
I_WILL = r"^(?:i|we)(?:'m|'re|'ll|\s+(?:am|are|will|shall))?\s+" + ADV
PREFER = r"^i(?:'d|\s+would)?\s+" + ADV + r"(?:prefer|like|want|love|need)\s+"
DIET_ALT, SPECIES_ALT, REL_ALT = P.alt(P.DIETS), P.alt(P.SPECIES), P.alt(P.RELATIONS)
FMT_ALT, LANG_ALT = P.alt(P.FORMATS), P.alt(P.LANGUAGES)
ANYMORE = _re(r"\b(?:no\s+longer|any\s?more)\b")

# --- places ---------------------------------------------------------------------------------

# (rule, pattern, key, known places only, confidence)
_PLACE_RULES: tuple[tuple[str, re.Pattern[str], str, bool, float], ...] = (
    (
        "home.live_in",
        _re(
            rf"^(?:i|we)\s+{ADV}(?:(?:'m|am|'re|are)\s+{ADV}living|live|(?:'ve|have)\s+{ADV}"
            rf"(?:been\s+living|lived))\s+{ADV}(?:here\s+)?in\s+(?P<place>.+)$"
        ),
        "user.home_city",
        False,
        EXPLICIT,
    ),
    (
        "home.based_in",
        _re(rf"^(?:{IM}|{WERE})\s+{ADV}(?:based|located|settled|living)\s+(?:out\s+of|in)\s+(?P<place>.+)$"),
        "user.home_city",
        False,
        EXPLICIT,
    ),
    (
        "home.moved_to",
        _re(rf"^(?:i|we)(?:'ve|\s+have)?\s+{ADV}(?:moved|relocated)\s+(?:here\s+)?(?:back\s+)?to\s+(?P<place>.+)$"),
        "user.home_city",
        False,
        EXPLICIT,
    ),
    (
        "home.home_is",
        _re(r"^(?:my\s+)?home\s+is\s+(?:now\s+)?(?:in\s+)?(?P<place>.+)$"),
        "user.home_city",
        False,
        EXPLICIT,
    ),
    (
        "home.is_home",
        _re(r"^(?P<place>.+?)(?<!\s)\s+is\s+(?:now\s+)?(?:my\s+)?home(?:\s+now)?$"),
        "user.home_city",
        True,
        EXPLICIT,
    ),
    (
        "home.my_place",
        _re(r"^(?:my|our)\s+(?:place|apartment|flat|house|home)\s+in\s+(?P<place>.+)$"),
        "user.home_city",
        False,
        INDIRECT,
    ),
    (
        "hometown.from",
        _re(rf"^(?:{IM}|{WERE}|(?:i|we)\s+{ADV}come)\s+{ADV}(?:originally\s+)?from\s+(?P<place>.+)$"),
        "user.hometown",
        True,
        EXPLICIT,
    ),
    (
        "hometown.grew_up",
        _re(r"^i\s+(?:grew\s+up|was\s+(?:born\s+and\s+raised|born|raised))\s+in\s+(?P<place>.+)$"),
        "user.hometown",
        False,
        EXPLICIT,
    ),
    ("hometown.is", _re(r"^my\s+home\s?town\s+is\s+(?P<place>.+)$"), "user.hometown", False, EXPLICIT),
    (
        "work_city.work_in",
        _re(rf"^(?:i|we)\s+{ADV}(?:work|'m\s+working|am\s+working)\s+(?:here\s+)?in\s+(?P<place>.+)$"),
        "user.work_city",
        True,
        EXPLICIT,
    ),
    ("work_city.office", _re(r"^my\s+office\s+is\s+in\s+(?P<place>.+)$"), "user.work_city", True, EXPLICIT),
)
_PLACE_TEXT = {
    "user.home_city": "User lives in {}.",
    "user.hometown": "User is from {}.",
    "user.work_city": "User works in {}.",
}


def _places(c: Clause) -> list[Fact]:
    out: list[Fact] = []
    for rule, rx, key, known_only, conf in _PLACE_RULES:
        m = rx.match(c.text)
        found = P.take_place(m["place"]) if m else None
        if found is None or (known_only and found[1] == "other"):
            continue
        name, what = found
        if what == "country" and key == "user.work_city":
            continue
        key = "user.home_country" if what == "country" and key == "user.home_city" else key
        out.append(Fact(rule, key, name, _PLACE_TEXT.get(key, "User lives in {}.").format(name), confidence=conf))
    return out[:1] if out else out


# --- work -----------------------------------------------------------------------------------

_TITLE_AT = _re(rf"^{IM}\s+{ADV}(?:an?|the)\s+(?P<title>.+?)\s+(?:at|for|with|of)\s+(?P<org>.+)$")
_AS_TITLE = _re(r"\bas\s+(?P<title>(?:an?\s+|the\s+)?.+)$")
_AT_ORG = _re(r"\s(?:at|for|with)\s+(?P<org>.+)$")
# (rule, pattern, lowercase names accepted from all-lowercase writers)
_EMPLOYER_RULES: tuple[tuple[str, re.Pattern[str], bool], ...] = (
    (
        "employer.work_at",
        _re(
            rf"^i\s+{ADV}(?:work|am\s+{ADV}working|have\s+{ADV}(?:been\s+working|worked))"
            rf"(?:\s+(?:remotely|full[\s-]time|part[\s-]time|freelance))?\s+(?:at|for)\s+(?P<org>.+)$"
        ),
        True,
    ),
    ("employer.joined", _re(rf"^i(?:'ve|\s+have)?\s+{ADV}joined\s+(?P<org>.+)$"), True),
    (
        "employer.got_job",
        _re(
            rf"^i\s+{ADV}(?:got|landed|accepted|took|started)\s+(?:a\s+|the\s+|my\s+)?(?:new\s+)?"
            r"(?:job|position|role|gig)\s+(?:at|with)\s+(?P<org>.+)$"
        ),
        True,
    ),
    ("employer.hired", _re(rf"^i\s+{ADV}(?:got|was|'ve\s+been|have\s+been)\s+hired\s+(?:at|by)\s+(?P<org>.+)$"), True),
    ("employer.started_at", _re(rf"^i\s+{ADV}started\s+(?:working\s+)?(?:at|with)\s+(?P<org>.+)$"), True),
    ("employer.employed", _re(rf"^{IM}\s+{ADV}employed\s+(?:at|by)\s+(?P<org>.+)$"), True),
    ("employer.my_employer", _re(r"^my\s+(?:current\s+)?employer\s+is\s+(?P<org>.+)$"), True),
    ("employer.my_company", _re(r"^(?:my\s+company|the\s+company\s+i\s+work\s+(?:at|for))\s+is\s+(?P<org>.+)$"), False),
)
# (rule, pattern, the last word must be a known job noun)
_TITLE_RULES: tuple[tuple[str, re.Pattern[str], bool], ...] = (
    ("job.im_a", _re(rf"^{IM}\s+{ADV}(?P<title>an?\s+.+)$"), True),
    ("job.work_as", _re(rf"^i\s+{ADV}(?:work|'m\s+working|am\s+working)\s+as\s+(?P<title>.+)$"), True),
    (
        "job.title_is",
        _re(r"^my\s+(?:(?:job|official|current|new)\s+)?(?:title|role|position)\s+is\s+(?:now\s+)?(?P<title>.+)$"),
        False,
    ),
    ("job.job_is", _re(r"^my\s+job\s+is\s+(?P<title>.+)$"), True),
    (
        "job.promoted",
        _re(rf"^i\s+{ADV}(?:got|was|'ve\s+been|have\s+been|just\s+got)\s+promoted\s+to\s+(?P<title>.+)$"),
        False,
    ),
)


def _employer(rule: str, org: str) -> Fact:
    return Fact(rule, "user.employer", org, f"User works at {org}.")


def _title(rule: str, title: str) -> Fact:
    return Fact(rule, "user.job_title", title, f"User's job title is {title}.")


def _work(c: Clause) -> list[Fact]:
    out: list[Fact] = []
    if m := _TITLE_AT.match(c.text):
        title, org = P.take_title(m["title"], True), P.take_org(m["org"], c.casual)
        out += [_title("job.title_at", title)] if title else []
        out += [_employer("employer.title_at", org)] if title and org else []
        if out:
            return out
    for rule, rx, casual_ok in _EMPLOYER_RULES:
        if (m := rx.match(c.text)) and (org := P.take_org(m["org"], c.casual and casual_ok)):
            if not is_known_city(org):
                out.append(_employer(rule, org))
                t = _AS_TITLE.search(m["org"])
                if t and (title := P.take_title(t["title"], True)):
                    out.append(_title(rule, title))
            break
    for rule, rx, need_head in _TITLE_RULES:
        if (m := rx.match(c.text)) and (title := P.take_title(m["title"], need_head)):
            out.append(_title(rule, title))
            o = _AT_ORG.search(m["title"])
            if o and (org := P.take_org(o["org"], c.casual)):
                out.append(_employer(rule, org))
            break
    return out


# --- name, diet, pets, family ---------------------------------------------------------------

# (rule, pattern, lowercase accepted from casual writers, the name must end the clause)
_NAME_RULES: tuple[tuple[str, re.Pattern[str], bool, bool], ...] = (
    ("name.my_name", _re(r"^my\s+(?:full\s+|first\s+)?name(?:'s|\s+is)\s+(?P<name>.+)$"), True, False),
    (
        "name.call_me",
        _re(
            r"^(?:(?:you\s+can\s+|just\s+|feel\s+free\s+to\s+)?call\s+me|(?:everyone|people|my\s+friends|friends)"
            r"\s+calls?\s+me)\s+(?P<name>.+)$"
        ),
        True,
        False,
    ),
    ("name.im", _re(rf"^{IM}\s+(?P<name>.+)$"), False, True),
)


def _name(c: Clause) -> list[Fact]:
    for rule, rx, casual_ok, whole in _NAME_RULES:
        if not (m := rx.match(c.text)):
            continue
        name = P.take_name(m["name"], c.casual and casual_ok, limit=3)
        if not name or (whole and len(m["name"].split()) != len(name.split())):
            continue
        return [Fact(rule, "user.name", name, f"User's name is {name}.")]
    return []


_DIET_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "diet.i_am",
        _re(
            rf"^(?:{IM}|{WERE}|i(?:'ve|\s+have)\s+been|i\s+(?:became|went|turned|(?:'ve|have)\s+become))"
            rf"\s+{ADV}(?:(?:a|an)\s+)?(?:(?:strict|full[\s-]time|lifelong)\s+)?(?P<diet>{DIET_ALT})\b"
        ),
    ),
    (
        "diet.follow",
        _re(
            rf"^(?:i|we)\s+{ADV}(?:follow|eat|keep|observe|(?:'m|am)\s+on|stick\s+to)\s+(?:an?\s+|the\s+)?"
            rf"(?:strict\s+)?(?P<diet>{DIET_ALT})\b"
        ),
    ),
)
_NO_MEAT = _re(
    rf"^(?:i|we)\s+{ADV}(?:don't|do\s+not|never|no\s+longer)\s+eat\s+(?:any\s+)?"
    r"(?P<what>meat|animal\s+products)(?:\s+(?:or|and|nor)\s+fish)?(?:\s+any\s?more)?$"
)
_ALLERGIC = _re(
    rf"^(?:{IM}|{WERE})\s+{ADV}(?:(?:very|severely|deathly|highly|extremely|mildly|super)\s+)?"
    r"allergic\s+to\s+(?P<what>.+)$"
)
_ALLERGY = _re(
    rf"^i\s+{ADV}(?:have|have\s+got)\s+(?:an?\s+)?(?:(?:severe|mild|bad)\s+)?"
    r"(?P<what>[a-z][a-z\s-]{1,30}?)\s+allerg(?:y|ies)$"
)
_DIET_TEXT = {
    "kosher": "User keeps kosher.",
    "halal": "User eats halal.",
    "keto": "User follows a keto diet.",
    "gluten-free": "User eats gluten-free.",
    "dairy-free": "User eats dairy-free.",
    "lactose-free": "User is lactose intolerant.",
}


def _diet_fact(rule: str, diet: str) -> Fact:
    return Fact(rule, "user.diet", diet, _DIET_TEXT.get(diet, f"User is {diet}."))


def _diet(c: Clause) -> list[Fact]:
    out = [_diet_fact(rule, P.DIETS[_norm(m["diet"])]) for rule, rx in _DIET_RULES if (m := rx.match(c.text))]
    if m := _NO_MEAT.match(c.text):
        out.append(_diet_fact("diet.no_meat", "vegetarian" if m["what"].lower() == "meat" else "vegan"))
    m = _ALLERGIC.match(c.text) or _ALLERGY.match(c.text)
    if m and (what := P.short_text(m["what"]).lower()) and what not in {"nothing", "anything", "none"}:
        out.append(Fact("allergy", "user.allergy", what, f"User is allergic to {what}."))
    return out[:2]


_PET_MODS = r"(?:(?:new|little|old|rescue|senior|baby|other|sweet)\s+)?"
_REL_MODS = r"(?:(?:older|younger|little|big|baby|twin|elder|eldest|youngest|oldest)\s+)?"


def _member_rules(alt: str, mods: str) -> tuple[tuple[str, re.Pattern[str], bool], ...]:
    # (rule suffix, pattern, lowercase names accepted from casual writers)
    my = rf"^(?:my|our)\s+{mods}(?P<w>{alt})"
    return (
        ("name_is", _re(rf"{my}(?:'s|s)?\s+name\s+is\s+(?P<name>.+)$"), True),
        ("called", _re(rf"{my}\s+is\s+(?:called|named)\s+(?P<name>.+)$"), True),
        ("is", _re(rf"{my}\s+is\s+(?P<name>.+)$"), False),
        (
            "have",
            _re(
                rf"^(?:i|we)(?:'ve|\s+have)?\s+{ADV}(?:have|got|adopted|rescued|own|have\s+got)\s+"
                rf"(?:an?\s+|one\s+|another\s+)?{mods}(?:\w+\s+)?(?P<w>{alt})\s+(?:called|named)\s+(?P<name>.+)$"
            ),
            True,
        ),
        ("apposition", _re(rf"{my}\s*,?\s+(?P<name>.+)$"), False),
    )


_MEMBERS = (
    ("pet", "user.pet.", P.SPECIES, _member_rules(SPECIES_ALT, _PET_MODS)),
    ("family", "user.family.", P.RELATIONS, _member_rules(REL_ALT, _REL_MODS)),
)


def _members(c: Clause) -> list[Fact]:
    for kind, prefix, mapping, rules in _MEMBERS:
        for rule, rx, casual_ok in rules:
            m = rx.match(c.text)
            if not m or not (name := P.take_name(m["name"], c.casual and casual_ok)):
                continue
            what = mapping[_norm(m["w"])]
            text = (
                f"User has a {what.replace('_', ' ')} named {name}."
                if kind == "pet"
                else f"User's {what} is named {name}."
            )
            return [Fact(f"{kind}.{rule}", prefix + what, name, text)]
    return []


# --- preferences ----------------------------------------------------------------------------

_FMT_END = r"(?:\s+(?:please|always|by\s+default|when(?:ever)?\s+possible|if\s+possible))*$"
_ANSWERS = r"(?:your\s+|the\s+|my\s+)?(?:answers|replies|responses)"
_FORMAT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "format.reply_in",
        _re(
            rf"^(?:always\s+)?(?:answer|reply|respond|write|format\s+{_ANSWERS})(?:\s+(?:to\s+)?me)?\s+"
            rf"(?:in|with|using|as)\s+(?P<fmt>{FMT_ALT}){_FMT_END}"
        ),
    ),
    (
        "format.use",
        _re(rf"^(?:always\s+)?(?:use|give\s+me)\s+(?:{_ANSWERS}\s+(?:in|as)\s+)?(?P<fmt>{FMT_ALT}){_FMT_END}"),
    ),
    (
        "format.prefer",
        _re(rf"{PREFER}(?:{_ANSWERS}\s+(?:in|as|with)\s+|(?:it\s+)?(?:in|as)\s+)?(?P<fmt>{FMT_ALT}){_FMT_END}"),
    ),
    (
        "format.length",
        _re(
            rf"{PREFER}(?P<len>short|shorter|brief|briefer|concise|long|longer|detailed|in-depth|succinct)"
            r"\s+(?:answers|replies|responses|explanations)$"
        ),
    ),
    (
        "format.keep",
        _re(
            r"^(?:always\s+)?keep\s+(?:your\s+|the\s+)?(?:answers|replies|responses|it|them|things)\s+"
            r"(?P<len>short|brief|concise|(?:under|below|to|within)\s+\d+\s+"
            r"(?:sentences|words|lines|paragraphs))$"
        ),
    ),
    ("format.be", _re(r"^(?:always\s+)?be\s+(?:more\s+)?(?P<len>brief|concise|succinct)$")),
)
_LANGUAGE_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "language.reply_in",
        _re(
            r"^(?:always\s+)?(?:answer|reply|respond|write|talk|speak|communicate|chat)"
            r"(?:\s+(?:(?:to|with)\s+)?me)?"
            rf"\s+(?:only\s+)?in\s+(?P<lang>{LANG_ALT})(?:\s+(?:only|please))*$"
        ),
    ),
    ("language.speak", _re(rf"^(?:always\s+)?(?:speak|use)\s+(?P<lang>{LANG_ALT})(?:\s+(?:to|with)\s+me)?$")),
    (
        "language.prefer",
        _re(
            rf"{PREFER}(?:(?:to\s+(?:talk|chat|speak|communicate)|{_ANSWERS})\s+)?(?:in\s+)?(?P<lang>{LANG_ALT})"
            r"(?:\s+(?:over|to)\s+\w+)?$"
        ),
    ),
    ("language.preferred", _re(rf"^my\s+preferred\s+language\s+is\s+(?P<lang>{LANG_ALT})$")),
)
_SEAT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "seat.prefer",
        _re(
            rf"^i(?:'d|\s+would)?\s+{ADV}(?:prefer|like|want|need|choose|pick|take|book|get)\s+"
            r"(?:an?\s+|the\s+)?(?P<seat>aisle|window)(?:\s+seats?)?\b"
        ),
    ),
    (
        "seat.book",
        _re(
            r"^(?:always\s+)?(?:book|get|reserve|give|find|choose|pick)\s+(?:me\s+)?(?:an?\s+|the\s+)?"
            r"(?P<seat>aisle|window)\s+seats?\b"
        ),
    ),
    ("seat.sit", _re(rf"^i\s+{ADV}sit\s+(?:in|on|by|at)\s+the\s+(?P<seat>aisle|window)\b")),
)
_OVER = _re(
    rf"^i(?:\s+would)?\s+{ADV}(?:much\s+)?(?:prefer|like|rather(?:\s+have)?)\s+"
    r"(?P<x>(?!to\s)[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+"
    r"(?:over|to|more\s+than|better\s+than|rather\s+than|than)\s+(?P<y>[\w'-]+(?:\s+[\w'-]+){0,3})$"
)
_FAVORITE = _re(
    r"^my\s+(?:all[\s-]time\s+|absolute\s+)?fav(?:ou?rite|e)\s+(?P<x>[a-z][a-z\s-]{0,30}?)\s+"
    r"(?:is|are|would\s+be|has\s+to\s+be)\s+(?P<y>.+)$"
)
_LIKES = _re(rf"^i(?:\s+would)?\s+{ADV}(?:prefer|like|love|enjoy)\s+(?P<x>(?!to\s|it\b|that\b|this\b)[\w'\s-]+?)$")
_OUTWARD = _re(
    r"^(?P<always>always\s+|automatically\s+|auto-?\s*)?(?P<verb>send|forward|share|e-?mail|mail|cc|bcc"
    r"|copy|pay|post|publish|tweet|text|message|transfer|wire|notify|invite|order|buy|purchase|book"
    r"|reply\s+to|respond\s+to|sign\s+(?:me\s+)?up)\s+(?P<rest>.+)$"
)
_OUTWARD_TAIL = _re(
    r"\b(?:automatically|always|every\s+time|each\s+time|whenever"
    r"|every\s+(?:day|week|month|morning|evening|friday))\b"
)


_LENGTH_WORDS = {"shorter": "short", "briefer": "brief", "longer": "long", "in depth": "in-depth"}


def _pref(rule: str, key: str, value: str, text: str, kind: MemoryKind) -> Fact:
    return Fact(rule, key, value, text, kind=kind)


def preferences_for(c: Clause) -> list[Fact]:
    proc, sem = MemoryKind.PROCEDURAL, MemoryKind.SEMANTIC
    for rule, rx in _FORMAT_RULES:
        if m := rx.match(c.text):
            if m.groupdict().get("fmt"):
                value = P.FORMATS[" ".join(m["fmt"].lower().split()).replace("-", " ")]
            else:
                spec = re.sub(r"^(?:below|within)\b", "under", re.sub(r"^to\b", "at most", _norm(m["len"])))
                spec = _LENGTH_WORDS.get(spec, spec)
                value = spec if spec[0].isdigit() or " " in spec else f"{spec} answers"
            if value.endswith("answers"):
                text = f"User prefers {value}."
            elif value.startswith(("under", "at most")):
                text = f"User prefers answers {value}."
            else:
                text = f"User wants answers formatted as {value}."
            return [_pref(rule, "user.pref.answer_format", value, text, proc)]
    for rule, rx in _LANGUAGE_RULES:
        if m := rx.match(c.text):
            lang = m["lang"].capitalize()
            return [_pref(rule, "user.pref.language", lang, f"User prefers replies in {lang}.", proc)]
    for rule, rx in _SEAT_RULES:
        if m := rx.match(c.text):
            seat = m["seat"].lower()
            return [_pref(rule, "user.pref.seat", seat, f"User prefers {seat} seats.", sem)]
    if (m := _OVER.match(c.text)) and max(len(m["x"].split()), len(m["y"].split())) <= 4:
        x, y = " ".join(m["x"].split()), " ".join(m["y"].split())
        a, b = sorted((P.slug(x), P.slug(y)))
        if a and b and a != b:
            return [_pref("pref.over", f"user.pref.{a}_vs_{b}", x, f"User prefers {x} over {y}.", sem)]
    if (m := _FAVORITE.match(c.text)) and (y := P.short_text(m["y"])):
        x = _norm(m["x"])
        return [_pref("favorite", f"user.favorite.{P.slug(x)}", y, f"User's favorite {x} is {y}.", sem)]
    if (m := _LIKES.match(c.text)) and 1 <= len(m["x"].split()) <= 8 and not _OUTWARD.match(m["x"]):
        x = " ".join(m["x"].split())
        return [_pref("likes", "user.likes", x, f"User likes {x}.", sem)]
    if (m := _OUTWARD.match(c.text)) and (c.standing or m["always"] or _OUTWARD_TAIL.search(m["rest"])):
        verb = _norm(m["verb"]).replace("e mail", "email")
        rest = P.STANDING_TAIL.sub("", m["rest"]).strip(" ,")
        instruction = f"{verb} {rest}"
        return [
            Fact(
                "outward",
                f"user.pref.outward.{P.action_slug(verb.split()[0], rest)}",
                instruction,
                f"User wants the assistant to {instruction} (standing instruction).",
                kind=proc,
                outward=True,
            )
        ]
    return []


_HANDLERS: tuple[Callable[[Clause], list[Fact]], ...] = (
    _name,
    _places,
    _work,
    _diet,
    _members,
    preferences_for,
)


def facts_for(c: Clause) -> list[Fact]:
    """Every assertion the clause states about the user (no plans, no retractions)."""
    return [fact for handler in _HANDLERS for fact in handler(c)]
