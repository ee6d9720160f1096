"""Terms for the lexical index: lower-cased words, stop words dropped, Snowball-stemmed."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

import snowballstemmer  # type: ignore[import-untyped]

#: Words too common to say anything about relevance.
STOPWORDS = frozenset(
    "a an and are as at be but by do does did for from had has have how i i'm in is it its me my of on or "
    "our so that the their them there they this to was we were what when where which who why will with "
    "you your am been being can could should would about any all also just than then these those us "
    "user user's".split()
)
#: Longest term kept (longer tokens are ids or noise, and the column is bounded).
MAX_TERM = 64
_stemmer = snowballstemmer.stemmer("english")


@lru_cache(maxsize=100_000)
def _stem(word: str) -> str:
    return str(_stemmer.stemWord(word))[:MAX_TERM]


def terms(text: str) -> list[str]:
    """The index terms of ``text``, in order, repeats kept."""
    words = re.findall(r"[\w']+", text.casefold())
    # A stop word's contraction is a stop word too ("what's", "it's").
    return [
        _stem(w.replace("'", ""))
        for w in words
        if w not in STOPWORDS and w.split("'")[0] not in STOPWORDS and len(w.strip("'")) > 1
    ]


def term_counts(text: str) -> Counter[str]:
    return Counter(terms(text))


#: A verb and its particle mean what the verb alone does not ("work out" is no "work"); not a
#: preposition's object ("out of", "up to") nor a noun after a determiner ("my day off").
_PHRASAL = re.compile(
    r"\b(?<!\bmy\s)(?<!\bthe\s)(?<!\ba\s)(?<!\bour\s)(?<!\byour\s)(?<!\bnext\s)"
    r"([a-z]+)\s+(?:out|up|off)\b(?!\s+(?:of|to|with|for|on|at|in)\b)"
)


def query_terms(query: str, limit: int = 32) -> list[str]:
    """Distinct terms of a query, in order. The verb of a phrasal verb is left out: "Where do I
    work out?" asks nothing of the records that say "work" (those say where the user works)."""
    phrasal = _PHRASAL.sub(" ", query.casefold())
    return list(dict.fromkeys(terms(phrasal)))[:limit]
