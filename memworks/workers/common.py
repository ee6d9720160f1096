"""What every actor shares: the current message id, and recording a rejected payload."""

from __future__ import annotations

import inspect
import typing
from functools import cache
from typing import Any

import dramatiq
from dramatiq.middleware import CurrentMessage, SkipMessage
from pydantic import TypeAdapter, ValidationError

from memworks.errors import InvalidInput
from memworks.logging import get_logger
from memworks.store import audit
from memworks.store.db import session_scope
from memworks.workers.runtime import get_runtime, utcnow

log = get_logger(__name__)


def message_id() -> str:
    msg = CurrentMessage.get_current_message()
    return msg.message_id if msg else ""


def record_rejection(actor: str, payload: dict[str, Any], *, field: str, reason: str, reference: str) -> None:
    """Keep a bad payload and its reason in SQL (dead letters expire) and log it."""
    with session_scope(get_runtime().engine) as s:
        audit.record_rejected(s, kind=f"message:{actor}", payload=payload, reason=reason, field=field, now=utcnow(),
                              reference=reference)  # fmt: skip
        audit.record_job(s, actor=actor, message_id=reference, outcome="rejected", started_at=utcnow(),
                         duration_ms=0.0, error=reason)  # fmt: skip
    log.warning("message.rejected", reason=reason)


def reject(actor: str, payload: dict[str, Any], exc: ValidationError) -> InvalidInput:
    """Record a payload that failed its actor's model and build the error to raise."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "payload"
    reason = f"{where}: {err['msg']}"
    record_rejection(actor, payload, field=where, reason=reason, reference=message_id())
    return InvalidInput(reason, field=where)


class RejectedMessage(SkipMessage, InvalidInput):
    """A message that cannot be a call of its actor: skipped, failed (a dead letter), not retried."""


@cache
def _adapters(fn: Any) -> tuple[inspect.Signature, dict[str, TypeAdapter[Any]]]:
    hints = typing.get_type_hints(fn)
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


class CheckArguments(dramatiq.Middleware):
    """Check a memworks message against its actor's signature before running it.

    A malformed message (wrong arity, wrong types) is bad input: retrying cannot fix it, so it
    is recorded in RejectedInput, failed straight to the dead letters and never run.
    """

    def before_process_message(self, broker: dramatiq.Broker, message: dramatiq.MessageProxy) -> None:
        actor = broker.get_actor(message.actor_name)
        if not str(getattr(actor.fn, "__module__", "")).startswith("memworks."):
            return
        problem = argument_problem(actor.fn, tuple(message.args), dict(message.kwargs))
        if problem is None:
            return
        field, reason = problem
        payload = {"args": list(message.args), "kwargs": dict(message.kwargs)}
        record_rejection(message.actor_name, payload, field=field, reason=reason, reference=message.message_id)
        message.fail()
        raise RejectedMessage(f"{message.actor_name}: {reason}", field=field)
