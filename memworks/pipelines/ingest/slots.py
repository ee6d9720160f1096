"""What each memory slot is about, in the words people ask with; how slots meet across wording.

A fact is stored as a plain sentence ("User works at Initech."), but people ask "where do I work
now?" or "who is my employer?". The slot's words are indexed beside the sentence (lexically and in
its vector), so a question about the slot finds the fact even when it shares no word with it.

Slots of the open vocabulary (``user.phone``, ``person.caroline.instrument.learning``) are
resolved here with plain lexical rules, no model: which slots hold several values at once,
when two values are one restated (:func:`values_agree`), which stored slots a retraction of a
slot family ends, and which slots a forget request names (:func:`match_forget_topic`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol

from memworks.models.drafts import ForgetRequest

#: Longest matching key prefix wins (``user.pet.dog`` → ``user.pet``).
SLOT_WORDS: dict[str, str] = {
    "user.home_city": "home, where I live, city",
    "user.home_country": "home country, where I live",
    "user.address": "address, where I live, home",
    "user.hometown": "hometown, where I am from, where I grew up",
    "user.work_city": "work city, where I work, office location",
    "user.employer": "employer, where I work, company, job",
    "user.job_title": "job title, occupation, what I do for work, role",
    "user.diet": "diet, what I eat, food restrictions",
    "user.allergy": "allergy, allergic, must avoid",
    "user.medication": "medication, medicine, prescription, what I take",
    "user.condition": "health condition, diagnosis",
    "user.likes": "likes, loves, favourite things",
    "user.dislikes": "dislikes, hates, avoid",
    "user.favorite": "favourite",
    "user.family": "family",
    "user.name": "name, what I am called",
    "user.pet": "pet, animal",
    "user.plan": "plans, upcoming, schedule",
    "user.timezone": "time zone, local time",
    "user.pref": "preference, how I like it",
    "user.phone": "phone, mobile",
    "user.car": "car, vehicle, what I drive",
    "user.children": "children, kids",
    "user.pets": "pets, animals",
    "user.birthday": "birthday, born",
    "user.age": "age, how old",
    "user.relationship_status": "married, relationship",
    "user.interests": "interests, hobbies, passions",
    "user.instrument": "instrument, music",
    "user.language": "languages",
    "user.sport": "sport",
    "user.race": "race, running",
}
#: Final key segments of slots that collect values instead of replacing them.
MULTI_VALUED_TAILS = frozenset({"likes", "dislikes", "allergy", "interests", "pets"})
#: Final two key segments of activity slots that collect values ("user.language.speaking").
MULTI_VALUED_PAIRS = frozenset({("language", "speaking"), ("sport", "playing"), ("instrument", "playing")})
_PERSON = re.compile(r"^person\.[a-z0-9_]+\.")


def slot_words(key: str | None) -> str:
    """The words of the slot ``key`` belongs to ('' for keyless records and unknown slots)."""
    parts = _PERSON.sub("user.", key or "").split(".")
    for n in range(len(parts), 1, -1):
        words = SLOT_WORDS.get(".".join(parts[:n]))
        if words:
            return words
    return ""


def index_text(key: str | None, text: str) -> str:
    """What the search projections index for a record: its text, then its slot's words."""
    words = slot_words(key)
    return f"{text} ({words})" if words else text


def is_multi_valued(key: str | None) -> bool:
    """Does the slot hold several values at once (several languages, likes, pets)?"""
    parts = (key or "").split(".")
    return parts[-1] in MULTI_VALUED_TAILS or tuple(parts[-2:]) in MULTI_VALUED_PAIRS


#: Slots said of one job: when the employer a record names ends ("I quit Ovenly"), the title and
#: the work city said with it in the same turn ("I'm still head baker at Ovenly") end too.
COMPANION_TAILS: dict[str, tuple[str, ...]] = {"employer": ("job_title", "work_city")}


def companions(key: str | None) -> frozenset[str]:
    """The slots that end with ``key``'s record when they were said with it (same person)."""
    head, _, tail = (key or "").rpartition(".")
    return frozenset(f"{head}.{t}" for t in COMPANION_TAILS.get(tail, ())) if head else frozenset()


def in_family(key: str | None, family: str) -> bool:
    """``key`` is ``family`` or a slot under it (``user.instrument.learning`` in ``user.instrument``)."""
    return key is not None and (key == family or key.startswith(family + "."))


#: Words that do not change what a value names ("an iPhone" = "iPhone", "my new car" = "car").
_FILLER = frozenset("a an the my our your their his her its new current own some this that these those".split())
_WORD = re.compile(r"[a-z0-9]+")


def value_terms(value: str) -> frozenset[str]:
    """The words that name a value, lower case, simple plurals made singular."""
    out = set()
    for w in _WORD.findall(value.casefold()):
        if w in _FILLER:
            continue
        out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return frozenset(out)


def values_agree(a: str, b: str) -> bool:
    """Two values of one slot name the same thing: equal words, or one says more about it
    ("cello" / "the cello", "iPhone" / "iPhone 15"); "dark" / "light" theme do not agree."""
    ta, tb = value_terms(a), value_terms(b)
    if not ta or not tb:
        return a.strip().casefold() == b.strip().casefold()
    return ta <= tb or tb <= ta


def names_value(key: str | None, value: str, named: str) -> bool:
    """Does a retraction's ``named`` value ("car", "cello", "Acme") point at this record? A
    category word names every value of its slot ("I don't have a car anymore" ends the Prius)."""
    if not named.strip():
        return True
    terms = value_terms(named)
    tail = set((key or "").split(".")[-2:])
    return values_agree(value, named) or bool(terms) and terms <= {t.rstrip("s") for t in tail} | tail


class Keyed(Protocol):
    """A stored record or a candidate: what a forget request is matched against."""

    @property
    def key(self) -> str | None: ...

    @property
    def value(self) -> str: ...


def match_forget_topic(request: ForgetRequest, records: Iterable[Keyed]) -> list[str]:
    """The stored slots a forget request names, sorted; empty when nothing matches.

    A slot matches when every topic term is one of its key's words or a word of one of its
    records' value: "the cello" matches ``user.instrument.learning`` holding "cello", "my
    sister's wedding" matches ``user.sister.wedding``. Keyless records (transcripts) are never
    matched here: the deletion of a slot takes its evidence with it.
    """
    terms = {word for term in request.terms for word in value_terms(term)}
    if not terms:
        return []
    words: dict[str, set[str]] = {}
    for m in records:
        if m.key is None:
            continue
        bag = words.setdefault(m.key, set(value_terms(m.key.replace("_", " ").replace(".", " "))))
        bag |= value_terms(m.value)
    return sorted(k for k, bag in words.items() if terms <= bag)
