"""``memworks eval lessons``: does the agent get better, episode after episode?

Each episode the agent triages a batch of tickets: an active lesson's action when one fires,
else its naive policy. Every outcome is reported (a person's verified action on failures) and
one learning round runs. Accuracy per episode should rise from the base policy's to 1.00 and
stay there, with at most one promotion per episode.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memworks.evaluation.triage import TASK_TYPE, base_policy, episodes
from memworks.pipelines.features import normalize_features

TENANT = "eval-lessons"


def run(*, free_text: bool = False, n_episodes: int = 10, size: int = 20, out: Callable[[str], None] = print) -> dict[str, Any]:
    """Replay the task set on a fresh embedded store; returns accuracy per episode and events."""
    from memworks.client import Memworks
    from memworks.config import Settings

    with tempfile.TemporaryDirectory(prefix="memworks-eval-") as tmp:
        settings = Settings(database_url=f"sqlite:///{Path(tmp) / 'lessons.db'}", broker_url="stub://")
        with Memworks(settings) as mw:
            return _replay(mw, free_text, n_episodes, size, out)


def _replay(mw: Any, free_text: bool, n_episodes: int, size: int, out: Callable[[str], None]) -> dict[str, Any]:
    start = datetime(2025, 1, 1, tzinfo=UTC)
    curve: list[float] = []
    seen: dict[str, str] = {}
    events: list[dict[str, Any]] = []
    for e, batch in enumerate(episodes(n_episodes, size)):
        right, reports = 0, []
        for i, t in enumerate(batch):
            given: list[str] | str = t.text if free_text else list(t.keywords)
            rec = mw.recommend(TENANT, TASK_TYPE, given)
            action = rec.action or base_policy(set(normalize_features(given)))
            ok = action == t.correct
            right += ok
            reports.append({
                "outcome_id": f"{t.task_id}", "tenant_id": TENANT, "task_id": t.task_id, "task_type": TASK_TYPE,
                "features": given, "action_taken": action, "verified_action": None if ok else t.correct, "success": ok,
                "occurred_at": (start + timedelta(days=e, minutes=i)).isoformat(),
            })  # fmt: skip
        curve.append(round(right / len(batch), 4))
        mw.report_outcomes(reports)
        mw.drain()
        promoted = 0
        for lesson in mw.lessons(TENANT, TASK_TYPE):
            if seen.get(lesson.lesson_id) == lesson.status or lesson.status == "candidate":
                continue
            seen[lesson.lesson_id] = lesson.status
            promoted += lesson.status == "active"
            events.append({"episode": e + 1, "lesson_id": lesson.lesson_id, "pattern": lesson.pattern,
                           "action": lesson.action, "status": lesson.status, "report": lesson.report})  # fmt: skip
            out(f"  episode {e + 1}: {lesson.status:<11} {'+'.join(lesson.pattern)} → {lesson.action}: {lesson.report}")
        out(f"episode {e + 1}: accuracy {curve[-1]:.2f}  ({promoted} promoted)")
    blocked = [ev for ev in events if ev["status"] == "blocked"]
    return {
        "features": "free_text" if free_text else "keywords",
        "accuracy": curve,
        "base_accuracy": curve[0],
        "final_accuracy": curve[-1],
        "events": events,
        "blocked_with_misfire": [ev for ev in blocked if "negative misfire" in ev["report"]],
        "max_promotions_per_episode": max(
            [sum(1 for ev in events if ev["episode"] == n + 1 and ev["status"] == "active") for n in range(len(curve))]
        ),
    }


def plot(results: list[dict[str, Any]], path: Path) -> Path:
    """The learning curves as a PNG."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4))
    for r in results:
        xs = list(range(1, len(r["accuracy"]) + 1))
        ax.plot(xs, r["accuracy"], marker="o", label=f"memworks lessons ({r['features']})")
    base = results[0]["base_accuracy"]
    ax.axhline(base, color="grey", linestyle="--", label=f"base policy ({base:.2f})")
    ax.set_xlabel("episode")
    ax.set_ylabel("triage accuracy")
    ax.set_ylim(0, 1.05)
    ax.set_title("Learning from verified outcomes (held-out gated lessons)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
