"""Train the claim-pair decision model on the labelled training pairs, cross-validated by conversation.

``python -m memworks_tools.evaluation.decisions.train`` reads ``labels/claim_pairs_train.json`` as
ingestion reads claims (spaCy parse, MiniLM vector), fits a multinomial logistic regression
(scikit-learn) over :data:`~memworks.pipelines.claims.FEATURE_NAMES` and calibrates abstention:

* the pairs are split into folds by source conversation (no conversation in two folds); each fold
  is decided by a model fitted on the others, so every training pair has an out-of-fold probability;
* for ``changed``, ``ended`` and ``restated``, the threshold is the lowest top-class probability at
  which the out-of-fold answers of that class reach ``--target`` precision (the 0.90 goal). One
  error near the top moves that point a lot, so the folds are dealt :data:`SHUFFLES` times and the
  threshold is read from all the deals' out-of-fold answers pooled. Below it the model answers
  ``compatible``.

The model written (``memworks/pipelines/claims/decision_model.json``) is fitted on every training
pair with those thresholds; the out-of-fold report and, for information, the held-out report go
into its ``info``. Deterministic: fixed folds and seed, and a solver without randomness.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memworks.pipelines.claims import FEATURE_NAMES, MODEL_FILE, Decision, DecisionModel
from memworks.pipelines.claims.decision import GUARDED
from memworks_tools.evaluation.decisions import CLASSES, Reader, features, report, scores
from memworks_tools.evaluation.decisions.data import load_pairs

#: Precision the thresholds aim for on out-of-fold answers (the goal).
TARGET = 0.90
#: Precision a restatement's threshold aims for. A wrong *restated* retires the new turn's own
#: records as copies ("dark mode in the terminal" after "dark mode in the editor"), so it is held to
#: the same goal; values named again add evidence through the mention rule instead.
RESTATED_TARGET = 0.90
#: Inverse regularisation strength of the logistic regression.
C = 0.1
FOLDS = 5
SEED = 13
#: Fold deals (seeds SEED, SEED + 1, ...) whose out-of-fold answers are pooled to set the thresholds.
SHUFFLES = 7
#: Lowest threshold a guarded decision may have.
MIN_THRESHOLD = 0.4


def groups_of(pairs: Sequence[dict[str, Any]]) -> list[str]:
    """The source conversation of each pair (folds never split one)."""
    return [f"{p['origin']['source']}:{p['origin'].get('conversation', p['id'])}" for p in pairs]


def labels_of(pairs: Sequence[dict[str, Any]]) -> npt.NDArray[np.int64]:
    return np.array([CLASSES.index(Decision(p["label"])) for p in pairs], dtype=np.int64)


def fit(x: npt.NDArray[np.float64], y: npt.NDArray[np.int64], c: float = C) -> DecisionModel:
    """A multinomial logistic regression on standardised features (no thresholds yet)."""
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    lr = LogisticRegression(C=c, max_iter=10000).fit((x - mean) / scale, y)
    coef = np.zeros((len(CLASSES), x.shape[1]))
    intercept = np.full(len(CLASSES), -30.0)  # a class never seen in training is never answered
    for row, k in enumerate(lr.classes_):
        coef[k], intercept[k] = lr.coef_[row], lr.intercept_[row]
    return DecisionModel(CLASSES, FEATURE_NAMES, mean, scale, coef, intercept, {})


def folds_of(groups: Sequence[str], k: int = FOLDS, seed: int = SEED) -> list[int]:
    """A fold per pair: conversations shuffled with ``seed`` and dealt out, largest first."""
    sizes: dict[str, int] = {}
    for g in groups:
        sizes[g] = sizes.get(g, 0) + 1
    rng = np.random.default_rng(seed)
    names = sorted(sizes)
    rng.shuffle(names)
    load = [0] * k
    fold_of: dict[str, int] = {}
    for g in sorted(names, key=lambda g: -sizes[g]):
        f = int(np.argmin(load))
        fold_of[g] = f
        load[f] += sizes[g]
    return [fold_of[g] for g in groups]


def out_of_fold(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.int64], groups: Sequence[str], c: float = C, seed: int = SEED
) -> npt.NDArray[np.float64]:
    """Class probabilities of every pair from a model fitted without its conversation's fold."""
    fold = np.array(folds_of(groups, seed=seed))
    p = np.zeros((len(y), len(CLASSES)))
    for f in sorted(set(fold.tolist())):
        test = fold == f
        p[test] = fit(x[~test], y[~test], c).probabilities(x[test])
    return p


def thresholds_for(
    p: npt.NDArray[np.float64],
    y: npt.NDArray[np.int64],
    target: float = TARGET,
    allowed: npt.NDArray[np.bool_] | None = None,
    restated_target: float = RESTATED_TARGET,
) -> dict[Decision, float]:
    """Per guarded class, the lowest top-probability at which its answers reach ``target`` precision
    (``restated_target`` for restatements) among the rows where a guarded answer is ``allowed`` at
    all (not about another person)."""
    top = p.argmax(axis=1)
    ok_rows = np.ones(len(p), dtype=np.bool_) if allowed is None else allowed
    out: dict[Decision, float] = {}
    for c in GUARDED:
        k = CLASSES.index(c)
        said = np.flatnonzero((top == k) & ok_rows)
        probs = p[said, k]
        order = np.argsort(-probs)
        hits = np.cumsum(y[said][order] == k)
        precision = hits / np.arange(1, len(order) + 1)
        ok = np.flatnonzero(precision >= (restated_target if c is Decision.RESTATED else target))
        t = float(probs[order][ok[-1]]) if len(ok) else 1.0
        out[c] = round(max(t, MIN_THRESHOLD), 4)
    return out


def with_thresholds(model: DecisionModel, thresholds: dict[Decision, float], info: dict[str, Any]) -> DecisionModel:
    return DecisionModel(
        model.classes, model.features, model.mean, model.scale, model.coef, model.intercept, thresholds, info
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m memworks_tools.evaluation.decisions.train", description=__doc__.split("\n")[0]
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=Path(str(resources.files("memworks.pipelines.claims").joinpath(MODEL_FILE))),
        help="where the model goes (default: the file the decision loads)",
    )
    ap.add_argument("--c", type=float, default=C, help="inverse regularisation strength")
    ap.add_argument("--target", type=float, default=TARGET, help="out-of-fold precision the thresholds aim for")
    ap.add_argument(
        "--restated-target", type=float, default=RESTATED_TARGET, help="out-of-fold precision of restatements"
    )
    args = ap.parse_args(argv)
    reader = Reader()
    train = load_pairs("train")
    x = features(reader.pairs(train))
    y = labels_of(train)
    groups = groups_of(train)
    p = out_of_fold(x, y, groups, args.c)
    deals = [p] + [out_of_fold(x, y, groups, args.c, SEED + i) for i in range(1, SHUFFLES)]
    allowed = x[:, FEATURE_NAMES.index("other_person")] == 0
    thresholds = thresholds_for(
        np.vstack(deals), np.tile(y, len(deals)), args.target, np.tile(allowed, len(deals)), args.restated_target
    )
    base = fit(x, y, args.c)
    cv_model = with_thresholds(base, thresholds, {})
    oof = [str(cv_model.choose(row, xr)[0]) for row, xr in zip(p, x, strict=True)]
    cv = scores([str(CLASSES[k]) for k in y], oof)
    for name, v in cv["classes"].items():
        print(f"cross-validated {name:<11} " + "  ".join(f"{k} {val}" for k, val in v.items()))
    print(f"thresholds { ({str(k): v for k, v in thresholds.items()}) }")
    counts: dict[str, int] = {}
    for pair in train:
        counts[pair["origin"]["source"]] = counts.get(pair["origin"]["source"], 0) + 1
    model = with_thresholds(
        base,
        thresholds,
        {
            "trained_on": counts,
            "pairs": len(train),
            "conversations": len(set(groups)),
            "c": args.c,
            "target_precision": args.target,
            "restated_target_precision": args.restated_target,
            "folds": FOLDS,
            "fold_deals": SHUFFLES,
            "cross_validated": cv["classes"],
        },
    )
    held = load_pairs("heldout")
    if held:
        r = report(model, held, reader)
        model.info["heldout"] = {"n": r["n"], "classes": r["classes"]}
        for name, v in r["classes"].items():
            print(f"held-out {name:<11} " + "  ".join(f"{k} {val}" for k, val in v.items()))
    args.out.write_text(json.dumps(model.to_json(), indent=1) + "\n")
    print(f"model written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
