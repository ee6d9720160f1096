"""A new record's subject and event time, filled in as it is indexed.

The subject is who said the episode a record comes from (its metadata's ``speaker``, else its
role) unless the extractor named one; a transcript's event time is the time its words name,
resolved against the episode's time ("yesterday" said on 8 May → 7 May).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import and_, select
from sqlmodel import Session, col

from memworks.models.enums import Relation
from memworks.models.tables import Episode, Lineage, Memory
from memworks.pipelines.ingest import MAX_CHARS_READ, bounded_text
from memworks.pipelines.retrieval.timerange import event_time
from memworks.store.memories import chunks
from memworks.store.turns import speaker_of


def attach(session: Session, rows: Sequence[Memory]) -> None:
    """Set ``subject`` and ``event_at`` on ``rows`` that lack them (in the caller's transaction)."""
    todo = [r for r in rows if r.subject is None or (r.event_at is None and r.extractor == "transcript")]
    if not todo:
        return
    # Episode ids are unique per (tenant, user): the user is matched below.
    user_of = {r.memory_id: r.user_id for r in todo}
    spoken: dict[str, str] = {}
    for chunk in chunks([r.memory_id for r in todo if r.subject is None]):
        for mid, user, meta, role in session.execute(
            select(col(Lineage.child_id), col(Episode.user_id), col(Episode.metadata_json), col(Episode.role))
            .join(
                Episode,
                and_(
                    col(Episode.tenant_id) == col(Lineage.tenant_id), col(Episode.episode_id) == col(Lineage.parent_id)
                ),
            )
            .where(
                col(Lineage.child_id).in_(chunk),
                col(Lineage.relation) == Relation.EXTRACTED_FROM,
                col(Lineage.parent_type) == "episode",
            )
        ):
            if user == user_of[mid]:
                spoken.setdefault(mid, speaker_of(meta, str(role)))
    for r in todo:
        if r.subject is None and r.memory_id in spoken:
            r.subject = spoken[r.memory_id]
        if r.event_at is None and r.extractor == "transcript":
            # Read as far as the extractor reads an episode by default: a long turn's dates cost no more.
            r.event_at = event_time(bounded_text(r.text, MAX_CHARS_READ), r.valid_from)
