"""Lanes: a workload's queue and its bulk lane, so one tenant's flood does not stall another's work.

Extraction and deletion each have a normal queue and a bulk lane (:data:`BULK_LANES`). Work of a
tenant over its backlog threshold (:mod:`memworks.services.fairness`) is sent to the bulk lane;
every follow-on message (a deletion request's purges and verifications, a retry, a delayed
re-purge, the rest of an extraction past its budget) stays in the lane of the message that sent it.

Both are ordinary dramatiq queues, served by the same workers: a worker runs one consumer per
queue, each fetching at most ``2 × threads`` messages ahead into the worker's one work queue. A
bulk lane is served by a twin of each of its workload's actors (the same function, named
``<actor>_bulk``) declared with a lower priority (:data:`BULK_PRIORITY`), and dramatiq's work
queue hands out messages by priority first: a message of the normal queues waits for the
messages already running, never behind the bulk messages fetched ahead of it. Each of those is
bounded in work (the per-episode caps, the per-message budgets). When the normal queues are idle
the bulk lanes have every thread.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import dramatiq
from dramatiq.brokers.redis import RedisBroker
from dramatiq.brokers.stub import StubBroker
from dramatiq.common import dq_name, q_name, xq_name
from dramatiq.middleware import CurrentMessage

from memworks.workers.broker import BULK_LANES, register

__all__ = [
    "BULK_LANES",
    "BULK_PRIORITY",
    "busy",
    "current_lane",
    "depth",
    "held_ids",
    "lane_of",
    "lanes_of",
    "send",
    "with_bulk_lane",
]

#: Priority of the bulk lanes' actors (dramatiq runs lower numbers first; actors default to 0).
BULK_PRIORITY = 100
#: Each laned actor's twin on its bulk lane, by the actor's name.
_TWINS: dict[str, dramatiq.Actor[Any, Any]] = {}


def with_bulk_lane(actor: dramatiq.Actor[Any, Any]) -> dramatiq.Actor[Any, Any]:
    """Declare ``actor``'s twin on its workload's bulk lane (same function and options, named
    ``<actor>_bulk``, at :data:`BULK_PRIORITY`); returns ``actor``."""
    twin = dramatiq.actor(
        actor_name=f"{actor.actor_name}_bulk",
        queue_name=BULK_LANES[actor.queue_name],
        priority=BULK_PRIORITY,
        **actor.options,
    )(actor.fn)
    _TWINS[actor.actor_name] = register(twin)
    return actor


def lane_of(queue: str, *, bulk: bool) -> str:
    """The queue a workload's message goes to: ``queue`` itself, or its bulk lane when ``bulk``."""
    return BULK_LANES.get(queue, queue) if bulk else queue


def lanes_of(queues: Iterable[str]) -> list[str]:
    """``queues`` with the bulk lane of each workload named (``deletion`` → ``deletion``,
    ``deletion.bulk``), so a worker told to serve a workload serves all of its work."""
    return list(dict.fromkeys(lane for q in queues for lane in (q, BULK_LANES.get(q, q))))


def current_lane() -> str | None:
    """The queue of the message being processed on this thread, if any."""
    msg = CurrentMessage.get_current_message()
    return q_name(msg.queue_name) if msg is not None else None


def send(
    actor: dramatiq.Actor[Any, Any], *args: Any, bulk: bool | None = None, delay: int | None = None
) -> dramatiq.Message[Any]:
    """Send ``actor(*args)`` on its workload's normal queue, or on its bulk lane (through its twin).

    ``bulk=None`` (a follow-on message): the bulk lane when the message being processed is on
    the bulk lane of ``actor``'s workload, else the normal queue.
    """
    if bulk is None:
        bulk = current_lane() == BULK_LANES.get(actor.queue_name)
    target = _TWINS[actor.actor_name] if bulk else actor
    return target.send_with_options(args=args, delay=delay)


def depth(broker: dramatiq.Broker, queue: str) -> int:
    """Messages waiting on ``queue`` (delayed ones included; not those a worker already holds)."""
    if isinstance(broker, RedisBroker):
        ns = broker.namespace
        return int(broker.client.llen(f"{ns}:{queue}")) + int(broker.client.llen(f"{ns}:{dq_name(queue)}"))
    if isinstance(broker, StubBroker):
        return sum(broker.queues[name].qsize() for name in (queue, dq_name(queue)) if name in broker.queues)
    return 0


#: A worker silent this long (no fetch or ack reached Redis) holds nothing: it died with the
#: messages it had fetched. dramatiq requeues them itself only after its heartbeat timeout (60 s)
#: and then only when a rare maintenance pass runs, which took minutes in the chaos harness.
SILENT_WORKER_S = 30


def held_ids(broker: dramatiq.Broker, workload: str) -> set[int] | None:
    """The ids (first argument) named by every message of ``workload`` the broker still holds:
    waiting, delayed, retried, fetched by a live worker and not yet acked, or dead-lettered.
    ``None`` when the broker cannot tell (the in-process broker does not show what its workers hold).

    dramatiq's Redis broker keeps each message in its queue's ``.msgs`` hash from enqueue until
    ack, and a fetched one in its worker's ack set; an id named by no message, or only by messages
    in the ack sets of workers silent for :data:`SILENT_WORKER_S`, names work no one will do.
    """
    if not isinstance(broker, RedisBroker):
        return None
    ns, client = broker.namespace, broker.client
    beats = client.zrangebyscore(f"{ns}:__heartbeats__", 0, int((time.time() - SILENT_WORKER_S) * 1000))
    silent = [w.decode() if isinstance(w, bytes) else str(w) for w in beats]
    held: set[int] = set()
    for lane in (lane_of(workload, bulk=False), lane_of(workload, bulk=True)):
        pipe = client.pipeline(transaction=False)  # one round trip for every silent worker's ack sets
        for worker in silent:
            for queue in (lane, dq_name(lane)):
                pipe.smembers(f"{ns}:__acks__.{worker}.{queue}")
        orphans = {mid for members in (pipe.execute() if silent else []) for mid in members}
        for queue in (lane, dq_name(lane), xq_name(lane)):
            for mid, data in client.hscan_iter(f"{ns}:{queue}.msgs", count=500):
                if mid in orphans:
                    continue
                args = dramatiq.Message.decode(data).args
                held.update(i for i in (args[0] if args else ()) if isinstance(i, int))
    return held


def busy(broker: dramatiq.Broker, workload: str) -> set[bool]:
    """The lanes of ``workload`` with messages waiting, as ``bulk`` flags: a sweeper re-drives
    lost work only through an idle lane (in a busy one it may still be queued)."""
    return {bulk for bulk in (False, True) if depth(broker, lane_of(workload, bulk=bulk))}
