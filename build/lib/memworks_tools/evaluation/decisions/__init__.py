"""``memworks eval decisions``: the claim-pair decision model measured on its held-out labelled pairs.

Each pair of ``labels/claim_pairs_heldout.json`` is read as ingestion will read it (the spaCy parse
and the MiniLM vector of each sentence), decided by the shipped model
(:func:`memworks.pipelines.claims.decide`), and compared with its hand label: per-class precision,
recall and F1, the confusion matrix, and whether the precision goals hold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from memworks.pipelines.claims import (
    ClaimText,
    Decision,
    DecisionModel,
    join_sentences,
    load_model,
    pair_features,
    read_claim,
)
from memworks_tools.evaluation.decisions.data import load_pairs

#: Least precision of each closing decision on the held-out pairs.
PRECISION_GOALS: dict[Decision, float] = {Decision.CHANGED: 0.90, Decision.ENDED: 0.90}
#: Fewest held-out pairs the goals are measured on.
MIN_PAIRS = 300
CLASSES = tuple(Decision)


class Reader:
    """Reads claim texts as ingestion does: parsed by spaCy, embedded by MiniLM (loaded once)."""

    def __init__(self) -> None:
        from memworks.adapters.embedder import get_embedder
        from memworks.adapters.nlp import SpacyParser

        self.parser = SpacyParser()
        self.embedder = get_embedder("minilm")

    def pairs(self, pairs: Sequence[dict[str, Any]]) -> list[tuple[ClaimText, ClaimText]]:
        """Each labelled pair as (new, old) :class:`ClaimText`s."""
        texts = sorted({p[side]["text"] for p in pairs for side in ("new", "old")})
        parsed = dict(zip(texts, self.parser.parse(texts), strict=True))
        vectors = dict(zip(texts, self.embedder.embed(texts), strict=True))

        def claim(side: dict[str, Any]) -> ClaimText:
            text = side["text"]
            return read_claim(
                text,
                subject=side["subject"],
                said_at=datetime.fromisoformat(side["said_at"]),
                source=side["source"],
                vector=vectors[text],
                sentence=join_sentences(parsed[text], text),
            )

        return [(claim(p["new"]), claim(p["old"])) for p in pairs]


def features(claims: Sequence[tuple[ClaimText, ClaimText]]) -> npt.NDArray[np.float64]:
    return np.vstack([pair_features(n, o) for n, o in claims])


def predict(model: DecisionModel, x: npt.NDArray[np.float64]) -> list[Decision]:
    return [model.choose(p, row)[0] for p, row in zip(model.probabilities(x), x, strict=True)]


def scores(truth: Sequence[str], predicted: Sequence[str]) -> dict[str, Any]:
    """Per-class precision, recall, F1 and support, and the confusion matrix (rows: label)."""
    per: dict[str, dict[str, float]] = {}
    for c in CLASSES:
        tp = sum(1 for t, p in zip(truth, predicted, strict=True) if t == p == c)
        said = sum(1 for p in predicted if p == c)
        real = sum(1 for t in truth if t == c)
        prec = tp / said if said else 1.0
        rec = tp / real if real else 1.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        per[str(c)] = {
            "precision": round(prec, 4),
            "recall": round(rec, 4),
            "f1": round(f1, 4),
            "support": real,
            "predicted": said,
        }
    confusion = {
        str(t): {str(p): sum(1 for a, b in zip(truth, predicted, strict=True) if a == t and b == p) for p in CLASSES}
        for t in CLASSES
    }
    return {"classes": per, "confusion": confusion, "n": len(truth)}


def report(model: DecisionModel, pairs: Sequence[dict[str, Any]], reader: Reader) -> dict[str, Any]:
    """The decisions of ``model`` on ``pairs`` scored against their labels, with the goals."""
    x = features(reader.pairs(pairs))
    predicted = predict(model, x)
    truth = [p["label"] for p in pairs]
    out = scores(truth, predicted)
    by_source: dict[str, list[int]] = {}
    for i, p in enumerate(pairs):
        by_source.setdefault(p["origin"]["source"], []).append(i)
    out["by_source"] = {
        src: {
            "n": len(idx),
            "closing_precision": _closing_precision([truth[i] for i in idx], [predicted[i] for i in idx]),
        }
        for src, idx in sorted(by_source.items())
    }
    out["goals"] = {
        str(c): {
            "precision": out["classes"][str(c)]["precision"],
            "goal": goal,
            "met": out["classes"][str(c)]["precision"] >= goal and len(pairs) >= MIN_PAIRS,
        }
        for c, goal in PRECISION_GOALS.items()
    }
    out["thresholds"] = {str(k): v for k, v in model.thresholds.items()}
    return out


def _closing_precision(truth: Sequence[str], predicted: Sequence[str]) -> float | None:
    """Share of changed/ended answers whose label also closes the old claim."""
    closing = {Decision.CHANGED, Decision.ENDED}
    said = [t for t, p in zip(truth, predicted, strict=True) if p in closing]
    return round(sum(1 for t in said if t in closing) / len(said), 4) if said else None


def run(*, split: str = "heldout", out: Callable[[str], None] = print) -> dict[str, Any]:
    """The shipped model's report on the labelled pairs of ``split``, printed as a table."""
    pairs = load_pairs(split)
    r = report(load_model(), pairs, Reader())
    r["split"] = split
    out(f"claim-pair decisions on {r['n']} {split} pairs (thresholds {r['thresholds']})")
    out(f"{'class':<11} {'precision':>9} {'recall':>7} {'f1':>6} {'support':>8} {'said':>6}")
    for c, v in r["classes"].items():
        out(f"{c:<11} {v['precision']:>9.3f} {v['recall']:>7.3f} {v['f1']:>6.3f} {v['support']:>8} {v['predicted']:>6}")
    out("confusion (rows: label, columns: decision)")
    out(" " * 11 + " ".join(f"{str(c)[:9]:>9}" for c in CLASSES))
    for t, row in r["confusion"].items():
        out(f"{t:<11}" + " ".join(f"{row[str(c)]:>9}" for c in CLASSES))
    for c, g in r["goals"].items():
        out(f"{c} precision {g['precision']:.3f} (goal {g['goal']:.2f}): {'met' if g['met'] else 'NOT met'}")
    return r


def met_targets(r: dict[str, Any]) -> bool:
    return all(g["met"] for g in r["goals"].values())
