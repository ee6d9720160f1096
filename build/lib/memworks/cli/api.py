"""Commands for the HTTP API: api (serve it), keys create | revoke | list."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from memworks.cli.common import EXIT_OK
from memworks.output import dumps, table

if TYPE_CHECKING:
    from memworks.client import Memworks


def register(sub: Any) -> None:
    a = sub.add_parser("api", help="serve the HTTP API (OpenAPI at /docs)")
    a.add_argument("--host", default="127.0.0.1")
    a.add_argument("--port", type=int, default=8000)
    a.set_defaults(handler=_serve)

    k = sub.add_parser("keys", help="API keys: each is bound to a tenant, and optionally to one user")
    ks = k.add_subparsers(dest="keys_command", required=True)
    c = ks.add_parser("create", help="create a key; its secret is printed once and never again")
    c.add_argument("--tenant", required=True)
    c.add_argument("--user", help="bind the key to this user (an end-user key)")
    c.add_argument("--label", default="")
    c.add_argument("--json", action="store_true")
    c.set_defaults(handler=_create)

    r = ks.add_parser("revoke", help="revoke a key at once")
    r.add_argument("key_id")
    r.add_argument("--json", action="store_true")
    r.set_defaults(handler=_revoke)

    ls = ks.add_parser("list", help="a tenant's keys (never their secrets)")
    ls.add_argument("--tenant", required=True)
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=_list)


def _facade() -> Memworks:
    from memworks.client import Memworks

    return Memworks.from_settings()  # the embedded default keeps its own schema current


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from memworks.api import create_app
    from memworks.logging import configure_logging

    configure_logging()
    uvicorn.run(create_app(), host=args.host, port=args.port)
    return EXIT_OK


def _create(args: argparse.Namespace) -> int:
    with _facade() as mw:
        key_id, secret = mw.create_key(args.tenant, args.user, args.label)
    if args.json:
        print(dumps({"key_id": key_id, "key": secret, "tenant_id": args.tenant, "user_id": args.user}))
    else:
        print(f"key {key_id} for tenant {args.tenant}" + (f", user {args.user}" if args.user else " (tenant key)"))
        print(f"secret (shown once, store it now): {secret}")
    return EXIT_OK


def _revoke(args: argparse.Namespace) -> int:
    with _facade() as mw:
        row = mw.revoke_key(args.key_id)
    out = {"key_id": row.key_id, "revoked_at": row.revoked_at}
    print(dumps(out) if args.json else f"key {args.key_id} revoked")
    return EXIT_OK


def _list(args: argparse.Namespace) -> int:
    with _facade() as mw:
        rows = [
            {
                "key_id": r.key_id,
                "tenant_id": r.tenant_id,
                "user_id": r.user_id,
                "label": r.label,
                "created_at": r.created_at,
                "revoked_at": r.revoked_at,
            }
            for r in mw.list_keys(args.tenant)
        ]
    if args.json:
        print(dumps(rows))
    else:
        print(
            table(
                [(r["key_id"], r["user_id"] or "(tenant)", r["label"], r["created_at"], r["revoked_at"]) for r in rows],
                ["key_id", "user", "label", "created_at", "revoked_at"],
            )
        )
    return EXIT_OK
