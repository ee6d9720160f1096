"""What every actor shares: the current message id, the payload types, and rejecting bad payloads.

A message is checked once, before its actor runs, by :class:`CheckArguments`: against the
actor's signature, strictly by type, and against the constraints its parameter types carry
(``Annotated`` types below). An actor trusts its arguments.
"""

from __future__ import annotations

import inspect
import typing
from functools import cache
from typing import Annotated, Any

import dramatiq
from dramatiq.middleware import CurrentMessage, SkipMessage
from pydantic import AfterValidator, Field, StringConstraints, TypeAdapter, ValidationError

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.pipelines.deletion import TARGETS
from memworks.services import jobs
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)


def _known_target(target: str) -> str:
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}")
    return target


#: A deletion request id (a uuid4 in hex).
RequestId = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]
#: One manifest target (a projection a deletion erases).
Target = Annotated[str, AfterValidator(_known_target)]
#: A tenant id or a task type.
Name = Annotated[str, StringConstraints(min_length=1, max_length=200)]
#: An age in seconds.
Seconds = Annotated[int, Field(ge=0)]


def message_id() -> str:
    msg = CurrentMessage.get_current_message()
    return msg.message_id if msg else ""


def record_rejection(
    actor: str, payload: dict[str, Any], *, field: str, reason: str, reference: str, run: bool = True
) -> None:
    """Keep a bad payload and its reason in SQL (dead letters expire) and log it; with ``run``
    (refused before its actor ran), the run it ended too."""
    jobs.record_rejection(
        get_runtime(),
        actor=actor,
        payload=payload,
        field=field,
        reason=reason,
        reference=reference,
        now=utcnow(),
        run=run,
    )
    log.warning("message.rejected", reason=reason)


def reject(actor: str, payload: dict[str, Any], exc: ValidationError) -> InvalidInput:
    """Record a payload that failed a model inside its actor and build the error to raise.

    Prefer a constrained parameter type (checked by :class:`CheckArguments` before the actor runs).
    """
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "payload"
    reason = f"{where}: {err['msg']}"
    # The run itself is recorded by the job-run middleware, as rejected.
    record_rejection(actor, payload, field=where, reason=reason, reference=message_id(), run=False)
    return InvalidInput(reason, field=where)


class RejectedMessage(SkipMessage, InvalidInput):
    """A message that cannot be a call of its actor: skipped, failed (a dead letter), not retried."""


@cache
def _adapters(fn: Any) -> tuple[inspect.Signature, dict[str, TypeAdapter[Any]]]:
    hints = typing.get_type_hints(fn, include_extras=True)  # keep Annotated constraints
    return inspect.signature(fn), {k: TypeAdapter(v) for k, v in hints.items() if k != "return"}


def argument_problem(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, str] | None:
    """``(field, reason)`` when ``args``/``kwargs`` do not fit ``fn``'s signature and types."""
    sig, adapters = _adapters(fn)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as exc:
        return "arguments", str(exc)
    for name, value in bound.arguments.items():
        if name in adapters:
            try:
                adapters[name].validate_python(value, strict=True)
            except ValidationError as exc:
                return name, f"{name}: {exc.errors()[0]['msg']}"
    return None


def ours(broker: dramatiq.Broker, message: dramatiq.MessageProxy) -> bool:
    """The message is for one of memworks' own actors (a broker may carry others)."""
    try:
        actor = broker.get_actor(message.actor_name)
    except dramatiq.errors.ActorNotFound:
        return False
    return str(getattr(actor.fn, "__module__", "")).startswith("memworks.")


class CheckArguments(dramatiq.Middleware):
    """Check a memworks message against its actor's signature before running it.

    A malformed message (wrong arity, wrong types, a value its parameter type refuses) is bad
    input: retrying cannot fix it, so it is recorded in RejectedInput, failed straight to the
    dead letters and never run.
    """

    def before_process_message(self, broker: dramatiq.Broker, message: dramatiq.MessageProxy) -> None:
        if not ours(broker, message):
            return
        problem = argument_problem(broker.get_actor(message.actor_name).fn, tuple(message.args), dict(message.kwargs))
        if problem is None:
            return
        field, reason = problem
        payload = {"args": list(message.args), "kwargs": dict(message.kwargs)}
        record_rejection(message.actor_name, payload, field=field, reason=reason, reference=message.message_id)
        message.fail()
        raise RejectedMessage(f"{message.actor_name}: {reason}", field=field)
