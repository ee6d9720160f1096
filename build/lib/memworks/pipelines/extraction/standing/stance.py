"""What a clause says about the speaker's stance (read by :mod:`.read`)."""

from __future__ import annotations

from dataclasses import dataclass

from memworks.pipelines.extraction.open_vocab.parse import Token

__all__ = ["Reading"]


@dataclass(frozen=True)
class Reading:
    """What a clause says about the speaker's stance."""

    rule: str
    #: -1 away from the what, +1 towards it.
    lean: int
    #: Index of the what's first token.
    start: int
    #: The what's head (noun, or verb for an activity); None to take the first token.
    head: Token | None = None
    #: ``pref``, ``allergy``, ``diet`` or ``condition``.
    family: str = "pref"
    #: "anymore" / "no longer" with a negation: the stance ends.
    ended: bool = False
    #: The diet word, for the ``diet`` family.
    diet: str = ""
    #: Index where the what ends (exclusive), when it does not run to the clause's end.
    end: int | None = None
    #: A plain liking ("I prefer X"): left to the rules extractor when it already files it.
    defer: bool = False
