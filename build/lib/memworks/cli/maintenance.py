"""Commands for upkeep: scheduler, consolidate, profile, sweep."""

from __future__ import annotations

import argparse
import signal
from typing import Any

from memworks.cli.common import EXIT_FAIL, EXIT_OK, check_services, resend_option
from memworks.output import dumps, table


def register(sub: Any) -> None:
    sch = sub.add_parser("scheduler", help="run the scheduler (exactly one per deployment)")
    resend_option(sch)
    sch.set_defaults(handler=_scheduler)

    c = sub.add_parser("consolidate", help="consolidate a tenant now and print the run record")
    c.add_argument("--tenant", required=True)
    c.add_argument("--json", action="store_true")
    c.set_defaults(handler=_consolidate)

    p = sub.add_parser("profile", help="show a user's injected profile")
    p.add_argument("--tenant", required=True)
    p.add_argument("--user", required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_profile)

    dl = sub.add_parser("dead-letters", help="list or retry messages that failed after their retries")
    dl.add_argument("action", choices=["list", "retry"])
    dl.add_argument("message_ids", nargs="*", help="with retry: only these (default: all)")
    dl.add_argument("--json", action="store_true")
    dl.set_defaults(handler=_dead_letters)

    s = sub.add_parser("sweep", help="re-send episodes stored but never processed")
    s.add_argument("--older-than", type=int, default=0, help="seconds since they were received")
    s.set_defaults(handler=_sweep)

    ch = sub.add_parser(
        "chaos", help="prove exactly-once processing through worker kills and a Redis restart (loopback only)"
    )
    ch.add_argument("--episodes", type=int, default=1000)
    ch.add_argument("--kills", type=int, default=10, help="random SIGKILLs of worker process groups")
    ch.add_argument("--workers", type=int, default=2, help="worker processes running at once")
    ch.add_argument("--seed", type=int, default=7)
    ch.add_argument(
        "--own-redis",
        action="store_true",
        help="start a private redis-server and restart it for real (default: empty a scratch namespace)",
    )
    ch.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the queue to settle")
    ch.add_argument("--json", action="store_true")
    ch.set_defaults(handler=_chaos)


def _scheduler(args: argparse.Namespace) -> int:
    from memworks.client import Memworks
    from memworks.config import get_settings
    from memworks.scheduler import build_scheduler

    settings = get_settings()
    # Embedded: the scheduler's messages are served by in-process workers of this same process.
    mw = Memworks.from_settings(settings)
    try:
        check_services(mw)
        # Episodes stored but never processed (a broker outage, a kill mid-ingest) are sent again
        # now rather than at the sweeper's first run.
        mw.sweep_outbox(args.resend_older_than)
        if mw.embedded:
            mw.drain()
        scheduler = build_scheduler(settings)
        signal.signal(signal.SIGTERM, lambda *_: scheduler.shutdown(wait=False))
        print(f"scheduler running: {', '.join(j.id for j in scheduler.get_jobs())}", flush=True)
        scheduler.start()
    finally:
        mw.close()
    return EXIT_OK


def _consolidate(args: argparse.Namespace) -> int:
    from memworks.client import Memworks

    with Memworks.from_settings() as mw:
        run = mw.consolidate(args.tenant)
    if args.json:
        print(dumps(run))
    else:
        counts = run.get("counts", {})
        print(f"consolidation of {args.tenant}: {run['status']} in {run.get('duration_ms', 0)} ms")
        print(table(sorted(counts.items()), ["step", "count"]))
    return EXIT_OK


def _profile(args: argparse.Namespace) -> int:
    from memworks.client import Memworks
    from memworks.models.schemas import Scope

    with Memworks.from_settings() as mw:
        prof = mw.profile(Scope(tenant_id=args.tenant, user_id=args.user))
    print(dumps(prof) if args.json else (prof["text"] or "(empty profile)") + f"\n({prof['tokens']} tokens)")
    return EXIT_OK


def _sweep(args: argparse.Namespace) -> int:
    from memworks.client import Memworks

    with Memworks.from_settings() as mw:
        mw.sweep_outbox(args.older_than)
        mw.drain()
    print("unprocessed episodes re-sent")
    return EXIT_OK


def _dead_letters(args: argparse.Namespace) -> int:
    from memworks.client import Memworks

    with Memworks.from_settings() as mw:
        if args.action == "list":
            rows = mw.dead_letters()
            print(
                dumps(rows)
                if args.json
                else table(
                    [(d["queue"], d["message_id"], d["actor"], d["args"]) for d in rows],
                    ["queue", "message_id", "actor", "args"],
                )
            )
        else:
            n = mw.retry_dead_letters(args.message_ids)
            mw.drain()
            print(dumps({"retried": n}) if args.json else f"{n} dead letters sent again")
    return EXIT_OK


def _chaos(args: argparse.Namespace) -> int:
    import sys

    from memworks.config import get_settings
    from memworks_tools.chaos import ChaosConfig, run

    settings = get_settings()
    cfg = ChaosConfig(
        episodes=args.episodes,
        kills=args.kills,
        workers=args.workers,
        seed=args.seed,
        own_redis=args.own_redis,
        timeout_s=args.timeout,
    )
    say = (lambda m: print(m, file=sys.stderr, flush=True)) if args.json else (lambda m: print(m, flush=True))
    report = run(cfg, database_url=settings.database_url, broker_url=settings.broker_url, say=say)
    if args.json:
        print(dumps(report))
    else:
        print(table([(k, v) for k, v in report.items() if k != "examples"], ["measure", "value"]))
    same = report["identical_state"] or report["differing_transcripts_only"]
    ok = report["lost"] == 0 and report["duplicated"] == 0 and same
    return EXIT_OK if ok else EXIT_FAIL
