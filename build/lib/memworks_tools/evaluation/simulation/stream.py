"""The simulated user of ``memworks eval simulation``: facts, their values, and the stream of
mentions (some changing a value first, some corrupted as a faulty extractor would), with the
truth each was drawn from. Deterministic for a seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

__all__ = ["CHANGE_RATE", "LEADS", "N_VALUES", "START", "Fact", "Mention", "Truth", "make_facts", "make_mentions"]

#: Start of the simulated calendar; session ``s`` happens ``s`` days later.
START = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)
#: Share of (non-first) mentions that change the fact's value before stating it.
CHANGE_RATE = 0.25
#: Values per fact.
N_VALUES = 6

# 20 things × 5 settings = 100 facts; each fact draws its 6 values from its thing's pool.
_THINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("colour", ("red", "blue", "green", "yellow", "purple", "orange", "teal", "silver")),
    (
        "drink",
        (
            "green tea",
            "black coffee",
            "orange juice",
            "lemonade",
            "hot chocolate",
            "sparkling water",
            "iced tea",
            "ginger beer",
        ),
    ),
    (
        "snack",
        (
            "popcorn",
            "salted almonds",
            "dark chocolate",
            "pretzels",
            "rice crackers",
            "trail mix",
            "dried apricots",
            "cheese straws",
        ),
    ),
    ("fruit", ("mango", "banana", "cherry", "kiwi", "peach", "pineapple", "plum", "watermelon")),
    ("music genre", ("jazz", "blues", "reggae", "techno", "folk", "opera", "funk", "bluegrass")),
    ("sport", ("tennis", "football", "cycling", "swimming", "rowing", "climbing", "badminton", "volleyball")),
    ("flower", ("tulip", "rose", "sunflower", "lily", "orchid", "daisy", "lavender", "peony")),
    ("board game", ("chess", "scrabble", "monopoly", "backgammon", "checkers", "mahjong", "dominoes", "cluedo")),
    (
        "dessert",
        ("tiramisu", "cheesecake", "apple pie", "panna cotta", "baklava", "brownies", "creme brulee", "lemon tart"),
    ),
    ("soup", ("minestrone", "tomato soup", "miso soup", "gazpacho", "lentil soup", "borscht", "pho", "chowder")),
    ("cheese", ("brie", "cheddar", "gouda", "feta", "gruyere", "manchego", "stilton", "halloumi")),
    ("pasta", ("fusilli", "penne", "spaghetti", "rigatoni", "farfalle", "linguine", "orzo", "tagliatelle")),
    ("breakfast", ("porridge", "pancakes", "granola", "scrambled eggs", "croissants", "waffles", "bagels", "muesli")),
    (
        "podcast topic",
        ("history", "science", "comedy", "true crime", "economics", "philosophy", "football", "technology"),
    ),
    (
        "film genre",
        ("comedy", "thriller", "western", "documentary", "musical", "horror", "animation", "science fiction"),
    ),
    ("card game", ("poker", "bridge", "rummy", "solitaire", "cribbage", "canasta", "hearts", "blackjack")),
    ("tree", ("oak", "birch", "maple", "willow", "cedar", "pine", "chestnut", "beech")),
    ("bird", ("robin", "heron", "owl", "kingfisher", "swallow", "wren", "magpie", "sparrow")),
    ("spice", ("cinnamon", "cumin", "paprika", "saffron", "nutmeg", "cardamom", "turmeric", "ginger")),
    ("tea", ("earl grey", "chamomile", "peppermint", "jasmine", "rooibos", "oolong", "darjeeling", "matcha")),
)
_SETTINGS = ("in summer", "in winter", "on weekends", "at work", "on holiday")
#: Ways a mention opens; all are fillers the rules extractor peels off.
LEADS = ("", "By the way, ", "Just so you know, ", "Quick update: ", "Oh and ", "For the record, ")


@dataclass(frozen=True)
class Fact:
    """One fact about the user: ``topic`` names it, ``values`` are its possible values."""

    topic: str
    values: tuple[str, ...]

    @property
    def key(self) -> str:
        """The slot the rules extractor files ``my favourite <topic> is ...`` under."""
        return "user.favorite." + self.topic.replace(" ", "_")

    def says(self, value: str, lead: str = "") -> str:
        text = f"{lead}my favourite {self.topic} is {value}."
        return text[0].upper() + text[1:]

    @property
    def question(self) -> str:
        return f"What is my favourite {self.topic}?"

    @property
    def history_question(self) -> str:
        return f"What was my favourite {self.topic} before I last changed it?"


@dataclass(frozen=True)
class Mention:
    """One mention as recorded: ``value`` is what was recorded, ``meant`` what the user said."""

    session: int
    turn: int
    fact: int
    meant: str
    value: str
    changed: bool
    text: str
    at: datetime

    @property
    def corrupted(self) -> bool:
        return self.value != self.meant


@dataclass(frozen=True)
class Truth:
    """What each fact really is at the end, and what it was before its last change."""

    current: list[str]
    previous: list[str | None]


def make_facts(n_facts: int, seed: int) -> list[Fact]:
    """``n_facts`` (at most 100) facts with their 6 values, deterministic from ``seed``."""
    combos = [(thing, pool, setting) for thing, pool in _THINGS for setting in _SETTINGS]
    if not 1 <= n_facts <= len(combos):
        raise ValueError(f"n_facts must be between 1 and {len(combos)}, got {n_facts}")
    rng = random.Random(seed)
    rng.shuffle(combos)
    return [Fact(f"{thing} {setting}", tuple(rng.sample(pool, N_VALUES))) for thing, pool, setting in combos[:n_facts]]


def make_mentions(
    facts: Sequence[Fact], *, n_sessions: int, per_session: int, error_rate: float, seed: int
) -> tuple[list[Mention], Truth]:
    """The mention stream (corrupted at ``error_rate``) and the truth it was drawn from."""
    if not 0 <= error_rate <= 1:
        raise ValueError(f"error_rate must be between 0 and 1, got {error_rate}")
    if not 1 <= per_session <= len(facts):
        raise ValueError(f"per_session must be between 1 and the number of facts ({len(facts)}), got {per_session}")
    rng = random.Random(seed + 1)
    errors = random.Random(seed + 2)  # own stream: the true mentions do not depend on error_rate
    state = [rng.choice(f.values) for f in facts]
    seen: set[int] = set()
    previous: list[str | None] = [None] * len(facts)
    out: list[Mention] = []
    for s in range(n_sessions):
        for t, i in enumerate(rng.sample(range(len(facts)), per_session)):
            fact, change, lead = facts[i], rng.random() < CHANGE_RATE, rng.choice(LEADS)
            changed = change and i in seen
            if changed:
                previous[i] = state[i]
                state[i] = rng.choice([v for v in fact.values if v != state[i]])
            seen.add(i)
            wrong, draw = errors.choice([v for v in fact.values if v != state[i]]), errors.random()
            value = wrong if draw < error_rate else state[i]
            at = START + timedelta(days=s, minutes=t)
            out.append(Mention(s, t, i, state[i], value, changed, fact.says(value, lead), at))
    return out, Truth(current=list(state), previous=previous)
