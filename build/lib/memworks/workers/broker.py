"""The dramatiq broker: in-process (StubBroker) by default, Redis for distributed workers.

The delivery policy is set here, once, from settings: how often a failed message is retried
and how its backoff grows (dramatiq's ``Retries``), and how long a message may run (``TimeLimit``).
Every message gets it, whoever sends it (the facade, an actor, the scheduler); an actor states
its own options only where its queue truly differs, and says why.
"""

from __future__ import annotations

from typing import Any

import dramatiq
import structlog
from dramatiq.brokers.redis import RedisBroker
from dramatiq.brokers.stub import StubBroker
from dramatiq.middleware import CurrentMessage, Retries, TimeLimit, default_middleware

from memworks.config import Settings
from memworks.logging import configure_library_logging

#: The bulk lane of a workload: where the work of a tenant over its backlog threshold goes, served
#: at a lower priority, so that no other tenant's work waits behind it (:mod:`memworks.workers.lanes`).
BULK_LANES = {"extraction": "extraction.bulk", "deletion": "deletion.bulk"}
#: Queues by workload, so maintenance and deletions never wait behind a bulk import; each
#: workload's bulk lane follows it. A worker consumes every queue it is given, lanes included.
QUEUES = ("extraction", "extraction.bulk", "maintenance", "deletion", "deletion.bulk")


class BindLogContext(dramatiq.Middleware):
    """Bind message id and actor to every log line of a message; clear them after."""

    def before_process_message(self, broker: dramatiq.Broker, message: dramatiq.MessageProxy) -> None:
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(message_id=message.message_id, actor=message.actor_name)

    def after_process_message(
        self,
        broker: dramatiq.Broker,
        message: dramatiq.MessageProxy,
        *,
        result: Any = None,
        exception: BaseException | None = None,
    ) -> None:
        structlog.contextvars.clear_contextvars()

    after_skip_message = after_process_message


def delivery_policy(settings: Settings) -> list[dramatiq.Middleware]:
    """dramatiq's default middleware, with retries and time limits as ``settings`` say."""
    configured: dict[type[dramatiq.Middleware], dramatiq.Middleware] = {
        Retries: Retries(
            max_retries=settings.max_retries,
            min_backoff=settings.retry_min_backoff_ms,
            max_backoff=max(settings.retry_min_backoff_ms, settings.retry_max_backoff_ms),
        ),
        TimeLimit: TimeLimit(time_limit=settings.time_limit_ms),
    }
    return [configured.get(m) or m() for m in default_middleware]


def build_broker(settings: Settings) -> dramatiq.Broker:
    """A broker for ``settings.broker_url``, with memworks' delivery policy and middleware."""
    configure_library_logging()  # a process that configured its own logging keeps it
    policy = delivery_policy(settings)
    broker: dramatiq.Broker
    if settings.is_embedded_broker:
        broker = StubBroker(middleware=policy)
    else:
        broker = RedisBroker(  # type: ignore[no-untyped-call]
            url=settings.broker_url, namespace=settings.queue_namespace, middleware=policy
        )
    broker.add_middleware(CurrentMessage())
    broker.add_middleware(BindLogContext())
    return broker


_actors: list[dramatiq.Actor[Any, Any]] = []


def register(actor: dramatiq.Actor[Any, Any]) -> dramatiq.Actor[Any, Any]:
    """Remember an actor so :func:`use_broker` can move it to another broker."""
    _actors.append(actor)
    return actor


_middleware: list[dramatiq.Middleware] = []


def add_middleware(middleware: dramatiq.Middleware) -> None:
    """Middleware of memworks' own actors, added to every broker :func:`use_broker` sets up."""
    _middleware.append(middleware)


def use_broker(broker: dramatiq.Broker) -> dramatiq.Broker:
    """Make ``broker`` the global one and declare every memworks actor (and middleware) on it."""
    dramatiq.set_broker(broker)
    for m in _middleware:
        if not any(type(x) is type(m) for x in broker.middleware):
            broker.add_middleware(m)
    for actor in _actors:
        actor.broker = broker
        broker.declare_actor(actor)
    for q in QUEUES:
        broker.declare_queue(q)
    return broker
