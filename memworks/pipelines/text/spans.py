"""Sentence-level spans of a long record, and whom a span speaks about.

A conversational turn often carries several statements ("Thanks! I ran a charity race last
Saturday. How was your week?"); a question matches one of them. Embedding the whole turn blurs
that sentence with the rest, so long texts are also embedded sentence by sentence and a read
scores a record by its best sentence as well.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Fewest words a sentence needs to be a span of its own (shorter ones are greetings).
MIN_WORDS = 3
#: Most spans kept per record (the first ones; a record's later sentences are rarely its point).
MAX_SPANS = 8

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9])")
#: Titles whose stop ends no sentence ("Mrs. Kowalski", "Dr. Okafor"); an initial's neither ("Ursula K. Le Guin").
TITLES = (
    "Mr",
    "Mrs",
    "Ms",
    "Mx",
    "Dr",
    "Prof",
    "St",
    "Mt",
    "Jr",
    "Sr",
    "Rev",
    "Capt",
    "Col",
    "Gen",
    "Lt",
    "Sgt",
    "No",
    "vs",
)
_TITLE_END = re.compile(rf"(?:^|[\s(])(?:{'|'.join(TITLES)}|[A-Z])\.$")
#: "Speaker: text": the speaker's label is carried over to every span.
_SPEAKER = re.compile(r"^([A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,3}):\s+")
_FIRST = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'd|we'll|our|ours|us)\b", re.I)
_SECOND = re.compile(r"\b(?:you|you're|you've|you'd|you'll|your|yours|yourself|ya)\b", re.I)


def split_speaker(text: str) -> tuple[str, str]:
    """(``"Speaker: "`` prefix or ``""``, the rest of the text)."""
    m = _SPEAKER.match(text)
    return (m[0], text[m.end() :]) if m else ("", text)


def spans(text: str) -> list[str]:
    """The sentences of ``text`` worth scoring on their own, or ``[]`` when it has fewer than two.

    Each span keeps the text's ``"Speaker: "`` prefix, so a span reads as the whole does.
    """
    prefix, body = split_speaker(text)
    parts: list[str] = []
    for p in (p.strip() for p in _SENTENCE_END.split(body)):
        if parts and _TITLE_END.search(parts[-1]):  # "Mrs. Kowalski", "Ursula K. Le Guin": one sentence
            parts[-1] = f"{parts[-1]} {p}"
        else:
            parts.append(p)
    parts = [p for p in parts if len(p.split()) >= MIN_WORDS]
    if len(parts) < 2:
        return []
    return [prefix + p for p in parts[:MAX_SPANS]]


def sentence_at(text: str, index: int) -> str:
    """The span ``index`` of ``text`` (:func:`spans`), or the whole text for -1 or past its end."""
    parts = spans(text) if index >= 0 else []
    return parts[index] if 0 <= index < len(parts) else text


@dataclass(frozen=True)
class Voice:
    """How a statement refers to people: first person (the speaker), second person (the addressee)."""

    first: int
    second: int
    question: bool

    @property
    def about_addressee(self) -> bool:
        """The statement is about the one spoken to: more "you" than "I", or a question with no "I"
        ("Love the necklace, any special meaning to it?")."""
        return self.second > self.first or (self.question and self.first == 0)


def voice(text: str) -> Voice:
    """Person counts of ``text`` (its speaker label excluded)."""
    _, body = split_speaker(text)
    return Voice(len(_FIRST.findall(body)), len(_SECOND.findall(body)), body.rstrip().endswith("?"))
