"""Shared pieces of the command line: exit codes, argument types, JSON-lines input, and the one-line
report of a database or Redis that does not answer."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from memworks.errors import InvalidInput

if TYPE_CHECKING:
    from memworks.client import Memworks
    from memworks.config import Settings

EXIT_OK, EXIT_FAIL, EXIT_BAD_INPUT = 0, 1, 2
T = TypeVar("T")


def iso_time(value: str) -> datetime:
    """An ISO 8601 time with a UTC offset (argparse type); a bare date is midnight UTC, said on stderr."""
    if _BARE_DATE.fullmatch(value.strip()):
        try:
            t = datetime.combine(date.fromisoformat(value.strip()), time(0), tzinfo=UTC)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r} is not a calendar date (e.g. 2025-02-01)") from None
        if value not in _dates_said:
            _dates_said.add(value)
            print(f"memworks: reading {value} as {t.isoformat()} (midnight UTC)", file=sys.stderr)
        return t
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an ISO 8601 time (e.g. 2025-02-01T00:00:00+00:00)"
        ) from None
    if t.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{value!r} needs a UTC offset (e.g. +00:00)")
    return t


_BARE_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
#: Bare dates whose reading was already printed (an argument given twice is said once).
_dates_said: set[str] = set()


#: A service's start re-sends episodes received this long ago (s) and still unprocessed; younger
#: ones most likely still have their message in the queue.
RESEND_OLDER_THAN_S = 60


def resend_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--resend-older-than",
        type=int,
        default=RESEND_OLDER_THAN_S,
        metavar="SECONDS",
        help="on start, re-send episodes stored this long ago and never processed (a broker outage, "
        f"a kill mid-ingest; default {RESEND_OLDER_THAN_S})",
    )


def csv_list(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's own exit code 2 matches "bad input"
        self.print_usage(sys.stderr)
        print(f"memworks: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


#: Bad lines an input file's report lists at most (all of them are counted).
MAX_REPORTED_LINES = 50


class BadLines(InvalidInput):
    """Some lines of an input file are bad: each with its line number, field and reason."""

    def __init__(self, path: Path, errors: list[dict[str, Any]], total: int) -> None:
        more = f"\n  ... and {total - len(errors)} more" if total > len(errors) else ""
        listed = "".join(f"\n  {path}:{e['line']}: {e['message']}" for e in errors)
        super().__init__(
            f"{path}: {total} bad line{'s' if total != 1 else ''}, nothing stored:{listed}{more}",
            field=errors[0]["field"] if errors else "line",
        )
        self.path, self.errors, self.total = path, errors, total

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": "invalid_input",
            "message": f"{self.path}: {self.total} bad lines, nothing stored",
            "field": self.field,
            "file": str(self.path),
            "bad_lines": self.total,
            "errors": self.errors,
        }


def read_jsonl(path: Path, parse: Callable[[dict[str, Any], str], T]) -> list[T]:
    """Parse and validate every line of a .jsonl file before anything is stored.

    Raises:
        BadLines: listing every bad line (the first ``MAX_REPORTED_LINES``) with its number and field.
    """
    if not path.exists():
        raise InvalidInput(f"{path}: no such file", field="file")
    out = []
    errors: list[dict[str, Any]] = []
    total = 0
    with path.open(encoding="utf-8") as f:
        try:
            lines = list(enumerate(f, start=1))
        except UnicodeDecodeError:
            raise InvalidInput(f"{path}: not UTF-8 text", field="file") from None
    for n, line in lines:
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            out.append(parse(_json_object(line), where))
        except InvalidInput as exc:
            total += 1
            if len(errors) < MAX_REPORTED_LINES:
                errors.append({"line": n, "field": exc.field or "line", "message": str(exc).removeprefix(f"{where}: ")})
    if total:
        raise BadLines(path, errors, total)
    if not out:
        # An empty export is almost always a mistake upstream (a failed query, a wrong path):
        # saying "0 queued" would look like success.
        raise InvalidInput(f"{path}: the file is empty (no JSON lines): nothing to store", field="file")
    return out


def _json_object(line: str) -> dict[str, Any]:
    from memworks.models.types import load_json  # numbers read as the HTTP API reads them

    try:
        data = load_json(line)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"not valid JSON ({exc.msg})", field="line") from None
    except RecursionError:
        raise InvalidInput("not valid JSON (nested too deep)", field="line") from None
    if not isinstance(data, dict):
        raise InvalidInput("each line must be a JSON object", field="line")
    return data


# -- services that do not answer ------------------------------------------------------------


def check_services(mw: Memworks) -> None:
    """Open a database connection and ping the broker, so that a long-running command fails at
    start (in one line, by ``main``) rather than at its first message or request."""
    with mw.runtime.engine.connect():
        pass
    client = getattr(mw.broker, "client", None)  # dramatiq's RedisBroker; the in-process one has none
    if client is not None:
        client.ping()


def hide_password(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return "<unparseable URL>"
    if not password:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def _reason(text: str, *secrets: str | None) -> str:
    line = (text.strip().splitlines() or [""])[0].strip().rstrip(".")
    for secret in secrets:
        if secret:
            line = line.replace(secret, "***")
    return line[:200]


def _password(url: str) -> str | None:
    try:
        return urlsplit(url).password
    except ValueError:
        return None


def database_failure(exc: BaseException, settings: Settings) -> str:
    """One line for a database that cannot be reached or used: what, where, what to check."""
    url = settings.database_url
    reason = _reason(str(getattr(exc, "orig", None) or exc), _password(url))
    check = (
        "that its directory exists and is writable"
        if url.startswith("sqlite")
        else "that the server is running and reachable and the user may log in"
    )
    return f"memworks: database error at {hide_password(url)}: {reason}. Check MEMWORKS_DATABASE_URL and {check}."


def redis_failure(exc: BaseException, settings: Settings) -> str:
    """One line for a Redis (broker or cache) that does not answer: what, where, what to check."""
    urls = [u for u in (settings.broker_url, settings.cache_url) if u.startswith("redis")]
    text = str(exc)
    # The cache may live on another Redis than the broker: name the one the error is about.
    url = next((u for u in urls if (h := _host_port(u)) and h in text), urls[0] if urls else "")
    which = (
        "MEMWORKS_CACHE_URL"
        if url and url == settings.cache_url and url != settings.broker_url
        else "MEMWORKS_BROKER_URL"
    )
    where = f" at {hide_password(url)}" if url else ""
    return (
        f"memworks: cannot reach Redis{where}: {_reason(text, *(_password(u) for u in urls))}. "
        f"Check {which} and that Redis is running and reachable."
    )


def _host_port(url: str) -> str:
    try:
        parts = urlsplit(url)
        return f"{parts.hostname}:{parts.port or 6379}"
    except ValueError:
        return ""
