"""Phrase grabbers of the ``rules`` extractor: the place, organisation, name or job title at
the start of the rest of a clause, and the slugs that turn phrases into slot names.

Pure string functions over the word lists of :mod:`.vocabulary`.
"""

from __future__ import annotations

import re

from memworks.pipelines.extraction.places import is_known_city, normalize_place
from memworks.pipelines.extraction.vocabulary import (
    ACRONYMS,
    COUNTRIES,
    JOB_WORDS,
    NAME_BLOCK,
    NAME_STOP,
    ORG_BLOCK,
    PLACE_STOP,
    STOP,
    TITLE_NOT_CURRENT,
)

_I = re.IGNORECASE

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


#: Words that follow "live in" without naming a place ("I live in fear", "we live in hope").
_NOT_PLACES = frozenset(
    "fear hope peace denial sin luxury poverty comfort harmony misery dread terror limbo squalor style "
    "bliss silence shame dreams reality fantasy exile secret secrecy debt chaos pain agony hiding "
    "us them you him her it here there bed town".split()
)


def take_place(rest: str, casual: bool = False) -> tuple[str, str] | None:
    """(display name, "city" | "country" | "other") for the place at the start of ``rest``. An
    unknown place must be capitalised, unless the writer never capitalises a name (``casual``):
    then one to three plain words naming no state of mind ("chorlton", "heaton moor")."""
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
    if lead_the or not words or words[0].lower() in NAME_BLOCK:
        return None
    if all(is_cap(w) or w == "of" for w in words):
        return normalize_place(" ".join(words)), "other"
    plain = casual and len(words) <= 3 and all(w.isalpha() and w.islower() for w in words)
    if not plain or any(w in _NOT_PLACES or w in NAME_BLOCK for w in words):
        return None
    return normalize_place(" ".join(capitalize(w) for w in words)), "other"


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
        elif i == 1 and first.isupper() and 1 < len(first) <= 4 and word.isalpha() and word.islower():
            kept.append(word)  # an acronym naming the kind of place: "the GP surgery", "the NHS trust"
            break
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
