"""``memworks eval``: memory quality measured on scenarios and real data, with JSON and plots."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memworks.cli.common import EXIT_FAIL, EXIT_OK
from memworks.errors import InvalidInput
from memworks.output import dumps, table

SUITES = (
    "probes",
    "simulation",
    "locomo",
    "longmemeval",
    "lessons",
    "safety",
    "conversations",
    "prefeval",
    "decisions",
)
LONGMEMEVAL_FILES = ("longmemeval_oracle_sample_2q.json", "longmemeval_oracle_temporal25.json")


def register(sub: Any) -> None:
    e = sub.add_parser(
        "eval",
        help="evaluate memworks: probes, simulation, locomo, longmemeval, lessons, safety, conversations, "
        "prefeval, decisions, all",
    )
    e.add_argument("suite", choices=[*SUITES, "all"])
    e.add_argument(
        "--data",
        type=Path,
        nargs="*",
        default=None,
        help="locomo: the LoCoMo JSON; longmemeval: its JSON files; all: the folder holding them; "
        "conversations: other conversation files or folders (default: the shipped set); prefeval: its folder",
    )
    e.add_argument("--limit", type=int, default=None, help="locomo: only the first N conversations")
    e.add_argument(
        "--conversations", default=None, help="locomo: only these sample ids, comma-separated (e.g. conv-26,conv-30)"
    )
    e.add_argument(
        "--compare", action="store_true", help="locomo: also score dense only and fused retrieval on the same stores"
    )
    e.add_argument("--json", action="store_true", help="print the JSON report")
    e.add_argument("--out", type=Path, default=Path("eval-out"), help="folder for the JSON report and plots")
    e.set_defaults(handler=_eval)


def _eval(args: argparse.Namespace) -> int:
    import logging

    from memworks.logging import configure_logging

    configure_logging(logging.WARNING)  # the stores' per-job lines would drown the report
    say: Callable[[str], None] = (lambda m: print(m, file=sys.stderr, flush=True)) if args.json else print
    args.out.mkdir(parents=True, exist_ok=True)
    suites = SUITES if args.suite == "all" else (args.suite,)
    report: dict[str, Any] = {}
    verdicts: dict[str, bool] = {}
    for name in suites:
        say(f"== eval {name}")
        report[name], verdicts[name] = RUNNERS[name](args, say)
    path = args.out / ("report.json" if args.suite == "all" else f"{args.suite}.json")
    path.write_text(json.dumps(report if args.suite == "all" else report[args.suite], indent=2, default=str))
    if args.json:
        print(dumps(report if args.suite == "all" else report[args.suite]))
    else:
        print(
            table(
                [(n, "reported" if n == "longmemeval" else "met" if ok else "NOT met") for n, ok in verdicts.items()],
                ["suite", "targets"],
            )
        )
        print(f"report: {path}")
    return EXIT_OK if all(verdicts.values()) else EXIT_FAIL


def _data_file(args: argparse.Namespace, names: tuple[str, ...], suite: str) -> list[Path]:
    """The data files of ``suite``: given directly, or found by name in the ``--data`` folder."""
    given = list(args.data or [])
    if not given:
        raise InvalidInput(f"eval {suite} needs --data PATH (the data stays outside the repository)", field="--data")
    if len(given) == 1 and given[0].is_dir():
        found = [given[0] / n for n in names if (given[0] / n).exists()]
        if not found:
            raise InvalidInput(f"--data {given[0]} holds none of {', '.join(names)}", field="--data")
        return found
    for p in given:
        if not p.is_file():
            raise InvalidInput(f"--data {p} is not a file", field="--data")
    return given


def _probes(args: argparse.Namespace, say: Callable[[str], None]) -> tuple[dict[str, Any], bool]:
    from memworks_tools.evaluation import probes

    r = probes.run(out=say)
    r["plot"] = str(probes.plot(r, args.out / "probes.png"))
    mw = r["designs"]["memworks"]
    ok = all(
        mw["slices"][s] == 1.0
        for s in ("knowledge_update", "temporal_reasoning", "abstention", "isolation", "deletion")
    )
    ok = ok and mw["tokens_per_question"] * 10 <= r["designs"]["transcript_only"]["tokens_per_question"]
    return r, ok


def _simulation(args: argparse.Namespace, say: Callable[[str], None]) -> tuple[dict[str, Any], bool]:
    from memworks_tools.evaluation import simulation

    sweep = simulation.sweep(out=say, progress=not args.json)
    runs = list(sweep["by_error_rate"].values())
    r = dict(runs[0]) | {"by_error_rate": sweep["by_error_rate"]}
    r["plot"] = str(simulation.plot(runs, args.out / "simulation.png"))
    bt = runs[0]["rows"]["bitemporal"]
    return r, bt["current"] >= 0.95 and bt["history"] >= 0.90


def _locomo(args: argparse.Namespace, say: Callable[[str], None]) -> tuple[dict[str, Any], bool]:
    from memworks_tools.evaluation import locomo

    (path,) = _data_file(args, ("locomo_dev.json",), "locomo")[:1]
    chosen = [c.strip() for c in args.conversations.split(",") if c.strip()] if args.conversations else None
    try:
        r = locomo.run(
            path, limit=args.limit, conversations=chosen, compare=args.compare, out=say, progress=not args.json
        )
    except ValueError as exc:
        raise InvalidInput(str(exc), field="--conversations") from None
    r["plot"] = str(locomo.plot(r, args.out / "locomo.png"))
    return r, all(t["met"] for t in r["targets"].values())


def _longmemeval(args: argparse.Namespace, say: Callable[[str], None]) -> tuple[dict[str, Any], bool]:
    from memworks_tools.evaluation import longmemeval

    r = longmemeval.run(_data_file(args, LONGMEMEVAL_FILES, "longmemeval"), out=say)
    return r, True  # reported, no target: the rules extractor's vocabulary is what it measures


def _lessons(args: argparse.Namespace, say: Callable[[str], None]) -> tuple[dict[str, Any], bool]:
    from memworks_tools.evaluation import lessons

    r = lessons.run_all(args.out, out=say)  # seed, free text and noisy: curves, PNG, what the gate did
    return r, lessons.met_targets(r)


def _safety(args: argparse.Namespace, say: Callable[[str], None]) -> tuple[dict[str, Any], bool]:
    from memworks_tools.evaluation import safety

    r = safety.run(out=say)  # every poisoning attempt and the benign set, each through its door
    return r, safety.met_targets(r)


def _conversations(args: argparse.Namespace, say: Callable[[str], None]) -> tuple[dict[str, Any], bool]:
    from memworks_tools.evaluation import conversations

    # --data names other conversation files only when this suite runs alone (``all`` gives the data folder).
    chosen = conversations.load(args.data) if args.data and args.suite == "conversations" else None
    r = conversations.run(chosen, out=say)  # graded after ingest and again after consolidation
    return r, conversations.met_targets(r)


def _prefeval(args: argparse.Namespace, say: Callable[[str], None]) -> tuple[dict[str, Any], bool]:
    from memworks_tools.evaluation import prefeval

    given = list(args.data or [])
    if len(given) != 1 or not given[0].is_dir():
        raise InvalidInput("eval prefeval needs --data DIR (the folder of PrefEval's JSON files)", field="--data")
    folder = given[0] if (given[0] / "inter_turns.json").exists() else given[0] / "prefeval_dev"
    try:
        r = prefeval.run(folder, out=say)  # dev and held-out topics at 10, 100 and 300 distractor turns
    except ValueError as exc:
        raise InvalidInput(str(exc), field="--data") from None
    r["plot"] = str(prefeval.plot(r, args.out / "prefeval.png"))
    return r, prefeval.met_targets(r)


def _decisions(args: argparse.Namespace, say: Callable[[str], None]) -> tuple[dict[str, Any], bool]:
    from memworks_tools.evaluation import decisions

    r = decisions.run(out=say)  # the shipped claim-pair model on its held-out labelled pairs
    return r, decisions.met_targets(r)


RUNNERS: dict[str, Callable[[argparse.Namespace, Callable[[str], None]], tuple[dict[str, Any], bool]]] = {
    "probes": _probes,
    "simulation": _simulation,
    "locomo": _locomo,
    "longmemeval": _longmemeval,
    "lessons": _lessons,
    "safety": _safety,
    "conversations": _conversations,
    "prefeval": _prefeval,
    "decisions": _decisions,
}
