"""The decision on a (new, old) pair of claims, from a learned model shipped as JSON.

:func:`decide` scores :func:`~memworks.pipelines.claims.features.pair_features` with a multinomial
logistic regression (``decision_model.json``, written by
``memworks_tools.evaluation.decisions.train``) and answers one :class:`Decision` with its
probability. A wrong ``changed`` or ``ended`` hides a true memory, so those (and ``restated``,
which adds no record) abstain: when their probability is below the class's threshold, calibrated
on the training folds to reach the precision goal, the answer is ``compatible`` (keep both).
Pure: numpy only, no I/O except reading the packaged model file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from memworks.errors import MemworksError
from memworks.pipelines.claims.features import FEATURE_NAMES, ClaimText, pair_features

__all__ = ["MODEL_FILE", "Decision", "DecisionModel", "decide", "decide_all", "load_model"]

#: The model file, next to this module.
MODEL_FILE = "decision_model.json"


class Decision(StrEnum):
    """What a new claim does to an old one."""

    #: The same thing said again: evidence grows, no new record.
    RESTATED = "restated"
    #: The new claim replaces the old one's value: the old one's valid time closes.
    CHANGED = "changed"
    #: The old one stops holding, with no replacement: its valid time closes.
    ENDED = "ended"
    #: Both hold.
    COMPATIBLE = "compatible"
    #: Different topics.
    UNRELATED = "unrelated"


#: Decisions that close or absorb the old claim; each has an abstention threshold.
GUARDED = (Decision.CHANGED, Decision.ENDED, Decision.RESTATED)
_OTHER_PERSON = FEATURE_NAMES.index("other_person")


@dataclass(frozen=True)
class DecisionModel:
    """Multinomial logistic regression over standardised pair features, with abstention thresholds."""

    classes: tuple[Decision, ...]
    features: tuple[str, ...]
    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    #: (classes, features)
    coef: npt.NDArray[np.float64]
    intercept: npt.NDArray[np.float64]
    #: Least probability a guarded decision needs; below it the answer is ``compatible``.
    thresholds: Mapping[Decision, float]
    info: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DecisionModel:
        """The model of a ``decision_model.json`` body.

        Raises:
            MemworksError: the file was written for other features or is malformed.
        """
        try:
            features = tuple(str(f) for f in data["features"])
            model = cls(
                classes=tuple(Decision(c) for c in data["classes"]),
                features=features,
                mean=np.asarray(data["mean"], dtype=np.float64),
                scale=np.asarray(data["scale"], dtype=np.float64),
                coef=np.asarray(data["coef"], dtype=np.float64),
                intercept=np.asarray(data["intercept"], dtype=np.float64),
                thresholds={Decision(k): float(v) for k, v in data.get("thresholds", {}).items()},
                info=dict(data.get("info", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise MemworksError(f"decision model is malformed: {exc}") from None
        if features != FEATURE_NAMES:
            raise MemworksError(
                "decision model was trained on other features; retrain it "
                "(python -m memworks_tools.evaluation.decisions.train)"
            )
        k, d = len(model.classes), len(features)
        if model.coef.shape != (k, d) or model.intercept.shape != (k,) or model.mean.shape != model.scale.shape:
            raise MemworksError(f"decision model shapes do not match {k} classes x {d} features")
        return model

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "multinomial-logistic",
            "classes": [str(c) for c in self.classes],
            "features": list(self.features),
            "mean": [round(float(v), 8) for v in self.mean],
            "scale": [round(float(v), 8) for v in self.scale],
            "coef": [[round(float(v), 8) for v in row] for row in self.coef],
            "intercept": [round(float(v), 8) for v in self.intercept],
            "thresholds": {str(k): round(float(v), 6) for k, v in self.thresholds.items()},
            "info": self.info,
        }

    def probabilities(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Class probabilities of feature rows ``x`` (n, features) → (n, classes)."""
        z = ((np.atleast_2d(x) - self.mean) / self.scale) @ self.coef.T + self.intercept
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        p: npt.NDArray[np.float64] = e / e.sum(axis=1, keepdims=True)
        return p

    def choose(self, p: npt.NDArray[np.float64], row: npt.NDArray[np.float64] | None = None) -> tuple[Decision, float]:
        """The decision for one row of class probabilities, abstaining as the thresholds say.

        An abstention answers ``compatible`` with the probability that the top class is wrong. With
        the pair's feature ``row``, a claim about another person (``other_person``) is never allowed
        to close or restate the old one either.
        """
        top = int(np.argmax(p))
        label, prob = self.classes[top], float(p[top])
        if label in GUARDED and row is not None and row[_OTHER_PERSON] > 0:
            return Decision.COMPATIBLE, 1.0 - prob
        if label in self.thresholds and prob < self.thresholds[label]:
            return Decision.COMPATIBLE, 1.0 - prob
        return label, prob


@lru_cache(maxsize=1)
def load_model() -> DecisionModel:
    """The shipped model (read once per process)."""
    text = resources.files("memworks.pipelines.claims").joinpath(MODEL_FILE).read_text()
    return DecisionModel.from_json(json.loads(text))


def decide(new: ClaimText, old: ClaimText, model: DecisionModel | None = None) -> tuple[Decision, float]:
    """The decision for ``new`` meeting ``old`` (said before it), and its probability."""
    m = model or load_model()
    row = pair_features(new, old)
    return m.choose(m.probabilities(row)[0], row)


def decide_all(
    new: ClaimText, olds: Sequence[ClaimText], model: DecisionModel | None = None
) -> list[tuple[Decision, float]]:
    """:func:`decide` for ``new`` against each of ``olds``, scored in one batch."""
    if not olds:
        return []
    m = model or load_model()
    x = np.vstack([pair_features(new, o) for o in olds])
    return [m.choose(p, row) for p, row in zip(m.probabilities(x), x, strict=True)]
