"""What each listed record rests on, as its owner sees it: the evidence episodes' times and words.

A record's ``evidence`` lists episode ids; a person reading the memory page wants to see *when*
each was said and *what* it said. Episode ids are the client's, unique per (tenant, user), and a
lineage edge names no user: so an id is resolved in the caller's own namespace only, and a
tenant-wide record (whose episodes may be anyone's) gets no detail. An erased episode keeps its
id and time, never its words.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select
from sqlmodel import Session, col

from memworks.models.schemas import EvidenceOut, MemoryOut, Scope
from memworks.models.tables import Episode
from memworks.store.memories import chunks

#: Characters, at most, of an evidence snippet (the ellipsis of a cut one included).
SNIPPET_CHARS = 160
#: Episodes detailed per record: the first and the latest ones (``evidence`` lists them all).
EVIDENCE_SHOWN = 5
#: Characters read per episode: a snippet's worth even after runs of whitespace fold away (one
#: more is read to tell a longer text from one of exactly this length).
_READ_CHARS = 4 * SNIPPET_CHARS
_ELLIPSIS = "…"


def snippet(text: str, *, truncated: bool = False, limit: int = SNIPPET_CHARS) -> str | None:
    """The start of ``text`` on one line, cut at a word boundary to at most ``limit`` characters.

    ``truncated`` says ``text`` is itself only the start of something longer (the ellipsis shows
    it). A single word longer than half the limit is cut mid-word rather than dropped.
    """
    words = " ".join(text.split())
    if not words:
        return None
    if len(words) <= limit and not truncated:
        return words
    if len(words) <= limit - len(_ELLIPSIS):
        return words + _ELLIPSIS
    head = words[: limit - len(_ELLIPSIS) + 1]
    space = head.rfind(" ")
    head = head[:space] if space >= limit // 2 else head[:-1]
    return head.rstrip(" ,;:-") + _ELLIPSIS


def _shown(ids: Sequence[str]) -> list[str]:
    """The evidence worth a line: the first episode (where it came from) and the latest ones."""
    if len(ids) <= EVIDENCE_SHOWN:
        return list(ids)
    return [ids[0], *ids[len(ids) - EVIDENCE_SHOWN + 1 :]]


def evidence_details(session: Session, *, scope: Scope, rows: Sequence[MemoryOut]) -> dict[str, list[EvidenceOut]]:
    """Per memory id, its evidence episodes in the caller's own namespace, oldest first.

    One query per 500 distinct episodes, whatever the number of records; each episode's text is
    read only as far as a snippet needs.
    """
    if scope.user_id is None:
        return {}
    wanted = {r.memory_id: _shown(r.evidence) for r in rows if r.user_id == scope.user_id and r.evidence}
    ids = sorted({e for es in wanted.values() for e in es})
    head = func.substr(col(Episode.content), 1, _READ_CHARS + 1)
    found: dict[str, EvidenceOut] = {}
    for chunk in chunks(ids):
        q = select(
            col(Episode.episode_id),
            col(Episode.occurred_at),
            col(Episode.role),
            col(Episode.source),
            col(Episode.tombstoned_at),
            head,
        ).where(
            col(Episode.tenant_id) == scope.tenant_id,
            col(Episode.user_id) == scope.user_id,
            col(Episode.episode_id).in_(chunk),
        )
        for episode_id, occurred_at, role, source, tombstoned_at, text in session.execute(q):
            # A tombstone's text is already purged; its time stays, as in the record's provenance.
            erased = tombstoned_at is not None or not text
            found[episode_id] = EvidenceOut(
                episode_id=episode_id,
                occurred_at=occurred_at,
                role=role,
                source=source,
                snippet=None if erased else snippet(text[:_READ_CHARS], truncated=len(text) > _READ_CHARS),
                erased=erased,
            )
    return {
        mid: sorted((found[e] for e in es if e in found), key=lambda d: (d.occurred_at, d.episode_id))
        for mid, es in wanted.items()
    }


def with_evidence_detail(session: Session, *, scope: Scope, rows: Sequence[MemoryOut]) -> list[MemoryOut]:
    """``rows`` with ``evidence_detail`` filled in (see :func:`evidence_details`)."""
    detail = evidence_details(session, scope=scope, rows=rows)
    return [r.model_copy(update={"evidence_detail": detail[r.memory_id]}) if r.memory_id in detail else r for r in rows]
