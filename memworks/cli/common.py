"""Shared pieces of the command line: exit codes, argument types, JSON-lines input."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from memworks.errors import InvalidInput

EXIT_OK, EXIT_FAIL, EXIT_BAD_INPUT = 0, 1, 2
T = TypeVar("T")


def iso_time(value: str) -> datetime:
    """An ISO 8601 time with a UTC offset (argparse type)."""
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an ISO 8601 time (e.g. 2025-02-01T00:00:00+00:00)") from None
    if t.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{value!r} needs a UTC offset (e.g. +00:00)")
    return t


def csv_list(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's own exit code 2 matches "bad input"
        self.print_usage(sys.stderr)
        print(f"memworks: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def read_jsonl(path: Path, parse: Callable[[dict[str, Any], str], T]) -> list[T]:
    """Parse and validate every line of a .jsonl file before anything is stored."""
    if not path.exists():
        raise InvalidInput(f"{path}: no such file", field="file")
    out = []
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"{path}:{n}: not valid JSON ({exc.msg})", field="line") from None
            if not isinstance(data, dict):
                raise InvalidInput(f"{path}:{n}: each line must be a JSON object", field="line")
            out.append(parse(data, f"{path}:{n}"))
    return out
