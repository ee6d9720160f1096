"""Column types that behave the same on SQLite and PostgreSQL, and the strict types of input:
the one time type, bounded metadata, and JSON numbers as memworks reads them."""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, AwareDatetime, BeforeValidator
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


#: What an input time given as text must start with: an ISO 8601 date and time (a number, or a
#: string of digits, would otherwise be read as a Unix time).
_ISO_START = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}")
#: Longest time text accepted (``2025-02-01T09:00:00.123456789+05:30`` has 35 characters).
MAX_TIME_CHARS = 64
_TIME_HELP = "an ISO 8601 string with a UTC offset, e.g. 2025-02-01T09:00:00+00:00"


def time_input(value: Any) -> Any:
    """A time as given: an ISO 8601 string (JSON) or a ``datetime`` (Python), never a number.

    Raises:
        ValueError: a number, a boolean, any other type, or text that is not an ISO 8601 date and time.
    """
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        if len(value) > MAX_TIME_CHARS or not _ISO_START.match(value):
            raise ValueError(f"must be {_TIME_HELP}")
        return value
    raise ValueError(f"must be {_TIME_HELP}, not {_kind(value)}")


#: An ISO 8601 time with a UTC offset in the supported range: episodes', outcomes' and reads' times.
#: Python callers may give an aware ``datetime``; a number is never read as a time.
BoundedTime = Annotated[AwareDatetime, BeforeValidator(time_input), AfterValidator(in_range)]


# -- JSON numbers ---------------------------------------------------------------------------------

#: Most characters of a number's JSON text (a double needs at most 24: ``-1.7976931348623157e+308``).
MAX_NUMBER_CHARS = 40
#: Integers in metadata stay below this magnitude (at most 39 digits, 40 characters with a sign).
_INT_BOUND = 10 ** (MAX_NUMBER_CHARS - 1)


class RefusedNumber:
    """A JSON number memworks does not accept: longer than ``MAX_NUMBER_CHARS`` characters, or
    not finite (``NaN``, ``Infinity``, ``1e999``). :func:`load_json` leaves one in place of such a
    number so that validation refuses it naming the field it stands in."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    @property
    def reason(self) -> str:
        if len(self.text) > MAX_NUMBER_CHARS:
            return f"numbers may have at most {MAX_NUMBER_CHARS} characters (this one has {len(self.text)})"
        return f"numbers must be finite (not {self.text[:MAX_NUMBER_CHARS]})"

    def __repr__(self) -> str:
        return f"RefusedNumber({self.text[:20]!r}{'...' if len(self.text) > 20 else ''})"


def _json_float(text: str) -> float | RefusedNumber:
    if len(text) > MAX_NUMBER_CHARS:
        return RefusedNumber(text)
    value = float(text)
    return value if math.isfinite(value) else RefusedNumber(text)


def _json_int(text: str) -> int | RefusedNumber:
    # Checked before int(): Python refuses more than 4,300 digits with an error of its own.
    return RefusedNumber(text) if len(text) > MAX_NUMBER_CHARS else int(text)


def load_json(text: str | bytes) -> Any:
    """Parse JSON the way every input of memworks is read (HTTP bodies, ``.jsonl`` lines): a number
    longer than ``MAX_NUMBER_CHARS`` characters, ``NaN``, ``Infinity`` or a float that overflows
    becomes a :class:`RefusedNumber`, which no input field accepts.

    Raises:
        json.JSONDecodeError: the text is not JSON.
    """
    return json.loads(text, parse_float=_json_float, parse_int=_json_int, parse_constant=RefusedNumber)


def refuse_numbers(value: Any) -> Any:
    """``value`` unless it is, or holds (in lists and objects), a :class:`RefusedNumber`.

    Raises:
        ValueError: saying why the number is refused.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, RefusedNumber):
            raise ValueError(item.reason)
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return value


# -- metadata -------------------------------------------------------------------------------------

#: Bounds of an episode's ``metadata``: its size as compact UTF-8 JSON, its keys counted over every
#: level, and its nesting (the object itself is level 1).
MAX_METADATA_BYTES = 16_384
MAX_METADATA_KEYS = 64
MAX_METADATA_DEPTH = 4
METADATA_HELP = (
    f"metadata must be a JSON object of at most {MAX_METADATA_BYTES} bytes, {MAX_METADATA_KEYS} keys "
    f"in all and {MAX_METADATA_DEPTH} levels of nesting, with finite numbers of at most {MAX_NUMBER_CHARS} characters"
)
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)


def _kind(value: Any) -> str:
    if isinstance(value, RefusedNumber):
        return "a number"
    return "a boolean" if isinstance(value, bool) else type(value).__name__


def bounded_metadata(value: Any) -> Any:
    """``value`` if it is a metadata object within the bounds (a non-object is left to the type check).

    Walks iteratively and stops at the first bound passed, so a deep or huge object costs little.

    Raises:
        ValueError: naming the bound passed, with every limit.
    """
    if not isinstance(value, dict):
        return value
    keys = 0
    floor = 0  # a lower bound of the JSON size: one byte per item, one per character of text
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if depth > MAX_METADATA_DEPTH:
                raise ValueError(f"{METADATA_HELP} (this one nests more than {MAX_METADATA_DEPTH} levels deep)")
            floor += len(item)
            if isinstance(item, dict):
                keys += len(item)
                if keys > MAX_METADATA_KEYS:
                    raise ValueError(f"{METADATA_HELP} (this one has more than {MAX_METADATA_KEYS} keys)")
                if any(not isinstance(k, str) for k in item):
                    raise ValueError(f"{METADATA_HELP} (its keys must be strings)")
                floor += sum(len(k) for k in item)
            if floor > MAX_METADATA_BYTES:
                raise ValueError(f"{METADATA_HELP} (this one is larger)")
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
        elif isinstance(item, str):
            floor += len(item)
            if floor > MAX_METADATA_BYTES:
                raise ValueError(f"{METADATA_HELP} (this one is larger)")
        elif isinstance(item, RefusedNumber):
            raise ValueError(f"{METADATA_HELP} ({item.reason})")
        elif isinstance(item, float) and not math.isfinite(item):
            raise ValueError(f"{METADATA_HELP} (this one holds {item})")
        elif isinstance(item, int) and not -_INT_BOUND < item < _INT_BOUND:
            raise ValueError(f"{METADATA_HELP} (this one holds an integer of more digits)")
    size = 0
    for chunk in _ENCODER.iterencode(value):
        size += len(chunk.encode("utf-8", "surrogatepass"))
        if size > MAX_METADATA_BYTES:
            raise ValueError(f"{METADATA_HELP} (this one is larger)")
    return value


#: An episode's free-form metadata, bounded (see :func:`bounded_metadata`).
Metadata = Annotated[dict[str, Any], BeforeValidator(bounded_metadata)]
