"""Put memory rows into the search projections (lexical and vector) in one batch."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from sqlmodel import Session

from memworks.models.tables import Memory
from memworks.pipelines.ingest.slots import index_text
from memworks.pipelines.protocols import Embedder
from memworks.pipelines.text.spans import spans
from memworks.store import subjects
from memworks.store.projections import lexical, vector
from memworks.store.projections.base import IndexRecord


def index_memories(
    session: Session,
    rows: Sequence[Memory],
    embedder: Embedder,
    vectors: dict[str, npt.NDArray[np.float32]] | None = None,
    *,
    fresh: bool = False,
) -> None:
    """Index ``rows``; index texts (:func:`index_text`) missing from ``vectors`` are embedded
    here, in one batch. ``fresh``: the rows were inserted in this transaction, so they have no
    entries to replace."""
    rows = [r for r in rows if r.text]
    if not rows:
        return
    vectors = {} if vectors is None else vectors
    texts = [index_text(r.key, r.text) for r in rows]
    sentences = [spans(t) for t in texts]  # a long text is scored by its best sentence too
    missing = list(dict.fromkeys(t for t in [*texts, *(x for s in sentences for x in s)] if t not in vectors))
    if missing:
        vectors.update(zip(missing, embedder.embed(missing), strict=True))
    subjects.attach(session, rows)
    records = [IndexRecord(r.memory_id, r.tenant_id, r.user_id, t) for r, t in zip(rows, texts, strict=True)]
    prints = [r.fingerprint for r in rows]
    lexical.apply(session, records, prints, replace=not fresh)
    vector.apply(
        session,
        records,
        np.stack([vectors[t] for t in texts]),
        prints,
        model=embedder.name,
        replace=not fresh,
        spans=[np.stack([vectors[x] for x in s]) if s else None for s in sentences],
    )
