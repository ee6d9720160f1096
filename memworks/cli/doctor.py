"""``memworks doctor``: one line per check of this installation; exit 1 when any finds a problem."""

from __future__ import annotations

import argparse
from typing import Any

from memworks.cli.common import EXIT_FAIL, EXIT_OK
from memworks.errors import InvalidInput
from memworks.output import dumps

#: How a check's verdict is shown (same width, so the names line up).
MARKS = {"ok": "ok     ", "problem": "PROBLEM", "skipped": "skipped"}


def register(sub: Any) -> None:
    from memworks.config import STUCK_AFTER_S

    d = sub.add_parser(
        "doctor",
        help="check the database and its schema, broker, cache, model files and work left behind",
    )
    d.add_argument(
        "--stuck-after",
        type=int,
        default=STUCK_AFTER_S,
        metavar="SECONDS",
        help=f"call an episode stuck when received this long ago and still unprocessed (default {STUCK_AFTER_S})",
    )
    d.add_argument("--json", action="store_true")
    d.set_defaults(handler=_doctor)


def _doctor(args: argparse.Namespace) -> int:
    from memworks.config import get_settings
    from memworks.services import doctor
    from memworks.services.deps import Deps, utcnow
    from memworks.workers import QUEUES, build_broker

    if args.stuck_after < 0:
        raise InvalidInput(f"--stuck-after must be 0 or more seconds, got {args.stuck_after}", field="--stuck-after")
    settings = get_settings()
    # No facade: it would upgrade a SQLite schema by itself, hiding what the check is for.
    engine = Deps(settings).engine
    broker = None if settings.is_embedded_broker else build_broker(settings)

    def show(check: doctor.Check) -> None:
        if not args.json:
            fix = f" -> {check.fix}" if check.fix and not check.ok else ""
            print(f"{MARKS[check.verdict]} {check.name}: {check.detail}{fix}", flush=True)

    try:
        checks = doctor.run_checks(
            settings,
            engine=engine,
            broker=broker,
            queues=QUEUES,
            now=utcnow(),
            stuck_after_s=args.stuck_after,
            on_check=show,
        )
    finally:
        engine.dispose()
        if broker is not None:
            broker.close()
    problems = sum(1 for c in checks if not c.ok)
    if args.json:
        print(
            dumps(
                {
                    "healthy": not problems,
                    "checks": [
                        {"name": c.name, "verdict": c.verdict, "detail": c.detail, "fix": c.fix} for c in checks
                    ],
                }
            )
        )
    else:
        print("healthy" if not problems else f"{problems} problem{'s' if problems != 1 else ''} found")
    return EXIT_OK if not problems else EXIT_FAIL
