"""``memworks eval``: memory quality measured, with JSON and plots."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from memworks.cli.common import EXIT_FAIL, EXIT_OK
from memworks.output import dumps, table


def register(sub: Any) -> None:
    e = sub.add_parser("eval", help="evaluate memworks: lessons")
    e.add_argument("suite", choices=["lessons"])
    e.add_argument("--json", action="store_true", help="print the JSON report")
    e.add_argument("--out", type=Path, default=Path("eval-out"), help="folder for the JSON report and plots")
    e.set_defaults(handler=_eval)


def _eval(args: argparse.Namespace) -> int:
    from memworks.evaluation import lessons

    say = (lambda s: None) if args.json else print
    results = [lessons.run(free_text=False, out=say), lessons.run(free_text=True, out=say)]
    png = lessons.plot(results, args.out / "lessons_curve.png")
    report = {"lessons": {r["features"]: r for r in results}, "plot": str(png)}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "lessons.json").write_text(json.dumps(report, indent=2))
    if args.json:
        print(dumps(report))
    else:
        rows = [(r["features"], *[f"{a:.2f}" for a in r["accuracy"]]) for r in results]
        print(table(rows, ["features", *[f"ep{i + 1}" for i in range(len(results[0]["accuracy"]))]]))
        print(f"plot: {png}")
    ok = all(r["final_accuracy"] == 1.0 and r["max_promotions_per_episode"] <= 1 for r in results)
    return EXIT_OK if ok else EXIT_FAIL
