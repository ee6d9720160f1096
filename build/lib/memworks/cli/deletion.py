"""Commands for deletion: delete, manifest, deletions resume."""

from __future__ import annotations

import argparse
import time
from typing import Any

from memworks.cli.common import EXIT_FAIL, EXIT_OK
from memworks.errors import InvalidInput
from memworks.output import dumps, table

#: Statuses a request does not leave (``DeletionStatus`` values): ``--wait`` stops at them.
FINISHED = ("complete", "failed", "nothing_matched")


def register(sub: Any) -> None:
    d = sub.add_parser(
        "delete",
        help="erase a subject (or some keys / records of it) from every projection",
        description="Erase a user, or only some keys or records of them, from every projection. "
        "Without --key or --memory-id the whole user goes, which needs --yes.",
        epilog="exit status: 0 submitted (or, with --wait, complete); 1 with --wait when the request "
        "failed, matched nothing (status nothing_matched: no record, episode or outcome of the user "
        "matches the keys or records named; nothing was erased) or did not finish within --timeout; "
        "2 bad input (a malformed key, a whole-user deletion without --yes).",
    )
    d.add_argument("--tenant", required=True)
    d.add_argument("--user", required=True)
    d.add_argument("--key", action="append", default=[], help="only this memory key (repeatable)")
    d.add_argument("--memory-id", action="append", default=[], help="only this record and its history (repeatable)")
    d.add_argument(
        "--yes",
        action="store_true",
        help="confirm a whole-user deletion (no --key or --memory-id): it cannot be undone",
    )
    d.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    d.add_argument(
        "--wait",
        action="store_true",
        help="wait until the request is finished: exit 0 when complete, 1 when failed or nothing matched "
        "(see exit status below)",
    )
    d.add_argument("--timeout", type=float, default=300, help="seconds --wait waits at most")
    d.add_argument("--json", action="store_true")
    d.set_defaults(handler=_delete)

    mf = sub.add_parser("manifest", help="show a deletion manifest: each target's state, residue, attempts and reason")
    mf.add_argument("request_id")
    mf.add_argument("--json", action="store_true")
    mf.set_defaults(handler=_manifest)

    dl = sub.add_parser("deletions", help="deletion maintenance")
    dl.add_argument(
        "action", choices=["resume"], help="re-drive every unfinished deletion; FAILED targets get a fresh round"
    )
    dl.set_defaults(handler=_resume)


def _delete(args: argparse.Namespace) -> int:
    from memworks.client import Memworks

    if not (args.key or args.memory_id or args.yes or args.dry_run):
        # One missing option must not erase a whole person.
        raise InvalidInput(
            f"this erases everything remembered about user {args.user!r} of tenant {args.tenant!r}: "
            "pass --yes to confirm, --dry-run to see the plan, or --key / --memory-id to erase less",
            field="yes",
        )
    req = {"tenant_id": args.tenant, "user_id": args.user, "keys": args.key, "memory_ids": args.memory_id}
    with Memworks.from_settings() as mw:
        if args.dry_run:
            preview = mw.preview_deletion(req)
            rows = [
                (
                    r["key"] or "-",
                    r["value"],
                    r["kind"],
                    r["status"],
                    "derived" if r["derived"] else "transcript" if r["transcript"] else "",
                )
                for r in preview["records"]
            ]
            print(
                dumps(preview)
                if args.json
                else table(rows, ["key", "value", "kind", "status", "role"])
                + f"\nepisodes to tombstone: {len(preview['episodes'])}\ntargets: {', '.join(preview['targets'])}"
            )
            return EXIT_OK
        rid = mw.submit_deletion(req)
        mw.drain()
        deadline = time.monotonic() + args.timeout
        status = mw.manifest(rid).status
        while args.wait and status not in FINISHED and time.monotonic() < deadline:
            time.sleep(0.5)
            status = mw.manifest(rid).status
    if args.json:
        print(dumps({"request_id": rid, "status": status}))
    elif status == "nothing_matched":
        named = ", ".join([*args.key, *args.memory_id])
        print(f"deletion {rid}: nothing matched: no record, episode or outcome of {args.user} matches {named}")
    else:
        print(f"deletion {rid}: {status}")
    return EXIT_OK if not args.wait or status == "complete" else EXIT_FAIL


def _manifest(args: argparse.Namespace) -> int:
    from memworks.client import Memworks

    with Memworks.from_settings() as mw:
        m = mw.manifest(args.request_id)
    if args.json:
        print(dumps(m))
    else:
        rows = [(name, t.state, t.remaining, t.attempts, t.checked_at, t.reason) for name, t in m.targets.items()]
        print(f"deletion {m.request_id} ({m.tenant_id}/{m.user_id}): {m.status}")
        # Reasons are the point of this table: wider cells than the default.
        print(table(rows, ["target", "state", "remaining", "attempts", "checked_at", "reason"], max_width=160))
    return EXIT_OK


def _resume(args: argparse.Namespace) -> int:
    from memworks.client import Memworks

    with Memworks.from_settings() as mw:
        mw.resume_deletions()
        mw.drain()
    print("unfinished deletions re-driven")
    return EXIT_OK
