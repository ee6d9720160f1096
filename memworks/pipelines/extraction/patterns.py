"""Vocabulary, phrase grabbers and segmentation patterns for the ``rules`` extractor.

Everything here is data or a pure string function; :mod:`.rules` holds the statement
patterns and decides what becomes a candidate.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memworks.pipelines.extraction.places import is_known_city, normalize_place

_I = re.IGNORECASE


def alt(words: Iterable[str]) -> str:
    """Regex alternation, longest first so "guinea pig" wins over "pig"; "-" or " " between words."""
    items = sorted(words, key=len, reverse=True)
    return "(?:" + "|".join(re.escape(w).replace(r"\ ", r"[\s-]+") for w in items) + ")"


# --- vocabulary -----------------------------------------------------------------------------

#: Head nouns that make "I'm a/an ..." a job title. False positives are worse than misses, so
#: hobbies and traits (runner, fan, cook by taste) are left out on purpose.
JOB_WORDS = frozenset(
    """
engineer developer programmer architect designer nurse doctor physician surgeon dentist
pharmacist therapist psychologist psychiatrist teacher professor lecturer tutor researcher
scientist analyst consultant accountant auditor lawyer attorney paralegal solicitor barrister
judge manager director executive ceo cto cfo coo cio cmo vp president founder cofounder
co-founder entrepreneur administrator assistant secretary receptionist clerk cashier
salesperson recruiter marketer writer author editor journalist reporter photographer
illustrator animator musician actor actress producer chef baker barista bartender waiter
waitress pilot mechanic electrician plumber carpenter technician firefighter paramedic
soldier farmer librarian veterinarian vet student intern freelancer translator interpreter
economist statistician mathematician physicist chemist biologist geologist specialist
coordinator strategist representative broker banker trader realtor coach trainer instructor
counselor counsellor caregiver midwife optometrist physiotherapist hairdresser stylist
tailor janitor gardener courier welder machinist supervisor foreman principal dean pastor
priest rabbi imam nanny practitioner officer lead sysadmin tester copywriter
""".split()
)
#: Modifiers that turn "I'm a good cook"-style sentences into opinions, or past jobs.
TITLE_NOT_CURRENT = frozenset(
    "good great bad terrible awful lousy decent big huge fast slow amateur hobby aspiring "
    "wannabe former ex retired future picky light heavy weekend".split()
)
ACRONYMS = frozenset("ceo cto cfo coo cio cmo vp ux ui qa it hr ai ml pr".split())

DIETS: dict[str, str] = {
    "vegetarian": "vegetarian",
    "veggie": "vegetarian",
    "vegan": "vegan",
    "plant based": "vegan",
    "pescatarian": "pescatarian",
    "pescetarian": "pescatarian",
    "flexitarian": "flexitarian",
    "keto": "keto",
    "kosher": "kosher",
    "halal": "halal",
    "gluten free": "gluten-free",
    "celiac": "gluten-free",
    "coeliac": "gluten-free",
    "lactose intolerant": "lactose-free",
    "lactose free": "lactose-free",
    "dairy free": "dairy-free",
}
SPECIES: dict[str, str] = {
    "dog": "dog",
    "puppy": "dog",
    "pup": "dog",
    "doggo": "dog",
    "cat": "cat",
    "kitten": "cat",
    "kitty": "cat",
    "parrot": "parrot",
    "bird": "bird",
    "budgie": "budgie",
    "parakeet": "parakeet",
    "rabbit": "rabbit",
    "bunny": "rabbit",
    "hamster": "hamster",
    "guinea pig": "guinea_pig",
    "ferret": "ferret",
    "turtle": "turtle",
    "tortoise": "tortoise",
    "snake": "snake",
    "lizard": "lizard",
    "gecko": "gecko",
    "horse": "horse",
    "pony": "pony",
    "goldfish": "fish",
    "fish": "fish",
}
RELATIONS: dict[str, str] = {
    "mom": "mother",
    "mum": "mother",
    "mother": "mother",
    "mommy": "mother",
    "mama": "mother",
    "dad": "father",
    "father": "father",
    "daddy": "father",
    "papa": "father",
    "sister": "sister",
    "brother": "brother",
    "wife": "wife",
    "husband": "husband",
    "partner": "partner",
    "spouse": "spouse",
    "girlfriend": "girlfriend",
    "boyfriend": "boyfriend",
    "fiance": "fiance",
    "fiancé": "fiance",
    "fiancee": "fiance",
    "fiancée": "fiance",
    "son": "son",
    "daughter": "daughter",
    "grandmother": "grandmother",
    "grandma": "grandmother",
    "granny": "grandmother",
    "nana": "grandmother",
    "grandfather": "grandfather",
    "grandpa": "grandfather",
    "granddad": "grandfather",
    "grandad": "grandfather",
    "aunt": "aunt",
    "auntie": "aunt",
    "uncle": "uncle",
    "cousin": "cousin",
    "niece": "niece",
    "nephew": "nephew",
    "stepmother": "stepmother",
    "stepmom": "stepmother",
    "stepfather": "stepfather",
    "stepdad": "stepfather",
    "stepson": "stepson",
    "stepdaughter": "stepdaughter",
}
LANGUAGES = frozenset(
    """
english spanish french german italian portuguese dutch swedish norwegian danish finnish
polish czech greek turkish russian ukrainian arabic hebrew hindi bengali urdu chinese
mandarin cantonese japanese korean vietnamese thai indonesian malay tagalog swahili
romanian hungarian catalan basque irish welsh persian farsi
""".split()
)
#: Answer-format phrases → the value stored in ``user.pref.answer_format``.
FORMATS: dict[str, str] = {
    "bullet points": "bullet points",
    "bullet point": "bullet points",
    "bullets": "bullet points",
    "bullet lists": "bullet points",
    "a bulleted list": "bullet points",
    "bulleted lists": "bullet points",
    "a bullet list": "bullet points",
    "tables": "tables",
    "a table": "tables",
    "table form": "tables",
    "table format": "tables",
    "numbered lists": "numbered lists",
    "a numbered list": "numbered lists",
    "markdown": "markdown",
    "plain text": "plain text",
    "json": "json",
    "prose": "prose",
    "short paragraphs": "short paragraphs",
    "one paragraph": "one paragraph",
}
COUNTRIES: dict[str, str] = {
    c.lower(): c
    for c in """Portugal|Spain|France|Germany|Italy|United Kingdom|UK|England|Scotland|Wales
    |Ireland|Netherlands|Belgium|Switzerland|Austria|Sweden|Norway|Denmark|Finland|Poland
    |Czech Republic|Czechia|Greece|Turkey|Russia|Ukraine|Romania|Hungary|USA|US|United States
    |America|Canada|Mexico|Brazil|Argentina|Chile|Colombia|Peru|Venezuela|Japan|China|India
    |Pakistan|Bangladesh|Korea|South Korea|Vietnam|Thailand|Indonesia|Malaysia|Philippines
    |Australia|New Zealand|Egypt|Morocco|Nigeria|Kenya|South Africa|Ethiopia|Ghana|Israel
    |Iran|Iraq|Saudi Arabia|UAE|Qatar|Lebanon|Jordan|Cuba|Croatia|Serbia|Bulgaria""".replace("\n", "").split("|")
} | {
    "uk": "United Kingdom",
    "us": "United States",
    "usa": "United States",
    "america": "United States",
    "uae": "United Arab Emirates",
    "czechia": "Czech Republic",
}
_DEMONYMS = frozenset(
    """
american canadian british irish scottish welsh french german spanish portuguese italian dutch
belgian swiss austrian swedish norwegian danish finnish polish czech greek turkish russian
ukrainian brazilian mexican argentinian chilean colombian japanese chinese indian korean
vietnamese thai filipino australian egyptian nigerian kenyan israeli iranian pakistani
""".split()
)
#: Words that look like a name after "I'm"/"my sister is" but are not one.
NAME_BLOCK = (
    frozenset(
        "back fine good great ok okay sorry here there done ready sure glad happy tired busy home "
        "free hungry bored excited lost confused curious new old married single retired pregnant "
        "not so just also still really very pretty interested looking trying working doing feeling "
        "going coming later tomorrow today when maybe crazy anything whatever sick ill dead alive "
        "gone away out in on at a an the my your our his her their it this that engineer developer "
        "nurse doctor teacher student manager designer lawyer".split()
    )
    | _DEMONYMS
    | LANGUAGES
    | frozenset(DIETS)
    | frozenset(RELATIONS)
)
#: Lowercase words that cannot be an employer even from a user who never capitalises.
ORG_BLOCK = frozenset(
    "home night nights weekends work myself yourself free hours it them him her this that "
    "school least most some everyone nobody people".split()
)
STOP = frozenset(
    """
and but or so because cause since as with for from to in on at by now then last next this
that which who where when while ago yesterday today tomorrow tonight recently already
anymore too also though tho btw lol haha right currently actually really just still a an the
my our your his her their it is was are were be been after before about around near if i
i'm we you please thanks these those days years weeks months nowadays full-time part-time
remotely again forever permanently temporarily soon anyway here there until till ever
""".split()
)
PLACE_STOP = STOP - {"of"}
NAME_STOP = STOP | {"by", "and"}

# --- phrase grabbers ------------------------------------------------------------------------

_END_PUNCT = re.compile(r"(?<![.,;:!?)])[.,;:!?)]+$")
_NAME_ABBREVIATIONS = ("st.", "mt.", "ft.", "dr.")  # "St. Louis" is one name


def words_of(rest: str, limit: int, stop: frozenset[str] = STOP) -> list[str]:
    """Leading words of ``rest`` up to a stop word, punctuation or ``limit`` words."""
    out: list[str] = []
    for raw in rest.split():
        word = _END_PUNCT.sub("", raw.strip('"“”()[]')).strip('"“”')
        if not word or word.lower() in stop or not (any(c.isalpha() for c in word) or word == "&"):
            break
        out.append(word)
        ends = _END_PUNCT.search(raw.rstrip('"”')) and not raw.lower().startswith(_NAME_ABBREVIATIONS)
        if len(out) >= limit or ends:
            break
    return out


def is_cap(word: str) -> bool:
    return word[:1].isupper()


def capitalize(word: str) -> str:
    return word[:1].upper() + word[1:]


def take_place(rest: str) -> tuple[str, str] | None:
    """(display name, "city" | "country" | "other") for the place at the start of ``rest``."""
    lead_the = rest.lower().startswith("the ")
    words = words_of(rest[4:] if lead_the else rest, 4, PLACE_STOP)
    for n in range(len(words), 0, -1):  # longest known prefix: "Lisbon Portugal" → Lisbon
        bare = " ".join(words[:n])
        phrase = f"the {bare}" if lead_the else bare
        if bare.lower() in COUNTRIES and bare != "us":  # "US", "the US", never "us"
            return COUNTRIES[bare.lower()], "country"
        if is_known_city(phrase):
            return normalize_place(phrase), "city"
    # Unknown places only when the user capitalised them ("Sintra"), never "fear" or "hope".
    if lead_the or not words or not all(is_cap(w) or w == "of" for w in words):
        return None
    if words[0].lower() in NAME_BLOCK:
        return None
    return normalize_place(" ".join(words)), "other"


def take_org(rest: str, casual: bool) -> str | None:
    """Organisation name at the start of ``rest``; lowercase only from all-lowercase writers."""
    words = words_of(rest, 5, STOP - {"the"})
    if words and words[0].lower() == "the":  # "the NHS" → "NHS"; "the gym" → nothing
        words = words[1:] if len(words) > 1 and is_cap(words[1]) else []
    if not words:
        return None
    first = words[0]
    if not (is_cap(first) or first[0].isdigit() or (casual and first.lower() not in ORG_BLOCK)):
        return None
    kept = [first]
    for i, word in enumerate(words[1:], 1):
        follows = words[i + 1] if i + 1 < len(words) else ""
        if casual and len(kept) < 3:
            kept.append(word)
        elif is_cap(word) or word[0].isdigit():
            kept.append(word)
        elif word.lower() in {"of", "&", "de", "for"} and is_cap(follows) and follows != "I":
            kept.append(word)
        else:
            break
    return " ".join(capitalize(w) for w in kept) if casual else " ".join(kept)


def take_name(rest: str, casual: bool, limit: int = 2) -> str | None:
    """A person's or pet's name; lowercase accepted only when ``casual`` allows it."""
    words = [w.removesuffix("'s") for w in words_of(rest, limit, NAME_STOP)]
    if not words or not re.fullmatch(r"[^\W\d_][\w'-]*", words[0]):
        return None
    if (not is_cap(words[0]) and not casual) or words[0].lower() in NAME_BLOCK:
        return None
    kept = [words[0]]
    for word in words[1:]:
        if not re.fullmatch(r"[^\W\d_][\w'-]*", word) or word.lower() in NAME_BLOCK:
            break
        if not (is_cap(word) or casual):
            break
        kept.append(word)
    if all(w.isupper() and len(w) > 1 for w in kept):  # "SAM" → "Sam"
        kept = [w.capitalize() for w in kept]
    return " ".join(capitalize(w) for w in kept)


_TITLE_PARTICLES = frozenset({"of", "and", "for", "the", "in", "&"})


def take_title(rest: str, require_head: bool) -> str | None:
    """A job title; with ``require_head`` the last word must be a known job noun."""
    words = words_of(rest, 5, STOP - {"a", "an", "the"})
    while words and words[0].lower() in {"a", "an", "the"}:
        words = words[1:]
    if not words or any(w.lower() in TITLE_NOT_CURRENT for w in words):
        return None
    if require_head:
        heads = [i for i, w in enumerate(words) if w.lower() in JOB_WORDS]
        if not heads:
            return None
        words = words[: heads[-1] + 1]
    return " ".join(
        w.upper()
        if w.lower() in ACRONYMS
        else w.lower()
        if i and w.lower() in _TITLE_PARTICLES
        else capitalize(w.lower())
        for i, w in enumerate(words)
    )


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


_ACTION_FILLER = frozenset(
    "a an the my me our us your every each all any of on for from with in it them this that "
    "these those please always automatically new".split()
)


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


_RECIPIENT = re.compile(r"(?<!\s)\s+(?:to|into|onto|via|when|whenever|after|before|if|once)\s+", _I)


def action_slug(verb: str, rest: str) -> str:
    """Stable slot name for an outward instruction: verb + up to 3 object words.

    The recipient ("to bob@example.com") is left out so that changing it updates the slot.
    """
    obj = _RECIPIENT.split(rest, maxsplit=1)[0].lower()
    words = [_singular(w) for w in re.findall(r"[a-z0-9]+", obj) if w not in _ACTION_FILLER]
    return slug("_".join([verb.replace("-", ""), *words[:3]]))


def short_text(rest: str) -> str:
    """Phrase up to the first clause break (allergy lists, favourites), minus a leading article.

    A capitalised article is kept: it is part of a title ("The Godfather").
    """
    head = re.split(r"[,;:!?()]|\s(?:since|because|so|but|which|when|though|btw)\s", rest, maxsplit=1)[0]
    words = head.strip(" .").split()[:6]
    return " ".join(words[1:] if words and words[0] in {"a", "an", "the"} else words)


# --- segmentation ---------------------------------------------------------------------------

SENT_END = re.compile(r"(?<![.!?;])[.!?;]+(?=\s|$)|\n+")
ABBREVIATIONS = frozenset("st dr mr mrs ms prof jr sr e.g i.e etc vs d.c u.s mt ft no".split())
_FIRST = r"(?:i|i'm|i've|i'd|i'll|we|we're|we've|my|our|please|from\s+now\s+on|always|btw)\b"
_QUESTION = r"(?:do|does|did|can|could|would|should|is|are|what|where|when|why|how|who|which)\b"
CLAUSE_SPLIT = re.compile(
    rf"(?<!\s)\s*[,:\u2013\u2014]\s*(?:(?:and|but|so|also|now|then|plus|though|although)\s+)?"
    rf"(?=(?:{_FIRST}|{_QUESTION}))"
    rf"|(?<!\s)\s+(?:and|but|so|because|cause|cuz|though|although|while|whereas|plus|then)\s+"
    rf"(?:also\s+|now\s+|then\s+)?(?={_FIRST})"
    r"|(?<!\s)\s+-\s+",
    _I,
)
#: "... and work in London": the subject is left out, the splitter puts "I" back.
ELLIPSIS = re.compile(
    r"(?<!\s)(?:\s*,)?\s+and\s+(?:also\s+|then\s+|now\s+)?(?=(?:live|work|moved|relocated|joined|started"
    r"|have|got|prefer|keep|grew|was|am|will|plan|planning|quit|left|don't|do\s+not|never"
    r"|no\s+longer|just|recently|currently)\b)",
    _I,
)
FILLER = re.compile(
    r"^(?:oh\s+and|oh\s+also|(?:hey|hi|hello)(?:\s+there)?|oh|ok|okay|so|well|also|and|but"
    r"|anyway|anyways|actually|btw|by\s+the\s+way|fyi|just\s+fyi|just\s+so\s+you\s+know"
    r"|for\s+context|for\s+the\s+record|for\s+reference|as\s+you\s+know|yeah|yes|yep"
    r"|no(?!\s+(?:longer|need))|nope|um|uh|hmm|lol|haha|now|then|plus|ps|side\s+note|basically|like"
    r"|honestly|literally|alright|right|sure|cool|great|note\s+to\s+self"
    r"|quick\s+note|heads\s+up|update|quick\s+update|incidentally|just\s+to\s+let\s+you\s+know"
    r"|just\s+letting\s+you\s+know|i\s+wanted\s+to\s+(?:say|mention|let\s+you\s+know)(?:\s+that)?"
    r"|i\s+should\s+(?:mention|say)(?:\s+that)?|you\s+should\s+know(?:\s+that)?)\b[\s,:!.\-]*",
    _I,
)
REMEMBER = re.compile(
    r"^(?:please\s+)?(?:(?:remember|note|keep\s+in\s+mind|make\s+a\s+note|take\s+note|bear\s+in"
    r"\s+mind|don't\s+forget|do\s+not\s+forget)(?:\s+(?:that|of\s+this))?"
    r"|(?:save|store|record|memorize)\s+that)\b[\s,:]*",
    _I,
)
HEDGE_LEAD = re.compile(
    r"^(?:i\s+think|i\s+guess|i\s+suppose|i\s+believe|i\s+reckon|probably|maybe|perhaps"
    r"|i\s+would\s+say|(?:i\s+am\s+)?not\s+sure\s+but|(?:i\s+am\s+)?pretty\s+sure|if\s+i\s+remember"
    r"\s+correctly|iirc|kinda|kind\s+of|sort\s+of)\b[\s,]*",
    _I,
)
HEDGE_ANY = re.compile(
    r"\b(?:think|guess|suppose|reckon|probably|maybe|perhaps|mostly|kinda|kind\s+of|sort\s+of"
    r"|possibly|i\s+believe|not\s+sure)\b",
    _I,
)
_STANDING = (
    r"from\s+now\s+on|from\s+here\s+on(?:\s+out)?|going\s+forward|moving\s+forward"
    r"|in\s+(?:the\s+)?future|henceforth|by\s+default|as\s+a\s+rule|every\s+time"
)
STANDING_LEAD = re.compile(rf"^(?:{_STANDING})\b[\s,:]*", _I)
STANDING_TAIL = re.compile(rf"(?<![\s,])[\s,]*\b(?:{_STANDING})$", _I)
TRAILING = re.compile(
    r"(?<![\s,])[\s,]*(?:\b(?:please|thanks|thank\s+you|thx|btw|by\s+the\s+way|lol|haha|ok|okay|as\s+well"
    r"|too)|[:;]-?[)(DP])$",
    _I,
)
POLITE = re.compile(
    r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+|kindly\s+)?|please\s+|kindly\s+"
    r"|i\s+(?:want|need)\s+you\s+to\s+|i\s+would\s+like\s+you\s+to\s+|make\s+sure\s+(?:to|you)\s+)",
    _I,
)
INTERROGATIVE = re.compile(
    r"^(?:do(?!\s+not\b)|does|did|should|shall|would|could|can|is|are|am|was|were|what|what's"
    r"|whats|where|where's|when|why|how|which|who|who's|whose|have\s+you|has|had|will\s+you"
    r"|isn't|aren't|wouldn't|shouldn't|couldn't)\b",
    _I,
)
CONDITIONAL = re.compile(
    r"^(?:if|unless|suppose|supposing|imagine|what\s+if|assuming|in\s+case|hypothetically"
    r"|were\s+i|had\s+i|should\s+i|let'?s\s+say|say)\b",
    _I,
)
