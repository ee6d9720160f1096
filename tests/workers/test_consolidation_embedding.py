"""Consolidation embeds only the summaries it writes: dedup compares the stored vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import select
from sqlmodel import Session

from memworks.models.tables import Memory
from memworks.pipelines.ingest.slots import index_text
from memworks.pipelines.text.spans import spans
from tests.factories import episode


class Counting:
    """An embedder that records every text it is asked to embed."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.texts = inner, inner.name, []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts += list(texts)
        return np.asarray(self.inner.embed(texts), dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        return int(self.inner.count_tokens(text))


def test_a_run_embeds_its_new_summaries_once_and_nothing_stored(sqlite_url: str, make_memworks: Any) -> None:
    """A run that merges restatements and writes summaries for two users embeds exactly the
    index texts (and sentences) of the summaries it wrote, each once; a second run embeds nothing."""
    mw = make_memworks(sqlite_url, dedup_min_similarity=0.85)
    mw.enqueue_episodes(
        [
            episode(n, text, user=u, session="s1", when=f"2025-01-0{n}T09:00:00+00:00")
            for u in ("u1", "u2")
            for n, text in (
                (1, "I prefer dark mode in the editor."),
                (2, "I really like dark mode in my editor."),
                (3, "I live in Lisbon and my dog is called Pixel."),
            )
        ]
    )
    mw.drain()
    counting = Counting(mw.runtime.embedder)
    mw.runtime.__dict__["embedder"] = counting  # the runtime's cached embedder, replaced
    run = mw.consolidate("t1")
    assert run["status"] == "done" and run["counts"]["summaries"] == 2 and run["counts"]["merged"] == 2
    with Session(mw.runtime.engine) as s:
        wrote = [
            index_text(k, t) for k, t in s.execute(select(Memory.key, Memory.text).where(Memory.extractor == "summary"))
        ]
    assert sorted(counting.texts) == sorted({*wrote, *(x for t in wrote for x in spans(t))})
    counting.texts.clear()
    again = mw.consolidate("t1")
    assert again["counts"]["summaries"] == 0 and counting.texts == []
