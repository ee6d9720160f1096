"""``memworks bench``: ingestion, retrieval, deletion and consolidation measured, with JSON and plots."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memworks.cli.common import EXIT_FAIL, EXIT_OK
from memworks.errors import InvalidInput
from memworks.output import dumps, table

NAMES = ("ingest", "retrieve", "delete", "consolidate")
#: Run on their own, never by ``all``: ``fairness`` floods the API for a minute or more.
ALONE = ("fairness",)


def register(sub: Any) -> None:
    b = sub.add_parser(
        "bench",
        help="benchmark memworks on this machine: ingest, retrieve, delete, consolidate, all; "
        "fairness (one tenant's reads, episode and deletion while another floods the API)",
    )
    b.add_argument("benchmark", choices=[*NAMES, *ALONE, "all"])
    b.add_argument("--json", action="store_true", help="print the JSON report (tables and progress go to stderr)")
    b.add_argument("--out", type=Path, default=Path("bench-out"), help="folder for the JSON reports and plots")
    b.add_argument("--quick", action="store_true", help="smaller sizes: a few minutes in all")
    b.add_argument("--profile", action="store_true", help="record each benchmark with py-spy (when installed)")
    b.add_argument("--pg", default=None, help="PostgreSQL server for scratch databases (default: 127.0.0.1:5432)")
    b.add_argument(
        "--redis", default=None, help="Redis for the distributed ingest run when no private redis-server can start"
    )
    b.add_argument(
        "--workers",
        default=None,
        metavar="N[,M...]",
        help="worker process counts for the Redis + PostgreSQL ingest run, e.g. 1,2,4 (the scaling curve)",
    )
    b.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="sets",
        help="override a size, e.g. retrieve.sizes=[1000,10000] or ingest.episodes=500 (JSON values)",
    )
    b.set_defaults(handler=_bench)


def _overrides(sets: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in sets:
        key, eq, raw = item.partition("=")
        if not eq or not key.strip():
            raise InvalidInput(f"--set {item!r}: expected KEY=VALUE, e.g. retrieve.sizes=[1000,10000]", field="--set")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            raise InvalidInput(
                f"--set {item!r}: the value must be JSON, e.g. 500 or [1000,10000]", field="--set"
            ) from None
    return out


def _workers(raw: str | None) -> dict[str, Any]:
    if raw is None:
        return {}
    try:
        counts = [int(x) for x in raw.split(",") if x.strip()]
    except ValueError:
        counts = []
    if not counts or any(c < 1 or c > 64 for c in counts):
        raise InvalidInput(f"--workers {raw!r}: expected counts from 1 to 64, e.g. 1,2,4", field="--workers")
    return {"ingest.workers": counts}


def _bench(args: argparse.Namespace) -> int:
    from memworks.logging import configure_logging
    from memworks_tools.bench import common, run_all, run_benchmark, table_of

    configure_logging(logging.WARNING)  # one line per actor run would bury the figures
    say: Callable[[str], None] = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    opts = common.Options(
        out=args.out,
        quick=args.quick,
        progress=not args.json and sys.stderr.isatty(),
        pg_url=args.pg or common.PG_URL,
        redis_url=args.redis or common.REDIS_URL,
        profile=args.profile,
        sizes=_overrides(args.sets) | _workers(args.workers),
        say=say,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    show: Callable[[str], None] = say if args.json else print

    def done(name: str, report: dict[str, Any]) -> None:
        rows, headers = table_of(name, report)
        show(f"\n== bench {name} ({report['wall_s']} s, peak RSS {report.get('peak_rss_mb')} MB)")
        show(table(rows, headers))
        if "profile" in report:
            top = report["profile"].get("top_self", [])[:5]
            show("profile, top frames by own time: " + "; ".join(f"{f['frame']} {f['share']:.0%}" for f in top))

    if args.benchmark == "all":
        summary = run_all(opts, list(NAMES), on_done=done)
    else:
        summary = run_benchmark(args.benchmark, opts)
        done(args.benchmark, summary)
    if args.json:
        print(dumps(summary))
    else:
        print(f"\nreports and plots: {args.out}")
    crashed = [n for n in (*NAMES, *ALONE) if isinstance(summary.get(n), dict) and "error" in summary[n]]
    return EXIT_FAIL if crashed else EXIT_OK
