"""The PrefEval evaluation's metrics, report, targets and plot."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "PREFERENCE_KEYS",
    "TARGETS",
    "Tally",
    "false_positives",
    "is_preference_key",
    "met_targets",
    "plot",
    "print_report",
    "summary",
]

#: Key families of preference and constraint records (a family, or a slot under it).
PREFERENCE_KEYS = ("user.pref", "user.allergy", "user.diet", "user.condition", "user.likes", "user.dislikes")
#: What the dev topics are held to at the largest distractor count.
TARGETS = {"in_context": 0.95, "abstained": 0.02, "profile_tokens": 300}
#: Labels of the systems in tables and plots.
LABELS = {"memworks": "memworks (top 5 or profile)", "bm25": "BM25 top 5", "dense": "dense only top 5"}


def is_preference_key(key: str | None) -> bool:
    return key is not None and any(key == f or key.startswith(f + ".") for f in PREFERENCE_KEYS)


@dataclass
class Tally:
    """Running counts of one system over one topic group."""

    asked: int = 0
    top1: int = 0
    top5: int = 0
    in_context: int = 0
    abstained: int = 0
    retrieve_abstained: int = 0
    tight_picked: int = 0
    tight_fixed: int = 0
    tight_tokens: list[int] = field(default_factory=list)
    profile: int = 0
    static: int = 0
    extracted: int = 0
    tokens: list[int] = field(default_factory=list)
    static_tokens: list[int] = field(default_factory=list)

    def add(
        self,
        hits: Sequence[bool],
        *,
        abstained: bool = False,
        retrieve_abstained: bool = False,
        profile: bool = False,
        static: bool = False,
        tokens: int | None = None,
        static_tokens: int | None = None,
        extracted: bool = False,
    ) -> None:
        """One question: ``hits[i]`` = hit i rests on the preference's episode."""
        self.asked += 1
        self.top1 += bool(hits[:1] and hits[0])
        self.top5 += any(hits[:5])
        self.in_context += any(hits[:5]) or profile
        self.abstained += abstained
        self.retrieve_abstained += retrieve_abstained
        self.profile += profile
        self.static += static
        self.extracted += extracted
        if tokens is not None:
            self.tokens.append(tokens)
        if static_tokens is not None:
            self.static_tokens.append(static_tokens)

    def add_tight(self, *, picked: bool, fixed: bool, tokens: int) -> None:
        """One question under the tight cap: in the question's profile, in the fixed-order one."""
        self.tight_picked += picked
        self.tight_fixed += fixed
        self.tight_tokens.append(tokens)

    def rates(self) -> dict[str, Any]:
        n = max(self.asked, 1)
        out: dict[str, Any] = {
            "questions": self.asked,
            "top1": round(self.top1 / n, 4),
            "top5": round(self.top5 / n, 4),
            "in_context": round(self.in_context / n, 4),
        }
        if self.tokens:
            out |= {
                "abstained": round(self.abstained / n, 4),
                "retrieve_abstained": round(self.retrieve_abstained / n, 4),
                "in_profile": round(self.profile / n, 4),
                "in_static_profile": round(self.static / n, 4),
                "extracted": round(self.extracted / n, 4),
                "profile_tokens": {"mean": round(sum(self.tokens) / len(self.tokens), 1), "max": max(self.tokens)},
                "static_profile_tokens": {
                    "mean": round(sum(self.static_tokens) / len(self.static_tokens), 1),
                    "max": max(self.static_tokens),
                },
            }
        if self.tight_tokens:
            out["tight"] = {
                "in_profile": round(self.tight_picked / n, 4),
                "in_fixed_order_profile": round(self.tight_fixed / n, 4),
                "tokens_max": max(self.tight_tokens),
            }
        return out


def summary(tallies: Mapping[str, Mapping[str, Tally]]) -> dict[str, Any]:
    """Per topic group (``dev``, ``held_out``), each system's rates."""
    return {group: {name: t.rates() for name, t in systems.items()} for group, systems in tallies.items()}


def false_positives(records: Mapping[str, Sequence[Any]], plans: Sequence[Any]) -> dict[str, Any]:
    """Preference records resting on a distractor turn: their count, the turns stored, and examples."""
    distractors = {t.episode_id for p in plans for t in p.turns if t.topic is None}
    found = [
        {"user": user, "key": m.key, "text": m.text, "evidence": list(m.evidence)}
        for user, rows in records.items()
        for m in rows
        if is_preference_key(m.key) and distractors & set(m.evidence)
    ]
    turns = {e for f in found for e in f["evidence"] if e in distractors}
    return {"records": len(found), "turns": len(turns), "distractor_turns": len(distractors), "examples": found[:20]}


def met_targets(result: Mapping[str, Any]) -> bool:
    """The dev topics at the largest distractor count meet :data:`TARGETS`."""
    last = result["runs"][max(result["runs"], key=int)]["dev"]["memworks"]
    return bool(
        last["in_context"] >= TARGETS["in_context"]
        and last["abstained"] <= TARGETS["abstained"]
        and last["profile_tokens"]["max"] <= TARGETS["profile_tokens"]
        and last["static_profile_tokens"]["max"] <= TARGETS["profile_tokens"]
    )


def print_report(result: Mapping[str, Any], out: Callable[[str], None]) -> None:
    from memworks.output import table

    rows = []
    for n, r in result["runs"].items():
        for group in ("dev", "held_out"):
            if group not in r:
                continue
            mw, bm, de = r[group]["memworks"], r[group]["bm25"], r[group]["dense"]
            rows.append(
                (
                    n,
                    group,
                    mw["questions"],
                    f"{mw['in_context']:.2f}",
                    f"{mw['top5']:.2f}",
                    f"{mw['top1']:.2f}",
                    f"{mw['in_profile']:.2f}",
                    f"{mw['in_static_profile']:.2f}",
                    f"{mw['abstained']:.2f}/{mw['retrieve_abstained']:.2f}",
                    f"{mw['extracted']:.2f}",
                    f"{mw['profile_tokens']['mean']:.0f}/{mw['profile_tokens']['max']}",
                    f"{mw['static_profile_tokens']['max']}",
                    f"{mw['tight']['in_profile']:.2f}/{mw['tight']['in_fixed_order_profile']:.2f}",
                    f"{bm['top5']:.2f}/{bm['top1']:.2f}",
                    f"{de['top5']:.2f}/{de['top1']:.2f}",
                )
            )
    out(
        table(
            rows,
            [
                "N",
                "topics",
                "q",
                "in ctx",
                "top5",
                "top1",
                "profile(q)",
                "profile",
                "abstain/retrieve",
                "extracted",
                "tok(q) mean/max",
                "tok max",
                "120 tok: q/fixed",
                "bm25 5/1",
                "dense 5/1",
            ],
        )
    )
    sweep = result.get("extraction")
    if sweep:
        for group, g in sweep["statements"].items():
            out(f"{group}: {g['recorded']} of {g['statements']} preference statements leave a preference record")
        for role, d in sweep["distractors"].items():
            out(f"distractor {role} turns: {d['records']} preference records from {d['turns']} turns")
    for n, r in result["runs"].items():
        fp = r["false_positives"]
        out(
            f"N={n}: {fp['records']} preference records from {fp['turns']} of {fp['distractor_turns']} distractor turns"
        )
        for ex in fp["examples"][:5]:
            out(f"   {ex['key']}: {ex['text']}")


def plot(result: Mapping[str, Any], path: Path) -> Path:
    """In-context and top-1 rates by distractor count, dev and held-out topics, every system (PNG)."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib.pyplot as plt

    counts = sorted(result["runs"], key=int)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    colours = {"memworks": "tab:blue", "bm25": "tab:grey", "dense": "tab:orange"}
    for ax, group in zip(axes, ("dev", "held_out"), strict=True):
        for name, colour in colours.items():
            if not all(group in result["runs"][n] for n in counts):
                continue
            xs = [int(n) for n in counts]
            ctx = [result["runs"][n][group][name]["in_context"] for n in counts]
            top1 = [result["runs"][n][group][name]["top1"] for n in counts]
            ax.plot(xs, ctx, marker="o", color=colour, label=f"{LABELS[name]}: in context")
            ax.plot(xs, top1, marker="x", linestyle="--", color=colour, label=f"{LABELS[name]}: top 1")
        ax.set_xscale("log")
        ax.set_xticks([int(n) for n in counts], counts)
        ax.set_xlabel("distractor user turns per user")
        ax.set_ylim(0, 1.05)
        ax.axhline(TARGETS["in_context"], color="tab:green", linewidth=0.8, linestyle=":")
        ax.set_title(f"{'dev' if group == 'dev' else 'held-out'} topics", fontsize=9)
    axes[0].set_ylabel("share of questions")
    axes[0].legend(fontsize=7, loc="lower left")
    fig.suptitle(f"PrefEval: the stated preference reaches the agent ({result['users']} users)", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
