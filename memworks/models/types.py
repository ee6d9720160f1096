"""Column types that behave the same on SQLite and PostgreSQL, and the one time type of input."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, AwareDatetime
from sqlalchemy import DateTime
from sqlalchemy import Enum as SAEnum
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware datetimes stored as UTC; SQLite gives them back aware too."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: memworks stores only timezone-aware times")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):
            value = datetime.fromisoformat(value)
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)  # type: ignore[no-any-return]
        return value.astimezone(UTC)  # type: ignore[no-any-return]


def enum_type(enum: type[StrEnum]) -> SAEnum:
    """Enums stored by value as plain strings: portable, and readable in SQL."""
    return SAEnum(
        enum,
        native_enum=False,
        create_constraint=False,
        length=40,
        values_callable=lambda e: [m.value for m in e],
        validate_strings=True,
    )


#: Earliest and latest year (UTC) of a time memworks accepts: an event's or a read's.
MIN_YEAR, MAX_YEAR = 1900, 2200


def in_range(value: datetime) -> datetime:
    """``value`` if it falls within [MIN_YEAR, MAX_YEAR] in UTC (an aware time only).

    Raises:
        ValueError: outside the range, or so near the ends of the calendar that it has no UTC
            equivalent (year 1 at +01:00, year 9999 at -01:00).
    """
    try:
        utc = value.astimezone(UTC)
    except OverflowError:
        utc = None
    if utc is None or not MIN_YEAR <= utc.year <= MAX_YEAR:
        raise ValueError(f"must be a time between {MIN_YEAR} and {MAX_YEAR} (UTC), e.g. 2025-02-01T09:00:00+00:00")
    return value


#: An ISO 8601 time with a UTC offset in the supported range: episodes', outcomes' and reads' times.
BoundedTime = Annotated[AwareDatetime, AfterValidator(in_range)]
