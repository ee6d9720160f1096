"""What one claim sentence says, read from its dependency parse or, without one, from its words.

The parse reading follows the tree: the clause heads (the root and the verbs joined to it: "sold ...
and bought", "I stopped ..., we never ..."), their objects and complements (through one
preposition: "moved *to Berlin*"), the grammatical subject with its possessor ("my sister"),
negation, the tense of the root, and the cues of change and ending with their **scope** (the words
under the cue: "quit *smoking*", "sold *the Corolla*") and the value named as replaced ("from
*lisinopril*"). A cue under a wish, plan, piece of advice or condition ("told Mum to stop
driving", "thinking of buying") is not a fact and does not count. The word reading guesses the
same things from word forms and is coarser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer  # type: ignore[import-untyped]

from memworks.pipelines.claims import cues as C

__all__ = ["Reading", "find_ids", "find_lead_id", "norm_number", "read_words", "stem"]

#: Parts of speech that carry content.
CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM", "ADV"})
NOUN_POS = frozenset({"NOUN", "PROPN"})
_STEMMER = snowballstemmer.stemmer("english")
#: Words of time, left out of what a claim is about.
TIME_NOUNS = frozenset(
    """day week month year weekend morning evening night afternoon today yesterday tomorrow time ago last next
    past monday tuesday wednesday thursday friday saturday sunday january february march april may june july
    august september october november december""".split()
)


@dataclass(frozen=True)
class Reading:
    """What :func:`read_sentence` or :func:`read_words` found in a claim."""

    #: Lemmas of the content words (nouns, verbs, adjectives, adverbs, numbers; no stop words).
    content: frozenset[str] = frozenset()
    #: Lemmas of the nouns and proper nouns (no time words).
    nouns: frozenset[str] = frozenset()
    root: str = ""
    #: Lemmas of the clause heads.
    verbs: frozenset[str] = frozenset()
    #: Lemmas of the clause heads' objects and complements.
    objects: frozenset[str] = frozenset()
    gram_subject: str = ""
    #: The other person the claim is about when its subject names one ("my sister", "Sam"); "" otherwise.
    person: str = ""
    first_person: bool = False
    negated: bool = False
    #: "present", "past", "perfect", "future" or "used_to".
    tense: str = "present"
    #: A wish, plan, piece of advice or condition governs the main clause.
    hypothetical: bool = False
    change_verb: bool = False
    change_word: bool = False
    new_object: bool = False
    end_verb: bool = False
    end_word: bool = False
    #: Content lemmas under the ending cues ("quit smoking" → {"smoke"}).
    end_scope: frozenset[str] = frozenset()
    #: Content lemmas under the change cues ("switched my broadband to BT" → {"broadband", "bt"}).
    change_scope: frozenset[str] = frozenset()
    #: What the ending cues act on: objects, or the subject of an intransitive ("the shop closed").
    end_heads: frozenset[str] = frozenset()
    #: What the change cues act on ("switched my broadband to BT" → {"broadband", "bt"}).
    change_heads: frozenset[str] = frozenset()
    #: A verb that begins something ("joined", "adopted", "bought"), and what it acts on.
    start_verb: bool = False
    start_heads: frozenset[str] = frozenset()
    #: Lemmas named as what was replaced ("from lisinopril", "instead of the Clenil").
    replaced: frozenset[str] = frozenset()
    #: (who, predicate, role) → values: "I drive a Corolla" → {("i", "drive", "obj"): {"corolla"}}.
    slots: tuple[tuple[tuple[str, str, str], frozenset[str]], ...] = ()
    numbers: frozenset[str] = frozenset()
    propns: frozenset[str] = frozenset()
    ids: frozenset[str] = frozenset()
    #: The first id of the text: what a tool's line is about ("Claim C-1 opened under policy P-2" → "C1").
    lead_id: str = ""
    statuses: frozenset[str] = frozenset()
    time_phrase: bool = False
    #: The statement says a state goes on ("still", "continue", "as ever").
    still: bool = False
    #: The statement is about something planned, pending or yet to happen.
    pending: bool = False
    question: bool = False


@lru_cache(maxsize=50_000)
def stem(word: str) -> str:
    """The Snowball stem of a lemma, so "smoking" (noun) and "smoke" (verb) meet."""
    return str(_STEMMER.stemWord(word))


def norm_number(text: str) -> str:
    """ "09:15" and "9:15", "1,250" and "1250" read the same."""
    t = text.replace(",", "").lstrip("#$£€").lower()
    return re.sub(r"\b0+(\d)", r"\1", t)


def _id_list(text: str) -> list[str]:
    return [next(g for g in m.groups() if g).upper().replace("-", "") for m in C.ID_PATTERN.finditer(text)]


def find_ids(text: str) -> frozenset[str]:
    return frozenset(_id_list(text))


def find_lead_id(text: str) -> str:
    found = _id_list(text)
    return found[0] if found else ""


# -- without a parse ----------------------------------------------------------------------

_IRREGULAR = {
    "am": "be", "is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "'m": "be", "'s": "be",
    "'re": "be", "has": "have", "had": "have", "'ve": "have", "did": "do", "does": "do", "went": "go",
    "gone": "go", "got": "get", "gotten": "get", "sold": "sell", "bought": "buy", "left": "leave",
    "lost": "lose", "made": "make", "took": "take", "began": "begin", "begun": "begin", "became": "become",
    "ran": "run", "drove": "drive", "driven": "drive", "ate": "eat", "eaten": "eat", "gave": "give",
    "given": "give", "told": "tell", "said": "say", "kept": "keep", "felt": "feel", "met": "meet",
    "paid": "pay", "quit": "quit", "moved": "move", "died": "die", "children": "child", "kids": "kid",
}  # fmt: skip
_PARTICIPLES = frozenset({"been", "gone", "gotten", "driven", "eaten", "given", "begun", "children", "kids"})
_PAST_FORMS = frozenset(k for k in _IRREGULAR if k not in ("am", "is", "are", "'m", "'s", "'re", "has", "does"))
_PAST_FORMS = _PAST_FORMS - _PARTICIPLES


def _rough_lemma(word: str) -> str:
    w = word.lower().strip("'")
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    for suffix, keep in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
            return w[: -len(suffix)] + keep
    return w


def read_words(text: str) -> Reading:
    """A coarser reading from the words alone (no parse at hand)."""
    words = re.findall(r"[A-Za-z0-9#'][\w'#:-]*", text)
    lower = [w.lower() for w in words]
    lemmas = [_rough_lemma(w) for w in words]
    content = {stem(lm) for lm in lemmas if lm not in C.STOP_LEMMAS and len(lm) > 2 and lm.isalnum()}
    verbs = {lm for lm in lemmas if lm in C.CHANGE_VERBS | C.END_VERBS}
    starts = {lm for lm in lemmas if lm in C.START_VERBS}
    low = text.lower()
    subject = ""
    if lower:
        first = lower[0]
        subject = {"me": "i", "us": "we"}.get(first, first) if first in C.FIRST_PERSON | {"he", "she", "they"} else ""
        if first in ("my", "our") and len(lower) > 1:
            subject = f"{first} {lemmas[1]}"
    person = ""
    if len(lower) > 1 and lower[0] in ("my", "our") and lemmas[1] in C.PERSON_NOUNS:
        person = lemmas[1]
    if re.search(r"\bused to\b", low):
        tense = "used_to"
    elif re.search(r"\b(will|'ll|going to|gonna|planning to|plan to|thinking of)\b", low):
        tense = "future"
    elif re.search(r"\b(have|has|'ve)\s+(\w+ed|been|got|gotten|gone|made|taken|sold|bought|left)\b", low):
        tense = "perfect"
    elif any(w in _PAST_FORMS or (w.endswith("ed") and len(w) > 4) for w in lower):
        tense = "past"
    else:
        tense = "present"
    propns = {w.lower() for i, w in enumerate(words) if i > 0 and w[:1].isupper() and w.lower() not in C.FIRST_PERSON}
    end_word = any(re.search(rf"\b{re.escape(p)}\b", low) for p in C.END_PHRASES)
    end_verb = bool(verbs & C.END_VERBS)
    hypothetical = bool(set(lower) & C.HYPOTHETICAL)
    nouns = {stem(lm) for lm in lemmas if stem(lm) in content and lm not in verbs and lm not in TIME_NOUNS}
    return Reading(
        content=frozenset(content),
        nouns=frozenset(nouns),
        verbs=frozenset(stem(v) for v in verbs),
        gram_subject=subject,
        person=person,
        first_person=any(w in C.FIRST_PERSON for w in lower),
        negated=any(w in C.NEGATIONS or w.endswith("n't") for w in lower),
        tense=tense,
        hypothetical=hypothetical,
        change_verb=bool(verbs & C.CHANGE_VERBS) and not hypothetical,
        change_word=any(w in C.CHANGE_ADVERBS for w in lower),
        new_object=any(w in C.NEW_WORDS for w in lower),
        end_verb=end_verb and not hypothetical,
        end_word=end_word and not hypothetical,
        end_scope=frozenset(content) if (end_verb or end_word) and not hypothetical else frozenset(),
        end_heads=frozenset(nouns) if (end_verb or end_word) and not hypothetical else frozenset(),
        change_scope=frozenset(content) if verbs & C.CHANGE_VERBS and not hypothetical else frozenset(),
        change_heads=frozenset(nouns) if verbs & C.CHANGE_VERBS and not hypothetical else frozenset(),
        start_verb=bool(starts) and not hypothetical,
        start_heads=frozenset(nouns) if starts and not hypothetical else frozenset(),
        numbers=frozenset(
            norm_number(w) if any(ch.isdigit() for ch in w) else C.NUMBER_WORDS[w.lower()]
            for w in words
            if any(ch.isdigit() for ch in w) or w.lower() in C.NUMBER_WORDS
        ),
        propns=frozenset(propns),
        ids=find_ids(text),
        lead_id=find_lead_id(text),
        statuses=frozenset(w for w in lower if w in C.STATUS_WORDS),
        time_phrase=bool(C.TIME_PATTERN.search(text)),
        pending=tense == "future" or hypothetical or bool(C.PENDING_PATTERN.search(text)),
        still=bool(C.STILL_PATTERN.search(text)),
        question=text.rstrip().endswith("?"),
    )
