"""Rendering for the CLI: JSON with ISO 8601 offsets, and plain tables."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel


def jsonable(obj: Any) -> Any:
    """Plain JSON values; datetimes as ISO 8601 with an explicit offset (``+00:00``)."""
    if isinstance(obj, BaseModel):
        return jsonable(obj.model_dump())
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set):
        return [jsonable(v) for v in obj]
    if isinstance(obj, datetime):
        return obj.isoformat()
    if isinstance(obj, Enum):
        return obj.value
    return obj


def dumps(obj: Any) -> str:
    return json.dumps(jsonable(obj), ensure_ascii=False, indent=2)


def table(
    rows: Sequence[Sequence[Any]],
    headers: Sequence[str],
    *,
    max_width: int = 48,
    limits: Sequence[int] | None = None,
) -> str:
    """A fixed-width text table; a cell longer than its column's limit (``limits``, else
    ``max_width``) is cut with an ellipsis."""

    def cell(v: Any, limit: int) -> str:
        if isinstance(v, datetime):
            v = v.strftime("%Y-%m-%d %H:%M")
        s = "" if v is None else str(v.value if isinstance(v, Enum) else v)
        s = s.replace("\n", " ")
        return s if len(s) <= limit else s[: limit - 1] + "…"

    caps = list(limits) if limits is not None else [max_width] * len(headers)
    body = [[cell(v, cap) for v, cap in zip(r, caps, strict=True)] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(headers)]

    def line(r: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()

    return "\n".join([line(list(headers)), line(["-" * w for w in widths]), *(line(r) for r in body)])


def memory_table(rows: Sequence[Any]) -> str:
    """Memory records as a table: key, value, kind, status, event time, source, times and evidence."""
    return table(
        [
            (
                r.key or "-",
                r.value,
                r.kind,
                r.status,
                getattr(r, "event_at", None),
                r.source,
                r.valid_from,
                r.valid_to,
                r.recorded_at,
                r.retracted_at,
                ",".join(r.evidence),
            )
            for r in rows
        ],
        [
            "key",
            "value",
            "kind",
            "status",
            "event_at",
            "source",
            "valid_from",
            "valid_to",
            "recorded_at",
            "retracted_at",
            "evidence",
        ],
    )


#: Columns of :func:`compact_memory_table` and the most characters each shows: 120 in all.
_COMPACT = (("key", 30), ("value", 30), ("status", 20), ("valid_from", 10), ("valid_to", 10), ("event_at", 10))


def compact_memory_table(rows: Sequence[Any]) -> str:
    """Memory records in 120 columns: key, value, status and the days of their valid and event
    times (the full table is :func:`memory_table`)."""

    def day(t: datetime | None) -> str:
        return t.strftime("%Y-%m-%d") if t is not None else ""

    body = [
        (r.key or "-", r.value, r.status, day(r.valid_from), day(r.valid_to), day(getattr(r, "event_at", None)))
        for r in rows
    ]
    return table(body, [h for h, _ in _COMPACT], limits=[w for _, w in _COMPACT])
