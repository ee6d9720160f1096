"""The dependency parse the open-vocabulary extractor reads, as plain data.

A :class:`Parser` (the spaCy adapter in ``memworks.adapters.nlp``, or anything else that
labels tokens with Universal POS tags and ClearNLP-style dependencies as spaCy's English
pipelines do) arrives as a parameter; pipelines never load a model themselves. Sentences are
immutable copies, so they can be cached, compared in tests and handed across threads.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = ["Parser", "Sentence", "Token"]


@dataclass(frozen=True, slots=True)
class Token:
    """One token of a sentence; ``i`` and ``head`` index the sentence's own tokens."""

    i: int
    text: str
    #: Lower-cased lemma ("learning" → "learn", "I" → "i").
    lemma: str
    #: Universal POS tag (NOUN, VERB, PROPN, ...).
    pos: str
    #: Penn Treebank tag (VBD, NNS, PRP$, ...): tense and number live here.
    tag: str
    #: Dependency label (nsubj, dobj, prep, pobj, ...); the root's is "ROOT".
    dep: str
    #: Index of the syntactic head; the root is its own head.
    head: int
    #: Whitespace after the token in the original text ("" or " ").
    ws: str = " "

    @property
    def lower(self) -> str:
        return self.text.lower()


@dataclass(frozen=True)
class Sentence:
    """A parsed sentence: its text, tokens and each token's children (in order)."""

    text: str
    tokens: tuple[Token, ...]
    kids: tuple[tuple[int, ...], ...]

    @classmethod
    def build(cls, text: str, tokens: Sequence[Token]) -> Sentence:
        kids: list[list[int]] = [[] for _ in tokens]
        for t in tokens:
            if t.head != t.i and 0 <= t.head < len(tokens):
                kids[t.head].append(t.i)
        return cls(text, tuple(tokens), tuple(tuple(k) for k in kids))

    def __len__(self) -> int:
        return len(self.tokens)

    def children(self, i: int, *deps: str) -> list[Token]:
        """Children of token ``i``, only those with one of ``deps`` when given."""
        out = [self.tokens[k] for k in self.kids[i]]
        return [t for t in out if t.dep in deps] if deps else out

    def child(self, i: int, *deps: str) -> Token | None:
        kids = self.children(i, *deps)
        return kids[0] if kids else None

    def subtree(self, i: int) -> Iterator[Token]:
        """Token ``i`` and everything it governs, in sentence order."""
        seen: set[int] = set()
        stack = [i]
        while stack:
            k = stack.pop()
            if k in seen:  # a malformed parse must not loop
                continue
            seen.add(k)
            stack.extend(self.kids[k])
        return (self.tokens[k] for k in sorted(seen))

    def ancestors(self, i: int) -> Iterator[Token]:
        seen = {i}
        k = self.tokens[i].head
        while k not in seen:
            seen.add(k)
            yield self.tokens[k]
            k = self.tokens[k].head

    def roots(self) -> list[Token]:
        return [t for t in self.tokens if t.head == t.i or t.dep == "ROOT"]


class Parser(Protocol):
    """Splits texts into sentences and parses them (one list of sentences per text)."""

    name: str

    def parse(self, texts: Sequence[str]) -> list[list[Sentence]]: ...
