"""Replay every conversation into a fresh embedded store and grade its checks, twice.

Each conversation is stored in a tenant of its own, session by session (``drain()`` after each,
as an agent reporting turns would see them processed), then every check is graded **after
ingest** and again **after consolidation** (the nightly job, run with ``consolidate(tenant)``).
A check passes only when it passes at both stages: what an agent reads the same day and what it
reads the morning after must both be right.
"""

from __future__ import annotations

import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from memworks.client import Memworks
from memworks.config import Settings
from memworks_tools.evaluation.conversations.cases import CHECK_KINDS, Conversation, load
from memworks_tools.evaluation.conversations.grading import Grader, Verdict

#: The share of checks that must pass, overall.
TARGET = 0.95
#: The two moments each check is graded at.
STAGES = ("after_ingest", "after_consolidation")


def _replay(mw: Memworks, conv: Conversation) -> int:
    n = 0
    for batch in conv.episodes():
        mw.enqueue_episodes(batch)
        mw.drain()
        n += len(batch)
    return n


def _grade_all(mw: Memworks, conv: Conversation) -> dict[str, Verdict]:
    grader = Grader(mw, conv)
    return {c.id: grader.grade(c) for c in conv.checks}


def _row(conv: Conversation, check_id: str, kind: str, stages: dict[str, Verdict]) -> dict[str, Any]:
    check = next(c for c in conv.checks if c.id == check_id)
    failed = [s for s, v in stages.items() if not v.ok]
    return {
        "conversation": conv.id,
        "split": conv.split,
        "check": check_id,
        "kind": kind,
        "question": check.query or check.probe or None,
        "expected": list(check.expect or check.forgotten) or None,
        "ok": not failed,
        "failed_at": failed,
        "reason": next((stages[s].reason for s in failed), ""),
        "stages": {s: {"ok": v.ok, "reason": v.reason, "got": v.got} for s, v in stages.items()},
    }


def _rate(
    rows: Sequence[dict[str, Any]], ok: Callable[[dict[str, Any]], bool] = lambda r: bool(r["ok"])
) -> dict[str, Any]:
    passed = sum(1 for r in rows if ok(r))
    return {"checks": len(rows), "passed": passed, "rate": round(passed / len(rows), 4) if rows else None}


def _passed_at(stage: str) -> Callable[[dict[str, Any]], bool]:
    return lambda r: bool(r["stages"][stage]["ok"])


def summarise(rows: Sequence[dict[str, Any]], convs: Sequence[Conversation], episodes: int) -> dict[str, Any]:
    """The report: pass rates overall, per split, kind, conversation and stage, and every failure."""
    by_conv = {c.id: c for c in convs}
    overall = _rate(rows)
    return {
        "suite": "conversations",
        "conversations": len(convs),
        "episodes": episodes,
        "checks": len(rows),
        "target": TARGET,
        "overall": overall["rate"],
        "met": overall["rate"] is not None and overall["rate"] >= TARGET,
        "by_split": {s: _rate([r for r in rows if r["split"] == s]) for s in ("dev", "heldout")},
        "by_kind": {
            k: _rate([r for r in rows if r["kind"] == k]) for k in CHECK_KINDS if any(r["kind"] == k for r in rows)
        },
        "by_conversation": {
            c: {"kind": by_conv[c].kind, "split": by_conv[c].split} | _rate([r for r in rows if r["conversation"] == c])
            for c in by_conv
        },
        "by_stage": {s: _rate(rows, _passed_at(s)) for s in STAGES},
        "failures": [
            {k: r[k] for k in ("conversation", "split", "check", "kind", "question", "failed_at", "reason")}
            for r in rows
            if not r["ok"]
        ],
        "results": list(rows),
    }


def met_targets(result: dict[str, Any]) -> bool:
    """At least :data:`TARGET` of all checks pass (at both stages)."""
    return bool(result["met"])


def run(
    conversations: Iterable[Conversation] | None = None,
    *,
    out: Callable[[str], None] = print,
    workdir: Path | None = None,
    settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Replay and grade ``conversations`` (default: every shipped file) in a fresh embedded store.

    Args:
        conversations: the conversations to run (see :func:`~.cases.load`).
        out: where progress and the summary tables go.
        workdir: where the temporary SQLite file is made (default: the system's temp folder).
        settings: extra ``Settings`` fields for the store (an extractor, a ranker).

    Returns:
        The report of :func:`summarise`, with ``seconds``.
    """
    convs = list(load() if conversations is None else conversations)
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    episodes = 0
    with tempfile.TemporaryDirectory(prefix="memworks-conversations-", dir=workdir) as tmp:
        cfg = Settings(
            database_url=f"sqlite:///{Path(tmp) / 'conversations.db'}", broker_url="stub://", **(settings or {})
        )
        with Memworks(cfg) as mw:
            for conv in convs:
                episodes += _replay(mw, conv)
                first = _grade_all(mw, conv)
                mw.consolidate(conv.tenant)
                second = _grade_all(mw, conv)
                kinds = {c.id: c.kind for c in conv.checks}
                for cid in kinds:
                    rows.append(
                        _row(conv, cid, kinds[cid], {"after_ingest": first[cid], "after_consolidation": second[cid]})
                    )
                done = [r for r in rows if r["conversation"] == conv.id]
                out(f"{conv.id} ({conv.split}): {sum(r['ok'] for r in done)}/{len(done)} checks pass")
    result = summarise(rows, convs, episodes) | {"seconds": round(time.perf_counter() - started, 1)}
    _print(result, out)
    return result


def _pct(r: dict[str, Any]) -> str:
    return "-" if r["rate"] is None else f"{r['rate']:.2f} ({r['passed']}/{r['checks']})"


def _print(result: dict[str, Any], out: Callable[[str], None]) -> None:
    from memworks.output import table

    out(table([(k, _pct(v)) for k, v in result["by_kind"].items()], ["kind", "pass rate"]))
    out(
        table(
            [(c, v["kind"], v["split"], _pct(v)) for c, v in result["by_conversation"].items()],
            ["conversation", "kind", "split", "pass rate"],
        )
    )
    split, stage = result["by_split"], result["by_stage"]
    out(
        f"dev {_pct(split['dev'])}; held-out {_pct(split['heldout'])}; after ingest {_pct(stage['after_ingest'])};"
        f" after consolidation {_pct(stage['after_consolidation'])}"
    )
    verdict = "met" if result["met"] else "NOT met"
    out(
        f"overall {result['overall']} over {result['checks']} checks (target {TARGET}: {verdict});"
        f" {result['seconds']} s"
    )
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in result["failures"]:
        by_kind[f["kind"]].append(f)
    for kind, fails in by_kind.items():
        for f in fails:
            out(f"FAIL {kind} {f['conversation']}/{f['check']} [{', '.join(f['failed_at'])}]: {f['reason']}")
