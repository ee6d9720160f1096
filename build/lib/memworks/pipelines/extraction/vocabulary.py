"""Word lists of the ``rules`` extractor: job nouns, diets, species, relations, languages,
answer formats, countries, and the words that can never be a name, an organisation or a place.

Data and one regex helper only; :mod:`.phrases` and the statement modules use them, and so
does the open-vocabulary extractor's lexicon.
"""

from __future__ import annotations

import re
from collections.abc import Iterable


def alt(words: Iterable[str]) -> str:
    """Regex alternation, longest first so "guinea pig" wins over "pig"; "-" or " " between words."""
    items = sorted(words, key=len, reverse=True)
    return "(?:" + "|".join(re.escape(w).replace(r"\ ", r"[\s-]+") for w in items) + ")"


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
