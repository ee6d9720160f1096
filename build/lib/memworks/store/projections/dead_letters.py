"""Dead-letter messages: failed messages kept by the broker (Redis for 7 days, or in process).

Messages carry ids only, never content, but a dead letter still names the subject's episodes;
a deletion removes those messages (their episodes are re-sent from SQL if still wanted). Every
queue the workers serve is searched, the bulk lanes (``extraction.bulk``, ``deletion.bulk``)
included: the caller passes them all (``memworks.workers.QUEUES``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Protocol

import dramatiq
from dramatiq.brokers.redis import RedisBroker
from dramatiq.brokers.stub import StubBroker

from memworks.store.projections.base import Evidence


def _values(args: Any) -> Iterable[Any]:
    if isinstance(args, list | tuple):
        for a in args:
            yield from _values(a)
    elif isinstance(args, dict):
        for a in args.values():
            yield from _values(a)
    else:
        yield args


def mentions(args: Any, needles: set[Any]) -> bool:
    """Does any argument (nested lists included) equal one of ``needles``?"""
    return any(v in needles for v in _values(args))


class DeadLetters(Protocol):
    def purge(self, needles: set[Any]) -> int: ...
    def confirm_absent(self, needles: set[Any]) -> Evidence: ...
    def entries(self) -> list[dict[str, Any]]: ...
    def take(self, message_ids: set[str]) -> list[dict[str, Any]]: ...


class StubDeadLetters:
    def __init__(self, broker: StubBroker) -> None:
        self._broker = broker

    def entries(self) -> list[dict[str, Any]]:
        return [
            {"queue": q, "message_id": m.message_id, "actor": m.actor_name, "args": list(m.args), "kwargs": m.kwargs}
            for q, msgs in self._broker.dead_letters_by_queue.items()
            for m in msgs
        ]

    def take(self, message_ids: set[str]) -> list[dict[str, Any]]:
        """Remove and return these dead letters (all when ``message_ids`` is empty)."""
        taken = [d for d in self.entries() if not message_ids or d["message_id"] in message_ids]
        ids = {d["message_id"] for d in taken}
        for msgs in self._broker.dead_letters_by_queue.values():
            msgs[:] = [m for m in msgs if m.message_id not in ids]
        return taken

    def purge(self, needles: set[Any]) -> int:
        removed = 0
        for msgs in self._broker.dead_letters_by_queue.values():
            keep = [m for m in msgs if not mentions(m.args, needles)]
            removed += len(msgs) - len(keep)
            msgs[:] = keep
        return removed

    def confirm_absent(self, needles: set[Any]) -> Evidence:
        left = sum(1 for d in self.entries() if mentions(d["args"], needles))
        return Evidence("dead_letters", left, ["in-process dead letters, every queue"], datetime.now(UTC))


class RedisDeadLetters:
    """dramatiq's Redis layout: ``<ns>:<queue>.XQ`` (ids by time) and ``<ns>:<queue>.XQ.msgs``."""

    def __init__(self, broker: RedisBroker, queues: Iterable[str]) -> None:
        self._r = broker.client
        self._ns = broker.namespace
        self._queues = sorted(queues)

    def _entries(self) -> Iterable[tuple[str, bytes, dict[str, Any]]]:
        for q in self._queues:
            key = f"{self._ns}:{q}.XQ.msgs"
            for mid, raw in self._r.hscan_iter(key):
                try:
                    yield q, mid, json.loads(raw)
                except ValueError:
                    continue

    def entries(self) -> list[dict[str, Any]]:
        return [
            {"queue": q, "message_id": mid.decode(), "actor": m.get("actor_name"), "args": m.get("args", [])}
            for q, mid, m in self._entries()
        ]

    def take(self, message_ids: set[str]) -> list[dict[str, Any]]:
        """Remove and return these dead letters (all when ``message_ids`` is empty)."""
        taken = []
        for q, mid, m in list(self._entries()):
            if not message_ids or mid.decode() in message_ids:
                self._r.hdel(f"{self._ns}:{q}.XQ.msgs", mid)
                self._r.zrem(f"{self._ns}:{q}.XQ", mid)
                taken.append(
                    {
                        "queue": q,
                        "message_id": mid.decode(),
                        "actor": m.get("actor_name"),
                        "args": m.get("args", []),
                        "kwargs": m.get("kwargs", {}),
                    }
                )
        return taken

    def purge(self, needles: set[Any]) -> int:
        doomed = [(q, mid) for q, mid, m in self._entries() if mentions([m.get("args"), m.get("kwargs")], needles)]
        for q, mid in doomed:
            self._r.hdel(f"{self._ns}:{q}.XQ.msgs", mid)
            self._r.zrem(f"{self._ns}:{q}.XQ", mid)
        return len(doomed)

    def confirm_absent(self, needles: set[Any]) -> Evidence:
        left = sum(1 for _, _, m in self._entries() if mentions([m.get("args"), m.get("kwargs")], needles))
        return Evidence(
            "dead_letters", left, [f"redis {self._ns}:<queue>.XQ.msgs for {self._queues}"], datetime.now(UTC)
        )


def dead_letters_of(broker: dramatiq.Broker, queues: Iterable[str]) -> DeadLetters:
    """Dead-letter access for ``broker`` over ``queues``."""
    if isinstance(broker, RedisBroker):
        return RedisDeadLetters(broker, queues)
    if isinstance(broker, StubBroker):
        return StubDeadLetters(broker)
    raise TypeError(f"no dead-letter access for {type(broker).__name__}")
