"""Personal statements of the ``rules`` extractor: the user's name, diet, allergies and
medications, and the names of their pets and relatives.
"""

from __future__ import annotations

import re

from memworks.pipelines.extraction.clauses import Clause
from memworks.pipelines.extraction.facts import ADV, DIET_ALT, IM, REL_ALT, SPECIES_ALT, WERE, Fact, ci, norm
from memworks.pipelines.extraction.phrases import short_text, take_name
from memworks.pipelines.extraction.vocabulary import DIETS, RELATIONS, SPECIES

__all__ = ["diet_facts", "medication_facts", "member_facts", "name_facts"]

# (rule, pattern, lowercase accepted from casual writers, the name must end the clause)
_NAME_RULES: tuple[tuple[str, re.Pattern[str], bool, bool], ...] = (
    ("name.my_name", ci(r"^my\s+(?:full\s+|first\s+)?name(?:'s|\s+is)\s+(?P<name>.+)$"), True, False),
    (
        "name.call_me",
        ci(
            r"^(?:(?:you\s+can\s+|just\s+|feel\s+free\s+to\s+)?call\s+me|(?:everyone|people|my\s+friends|friends)"
            r"\s+calls?\s+me)\s+(?P<name>.+)$"
        ),
        True,
        False,
    ),
    ("name.im", ci(rf"^{IM}\s+(?P<name>.+)$"), False, True),
)

#: An age said after the name, as an aside ("I'm Tomasz, 34").
_AGE_AFTER = re.compile(r",\s*\d{1,3}(?:\s*(?:years?\s+old|y/?o))?\s*[,.!]?\s*$", re.I)


def name_facts(c: Clause) -> list[Fact]:
    """The user's name, if the clause gives it."""
    for rule, rx, casual_ok, whole in _NAME_RULES:
        if not (m := rx.match(c.text)):
            continue
        said = _AGE_AFTER.sub("", m["name"]) if whole else m["name"]  # "I'm Tomasz, 34"
        name = take_name(said, c.casual and casual_ok, limit=3)
        if not name or (whole and len(said.split()) != len(name.split())):
            continue
        return [Fact(rule, "user.name", name, f"User's name is {name}.")]
    return []


_DIET_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "diet.i_am",
        ci(
            rf"^(?:{IM}|{WERE}|i(?:'ve|\s+have)\s+been|i\s+(?:became|went|turned|(?:'ve|have)\s+become))"
            rf"\s+{ADV}(?:(?:a|an)\s+)?(?:(?:strict|full[\s-]time|lifelong)\s+)?(?P<diet>{DIET_ALT})\b"
        ),
    ),
    (
        "diet.follow",
        ci(
            rf"^(?:i|we)\s+{ADV}(?:follow|eat|keep|observe|(?:'m|am)\s+on|stick\s+to)\s+(?:an?\s+|the\s+)?"
            rf"(?:strict\s+)?(?P<diet>{DIET_ALT})\b"
        ),
    ),  # A clause that is the diet's word alone, with a filler: "so pescatarian basically", "vegan
    # these days". In the user's own turn a bare diet word describes the user.
    (
        "diet.alone",
        ci(
            rf"^(?:(?:so|and|but|basically|pretty\s+much|mostly|now|fully)\s+)*(?P<diet>{DIET_ALT})"
            r"(?:\s+(?:basically|really|mostly|now|these\s+days|i\s+guess|i\s+suppose))?$"
        ),
    ),
)
_NO_MEAT = ci(
    rf"^(?:i|we)\s+{ADV}(?:don't|do\s+not|never|no\s+longer)\s+eat\s+(?:any\s+)?"
    r"(?P<what>meat|animal\s+products)(?:\s+(?:or|and|nor)\s+fish)?(?:\s+any\s?more)?$"
)
_ALLERGIC = ci(
    rf"^(?:{IM}|{WERE})\s+{ADV}(?:(?:very|severely|deathly|highly|extremely|mildly|super)\s+)?"
    r"allergic\s+to\s+(?P<what>.+)$"
)
_ALLERGY = ci(
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


#: "I eat fish but no other meat, so pescatarian basically", "I'm eating fish again so pescatarian I
#: suppose": the diet named as what the first person's words come to.
_SO_DIET = ci(
    rf"(?:[,;]\s*|\s)(?:so|basically|i\s+guess)\s+(?:(?:basically|pretty\s+much|mostly)\s+)?(?P<diet>{DIET_ALT})"
    r"(?:\s+(?:basically|really|i\s+guess|i\s+suppose))?$"
)
_FIRST_PERSON = ci(r"\b(?:i|i'm|i've|we|we're)\b")
_SOMEONE_ELSE = ci(r"\b(?:my|our|his|her|their)\s+\w+|\b(?:he|she|they|he's|she's|they're)\b")


def _said_of_speaker(before: str, after: str) -> bool:
    """Whether the words around a diet's name make it the speaker's own."""
    return bool(_FIRST_PERSON.search(before) or (_FIRST_PERSON.search(after) and not _SOMEONE_ELSE.search(before)))


def diet_facts(c: Clause) -> list[Fact]:
    """The user's diet and allergies stated by the clause (two facts at most)."""
    out = [_diet_fact(rule, DIETS[norm(m["diet"])]) for rule, rx in _DIET_RULES if (m := rx.match(c.text))]
    # The first person before the diet, or after it where the words before name no one else
    # ("fish is fine now, so pescatarian I guess"; not "my sister eats fish, so pescatarian I guess").
    if (
        not out
        and (m := _SO_DIET.search(c.text))
        and _said_of_speaker(c.text[: m.start()], m[0][m.end("diet") - m.start() :])
    ):
        out.append(_diet_fact("diet.so", DIETS[norm(m["diet"])]))
    if m := _NO_MEAT.match(c.text):
        out.append(_diet_fact("diet.no_meat", "vegetarian" if m["what"].lower() == "meat" else "vegan"))
    m = _ALLERGIC.match(c.text) or _ALLERGY.match(c.text)
    if m and (what := short_text(m["what"]).lower()) and what not in {"nothing", "anything", "none"}:
        out.append(Fact("allergy", "user.allergy", what, f"User is allergic to {what}."))
    return out[:2]


#: How a medication is said to be taken: a dose, a schedule or what it treats after its name. "I'm
#: on X" alone is not enough ("I'm on an iPhone now"); "put me on X" and "prescribed X" are.
_DOSE = (
    r"(?:\d[\d.,]*\s*(?:mg|mcg|micrograms?|milligrams?|ml|units?|iu)\b|(?:once|twice|three\s+times)\s+(?:a|per)"
    r"\s+(?:day|week|night)|(?:every|each)\s+(?:morning|evening|night|day)|(?:at|before|after|with)\s+"
    r"(?:night|bedtime|breakfast|lunch|dinner|meals?)|daily|nightly|for\s+my\s+\w+|(?:a|one|two)\s+"
    r"(?:tablets?|pills?|capsules?|puffs?))"
)
_DRUG = r"(?P<what>[a-z][a-z-]{3,}(?:\s+[a-z0-9][a-z0-9-]*)?)"
_MEDICATION_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("medication.put_on", ci(rf"\b(?:put|started)\s+me\s+on\s+{_DRUG}\b")),
    ("medication.prescribed", ci(rf"\b(?:prescribed\s+(?:me\s+)?|prescription\s+for\s+){_DRUG}\b")),
    (
        "medication.on",
        ci(rf"^(?:{IM}|i(?:'ve|\s+have)\s+been)\s+{ADV}(?:taking\s+|on\s+){_DRUG}\b[\s,]+(?:.*\s)?{_DOSE}"),
    ),
    ("medication.take", ci(rf"^i\s+{ADV}take\s+{_DRUG}\b[\s,]+(?:.*\s)?{_DOSE}")),
)
#: Words the patterns' name slot takes that are not a medication.
_NOT_DRUGS = frozenset(
    """the my a an some them it this that these those medication medicine meds pills tablets antibiotics
    course diet break leave call holiday vacation lessons classes class walk walks shower bus train tram
    metro subway ferry kids dog nap notes night shift yoga""".split()
)


#: Salts and forms that end a medication's name ("ferrous sulphate", "folic acid").
_SALTS = ("ate", "ide", "ine", "ium")
_FORMS = frozenset({"acid", "oil", "xr", "sr"})


def _second_name(word: str) -> bool:
    """A second word that belongs to a medication's name: a letter or strength ("vitamin D",
    "B12") or a salt or form; not "for" or "every" after it."""
    short = len(word) == 1 and word != "a"
    return short or (len(word) <= 4 and any(ch.isdigit() for ch in word)) or word.endswith(_SALTS) or word in _FORMS


def medication_facts(c: Clause) -> list[Fact]:
    """A medication the user takes, said with its dose, schedule or condition (one per clause)."""
    for rule, rx in _MEDICATION_RULES:
        if not (m := rx.search(c.text)):
            continue
        words = m["what"].lower().split()
        if words[0] in _NOT_DRUGS:
            continue
        what = " ".join(words if len(words) == 1 or _second_name(words[1]) else words[:1])
        if what:
            return [Fact(rule, f"user.medication.{what.replace(' ', '_')}", what, f"User takes {what} (medication).")]
    return []


_PET_MODS = r"(?:(?:new|little|old|rescue|senior|baby|other|sweet)\s+)?"
_REL_MODS = r"(?:(?:older|younger|little|big|baby|twin|elder|eldest|youngest|oldest)\s+)?"


def _member_rules(alt: str, mods: str) -> tuple[tuple[str, re.Pattern[str], bool], ...]:
    # (rule suffix, pattern, lowercase names accepted from casual writers)
    my = rf"^(?:my|our)\s+{mods}(?P<w>{alt})"
    return (
        ("name_is", ci(rf"{my}(?:'s|s)?\s+name\s+is\s+(?P<name>.+)$"), True),
        ("called", ci(rf"{my}\s+is\s+(?:called|named)\s+(?P<name>.+)$"), True),
        ("is", ci(rf"{my}\s+is\s+(?P<name>.+)$"), False),
        (
            "have",
            ci(
                rf"^(?:i|we)(?:'ve|\s+have)?\s+{ADV}(?:have|got|adopted|rescued|own|have\s+got)\s+"
                rf"(?:an?\s+|one\s+|another\s+)?{mods}(?:\w+\s+)?(?P<w>{alt})\s+(?:called|named)\s+(?P<name>.+)$"
            ),
            True,
        ),
        ("apposition", ci(rf"{my}\s*,?\s+(?P<name>.+)$"), False),
    )


_MEMBERS = (
    ("pet", "user.pet.", SPECIES, _member_rules(SPECIES_ALT, _PET_MODS)),
    ("family", "user.family.", RELATIONS, _member_rules(REL_ALT, _REL_MODS)),
)


def member_facts(c: Clause) -> list[Fact]:
    """The name of one of the user's pets or relatives, if the clause gives it."""
    for kind, prefix, mapping, rules in _MEMBERS:
        for rule, rx, casual_ok in rules:
            m = rx.match(c.text)
            if not m or not (name := take_name(m["name"], c.casual and casual_ok)):
                continue
            what = mapping[norm(m["w"])]
            text = (
                f"User has a {what.replace('_', ' ')} named {name}."
                if kind == "pet"
                else f"User's {what} is named {name}."
            )
            return [Fact(f"{kind}.{rule}", prefix + what, name, text)]
    return []
