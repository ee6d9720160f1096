"""structlog set-up: level and format from ``MEMWORKS_LOG_LEVEL`` / ``MEMWORKS_LOG_FORMAT``;
readable lines when stderr is a terminal, JSON lines otherwise."""

from __future__ import annotations

import logging
import re
import sys
import traceback
from typing import TYPE_CHECKING, Any

import structlog

if TYPE_CHECKING:
    from memworks.config import Settings

_configured = False
_library = False


def log_options(settings: Settings, default: int = logging.INFO, *, tty: bool = False) -> tuple[int, bool]:
    """(level, readable console lines?) for a process whose own default level is ``default``.

    ``MEMWORKS_LOG_LEVEL`` overrides the default; ``MEMWORKS_LOG_FORMAT`` is ``auto`` (console
    lines when stderr is a terminal, ``tty``), ``console`` or ``json``.
    """
    level = logging.getLevelNamesMapping()[settings.log_level.upper()] if settings.log_level else default
    console = tty if settings.log_format == "auto" else settings.log_format == "console"
    return level, console


def configure_logging(level: int = logging.INFO) -> None:
    """Configure structlog once per process (the first call wins).

    Args:
        level: this process's default level; ``MEMWORKS_LOG_LEVEL`` overrides it.
    """
    global _configured
    if _configured:
        return
    from memworks.config import get_settings

    tty = sys.stderr.isatty()
    level, console = log_options(get_settings(), level, tty=tty)
    renderer: structlog.types.Processor = (
        structlog.dev.ConsoleRenderer(colors=tty) if console else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        # Resolve sys.stderr per logger, so a redirected stderr (tests, daemons) is honoured.
        logger_factory=lambda *_: structlog.PrintLogger(sys.stderr),
        cache_logger_on_first_use=False,
    )
    _redact_library_exceptions()
    drop_query_strings()
    _configured = True


def configure_library_logging() -> None:
    """As a library (a ``Memworks`` built inside someone's application), log through the standard
    library's ``logging`` under the ``memworks`` loggers, so the application's configuration
    decides what is shown: with none, Python shows warnings and errors only.

    Does nothing once :func:`configure_logging` has run (the CLI, the services and workers
    started by the ``dramatiq`` command log as processes of their own); that call may still
    come later and wins.
    """
    global _library
    if _configured or _library:
        return
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.stdlib.filter_by_level,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.stdlib.BoundLogger,
        logger_factory=structlog.stdlib.LoggerFactory(),
        cache_logger_on_first_use=False,
    )
    _redact_library_exceptions()
    drop_query_strings()
    _library = True


#: Loggers that write request paths or URLs: uvicorn's access log (``GET /v1/memories?user_id=…``)
#: and httpx's request log (the remote client's and the LLM adapter's URLs).
URL_LOGGERS = ("uvicorn.access", "httpx")
_URL_WITH_QUERY = re.compile(r"^(?:/|https?://)[^\s?#]*[?#]")


class DropQueryStrings(logging.Filter):
    """Cut the query string (and fragment) from every path or URL a log record carries.

    Query strings carry user ids, questions and keys (``?user_id=…&q=…``); the path alone
    names the route, and the ids a path holds are record and request ids.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(_without_query(a) for a in record.args)
        elif not record.args and isinstance(record.msg, str):
            record.msg = " ".join(str(_without_query(w)) for w in record.msg.split(" "))
        return True


def _without_query(value: object) -> object:
    text = value if isinstance(value, str) else str(value) if type(value).__name__ == "URL" else None
    if text is None or not _URL_WITH_QUERY.match(text):
        return value
    return re.split(r"[?#]", text, maxsplit=1)[0]


def drop_query_strings() -> None:
    """Install :class:`DropQueryStrings` on :data:`URL_LOGGERS` (once each).

    On the loggers themselves, not on handlers: uvicorn's own log configuration replaces the
    handlers when the server starts, and keeps a logger's filters.
    """
    for name in URL_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, DropQueryStrings) for f in logger.filters):
            logger.addFilter(DropQueryStrings())


#: Loggers of libraries that log a failed job's exception themselves (the worker's "failed to
#: process message" line), whose messages would quote statements and values.
REDACTED_LOGGERS = ("dramatiq",)


def _redact_library_exceptions() -> None:
    """Library log records keep an exception's type and place, not its message or traceback."""
    base = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = base(*args, **kwargs)
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and record.name.split(".")[0] in REDACTED_LOGGERS:
            f = exception_fields(exc)
            record.msg = f"{record.msg} [{f['error']} at {', '.join(f['at'][-3:])}]"
            record.exc_info, record.exc_text = None, None
        return record

    logging.setLogRecordFactory(factory)


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    return structlog.get_logger(name)  # type: ignore[no-any-return]


def exception_fields(exc: BaseException) -> dict[str, Any]:
    """What a log line may say about an unexpected exception: its type, its causes' types and
    where it was raised, never its message.

    Messages carry data: a database error quotes the statement and its parameters (a user's
    features, ids, text), a ``KeyError`` the missing key. The frames (file, line, function)
    point at the code without any of it.
    """
    causes, seen = [], {id(exc)}
    nxt = exc.__cause__ or exc.__context__
    while nxt is not None and id(nxt) not in seen:
        seen.add(id(nxt))
        causes.append(_type_name(nxt))
        nxt = nxt.__cause__ or nxt.__context__
    frames = traceback.extract_tb(exc.__traceback__)[-8:]
    return {
        "error": _type_name(exc),
        "causes": causes,
        "at": [f"{f.filename.rsplit('/', 2)[-1]}:{f.lineno}:{f.name}" for f in frames],
    }


def _type_name(exc: BaseException) -> str:
    kind = type(exc)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
