"""The ``memworks`` command line. Exit status: 0 success, 2 bad input, 1 other failure."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from memworks.errors import Conflict, InvalidInput, MemworksError, NotFound
from memworks.output import dumps, table

EXIT_OK, EXIT_FAIL, EXIT_BAD_INPUT = 0, 1, 2


def _time(value: str) -> datetime:
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an ISO 8601 time (e.g. 2025-02-01T00:00:00+00:00)") from None
    if t.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{value!r} needs a UTC offset (e.g. +00:00)")
    return t


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's own exit code 2 matches "bad input"
        self.print_usage(sys.stderr)
        print(f"memworks: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="memworks", description="Governed, bitemporal memory for AI agents.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    sub.add_parser("demo", help="run the whole pipeline on a short story and check every answer")

    w = sub.add_parser("worker", help="run dramatiq worker processes (distributed mode)")
    w.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    w.add_argument("--threads", type=int, default=4)
    w.add_argument("--queues", nargs="*", default=None, help="only these queues")

    db = sub.add_parser("db", help="database schema")
    db.add_argument("action", choices=["upgrade"])

    ing = sub.add_parser("ingest", help="enqueue episodes from a .jsonl file (validated whole first)")
    ing.add_argument("file", type=Path)
    ing.add_argument("--json", action="store_true")

    r = sub.add_parser("retrieve", help="retrieve memories for a query in one scope")
    r.add_argument("query")
    r.add_argument("--tenant", required=True)
    r.add_argument("--user")
    r.add_argument("--as-of", type=_time)
    r.add_argument("--known-at", type=_time)
    r.add_argument("-k", type=int, default=5)
    r.add_argument("--json", action="store_true")

    m = sub.add_parser("memories", help="list what is remembered in one scope")
    m.add_argument("--tenant", required=True)
    m.add_argument("--user")
    m.add_argument("--include-history", action="store_true")
    m.add_argument("--json", action="store_true")
    d = sub.add_parser("delete", help="erase a subject (or some keys / records of it) from every projection")
    d.add_argument("--tenant", required=True)
    d.add_argument("--user", required=True)
    d.add_argument("--key", action="append", default=[], help="only this memory key (repeatable)")
    d.add_argument("--memory-id", action="append", default=[], help="only this record and its history (repeatable)")
    d.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    d.add_argument("--wait", action="store_true", help="wait until the manifest is complete (or failed)")
    d.add_argument("--timeout", type=float, default=300, help="seconds --wait waits at most")
    d.add_argument("--json", action="store_true")

    mf = sub.add_parser("manifest", help="show a deletion manifest")
    mf.add_argument("request_id")
    mf.add_argument("--json", action="store_true")

    dl = sub.add_parser("deletions", help="deletion maintenance")
    dl.add_argument("action", choices=["resume"], help="re-drive every unfinished deletion")
    return p


def read_episodes(path: Path) -> list[Any]:
    """Parse and validate every line of a .jsonl file before anything is stored."""
    from memworks.client import parse_episode

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
            out.append(parse_episode(data, where=f"{path}:{n}"))
    return out


def _scope(args: argparse.Namespace) -> Any:
    from memworks.models.schemas import Scope

    try:
        return Scope(tenant_id=args.tenant, user_id=args.user)
    except Exception as exc:  # pydantic's message names the field
        raise InvalidInput(f"scope: {exc}", field="tenant/user") from None


def run(args: argparse.Namespace) -> int:
    if args.command == "demo":
        from memworks.demo import run_demo

        return run_demo()
    if args.command == "worker":
        queues = ["-Q", *args.queues] if args.queues else []
        cmd = [sys.executable, "-m", "dramatiq", "memworks.workers", "--processes", str(args.processes),
               "--threads", str(args.threads), "--skip-logging", *queues]  # fmt: skip
        os.execv(sys.executable, cmd)
    if args.command == "db":
        from memworks.config import get_settings
        from memworks.store.db import upgrade

        upgrade(get_settings().database_url)
        print("database schema is current")
        return EXIT_OK

    from memworks.client import Memworks

    if args.command == "ingest":
        batch = read_episodes(args.file)
        with Memworks.from_settings() as mw:
            receipt = mw.enqueue_episodes(batch)
            mw.drain()
        summary = {"file": str(args.file), "accepted": len(receipt.accepted), "duplicates": len(receipt.duplicates)}
        print(dumps(summary) if args.json else f"{summary['accepted']} episodes queued, {summary['duplicates']} already known")
        return EXIT_OK
    if args.command == "retrieve":
        with Memworks.from_settings() as mw:
            res = mw.retrieve(_scope(args), args.query, as_of=args.as_of, known_at=args.known_at, k=args.k)
        if args.json:
            print(dumps(res))
        elif res.abstained:
            print("no memory answers this (abstained)")
        else:
            print(table([(h.score, h.kind, h.key, h.value, h.valid_from, h.valid_to, ",".join(h.evidence)) for h in res.hits],
                        ["score", "kind", "key", "value", "valid_from", "valid_to", "evidence"]))  # fmt: skip
        return EXIT_OK
    if args.command == "memories":
        with Memworks.from_settings() as mw:
            rows = mw.memories(_scope(args), include_history=args.include_history)
        print(dumps(rows) if args.json else memory_table(rows))
        return EXIT_OK
    if args.command == "delete":
        return _delete(args)
    if args.command == "manifest":
        with Memworks.from_settings() as mw:
            m = mw.manifest(args.request_id)
        print(dumps(m) if args.json else manifest_text(m))
        return EXIT_OK
    if args.command == "deletions":
        with Memworks.from_settings() as mw:
            mw.resume_deletions()
            mw.drain()
        print("unfinished deletions re-driven")
        return EXIT_OK
    raise AssertionError(args.command)


def _delete(args: argparse.Namespace) -> int:
    import time

    from memworks.client import Memworks

    req = {"tenant_id": args.tenant, "user_id": args.user, "keys": args.key, "memory_ids": args.memory_id}
    with Memworks.from_settings() as mw:
        if args.dry_run:
            preview = mw.preview_deletion(req)
            print(dumps(preview) if args.json else table(
                [(r["key"] or "-", r["value"], r["kind"], r["status"], "derived" if r["derived"] else
                  "transcript" if r["transcript"] else "") for r in preview["records"]],
                ["key", "value", "kind", "status", "role"]) + f"\nepisodes to tombstone: {len(preview['episodes'])}"
                f"\ntargets: {', '.join(preview['targets'])}")  # fmt: skip
            return EXIT_OK
        rid = mw.submit_deletion(req)
        mw.drain()
        deadline = time.monotonic() + args.timeout
        status = mw.manifest(rid).status
        while args.wait and status not in ("complete", "failed") and time.monotonic() < deadline:
            time.sleep(0.5)
            status = mw.manifest(rid).status
    print(dumps({"request_id": rid, "status": status}) if args.json else f"deletion {rid}: {status}")
    return EXIT_OK if not args.wait or status == "complete" else EXIT_FAIL


def manifest_text(m: Any) -> str:
    rows = [(name, t.state, t.remaining, t.attempts, t.checked_at) for name, t in m.targets.items()]
    return f"deletion {m.request_id} ({m.tenant_id}/{m.user_id}): {m.status}\n" + table(
        rows, ["target", "state", "remaining", "attempts", "checked_at"]
    )


def memory_table(rows: Sequence[Any]) -> str:
    return table(
        [(r.key or "-", r.value, r.kind, r.status, r.source, r.valid_from, r.valid_to, r.recorded_at, r.retracted_at,
          ",".join(r.evidence)) for r in rows],  # fmt: skip
        ["key", "value", "kind", "status", "source", "valid_from", "valid_to", "recorded_at", "retracted_at", "evidence"],
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except (InvalidInput, Conflict) as exc:
        print(f"memworks: bad input: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except NotFound as exc:
        print(f"memworks: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemworksError as exc:
        print(f"memworks: {exc}", file=sys.stderr)
        return EXIT_FAIL


if __name__ == "__main__":
    raise SystemExit(main())
