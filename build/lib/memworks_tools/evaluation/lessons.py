"""``memworks eval lessons``: does the agent get better, episode after episode, and what did the gate do?

Three runs, each on a fresh embedded store, through the real facade and learning actor:

* ``keywords`` — the seed example (:mod:`memworks_tools.evaluation.triage`). The held-out and
  negative tickets are verified history (reported once, as resolved by a person); every
  episode the agent handles the six training tickets with the active lessons, else its base
  policy, and reports what it gets feedback on: its failures with the verified action, and
  every ticket where a lesson fired (the online guard's evidence). One learning round follows.
* ``free_text`` — the same, every ticket reported and recommended as its sentence (``task_text``).
* ``noisy`` — a stream of the seed's ticket kinds (24 an episode, optional extra words), every
  outcome reported, where a tenth of the verified answers people report are wrong. Nothing of
  the seed is reported: its held-out and negative tickets, with their true answers, are the
  held-out test.

Accuracy is measured at the start of each episode (before its learning round), on the
training tickets and on the held-out set (held-out + negatives). For every promotion the
held-out accuracy is compared with and without the promoted lesson: a lesson that lowers it
is counted in ``harmful_promotions``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memworks.models.drafts import LessonView
from memworks.pipelines.lessons import select_lesson
from memworks_tools.evaluation.triage import (
    HELD_OUT,
    NEGATIVES,
    TASK_TYPE,
    TRAIN,
    Ticket,
    base_policy,
    features_of,
    noisy_stream,
)

TENANT = "eval-lessons"
SCENARIOS = ("keywords", "free_text", "noisy")
_START = datetime(2025, 1, 1, tzinfo=UTC)


def run(
    scenario: str = "keywords", *, n_episodes: int | None = None, out: Callable[[str], None] = print
) -> dict[str, Any]:
    """Replay one scenario on a fresh embedded store; returns curves, gate events and counts."""
    from memworks.client import Memworks
    from memworks.config import Settings

    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {', '.join(SCENARIOS)}")
    with tempfile.TemporaryDirectory(prefix="memworks-eval-") as tmp:
        settings = Settings(database_url=f"sqlite:///{Path(tmp) / 'lessons.db'}", broker_url="stub://")
        with Memworks(settings) as mw:
            return _Replay(mw, scenario, out).run(n_episodes or (10 if scenario == "noisy" else 5))


def _views(lessons: Sequence[Any]) -> list[LessonView]:
    return [
        LessonView(
            lesson_id=l.lesson_id,
            task_type=l.task_type,
            pattern=tuple(l.pattern),
            action=l.action,
            guidance=l.guidance,
            version=l.version,
            status=l.status,
        )
        for l in lessons
    ]


class _Replay:
    def __init__(self, mw: Any, scenario: str, out: Callable[[str], None]) -> None:
        self.mw, self.scenario, self.out = mw, scenario, out
        self.free_text = scenario == "free_text"
        self.seen: dict[str, str] = {}
        self.events: list[dict[str, Any]] = []

    def _given(self, t: Ticket) -> dict[str, Any]:
        return {"task_text": t.text} if self.free_text else {"features": list(t.keywords)}

    def _act(self, t: Ticket, active: Sequence[LessonView]) -> tuple[str, bool]:
        feats = features_of(t, free_text=self.free_text)
        fired = select_lesson(active, feats)
        return (fired.action, True) if fired else (base_policy(set(feats)), False)

    def _accuracy(self, tickets: Sequence[Ticket], active: Sequence[LessonView]) -> float:
        return round(sum(self._act(t, active)[0] == t.correct for t in tickets) / len(tickets), 4)

    def _outcome(self, oid: str, t: Ticket, action: str, truth: str, when: datetime) -> dict[str, Any]:
        ok = action == truth
        return {
            "outcome_id": oid,
            "tenant_id": TENANT,
            "task_id": t.task_id,
            "task_type": TASK_TYPE,
            **self._given(t),
            "action_taken": action,
            "verified_action": None if ok else truth,
            "success": ok,
            "occurred_at": when.isoformat(),
        }

    def run(self, n_episodes: int) -> dict[str, Any]:
        mw, held = self.mw, HELD_OUT + NEGATIVES
        if self.scenario != "noisy":
            # Verified history: tickets a person resolved, before the agent starts.
            mw.report_outcomes(
                [self._outcome(t.task_id, t, t.correct, t.correct, _START - timedelta(days=1)) for t in held]
            )
            mw.drain()
        stream = noisy_stream(n_episodes, 24) if self.scenario == "noisy" else None
        train_curve: list[float] = []
        held_curve: list[float] = []
        harmful: list[dict[str, Any]] = []
        for e in range(n_episodes):
            active = [l for l in _views(mw.lessons(TENANT, TASK_TYPE)) if l.status == "active"]
            batch = stream[e] if stream else [(t, t.correct) for t in TRAIN]
            train_curve.append(self._accuracy([t for t, _ in batch], active))
            held_curve.append(self._accuracy(held, active))
            reports = []
            for i, (t, truth) in enumerate(batch):
                action, fired = self._act(t, active)
                if action != truth or fired or self.scenario == "noisy":
                    when = _START + timedelta(days=e, minutes=i)
                    reports.append(self._outcome(f"{t.task_id}-e{e}", t, action, truth, when))
            if reports:
                mw.report_outcomes(reports)
                mw.drain()
            after = _views(mw.lessons(TENANT, TASK_TYPE))
            promoted = self._record(e + 1, after)
            now_active = [l for l in after if l.status == "active"]
            for lid in promoted:
                without = [l for l in now_active if l.lesson_id != lid]
                delta = self._accuracy(held, now_active) - self._accuracy(held, without)
                if delta < 0:
                    harmful.append({"episode": e + 1, "lesson_id": lid, "held_out_delta": round(delta, 4)})
            self.out(
                f"{self.scenario} episode {e + 1}: train accuracy {train_curve[-1]:.2f}, held-out "
                f"{held_curve[-1]:.2f} ({len(promoted)} promoted)"
            )
        return self._result(train_curve, held_curve, harmful)

    def _record(self, episode: int, lessons: Sequence[LessonView]) -> list[str]:
        """Log every lesson whose status changed this round; returns the ids promoted."""
        promoted = []
        by_id = {l.lesson_id: l for l in self.mw.lessons(TENANT, TASK_TYPE)}
        for lesson in lessons:
            if self.seen.get(lesson.lesson_id) == lesson.status:
                continue
            self.seen[lesson.lesson_id] = lesson.status
            report = by_id[lesson.lesson_id].report
            if lesson.status == "active":
                promoted.append(lesson.lesson_id)
            self.events.append(
                {
                    "episode": episode,
                    "lesson_id": lesson.lesson_id,
                    "pattern": list(lesson.pattern),
                    "action": lesson.action,
                    "status": lesson.status,
                    "report": report,
                }
            )
            self.out(f"  episode {episode}: {lesson.status:<11} {'+'.join(lesson.pattern)} → {lesson.action}: {report}")
        return promoted

    def _result(self, train: list[float], held: list[float], harmful: list[dict[str, Any]]) -> dict[str, Any]:
        final = {ev["lesson_id"]: ev for ev in self.events}  # the last event of each lesson
        by_status: dict[str, int] = {}
        for ev in final.values():
            by_status[ev["status"]] = by_status.get(ev["status"], 0) + 1
        promotions = [ev for ev in self.events if ev["status"] == "active"]
        return {
            "scenario": self.scenario,
            "features": "free_text" if self.free_text else "keywords",
            "accuracy": train,
            "held_out_accuracy": held,
            "base_accuracy": train[0],
            "final_accuracy": train[-1],
            "final_held_out_accuracy": held[-1],
            "events": self.events,
            "gate": {
                "lessons_by_status": by_status,
                "promotions": len(promotions),
                "blocked": [
                    f"{'+'.join(ev['pattern'])} → {ev['action']}: {ev['report']}"
                    for ev in final.values()
                    if ev["status"] == "blocked"
                ],
                "rolled_back": [ev["report"] for ev in final.values() if ev["status"] == "rolled_back"],
            },
            "blocked_with_misfire": [
                ev for ev in self.events if ev["status"] == "blocked" and "negative misfire" in ev["report"]
            ],
            "harmful_promotions": harmful,
            "max_promotions_per_episode": max(
                [sum(1 for ev in promotions if ev["episode"] == n + 1) for n in range(len(train))]
            ),
        }


def run_all(out_dir: Path, *, out: Callable[[str], None] = print) -> dict[str, Any]:
    """Every scenario, the PNG of their curves, and whether each met its target."""
    results = [run(s, out=out) for s in SCENARIOS]
    png = plot(results, out_dir / "lessons_curve.png")
    for r in results:
        out(
            f"lessons ({r['scenario']}): held-out accuracy by episode "
            f"{', '.join(f'{a:.2f}' for a in r['held_out_accuracy'])}; "
            f"gate: {r['gate']['promotions']} promoted, {len(r['gate']['blocked'])} blocked, "
            f"{len(r['gate']['rolled_back'])} rolled back, {len(r['harmful_promotions'])} harmful"
        )
    return {"lessons": {r["scenario"]: r for r in results}, "plot": str(png)}


def met_targets(report: dict[str, Any]) -> bool:
    """Seed and free text reach 1.00 on the held-out set; no run promotes a harmful lesson."""
    runs = report["lessons"]
    return all(runs[s]["final_held_out_accuracy"] == 1.0 for s in ("keywords", "free_text")) and all(
        not r["harmful_promotions"] and r["max_promotions_per_episode"] <= 1 for r in runs.values()
    )


def plot(results: list[dict[str, Any]], path: Path) -> Path:
    """The learning curves (held-out accuracy, and training accuracy dashed) as a PNG."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    # Keywords and free text learn alike, so their lines coincide: markers of shrinking size show both.
    for r, (marker, size) in zip(results, [("o", 10), ("s", 6), ("^", 5)], strict=False):
        xs = list(range(1, len(r["held_out_accuracy"]) + 1))
        (line,) = ax.plot(
            xs, r["held_out_accuracy"], marker=marker, markersize=size, label=f"{r['scenario']}: held-out"
        )
        ax.plot(xs, r["accuracy"], linestyle=":", color=line.get_color(), label=f"{r['scenario']}: training tickets")
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=0.8, label="base policy (seed)")
    ax.set_xlabel("episode")
    ax.set_ylabel("triage accuracy")
    ax.set_ylim(0, 1.05)
    ax.set_title("Learning from verified outcomes (held-out gated lessons)")
    ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
