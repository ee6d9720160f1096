"""Commands for learning: outcomes, lessons (list, mine, propose, rollback), recommend."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memworks.cli.common import EXIT_BAD_INPUT, EXIT_OK, csv_list, read_jsonl
from memworks.output import dumps, table


def register(sub: Any) -> None:
    o = sub.add_parser("outcomes", help="report task outcomes from a .jsonl file (validated whole first)")
    o.add_argument("file", type=Path)
    o.add_argument("--json", action="store_true")
    o.set_defaults(handler=_outcomes)

    ls = sub.add_parser("lessons", help="list lessons, or: mine | propose | rollback ID")
    ls.add_argument("action", nargs="?", choices=["list", "mine", "propose", "rollback"], default="list")
    ls.add_argument("lesson_id", nargs="?", help="with rollback: the lesson to roll back")
    ls.add_argument("--tenant", required=True)
    ls.add_argument("--task-type")
    ls.add_argument("--pattern", type=csv_list, help="with propose: features, comma separated")
    ls.add_argument("--action", dest="lesson_action", help="with propose: the action the lesson recommends")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=_lessons)

    r = sub.add_parser("recommend", help="the action of the most specific active lesson that fires")
    r.add_argument("--tenant", required=True)
    r.add_argument("--task-type", required=True)
    r.add_argument("--features", required=True, help="comma-separated keywords, or free text with --text")
    r.add_argument("--text", action="store_true", help="treat --features as free text")
    r.add_argument("--json", action="store_true")
    r.set_defaults(handler=_recommend)


def _outcomes(args: argparse.Namespace) -> int:
    from memworks.client import Memworks, parse_outcome

    batch = read_jsonl(args.file, lambda data, where: parse_outcome(data, where=where))
    with Memworks.from_settings() as mw:
        receipt = mw.report_outcomes(batch, reporter="tenant")  # an operator's file: the tenant vouches
        mw.drain()
    summary = {"file": str(args.file), "accepted": len(receipt.accepted), "duplicates": len(receipt.duplicates)}
    print(
        dumps(summary)
        if args.json
        else f"{summary['accepted']} outcomes recorded, {summary['duplicates']} already known"
    )
    return EXIT_OK


def _lesson_rows(rows: list[Any]) -> str:
    return table(
        [(r.lesson_id, r.task_type, "+".join(r.pattern), r.action, r.status, r.version, r.report) for r in rows],
        ["lesson_id", "task_type", "pattern", "action", "status", "v", "report"],
        max_width=90,
    )


def _lessons(args: argparse.Namespace) -> int:
    from memworks.client import Memworks

    with Memworks.from_settings() as mw:
        if args.action == "list":
            rows = mw.lessons(args.tenant, args.task_type)
            print(dumps(rows) if args.json else _lesson_rows(rows))
        elif args.action == "mine":
            mw.mine_lessons(args.tenant, args.task_type)
            mw.drain()
            rows = mw.lessons(args.tenant, args.task_type)
            print(dumps(rows) if args.json else _lesson_rows(rows))
        elif args.action == "propose":
            if not (args.task_type and args.pattern and args.lesson_action):
                print("memworks: bad input: propose needs --task-type, --pattern and --action")
                return EXIT_BAD_INPUT
            lesson = mw.propose_lesson(args.tenant, args.task_type, args.pattern, args.lesson_action)
            print(dumps(lesson) if args.json else f"{lesson.lesson_id}: {lesson.status} — {lesson.report}")
        else:
            if not args.lesson_id:
                print("memworks: bad input: rollback needs a lesson id")
                return EXIT_BAD_INPUT
            lesson = mw.rollback_lesson(args.tenant, args.lesson_id)
            print(dumps(lesson) if args.json else f"{lesson.lesson_id}: {lesson.status}")
    return EXIT_OK


def _recommend(args: argparse.Namespace) -> int:
    from memworks.client import Memworks

    features: list[str] | str = args.features if args.text else csv_list(args.features)
    with Memworks.from_settings() as mw:
        rec = mw.recommend(args.tenant, args.task_type, features)
    print(dumps(rec) if args.json else (f"{rec.action}  ({rec.guidance})" if rec.action else "no lesson"))
    return EXIT_OK
