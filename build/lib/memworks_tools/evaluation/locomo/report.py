"""The LoCoMo evaluation's metrics and report: recall and session hits per question, per-category
tables, the targets it is held to, and the plot."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

#: Category ids of the dataset (per its task_eval code) and their names.
CATEGORIES: Mapping[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
#: The unanswerable category: the right answer is "not mentioned".
ADVERSARIAL = 5
#: Rank depth of the session-hit and text-budget metrics.
SESSION_K, BUDGET_K = 5, 10
#: Answerable categories (1-4) and the margins over BM25 memworks is held to in each.
ANSWERABLE = (1, 2, 3, 4)
RECALL1_MARGIN, RECALL10_MARGIN = 0.05, 0.15
#: Shares of questions not answered: at least this many adversarial, at most this many answerable.
MIN_ADVERSARIAL_NOT_ANSWERED, MAX_ANSWERABLE_NOT_ANSWERED = 0.40, 0.05
#: Labels of the systems in tables and plots, in the order shown.
LABELS = {"bm25": "BM25 (baseline)", "dense": "dense only", "fused": "fused", "memworks": "fused + rerank (memworks)"}


def session_of(dia_id: str) -> int:
    return int(dia_id[1:].split(":", 1)[0])


def recall_at(gold: Sequence[str], hits: Sequence[Sequence[str]], k: int) -> float:
    """Share of ``gold`` ids among the dialogue ids that the first ``k`` hits trace back to.

    ``hits[i]`` holds the dialogue ids of hit ``i`` (a transcript traces to one turn, a fact
    to each turn it was read from). No gold ids scores 0.
    """
    found = {d for ids in hits[:k] for d in ids}
    return len(set(gold) & found) / len(gold) if gold else 0.0


@dataclass
class Tally:
    """Running sums of one system's metrics over one category."""

    ks: tuple[int, ...]
    scored: int = 0
    asked: int = 0
    recall: dict[int, float] = field(default_factory=dict)
    session_hits: int = 0
    chars: int = 0
    not_answered: int = 0

    def add(
        self, gold: Sequence[str], hits: Sequence[Sequence[str]], texts: Sequence[str], answered: bool = True
    ) -> None:
        """Count one question: ``hits[i]`` = dialogue ids of hit i, ``texts[i]`` its text;
        ``answered``: neither abstained nor flagged as about someone else."""
        self.asked += 1
        self.not_answered += not answered
        self.chars += sum(len(t) for t in texts[:BUDGET_K])
        if not gold:
            return
        self.scored += 1
        for k in self.ks:
            self.recall[k] = self.recall.get(k, 0.0) + recall_at(gold, hits, k)
        sessions = {session_of(g) for g in gold}
        self.session_hits += any(session_of(d) in sessions for ids in hits[:SESSION_K] for d in ids)

    def summary(self) -> dict[str, float]:
        n = self.scored or 1
        out = {f"recall@{k}": round(self.recall.get(k, 0.0) / n, 4) for k in self.ks}
        out[f"session_hit@{SESSION_K}"] = round(self.session_hits / n, 4)
        out[f"chars@{BUDGET_K}"] = round(self.chars / (self.asked or 1), 1)
        out["not_answered"] = round(self.not_answered / (self.asked or 1), 4)
        return out


def report(
    conversations: Sequence[Any],
    tallies: dict[int, dict[str, Tally]],
    counts: dict[int, dict[str, int]],
    latencies: Sequence[float],
    method: str,
) -> dict[str, Any]:
    """The JSON report: categories with every system's metrics, abstention, latency, targets."""
    mw = {c: tallies[c]["memworks"] for c in CATEGORIES}
    not_answered = {c: mw[c].not_answered for c in CATEGORIES}
    total = sum(not_answered.values())
    adversarial = counts[ADVERSARIAL]["n"]
    answerable = sum(counts[c]["n"] for c in ANSWERABLE)
    categories = {
        str(c): {
            "name": CATEGORIES[c],
            **counts[c],
            "scored": mw[c].scored,
            "not_answered": not_answered[c],
            **{s: t.summary() for s, t in tallies[c].items()},
        }
        for c in CATEGORIES
    }
    lat = np.asarray(latencies, dtype=float)
    result: dict[str, Any] = {
        "categories": categories,
        "abstention": {
            "precision": round(not_answered[ADVERSARIAL] / total, 4) if total else 0.0,
            "recall": round(not_answered[ADVERSARIAL] / adversarial, 4) if adversarial else 0.0,
            "not_answered": total,
            "answerable_not_answered": round(sum(not_answered[c] for c in ANSWERABLE) / answerable, 4)
            if answerable
            else 0.0,
        },
        "retrieve_latency_ms": {
            "n": int(lat.size),
            "p50": round(float(np.percentile(lat, 50)), 2) if lat.size else None,
            "p95": round(float(np.percentile(lat, 95)), 2) if lat.size else None,
        },
        "conversations": len(conversations),
        "sample_ids": [c.sample_id for c in conversations],
        "questions": sum(c["n"] for c in counts.values()),
        "turns": sum(len(c.turns) for c in conversations),
        "bad_evidence": sum(c["bad_evidence"] for c in counts.values()),
        "no_evidence": sum(c["no_evidence"] for c in counts.values()),
        "method": method,
    }
    result["targets"] = targets(result)
    return result


def targets(result: Mapping[str, Any]) -> dict[str, Any]:
    """Each target with the value reached and whether it is met (categories without scored
    questions are left out)."""
    cats = result["categories"]
    out: dict[str, Any] = {}
    for c in ANSWERABLE:
        cat = cats[str(c)]
        if not cat["scored"]:
            continue
        for k, margin in ((1, RECALL1_MARGIN), (10, RECALL10_MARGIN)):
            mine, base = cat["memworks"][f"recall@{k}"], cat["bm25"][f"recall@{k}"]
            out[f"{c} {cat['name']} recall@{k} >= bm25 + {margin}"] = {
                "memworks": mine,
                "bm25": base,
                "met": mine >= round(base + margin, 4),
            }
    adv = cats[str(ADVERSARIAL)]
    if adv["n"]:
        share = adv["memworks"]["not_answered"]
        out[f"adversarial not answered >= {MIN_ADVERSARIAL_NOT_ANSWERED}"] = {
            "value": share,
            "met": share >= MIN_ADVERSARIAL_NOT_ANSWERED,
        }
    share = result["abstention"]["answerable_not_answered"]
    out[f"answerable not answered <= {MAX_ANSWERABLE_NOT_ANSWERED}"] = {
        "value": share,
        "met": share <= MAX_ANSWERABLE_NOT_ANSWERED,
    }
    return out


def systems_of(result: Mapping[str, Any]) -> list[str]:
    first = next(iter(result["categories"].values()))
    return [s for s in LABELS if s in first]


def print_report(result: Mapping[str, Any], ks: Sequence[int], out: Callable[[str], None]) -> None:
    cols = [f"recall@{k}" for k in ks] + [f"session_hit@{SESSION_K}", f"chars@{BUDGET_K}", "not_answered"]
    out(f"{'category':<16}{'n':>5}  {'system':<10}" + "".join(f"{c:>15}" for c in cols))
    for key, cat in result["categories"].items():
        for i, system in enumerate(systems_of(result)):
            m = cat[system]
            label, n = (f"{key} {cat['name']}", str(cat["scored"])) if i == 0 else ("", "")
            out(f"{label:<16}{n:>5}  {system:<10}" + "".join(f"{m[c]:>15}" for c in cols))
    a, lat = result["abstention"], result["retrieve_latency_ms"]
    out(
        f"abstention or subject mismatch: {a['recall']:.2f} of category {ADVERSARIAL} not answered, "
        f"{a['answerable_not_answered']:.3f} of "
        f"categories 1-4 (precision {a['precision']:.2f}); retrieve p50 {lat['p50']} ms, p95 {lat['p95']} ms "
        f"over {lat['n']} calls"
    )
    for name, t in result["targets"].items():
        out(
            f"  {'met    ' if t['met'] else 'NOT met'} {name}: "
            + ", ".join(f"{k} {v}" for k, v in t.items() if k != "met")
        )


def plot(result: Mapping[str, Any], path: Path) -> Path:
    """Recall@1 and recall@10 per category for every system, and the share not answered, as a PNG."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib.pyplot as plt

    cats = [c for c, v in result["categories"].items() if v["n"]]
    names = [f"{c} {result['categories'][c]['name']}" for c in cats]
    systems = systems_of(result)
    colours = {"bm25": "tab:grey", "dense": "tab:orange", "fused": "tab:green", "memworks": "tab:blue"}
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
    width = 0.8 / len(systems)
    for ax, metric in zip(axes, ("recall@1", "recall@10", "not_answered"), strict=True):
        for i, system in enumerate(systems):
            values = [result["categories"][c][system][metric] for c in cats]
            xs = [x + (i - (len(systems) - 1) / 2) * width for x in range(len(cats))]
            bars = ax.bar(xs, values, width, label=LABELS[system], color=colours[system])
            ax.bar_label(bars, labels=[f"{v:.2f}" if v else "" for v in values], fontsize=6)
        ax.set_xticks(range(len(cats)), names, fontsize=7)
        ax.set_ylim(0, 1.05)
        ax.set_title(
            {
                "recall@1": "evidence recall@1",
                "recall@10": "evidence recall@10",
                "not_answered": "share not answered (abstained or subject mismatch)",
            }[metric],
            fontsize=9,
        )
    axes[0].legend(loc="upper right", fontsize=7)
    fig.suptitle(f"LoCoMo ({result['conversations']} conversations, {result['questions']} questions)", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
