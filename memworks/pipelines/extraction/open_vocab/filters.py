"""Which candidates the open extractor keeps: rules readings made self-contained or dropped
when the turn's words contradict them, and facts too vague to remember on their own."""

from __future__ import annotations

import re

from memworks.models.drafts import Candidate
from memworks.models.enums import CandidateOp
from memworks.pipelines.extraction.open_vocab.lexicon import VAGUE_ATTRIBUTES, VAGUE_OBJECTS

__all__ = ["misread", "tidy", "unspecific"]

_POINTS_ELSEWHERE = re.compile(
    r"^(?:how|what|when|where|why|that|it|this|to|the\s+way)\b|^the\s+(?:\w+\s+){0,2}\w+(?:\s+and\s+the\s+\w+)?$"
    r"|\b(?:it|this|that|them|they|their|his|her|its|you|your)\b",
    re.I,
)
_FIRST_PERSON_VALUE = re.compile(r"\b(?:I|my|me|mine)\b")
_GERUND_PLAN = re.compile(r"^start at \w+ing\b", re.I)
_FIRST_PERSON = (
    (re.compile(r"\b(?:my|our)\b", re.I), "their"),
    (re.compile(r"\b(?:me|us)\b"), "them"),
    (re.compile(r"\b(?:myself|ourselves)\b", re.I), "themselves"),
    (re.compile(r"\bI\b"), "they"),
)


def tidy(c: Candidate) -> Candidate | None:
    """A rules candidate made self-contained, or dropped when it is not: a like that points
    elsewhere ("User likes how uncomplicated it is", "User likes the idea and the acting"), a
    favourite holding the speaker's own words ("... is theme from a movie I"), a plan read from
    a gerund ("I'll start writing down ..." is no job at "Writing Down")."""
    if c.op is not CandidateOp.ASSERT:
        return c
    if c.key and c.key.startswith("user.favorite."):
        vague = c.key.removeprefix("user.favorite.").split("_")[0] in VAGUE_ATTRIBUTES
        return None if vague or _FIRST_PERSON_VALUE.search(c.value) else c
    if c.key == "user.plan" and _GERUND_PLAN.match(c.value):
        return None
    if c.key != "user.likes":
        return c
    if _POINTS_ELSEWHERE.search(c.value) or len(c.value) < 3:
        return None
    value, text = c.value, c.text
    for rx, repl in _FIRST_PERSON:
        value, text = rx.sub(repl, value), rx.sub(repl, text)
    return c.model_copy(update={"value": value, "text": text})


_JOB_WORDS = re.compile(r"\b(?:job|position|role|work|working|company|hired|offer|employer|team)\b", re.I)


#: A turn about a picture the listener shared: it names a picture and speaks to "you".
_PICTURE = re.compile(r"\b(?:this|that|the|your)\s+(?:picture|photo|pic|shot|snap|image)\b", re.I)
_YOU = re.compile(r"\byou(?:r)?\b", re.I)


def misread(c: Candidate, content: str) -> bool:
    """Rules readings the turn's words contradict: a "plan to start at X" in a turn that names
    no job ("I'll start with Seaborn"), "prefers X over Y" read from "I'd like X to <verb>", a
    relative's name that is one of a list with the speaker ("My girlfriend, Toby and I are
    going camping": Toby is someone else, not the girlfriend's name), a like of something in
    the listener's photo."""
    rule = c.extra.get("rule", "")
    if rule == "plan.job" and not _JOB_WORDS.search(content):
        return True
    if (
        c.key
        and c.key.endswith(".likes")
        and c.value.lower().startswith("the ")
        and _PICTURE.search(content)
        and _YOU.search(content)
    ):
        return True  # "Where did you take this picture? I love the dark sky": the listener's photo
    if rule.endswith(".apposition") and c.value:
        return re.search(rf"\b{re.escape(c.value)}\s*,?\s+and\s+(?:I|me|we)\b", content, re.I) is not None
    if rule == "pref.over" and "_vs_" in (c.key or ""):
        preferred = re.escape(c.value)
        return re.search(rf"\blike\s+{preferred}\s+to\s+\w", content, re.I) is not None
    return False


#: Head nouns that name no particular thing on their own ("a book", "some amazing people").
_GENERIC_HEADS = frozenset(
    "people folks guys friends company time times event events cause causes genre genres book books "
    "game games movie movies show shows song songs place places rights theme themes story stories "
    "memory memories picture pictures photo photos pic pics career series project projects trip trips "
    "making doing having getting going being spending".split()
)
#: Words that add no identity to a noun phrase: articles, pronouns, quantifiers, praise.
_PLAIN = frozenset(
    "a an the some any this that these those their his her its our my your they them it we you i he she "
    "other another few many several each every all of and or with in on at to for about from by "
    "amazing awesome great cool nice good fun thrilling beautiful incredible fantastic wonderful lovely "
    "popular new old young little big real really so very such best whole same different have has had".split()
)
#: Definite references to something said before, which the record alone cannot identify.
_THE_GENERIC = re.compile(
    r"\bthe\s+(?:event|cause|thing|one|project|game|book|movie|show|trip|place|series|story)\b", re.I
)
_PRAISE = frozenset("amazing awesome great cool nice thrilling incredible fantastic wonderful other popular".split())
#: A rendered sentence cut after a word that needs a continuation ("... about their systems as.").
_DANGLING_END = re.compile(r"\b(?:as|of|to|for|with|and|or|the|a|an|about|from|by|than)\s*[.!?]?$", re.I)


def unspecific(c: Candidate) -> bool:
    """An open or liked fact too vague to remember on its own: its value names nothing in
    particular ("John is reading a book", "Tim is into genre", "met some amazing people"), it
    points back at something said before ("the awesome fantasy RPG", "at the event for the
    cause"), or its sentence is cut off. Fixed keys and retractions are left alone."""
    if c.op is not CandidateOp.ASSERT or not c.key:
        return False
    if c.extractor != "open" and not c.key.endswith(".likes"):  # the open layer's own, or a liked thing
        return False
    if _DANGLING_END.search(c.text):
        return True
    raw = re.findall(r"[^\W\d_][\w'-]*", c.value)
    words = [w.lower().removesuffix("'s") for w in raw]
    lowered = c.text.lower()
    slot = set(c.key.rsplit(".", 1)[-1].split("_"))
    # (A condition's slot is named by the condition itself: "user.condition.asthma" holds "asthma".)
    if ".condition." not in c.key and words and all(w in slot or w.removesuffix("s") in slot for w in words):
        return True  # "car" in the car slot: the thing's kind, not which one ("we bought a car!")
    # "the awesome fantasy RPG": praise on a definite thing is the speaker pointing at
    # something just shown or said, unless a title or a date says which one.
    named = any(w[0].isupper() and not w.isupper() for w in raw) or any(ch.isdigit() for ch in c.text)
    if not named and any(w in _PRAISE for w in words) and any(f"the {w} " in lowered for w in _PRAISE):
        return True
    if _identified(c.text):
        return False
    if all(w in _GENERIC_HEADS or w in VAGUE_OBJECTS for w in words if w not in _PLAIN):
        return True
    return _THE_GENERIC.search(c.text) is not None


def _identified(text: str) -> bool:
    """Whether a record's sentence names something beyond its person: a name or title (a
    capitalised word after the first) or a date."""
    words = text.split()[1:]
    return any(ch.isdigit() for ch in text) or any(w[0].isupper() and w.strip(".,!?\"'") != "I" for w in words)
