"""The scope's own user among the people a conversation names.

A store belongs to one user; its turns may still name their speaker ("Dev", "Hanne") as a
conversation of several people does. A speaker whose name is the one the user id is made of
("dev.patel" -> Dev) is the user speaking: their statements are the user's, filed as "User ...",
and a question naming them asks about the user.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["id_name", "is_own_name"]

#: Parts of a user id that name no one ("cust-dana-77120", "user_42").
_NOT_NAMES = frozenset(
    "user users usr cust customer client member account acct guest anon anonymous test demo admin default chat "
    "team house home the".split()
)


def id_name(user_id: str) -> tuple[str, ...]:
    """The name a user id is made of ("kenji.sato" -> "Kenji", "Kenji Sato"), if it is made of
    words: a first name (and the whole) a question may call the user by."""
    words = [w for w in re.split(r"[._+:\s-]+", user_id.split("@")[0]) if w]
    if not words or not all(w.isalpha() for w in words) or words[0].lower() in _NOT_NAMES or len(words[0]) < 3:
        return ()
    whole = " ".join(w.capitalize() for w in words)
    return tuple(dict.fromkeys((words[0].capitalize(), whole)))


def is_own_name(speaker: str | None, user_id: str | None, peers: Iterable[str] = ()) -> bool:
    """``speaker`` is the name ``user_id`` is made of (its first name, or the whole): the user.

    Not when another word of the id is the first name of one of ``peers`` (the other speakers
    known in the scope): "tom-ayo" names a store two people share, not a user called Tom Ayo.
    """
    if not speaker or not user_id:
        return False
    names = id_name(user_id)
    said = " ".join(speaker.split()).casefold()
    if not any(said == n.casefold() for n in names):
        return False
    rest = {w.casefold() for w in names[-1].split()[1:]}
    return not any((p.split() or [""])[0].casefold() in rest for p in peers if p.casefold() != said)
