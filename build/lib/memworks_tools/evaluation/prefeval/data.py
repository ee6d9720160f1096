"""PrefEval's explicit-preference files and distractor conversations, and the users the
evaluation builds from them.

Each user states one preference per topic (the first turns of their history), then holds a
run of distractor user turns drawn from PrefEval's ``inter_turns.json`` conversations, then asks
each topic's question. What a user is given is decided here, from a seed, so every system in a
run reads the same turns.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DISTRACTORS",
    "HELD_OUT",
    "Item",
    "Plan",
    "Planned",
    "load_inter_turns",
    "load_topics",
    "plan_users",
]

#: The distractor conversations' file inside the data folder.
DISTRACTORS = "inter_turns.json"
#: Topics kept out of every tuning decision, reported on their own (a check, not a target).
HELD_OUT = ("lifestyle_beauty", "pet_ownership")


@dataclass(frozen=True)
class Item:
    """One PrefEval case: the stated preference and the later question that must honour it."""

    topic: str
    index: int
    preference: str
    question: str


@dataclass(frozen=True)
class Planned:
    """One turn of a user's history: a preference statement or a distractor."""

    episode_id: str
    session: str
    content: str
    #: The topic whose preference this turn states; None for a distractor.
    topic: str | None = None


@dataclass(frozen=True)
class Plan:
    """One user's history and questions."""

    user_id: str
    turns: tuple[Planned, ...]
    #: One item per topic, in topic order.
    items: tuple[Item, ...]

    def preference_episode(self, topic: str) -> str:
        return next(t.episode_id for t in self.turns if t.topic == topic)


def load_topics(folder: Path) -> dict[str, list[Item]]:
    """Every ``<topic>.json`` of ``folder`` (the distractor file aside), by topic name."""
    out: dict[str, list[Item]] = {}
    for path in sorted(folder.glob("*.json")):
        if path.name == DISTRACTORS:
            continue
        rows = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(rows, list) or not rows:
            raise ValueError(f"{path} holds no list of preferences")
        out[path.stem] = [
            Item(path.stem, i, str(r["preference"]).strip().strip('"').strip(), str(r["question"]).strip())
            for i, r in enumerate(rows)
        ]
    if not out:
        raise ValueError(f"{folder} holds no topic files")
    return out


def load_inter_turns(folder: Path, *, roles: Sequence[str] = ("user",)) -> list[list[tuple[str, str]]]:
    """The distractor conversations: per conversation, its (role, content) turns of ``roles``."""
    path = folder / DISTRACTORS
    if not path.exists():
        raise ValueError(f"{folder} holds no {DISTRACTORS}")
    convs = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for conv in convs:
        turns = [(t["role"], str(t["content"])) for t in conv["conversation"] if t["role"] in roles]
        if turns:
            out.append(turns)
    return out


def plan_users(
    topics: Mapping[str, Sequence[Item]],
    conversations: Sequence[Sequence[tuple[str, str]]],
    *,
    users: int,
    distractors: int,
    seed: int = 0,
) -> list[Plan]:
    """``users`` histories: one preference per topic (chosen by the seed), then ``distractors``
    user turns taken conversation by conversation, in an order shuffled per user.

    The preferences are the first session, in a shuffled order; each distractor conversation
    is a session of its own, its turns kept in their order.
    """
    plans = []
    for u in range(users):
        rng = random.Random(f"{seed}:{u}")
        items = tuple(rng.choice(list(topics[t])) for t in sorted(topics))
        user_id = f"u{u}"
        stated = list(items)
        rng.shuffle(stated)
        turns = [Planned(f"{user_id}-pref-{it.topic}", f"{user_id}-s0", it.preference, it.topic) for it in stated]
        order = list(range(len(conversations)))
        rng.shuffle(order)
        taken = 0
        for c in order:
            for j, (_, content) in enumerate(conversations[c]):
                if taken >= distractors:
                    break
                turns.append(Planned(f"{user_id}-d{c}-{j}", f"{user_id}-c{c}", content))
                taken += 1
        if taken < distractors:
            raise ValueError(f"only {taken} distractor turns available, {distractors} asked")
        plans.append(Plan(user_id, tuple(turns), items))
    return plans
