"""The benchmark's utterance pool: sentences in the rules extractor's vocabulary, run once
through the real extractor and gate, and every distinct sentence embedded once with the real model.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from memworks.models.drafts import Turn
from memworks.models.enums import MemoryKind, Role, Source
from memworks.pipelines.ingest import judge_episode
from memworks.pipelines.ingest.slots import index_text
from memworks_tools.bench.data.vocabulary import (
    ALLERGENS,
    CITIES,
    DIETS,
    EMPLOYERS,
    FAMILY,
    FAVOURITES,
    FORMATS,
    JOBS,
    PETS,
    QUALIFIERS,
    SMALL_TALK,
    THINGS,
)

__all__ = ["Fact", "Pool", "Utterance", "build_pool"]


@dataclass(frozen=True)
class Fact:
    """One accepted candidate of a pool utterance, as the extractor and gate produced it."""

    kind: MemoryKind
    key: str
    value: str
    text: str
    confidence: float
    derived_from_key: str | None


@dataclass(frozen=True)
class Utterance:
    """A pool utterance and the facts the extractor and gate accepted from it."""

    content: str
    facts: tuple[Fact, ...]


@dataclass
class Pool:
    """Utterances, their facts, and one real embedding per distinct sentence."""

    utterances: list[Utterance]
    texts: list[str]
    vectors: npt.NDArray[np.float32]
    model: str
    index: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.index = {t: i for i, t in enumerate(self.texts)}


def _utterances(rng: random.Random) -> list[str]:
    out = [f"I live in {c}." for c in CITIES] + [f"I moved to {c} last week." for c in CITIES]
    out += [f"I work in {c}." for c in CITIES] + [f"I grew up in {c}." for c in CITIES]
    out += [f"I work at {e} as a {j}." for e in EMPLOYERS for j in JOBS]
    out += [f"I love {q + ' ' if q else ''}{t}." for t in THINGS for q in QUALIFIERS]
    out += [f"I really enjoy {t}." for t in THINGS] + [f"I'm based in {c}." for c in CITIES]
    out += [f"I'm a {j}." for j in JOBS] + [f"I got a job at {e}." for e in EMPLOYERS]
    out += [f"I have a {a} allergy." for a in ALLERGENS]
    out += [f"I'm allergic to {a}." for a in ALLERGENS]
    out += [f"My {s} is called {n}." for s, n in PETS] + [f"I have a {s} named {n}." for s, n in PETS]
    out += [f"My {r} is {n}." for r, n in FAMILY] + [f"My favourite {k} is {v}." for k, v in FAVOURITES]
    out += [f"I'm {d}." for d in DIETS] + list(FORMATS) + list(SMALL_TALK)
    out += ["I prefer tea over coffee.", "I prefer coffee over tea.", "I prefer aisle seats.", "I prefer window seats."]
    return list(dict.fromkeys(out))


@lru_cache(maxsize=4)
def build_pool(seed: int = 7, limit: int | None = None) -> Pool:
    """The utterance pool, extracted and embedded once per process (~1,800 sentences, a few seconds).

    ``limit`` keeps a random sample of that many utterances (tests use a small pool).
    """
    from memworks.adapters.embedder import get_embedder
    from memworks.pipelines.extraction.rules import RulesExtractor

    extractor = RulesExtractor()
    when = datetime(2025, 1, 1, tzinfo=UTC)
    utterances = []
    contents = _utterances(random.Random(seed))
    if limit is not None and limit < len(contents):
        contents = random.Random(seed).sample(contents, limit)
    for content in contents:
        turn = Turn(episode_id="pool", role=Role.USER, source=Source.USER, content=content, occurred_at=when)
        judged = judge_episode(turn, extractor=extractor)
        facts = tuple(
            Fact(
                a.candidate.kind,
                a.candidate.key,
                a.candidate.value,
                a.candidate.text,
                a.candidate.confidence,
                a.candidate.derived_from_key,
            )
            for a in judged.accepted()
            if a.candidate.key is not None
            and a.candidate.extractor != "transcript"
            and not a.candidate.plan
            and a.verdict.outcome.value == "accepted"
        )
        utterances.append(Utterance(content, facts))
    texts = list(
        dict.fromkeys(
            [u.content for u in utterances] + [index_text(f.key, f.text) for u in utterances for f in u.facts]
        )
    )
    embedder = get_embedder("minilm")
    return Pool(utterances, texts, embedder.embed(texts), embedder.name)
