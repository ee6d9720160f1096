"""The ``memworks`` command line. Exit status: 0 success, 2 bad input, 1 other failure."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from memworks.cli import bench, deletion, evaluate, lessons, maintenance, memory
from memworks.cli.common import EXIT_BAD_INPUT, EXIT_FAIL, Parser
from memworks.errors import Conflict, InvalidInput, MemworksError, NotFound
from memworks.cli import api
from memworks.cli import mcp




def build_parser() -> Parser:
    p = Parser(prog="memworks", description="Governed, bitemporal memory for AI agents.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for module in (memory, deletion, lessons, maintenance, evaluate, bench, api, mcp):
        module.register(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except (InvalidInput, Conflict, NotFound) as exc:
        print(f"memworks: bad input: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemworksError as exc:
        print(f"memworks: {exc}", file=sys.stderr)
        return EXIT_FAIL
