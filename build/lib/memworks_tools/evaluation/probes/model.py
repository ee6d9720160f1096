"""The shapes of ``memworks eval probes``' cases: the slices and users, what one turn, session,
question and deletion probe hold, and the helpers the case data is written with.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

__all__ = [
    "ACME_LENA",
    "ACME_MAYA",
    "ACME_OMAR",
    "ACME_THEO",
    "CHECKPOINTS",
    "FIRST_WEEK",
    "GLOBEX_MAYA",
    "LAST_WEEK",
    "SLICES",
    "USERS",
    "Deletion",
    "Line",
    "Question",
    "Session",
    "assistant_says",
    "question",
    "user_says",
]

#: LongMemEval's five abilities, then the two governance ones.
SLICES = (
    "information_extraction",
    "multi_session_reasoning",
    "knowledge_update",
    "temporal_reasoning",
    "abstention",
    "isolation",
    "deletion",
)
#: (tenant, user) of every conversation, and the weekday (0 = Monday) of its weekly session.
USERS: dict[tuple[str, str], int] = {
    ("acme", "maya"): 0,
    ("acme", "omar"): 1,
    ("acme", "lena"): 2,
    ("acme", "theo"): 3,
    ("globex", "maya"): 4,
}
FIRST_WEEK, LAST_WEEK = date(2024, 9, 2), date(2025, 6, 30)
#: Transaction-time checkpoints: the wall clock once every week before this day is stored.
CHECKPOINTS = {"before_move_reported": "2025-03-17"}


@dataclass(frozen=True)
class Line:
    """One turn: what a role said."""

    role: str
    text: str


@dataclass(frozen=True)
class Session:
    day: str
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class Question:
    """One probe and its answer key."""

    qid: str
    slice: str
    tenant: str
    user: str
    text: str
    #: None: abstain. "a|b": one answer, either spelling. A tuple: exactly this set.
    expect: str | tuple[str, ...] | None
    #: Memory keys the memworks design reads the answer from; a trailing "." is a key prefix.
    slots: tuple[str, ...] = ()
    #: Reader cues (regexes with an ``a`` group) that find the answer in a line of text.
    cues: tuple[str, ...] = ()
    #: Valid time the question is about (ISO day), for "where did I live in March" questions.
    as_of: str | None = None
    #: A CHECKPOINTS name: what the memory believed at that transaction time.
    known_at: str | None = None
    #: The answer is a slot's history, not its current value.
    history: bool = False
    #: Asked after the deletion requests have completed.
    after_deletion: bool = False
    #: Isolation: another scope's values that must never reach this one.
    not_values: tuple[str, ...] = ()
    why: str = ""

    @property
    def many(self) -> bool:
        """The question asks for a set of things."""
        return isinstance(self.expect, tuple)


@dataclass(frozen=True)
class Deletion:
    """A deletion probe: after it completes, none of ``values`` may remain in any projection."""

    qid: str
    tenant: str
    user: str
    values: tuple[str, ...]
    #: Topic deletion of these keys (a request), or the keys the user's own retraction names.
    keys: tuple[str, ...] = ()
    #: Delete the current record of this key by its id.
    memory_of: str | None = None
    #: Opened by the user's own words on this day ("please forget where I work").
    said_on: str | None = None
    whole_subject: bool = False
    why: str = ""

    slice: str = "deletion"


#: The conversations' (tenant, user) pairs, by name.
ACME_MAYA, ACME_OMAR, ACME_LENA, ACME_THEO = ("acme", "maya"), ("acme", "omar"), ("acme", "lena"), ("acme", "theo")
GLOBEX_MAYA = ("globex", "maya")


def question(
    qid: str, slice_: str, who: tuple[str, str], text: str, expect: str | tuple[str, ...] | None, **kw: Any
) -> Question:
    """A :class:`Question` of ``who`` (tenant, user)."""
    return Question(qid, slice_, who[0], who[1], text, expect, **kw)


def user_says(text: str) -> Line:
    """A line of the user's."""
    return Line("user", text)


def assistant_says(text: str) -> Line:
    """A line of the assistant's."""
    return Line("assistant", text)
