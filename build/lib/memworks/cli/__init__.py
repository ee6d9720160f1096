"""The ``memworks`` command line. Exit status: 0 success, 2 bad input, 1 other failure."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memworks.cli import (
    api,
    bench,
    deletion,
    doctor,
    evaluate,
    lessons,
    maintenance,
    mcp,
    memory,
)
from memworks.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FAIL,
    EXIT_OK,
    BadLines,
    Parser,
    check_services,
    database_failure,
    redis_failure,
)
from memworks.errors import Conflict, InvalidInput, MemworksError, NotFound

if TYPE_CHECKING:
    from memworks.config import Settings

#: Long-running services: they log their work at ``info`` unless ``MEMWORKS_LOG_LEVEL`` says
#: otherwise. Every other command (demo, ingest, retrieve, …) prints its answer and logs only
#: warnings, so that a terminal shows the answer rather than one line per job.
SERVICES = frozenset({"worker", "scheduler", "api", "mcp"})
#: Commands that do not work on the configured database (demo, eval, bench and chaos build their
#: own), or that must run on one whose schema is not current (``db upgrade`` mends it, ``doctor``
#: reports it). Every other command first checks that the schema is this code's.
NO_SCHEMA_CHECK = frozenset({"db", "doctor", "demo", "eval", "bench", "chaos"})
#: Libraries of the ``eval`` extra that only memworks_tools imports.
TOOLING_PACKAGES = frozenset({"matplotlib", "bm25s", "tqdm", "tiktoken"})


def build_parser() -> Parser:
    p = Parser(prog="memworks", description="Governed, bitemporal memory for AI agents.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for module in (memory, deletion, lessons, maintenance, doctor, evaluate, bench, api, mcp):
        module.register(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from pydantic import ValidationError
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError
    from sqlalchemy.exc import InterfaceError, OperationalError

    from memworks.config import get_settings
    from memworks.logging import configure_logging

    args = build_parser().parse_args(argv)
    try:
        settings = get_settings()
    except ValidationError as exc:
        for err in exc.errors():
            name = "MEMWORKS_" + ".".join(str(p) for p in err["loc"]).upper()
            print(f"memworks: bad setting {name}: {str(err['msg']).removeprefix('Value error, ')}", file=sys.stderr)
        return EXIT_BAD_INPUT
    configure_logging(logging.INFO if args.command in SERVICES else logging.WARNING)
    try:
        if args.command not in NO_SCHEMA_CHECK:
            _check_schema(settings)
        if args.command == "api":
            _check_before_serving()
        code = int(args.handler(args))
        sys.stdout.flush()  # a reader gone early is met here, where it is handled, not at exit
        return code
    except BrokenPipeError:
        # The reader stopped reading (`memworks manifest ID --json | head -1`): what it took is
        # what it wanted. Further writes, the interpreter's last flush included, go nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except (InvalidInput, Conflict, NotFound) as exc:
        _report(args, exc, f"memworks: bad input: {exc}")
        return EXIT_BAD_INPUT
    except MemworksError as exc:
        _report(args, exc, f"memworks: {exc}")
        return EXIT_FAIL
    except (OperationalError, InterfaceError) as exc:
        # A database that cannot be reached or used: one line saying where and what to check,
        # rather than the driver's traceback.
        _report(args, exc, database_failure(exc, settings))
        return EXIT_FAIL
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] not in TOOLING_PACKAGES:
            raise
        # eval, bench and chaos live in memworks_tools, whose libraries come with an extra.
        _report(
            args,
            exc,
            f"memworks {args.command} needs the eval extra: pip install 'memworks[eval]' (missing {exc.name})",
        )
        return EXIT_FAIL
    except (RedisConnectionError, RedisTimeoutError) as exc:
        text = redis_failure(exc, settings)
        if args.command in ("ingest", "outcomes"):
            text += " What the file holds is stored: run the same command again once Redis answers to send it."
        _report(args, exc, text)
        return EXIT_FAIL


def _check_schema(settings: Settings) -> None:
    """Refuse, in one line naming `memworks db upgrade`, a database not migrated to this code.

    The embedded default (SQLite) keeps its own schema current when the facade opens it.
    """
    if settings.database_url.startswith("sqlite"):
        return
    from memworks.services.deps import Deps
    from memworks.services.doctor import require_current_schema

    require_current_schema(Deps(settings).engine)


def _check_before_serving() -> None:
    """The API builds its facade inside the server's start-up, whose failure would print as a
    traceback: check the database and broker first."""
    from memworks.client import Memworks

    with Memworks.from_settings() as mw:
        check_services(mw)


def _report(args: argparse.Namespace, exc: BaseException, text: str) -> None:
    """The error on stderr; with ``--json`` also as JSON on stdout (the HTTP API's error shape)."""
    print(text, file=sys.stderr)
    if not getattr(args, "json", False):
        return
    if isinstance(exc, BadLines):
        error = exc.as_dict()
    else:
        code = next(
            (
                c
                for kind, c in ((InvalidInput, "invalid_input"), (Conflict, "conflict"), (NotFound, "not_found"))
                if isinstance(exc, kind)
            ),
            "failed",
        )
        error = {
            "code": code,
            "message": text.removeprefix("memworks: ").removeprefix("bad input: "),
            "field": getattr(exc, "field", None),
        }
    print(json.dumps({"error": error}, ensure_ascii=False))
