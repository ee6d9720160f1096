"""Commands for memory: demo, worker, db, ingest, retrieve, memories."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from memworks.cli.common import EXIT_FAIL, EXIT_OK, check_services, iso_time, read_jsonl, resend_option
from memworks.errors import InvalidInput
from memworks.output import dumps, memory_table, table


def register(sub: Any) -> None:
    sub.add_parser("demo", help="run the whole pipeline on a short story and check every answer").set_defaults(
        handler=_demo
    )

    w = sub.add_parser(
        "worker",
        help="run dramatiq worker processes (distributed mode); when one dies, they are started again",
    )
    w.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    w.add_argument("--threads", type=int, default=4)
    w.add_argument("--queues", nargs="*", default=None, help="only these queues (each with its bulk lane)")
    w.add_argument(
        "--metrics-port",
        type=int,
        default=0,
        help="serve Prometheus metrics of all processes on this port (0: off; one per host)",
    )
    w.add_argument("--metrics-host", default="127.0.0.1", help="address the metrics server binds")
    w.add_argument(
        "--nice",
        type=int,
        choices=range(20),
        metavar="0-19",
        default=None,
        help="run at least at this OS niceness, yielding the CPU to an API on the host "
        "(default: MEMWORKS_WORKER_NICE, 19)",
    )
    resend_option(w)
    w.set_defaults(handler=_worker)

    db = sub.add_parser("db", help="database schema, and the files' rewrite after deletions")
    db.add_argument(
        "action",
        choices=["upgrade", "current", "history", "rewrite"],
        help="upgrade: migrate to this code's schema; current: the database's revision and whether it "
        "is this code's; history: every migration this code ships; rewrite: take completed deletions' "
        "bytes off PostgreSQL's files now (the scheduler does it every MEMWORKS_DISK_REWRITE_S)",
    )
    db.set_defaults(handler=_db)

    ing = sub.add_parser("ingest", help="enqueue episodes from a .jsonl file (validated whole first)")
    ing.add_argument("file", type=Path)
    ing.add_argument("--json", action="store_true")
    ing.set_defaults(handler=_ingest)

    r = sub.add_parser("retrieve", help="retrieve memories for a query in one scope")
    r.add_argument("query")
    r.add_argument("--tenant", required=True)
    _who(r)
    r.add_argument("--as-of", type=iso_time)
    r.add_argument("--known-at", type=iso_time)
    r.add_argument("-k", type=int, default=5)
    r.add_argument("--asked-at", type=iso_time, help="when the question is asked (default now)")
    r.add_argument(
        "--profile", action="store_true", help="also show the user's profile lines for the question, constraints first"
    )
    r.add_argument("--json", action="store_true")
    r.set_defaults(handler=_retrieve)

    m = sub.add_parser("memories", help="list what is remembered in one scope")
    m.add_argument("--tenant", required=True)
    _who(m)
    m.add_argument("--include-history", action="store_true")
    m.add_argument("--json", action="store_true")
    m.set_defaults(handler=_memories)


def _who(p: argparse.ArgumentParser) -> None:
    who = p.add_mutually_exclusive_group()
    who.add_argument("--user", help="whose memory (their records and the tenant's shared ones)")
    who.add_argument("--shared", action="store_true", help="the tenant's shared records only (no user's)")


def scope_of(args: argparse.Namespace) -> Any:
    """The scope a read names: a user, or the tenant's shared records when ``--shared`` asks for them.

    A forgotten ``--user`` would otherwise read the tenant-wide records alone and answer
    "nothing known" about the user, which looks like lost memory.
    """
    from pydantic import ValidationError

    from memworks.models.schemas import Scope

    try:
        scope = Scope(tenant_id=args.tenant, user_id=args.user)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise InvalidInput(f"scope: field {err['loc'][0]!r}: {err['msg']}", field=str(err["loc"][0])) from None
    if scope.user_id is None and not args.shared:
        raise InvalidInput(
            "user_id: name whose memory to read with --user USER, or read only the tenant's "
            "shared records with --shared",
            field="user_id",
        )
    return scope


def _demo(args: argparse.Namespace) -> int:
    from memworks_tools.demo import run_demo

    return run_demo()


def _worker(args: argparse.Namespace) -> int:
    from memworks.client import Memworks

    with Memworks.from_settings() as mw:
        if mw.embedded:
            raise InvalidInput(
                "memworks worker serves a shared queue: set MEMWORKS_BROKER_URL=redis://host:6379/0 "
                "(with the in-process default, each command does its own work)",
                field="MEMWORKS_BROKER_URL",
            )
        check_services(mw)
        # Episodes stored but never processed (a broker outage, a kill mid-ingest) are sent again.
        mw.sweep_outbox(args.resend_older_than)
        idle_poll_ms = mw.settings.worker_idle_poll_ms
        nice = mw.settings.worker_nice if args.nice is None else args.nice
    lower_priority(nice)
    from memworks.workers.lanes import lanes_of

    queues = ["-Q", *lanes_of(args.queues)] if args.queues else []  # a workload's bulk lane with it
    os.environ["dramatiq_worker_timeout"] = str(idle_poll_ms)  # read by dramatiq's Worker
    if args.metrics_port:
        # dramatiq's Prometheus middleware and memworks' counters share one multiprocess directory,
        # which must be set before any process imports prometheus_client.
        prom_dir = tempfile.mkdtemp(prefix="memworks-prometheus-")
        os.environ.update(
            dramatiq_prom_db=prom_dir,
            PROMETHEUS_MULTIPROC_DIR=prom_dir,
            dramatiq_prom_port=str(args.metrics_port),
            dramatiq_prom_host=args.metrics_host,
        )
    # dramatiq's command line under memworks' supervisor, which starts it again when a worker
    # process dies (dramatiq alone would stop them all and exit).
    cmd = [
        sys.executable,
        "-m",
        "memworks.cli.supervisor",
        "memworks.workers",
        "--processes",
        str(args.processes),
        "--threads",
        str(args.threads),
        "--skip-logging",
        *queues,
    ]
    os.execv(sys.executable, cmd)


def lower_priority(nice: int) -> None:
    """Run this process (and what it execs and forks: dramatiq's processes) at least at ``nice``.

    Only ever raised: an unprivileged process may not lower its niceness back.
    """
    if (more := nice - os.getpriority(os.PRIO_PROCESS, 0)) > 0:
        os.nice(more)


def _db(args: argparse.Namespace) -> int:
    from memworks.config import get_settings
    from memworks.services import deletion
    from memworks.services.deps import Deps, utcnow

    if args.action == "upgrade":
        from memworks.services.doctor import migrate

        before = migrate(get_settings())
        if before.state == "current":
            print(f"database schema is current (revision {before.head}): nothing to migrate")
        else:
            print(f"database schema migrated from {before.revision or 'an empty database'} to revision {before.head}")
        return EXIT_OK
    if args.action in ("current", "history"):
        return _schema(args.action)
    done = deletion.rewrite_files(Deps(get_settings()), now=utcnow())
    if done.tables_left:
        print(f"not done: no lock within 5 s on {', '.join(done.tables_left)}; run it again", file=sys.stderr)
        return EXIT_FAIL
    print(
        f"database files rewritten: {len(done.requests)} completed deletion(s) off the disk"
        if done.requests
        else "no deletion completed since the last rewrite: nothing to do"
    )
    return EXIT_OK


#: What each schema state means for the one reading ``db current``.
_STATE = {
    "current": "current: this code's newest migration",
    "behind": "behind: run `memworks db upgrade`",
    "missing": "missing: no migration applied; run `memworks db upgrade`",
    "ahead": "ahead: migrated by a newer memworks; run that version",
}


def _schema(action: str) -> int:
    from memworks.config import get_settings
    from memworks.services.doctor import migrations, schema

    if action == "history":
        at = schema(get_settings()).revision
        for revision, doc in migrations():
            print(f"{'*' if revision == at else ' '} {revision}  {doc.splitlines()[0] if doc else ''}")
        return EXIT_OK
    state = schema(get_settings())
    print(f"revision {state.revision or '(none)'}, head {state.head}: {_STATE[state.state]}")
    return EXIT_OK if state.state == "current" else EXIT_FAIL


def _ingest(args: argparse.Namespace) -> int:
    from memworks.client import Memworks, parse_episode

    batch = read_jsonl(args.file, lambda data, where: parse_episode(data, where=where))
    with Memworks.from_settings() as mw:
        receipt = mw.enqueue_episodes(batch)
        mw.drain()
    summary = {
        "file": str(args.file),
        "accepted": len(receipt.accepted),
        "duplicates": len(receipt.duplicates),
        "resent": len(receipt.resent),
    }
    resent = f", {summary['resent']} re-sent (stored but not yet processed)" if receipt.resent else ""
    print(
        dumps(summary)
        if args.json
        else f"{summary['accepted']} episodes queued, {summary['duplicates']} already known{resent}"
    )
    return EXIT_OK


def _retrieve(args: argparse.Namespace) -> int:
    from memworks.client import Memworks
    from memworks.services.records import holds_memory

    scope = scope_of(args)
    with Memworks.from_settings() as mw:
        res = mw.retrieve(
            scope,
            args.query,
            as_of=args.as_of,
            known_at=args.known_at,
            k=args.k,
            asked_at=args.asked_at,
            include_profile=args.profile,
        )
        # An abstention over an empty scope is not a gap in memory: most often a wrong
        # --tenant/--user, or nothing ingested yet. Asked only when nothing was found.
        empty = not res.hits and not holds_memory(mw.runtime, scope)
    if args.json:
        print(dumps({**res.model_dump(), "empty_scope": empty}))
    elif empty:
        who = f"tenant {scope.tenant_id}" + (f", user {scope.user_id}" if scope.user_id else " (shared records)")
        print(f"no memory stored for this tenant/user ({who}): nothing was ingested here, or it was all deleted")
    elif res.abstained:
        print("no memory answers this (abstained)")
    else:
        if res.subject_mismatch:
            print("not about the person asked about: every hit is someone else's (subject_mismatch)")
        print(
            table(
                [
                    (
                        h.score,
                        h.kind,
                        h.key,
                        h.value,
                        h.subject,
                        h.event_time,
                        h.valid_from,
                        h.valid_to,
                        ",".join(h.evidence),
                    )
                    for h in res.hits
                ],
                ["score", "kind", "key", "value", "subject", "event_time", "valid_from", "valid_to", "evidence"],
            )
        )
    if res.profile is not None and not args.json:
        tiers = ", ".join(f"{ln.tier} {ln.memory_id[:8]}" for ln in res.profile.lines)
        print(f"\nprofile for this question ({res.profile.tokens} tokens; {tiers or 'no line'}):")
        print(res.profile.text or "(nothing known about this user yet)")
    return EXIT_OK


def _memories(args: argparse.Namespace) -> int:
    from memworks.client import Memworks

    with Memworks.from_settings() as mw:
        rows = mw.memories(scope_of(args), include_history=args.include_history)
    print(dumps(rows) if args.json else memory_table(rows))
    return EXIT_OK
