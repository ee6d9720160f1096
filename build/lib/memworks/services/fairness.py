"""Which lane a tenant's work takes: its workload's normal queue, or the bulk lane once the
tenant's backlog is over its threshold (``MEMWORKS_BULK_*_BACKLOG``).

A tenant that floods the store (a long import, a burst of deletion requests) fills its own
bulk lane; other tenants' work keeps the normal queue, where it waits behind at most the few
bulk messages a worker has already fetched. The decision is taken when a message is first sent;
follow-on messages stay in the lane of the message that sent them (:mod:`memworks.workers.lanes`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlmodel import Session

from memworks.config import Settings
from memworks.pipelines.ingest import weighted_parts
from memworks.services.deps import Deps
from memworks.store import backlog
from memworks.store.sql.db import session_scope


@dataclass(frozen=True)
class Part:
    """One extraction message: episode row ids, and whether it goes to the bulk lane."""

    ids: list[int]
    bulk: bool


def extraction_parts(deps: Deps, ids: Sequence[int]) -> list[Part]:
    """Extraction messages for stored episodes ``ids``: each tenant's in its lane, cut by count
    (``ingest_batch_size``) and by characters of text (``ingest_batch_chars``). Ids not stored
    are left out."""
    st = deps.settings
    if not ids:
        return []
    with session_scope(deps.engine, write=False) as s:
        sizes = backlog.episode_sizes(s, ids=ids)
        over = {t for t in {tenant for tenant, _ in sizes.values()} if _extraction_over(s, t, st)}
    lanes: dict[bool, list[int]] = {False: [], True: []}
    for i in dict.fromkeys(ids):
        if i in sizes:
            lanes[sizes[i][0] in over].append(i)
    return [
        Part(part, bulk)
        for bulk, lane in lanes.items()
        for part in weighted_parts(
            lane,
            [sizes[i][1] for i in lane],
            most=st.ingest_batch_size,
            budget=st.ingest_batch_chars,
        )
    ]


def _extraction_over(s: Session, tenant: str, st: Settings) -> bool:
    """More of the tenant's episodes received and unprocessed, or of their text, than the thresholds."""
    n, chars = backlog.received_episodes(s, tenant_id=tenant, at_most=st.bulk_extraction_backlog + 1)
    return _over(n, st.bulk_extraction_backlog) or _over(chars, st.bulk_extraction_backlog_chars)


def deletion_bulk_tenants(s: Session, tenants: Collection[str], *, threshold: int, adding: int = 0) -> set[str]:
    """Which of ``tenants`` have more deletion requests at work than ``threshold`` (counting
    ``adding`` more about to be saved)."""
    return {
        t
        for t in tenants
        if _over(backlog.unfinished_requests(s, tenant_id=t, at_most=threshold + 1) + adding, threshold)
    }


def bulk_requests(deps: Deps, request_ids: Sequence[str]) -> set[str]:
    """The requests among ``request_ids`` whose tenant is over its deletion backlog threshold."""
    if not request_ids:
        return set()
    with session_scope(deps.engine, write=False) as s:
        tenants = backlog.request_tenants(s, request_ids=request_ids)
        over = deletion_bulk_tenants(s, set(tenants.values()), threshold=deps.settings.bulk_deletion_backlog)
    return {rid for rid, t in tenants.items() if t in over}


def _over(count: int, threshold: int) -> bool:
    return count > threshold
