"""Each scope's index held in process between queries, and the best-first visibility check
the searches that use it share.

The vector and lexical projections score a whole scope in memory (a float32 matrix; BM25
postings as arrays), then take candidates best first and keep those the read's filters admit,
in SQL, so the result equals filtering first and ranking after. Loading a scope costs one
read of its rows; holding it makes every later query of the same scope version cheap.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt
from sqlalchemy import select
from sqlmodel import Session, col

from memworks.models.schemas import Scope
from memworks.models.tables import Memory
from memworks.store import versions
from memworks.store.retrieval.filters import present_by_version

#: (database, tenant, user, projection).
Key = tuple[str, str, str | None, str]


class Entry(Protocol):
    version: tuple[int, int]
    used: float

    @property
    def nbytes(self) -> int: ...


E = TypeVar("E", bound=Entry)


class ScopeCache:
    """Loaded scope indexes by (database, tenant, user, projection).

    An entry is valid for one (user, tenant-wide) scope version: any write to the scope bumps
    it, so the next query reloads. Entries unused for ``max_age_s`` are dropped, and the
    whole cache stays under ``max_bytes`` (least recently used first), so an erased record
    outlives its deletion in a process's memory by at most ``max_age_s``, and only until the
    scope's next query, which finds the bumped version.
    """

    def __init__(self, max_bytes: int = 512 * 2**20, max_age_s: float = 300.0) -> None:
        self.max_bytes, self.max_age_s = max_bytes, max_age_s
        self._entries: OrderedDict[Key, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Key, version: tuple[int, int]) -> Any | None:
        with self._lock:
            self._expire()
            e = self._entries.get(key)
            if e is None or e.version != version:
                return None
            self._entries.move_to_end(key)
            e.used = time.monotonic()
            return e

    def put(self, key: Key, entry: Entry) -> None:
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while sum(x.nbytes for x in self._entries.values()) > self.max_bytes and len(self._entries) > 1:
                self._entries.popitem(last=False)

    def drop(self, tenant_id: str, user_id: str | None = None) -> None:
        """Forget a tenant's (or one user's) indexes now, e.g. when a deletion purges them."""
        with self._lock:
            for key in [k for k in self._entries if k[1] == tenant_id and (user_id is None or k[2] in (user_id, None))]:
                del self._entries[key]

    def drop_database(self, database: str) -> None:
        """Forget every index of one database (its facade is closing)."""
        with self._lock:
            for key in [k for k in self._entries if k[0] == database]:
                del self._entries[key]

    def keys(self) -> list[Key]:
        with self._lock:
            return list(self._entries)

    def _expire(self) -> None:
        cutoff = time.monotonic() - self.max_age_s
        for key in [k for k, e in self._entries.items() if e.used < cutoff]:
            del self._entries[key]


#: The process's scope indexes (the API, the embedded worker and each worker process hold their own).
SCOPES = ScopeCache()


def cached(
    session: Session,
    scope: Scope,
    projection: str,
    load: Callable[[tuple[int, int]], E],
    version: tuple[int, int] | None = None,
    fresh: Callable[[E], bool] | None = None,
) -> E:
    """The scope's ``projection`` index at its current version, loaded with ``load`` if stale
    (or if ``fresh`` says a held entry no longer holds, e.g. a time it depends on has passed)."""
    if version is None:
        version = versions.read(session, tenant_id=scope.tenant_id, user_id=scope.user_id)
    # Keyed by database too: one process may hold facades of several stores.
    key = (
        session.get_bind().engine.url.render_as_string(hide_password=True),
        scope.tenant_id,
        scope.user_id,
        projection,
    )
    hit: E | None = SCOPES.get(key, version)
    if hit is not None and (fresh is None or fresh(hit)):
        return hit
    entry = load(version)
    SCOPES.put(key, entry)
    return entry


def live_mask(
    session: Session, scope: Scope, ids: Sequence[str]
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """Which of ``ids`` a present read may see, as far as the scope version decides it
    (:func:`~memworks.store.retrieval.filters.present_by_version`), and when each expires (POSIX
    seconds; ``inf`` for never).

    With both, a present read at a known time is settled in memory (:func:`admitted`).
    """
    rows = session.execute(
        select(col(Memory.memory_id), col(Memory.expires_at)).where(*present_by_version(scope))
    ).all()
    until = {m: _seconds(e) for m, e in rows}
    return (
        np.fromiter((m in until for m in ids), dtype=np.bool_, count=len(ids)),
        np.fromiter((until.get(m, math.inf) for m in ids), dtype=np.float64, count=len(ids)),
    )


def _seconds(t: datetime | None) -> float:
    if t is None:
        return math.inf
    # SQLite hands back naive datetimes; the store writes UTC.
    return (t if t.tzinfo else t.replace(tzinfo=UTC)).timestamp()


def admitted(live: npt.NDArray[np.bool_], expires: npt.NDArray[np.float64], now: datetime) -> npt.NDArray[np.bool_]:
    """Which rows a present read at ``now`` sees: live at the scope version and not yet expired
    (the same test as :func:`~memworks.store.retrieval.filters.visible`'s present filter)."""
    return live & (expires > now.timestamp())


def best_first(scores: npt.NDArray[np.floating[Any]], step: int) -> Iterator[npt.NDArray[np.intp]]:
    """Indices by descending score (ties by index) in batches of ``step``, then twice as many
    each time (a scope whose best matches are mostly history costs few round trips); the full
    sort only if the first ``step`` (found by partition) are not enough."""
    if len(scores) <= step:
        yield np.argsort(-scores, kind="stable")
        return
    # Everything tied with the step-th best comes first too, so ties stay in index order.
    floor = -np.partition(-scores, step - 1)[step - 1]
    top = np.flatnonzero(scores >= floor)
    rest = np.flatnonzero(scores < floor)
    yield from _doubling(top[np.lexsort((top, -scores[top]))], step)
    yield from _doubling(rest[np.argsort(-scores[rest], kind="stable")], 2 * step)


def _doubling(order: npt.NDArray[np.intp], step: int) -> Iterator[npt.NDArray[np.intp]]:
    i = 0
    while i < len(order):
        yield order[i : i + step]
        i, step = i + step, min(2 * step, 4096)


def keep_visible(
    session: Session,
    ids: Sequence[str],
    scores: npt.NDArray[np.floating[Any]],
    where: Sequence[Any],
    limit: int,
    among: npt.NDArray[np.intp] | None = None,
    sure: npt.NDArray[np.bool_] | None = None,
) -> dict[str, float]:
    """The best ``limit`` of ``ids`` (only those at ``among``, if given) by ``scores`` that the
    read's filters admit, best first.

    ``sure``: ids the filters are known to admit (a present read's :func:`admitted` rows at
    the scope version the read holds), kept without asking SQL; the rest are checked.
    """
    pick = np.arange(len(ids)) if among is None else among
    out: dict[str, float] = {}
    for batch in best_first(scores[pick], max(4 * limit, 64)):
        at = pick[batch]
        ask = [ids[i] for i in (at if sure is None else at[~sure[at]])]
        keep = (
            set(session.scalars(select(col(Memory.memory_id)).where(col(Memory.memory_id).in_(ask), *where)))
            if ask
            else set()
        )
        for i in at:
            if len(out) >= limit:
                break
            if (sure is not None and sure[i]) or ids[i] in keep:
                out[ids[i]] = float(scores[i])
        if len(out) >= limit:
            break
    return out
