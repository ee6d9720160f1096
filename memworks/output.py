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


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str], *, max_width: int = 48) -> str:
    """A fixed-width text table."""

    def cell(v: Any) -> str:
        if isinstance(v, datetime):
            v = v.strftime("%Y-%m-%d %H:%M")
        s = "" if v is None else str(v.value if isinstance(v, Enum) else v)
        s = s.replace("\n", " ")
        return s if len(s) <= max_width else s[: max_width - 1] + "…"

    body = [[cell(v) for v in r] for r in rows]
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
