"""Turning pydantic's errors into memworks' own: one message, naming the field."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from memworks.errors import InvalidInput
from memworks.models.schemas import Scope
from memworks.models.types import BoundedTime

M = TypeVar("M", bound=BaseModel)

#: Errors of one value an error message lists before it counts the rest.
MAX_ERRORS = 10
#: Longest question one read may ask (characters): a question, not a document; reading it
#: (its periods, names and words) then costs a bounded amount on every door.
MAX_QUERY_CHARS = 1000


def parse_model(model: type[M], data: M | dict[str, Any], where: str) -> M:
    """Validate ``data`` as ``model``; a failure raises ``InvalidInput`` naming the field (the
    first wrong one) and saying what is wrong with each, so one try shows every fix a line needs."""
    if isinstance(data, model):
        return data
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        fields = [".".join(str(p) for p in err["loc"]) or where for err in errors]
        said = "; ".join(f"field {f!r}: {err['msg']}" for f, err in zip(fields, errors[:MAX_ERRORS], strict=False))
        more = f"; and {len(errors) - MAX_ERRORS} more" if len(errors) > MAX_ERRORS else ""
        raise InvalidInput(f"{where}: {said}{more}", field=fields[0]) from None


_TIME: TypeAdapter[datetime] = TypeAdapter(BoundedTime)


def check_time(value: datetime | str | None, field: str) -> datetime | None:
    """A read's or write's time given in Python: an aware datetime, or an ISO 8601 string with
    an offset (``2025-02-01T00:00:00Z``), within the supported range.

    Raises:
        InvalidInput: naming ``field``.
    """
    if value is None:
        return None
    if not isinstance(value, (datetime, str)):
        # pydantic would read a number as a Unix time: a likely mistake rather than a time.
        raise InvalidInput(
            f"{field}: give a datetime with a timezone or an ISO 8601 string with an offset "
            f"(e.g. 2025-02-01T00:00:00+00:00), not {type(value).__name__}",
            field=field,
        )
    try:
        return _TIME.validate_python(value)
    except ValidationError as exc:
        err = exc.errors()[0]
        msg = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "timezone_aware":
            msg = "needs a UTC offset, e.g. 2025-02-01T00:00:00+00:00 or 2025-02-01T00:00:00Z"
        raise InvalidInput(f"{field}: {msg}", field=field) from None


def check_query(query: object) -> str:
    """A read's question: a non-empty string of at most :data:`MAX_QUERY_CHARS` characters.

    Raises:
        InvalidInput: naming ``query``.
    """
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query must be a non-empty string", field="query")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"query must be at most {MAX_QUERY_CHARS} characters, got {len(query)}: ask a shorter question",
            field="query",
        )
    return query


def require_scope(scope: object) -> Scope:
    """Reads and writes need a scope: never a global query."""
    if not isinstance(scope, Scope):
        raise InvalidInput("scope is required: Scope(tenant_id=..., user_id=...)", field="scope")
    return scope
