"""memworks as LangGraph's long-term memory store (``BaseStore``), for ``graph.compile(store=...)``.

Needs the ``agents`` extra (``pip install 'memworks[agents]'``). The store is bound to one tenant
(and optionally one user); a namespace is ``(user_id, *labels)``: its first label names the user
whose memory is read or written, the rest name the conversation (the episode's session).

memworks governs what is remembered, so this is not a plain key-value store:

- ``put(ns, key, {"content": ..., "source": "user", "occurred_at": ...})`` records a turn with
  episode id ``key``. Turns are immutable: the same key, content and time again is a no-op (so
  give ``occurred_at`` for retries to be harmless; it defaults to now), and the same key with
  other content is a ``Conflict``. The write gate extracts what is
  worth keeping; ``source`` defaults to ``model_inference`` (untrusted until confirmed). In the
  embedded mode the store waits for the gate, so the next search sees the write.
- ``search(ns, query=...)`` returns the governed memories ranked for the query (an empty list
  is an abstention); without a query, every current record. Items' keys are memory ids. A store
  made with ``include_profile=True`` puts first the user's profile lines that bear on the
  question (value ``{"text", "tier", "profile": True}``; tier ``constraint`` first): an allergy or
  an aversion reaches the agent before it recommends, though no word of the question names it.
- ``get(ns, memory_id)`` returns one record; ``delete(ns, memory_id)`` erases it everywhere
  through a deletion request (its manifest id is in the log, and ``mw.manifest`` reads it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from pydantic import ValidationError

from memworks.client import Memworks
from memworks.errors import InvalidInput, NotFound
from memworks.logging import get_logger
from memworks.models.enums import Source
from memworks.models.schemas import HitOut, MemoryOut, ProfileLineOut, Scope

log = get_logger("memworks.agents")
#: Turn numbers are seconds since this instant, so a session's turns sort like their event times.
_TURN_EPOCH = datetime(2020, 1, 1, tzinfo=UTC)
#: The session of a turn whose namespace has no label after the user.
DEFAULT_SESSION = "langgraph"


def _hit_value(h: HitOut) -> dict[str, Any]:
    return {
        "value": h.value,
        "key": h.key,
        "kind": h.kind.value,
        "source": h.source.value,
        "text": h.text,
        "valid_from": h.valid_from.isoformat(),
        "valid_to": h.valid_to.isoformat() if h.valid_to else None,
        "evidence": list(h.evidence),
        "stale": bool(getattr(h, "stale", False)),
        "subject_mismatch": bool(getattr(h, "subject_mismatch", False)),
    }


def _record_value(m: MemoryOut) -> dict[str, Any]:
    return {
        "value": m.value,
        "key": m.key,
        "kind": m.kind.value,
        "source": m.source.value,
        "text": m.text,
        "status": m.status.value,
        "trusted": m.trusted,
        "valid_from": m.valid_from.isoformat(),
        "valid_to": m.valid_to.isoformat() if m.valid_to else None,
        "evidence": list(m.evidence),
    }


def _profile_items(lines: Iterable[ProfileLineOut]) -> list[tuple[str, dict[str, Any], datetime, float | None]]:
    # A line is read now, from the user's current records: its time is the read's.
    now = datetime.now(UTC)
    return [(ln.memory_id, {"text": ln.text, "tier": ln.tier, "profile": True}, now, None) for ln in lines]


def _matches(value: dict[str, Any], wanted: dict[str, Any] | None) -> bool:
    return not wanted or all(value.get(k) == v for k, v in wanted.items())


class MemworksStore(BaseStore):
    """LangGraph's ``BaseStore`` over a ``Memworks`` facade, bound to ``tenant_id`` (and ``user_id``)."""

    def __init__(
        self, mw: Memworks, tenant_id: str, *, user_id: str | None = None, include_profile: bool = False
    ) -> None:
        try:
            Scope(tenant_id=tenant_id, user_id=user_id)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise InvalidInput(f"store binding: {err['loc'][0]}: {err['msg']}", field=str(err["loc"][0])) from None
        self.mw, self.tenant_id, self.user_id = mw, tenant_id, user_id
        self.include_profile = include_profile

    # -- the two methods BaseStore asks for ---------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # The facade is synchronous (SQL and, embedded, the in-process queue): run it off the loop.
        return await asyncio.to_thread(self.batch, list(ops))

    # -- one operation ------------------------------------------------------------------------

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, PutOp):
            if op.value is None:
                self._delete(op.namespace, op.key)
            else:
                self._put(op.namespace, op.key, op.value)
            return None
        if isinstance(op, ListNamespacesOp):
            # Listing a tenant's users is an operator's task; a user-bound store knows its one namespace.
            mine: list[tuple[str, ...]] = [(self.user_id,)] if self.user_id else []
            return mine
        raise TypeError(f"unknown store operation {type(op).__name__}")

    def _scope(self, namespace: tuple[str, ...], *, need_user: bool) -> Scope:
        user = namespace[0] if namespace else self.user_id
        if self.user_id is not None and user != self.user_id:
            raise InvalidNamespaceError(
                f"namespace {namespace!r} names user {user!r}; this store is bound to {self.user_id!r}"
            )
        if user is None and need_user:
            raise InvalidNamespaceError("the namespace's first label must be the user id, e.g. ('alice', 'chat')")
        try:
            return Scope(tenant_id=self.tenant_id, user_id=user)
        except ValidationError as exc:
            raise InvalidNamespaceError(f"namespace {namespace!r}: the user id {exc.errors()[0]['msg']}") from None

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        scope = self._scope(namespace, need_user=False)
        try:
            m = self.mw.memory(scope, key)["memory"]
        except (NotFound, InvalidInput):
            return None
        return Item(
            value=_record_value(m),
            key=m.memory_id,
            namespace=namespace,
            created_at=m.recorded_at,
            updated_at=m.recorded_at,
        )

    def _search(self, op: SearchOp) -> list[SearchItem]:
        ns = op.namespace_prefix
        scope = self._scope(ns, need_user=False)
        found: list[tuple[str, dict[str, Any], datetime, float | None]]
        if op.query:
            # A profile is one user's: a tenant-wide search has none.
            with_profile = self.include_profile and scope.user_id is not None
            res = self.mw.retrieve(scope, op.query, k=op.limit + op.offset, include_profile=with_profile)
            found = _profile_items(res.profile.lines if res.profile else [])
            shown = {f[0] for f in found}
            hits = [h for h in res.hits if h.memory_id not in shown]
            found += [(h.memory_id, _hit_value(h), h.recorded_at, h.score) for h in hits]
        else:
            found = [(m.memory_id, _record_value(m), m.recorded_at, None) for m in self.mw.memories(scope)]
        kept = [f for f in found if _matches(f[1], op.filter)][op.offset : op.offset + op.limit]
        return [
            SearchItem(namespace=ns, key=mid, value=v, created_at=t, updated_at=t, score=s) for mid, v, t, s in kept
        ]

    def _put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any]) -> None:
        scope = self._scope(namespace, need_user=True)
        content = value.get("content", value.get("text"))
        if not isinstance(content, str):
            raise InvalidInput("value: a turn needs its text as value['content']", field="content")
        when = value.get("occurred_at") or datetime.now(UTC)
        try:
            when = when if isinstance(when, datetime) else datetime.fromisoformat(str(when))
        except ValueError:
            raise InvalidInput("occurred_at: not an ISO 8601 time", field="occurred_at") from None
        if when.tzinfo is None:
            raise InvalidInput("occurred_at: needs a UTC offset (e.g. +00:00)", field="occurred_at")
        episode = {
            "episode_id": key,
            "tenant_id": scope.tenant_id,
            "user_id": scope.user_id,
            "session_id": ":".join(namespace[1:]) or DEFAULT_SESSION,
            "turn": min(max(int((when - _TURN_EPOCH).total_seconds()), 0), 2**31 - 1),
            "role": value.get("role", "user"),
            "source": value.get("source", Source.MODEL_INFERENCE),
            "content": content,
            "occurred_at": when,
            "metadata": {"via": "langgraph"},
        }
        self.mw.enqueue_episode(episode)  # validated there: a bad field is named, nothing stored
        self.mw.drain()

    def _delete(self, namespace: tuple[str, ...], key: str) -> None:
        scope = self._scope(namespace, need_user=True)
        try:
            rid = self.mw.delete_memory(scope, key)
        except NotFound:
            return  # deleting what is not there is a no-op, as in every BaseStore
        self.mw.drain()
        log.info("langgraph.delete", request_id=rid, memory_id=key)
