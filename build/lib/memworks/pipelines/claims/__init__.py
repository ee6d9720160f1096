"""Claims and the decision a new claim makes about an old one (restated, changed, ended, compatible,
unrelated): what a claim sentence says, the features of a pair, and the learned model over them."""

from memworks.pipelines.claims.decision import (
    MODEL_FILE,
    Decision,
    DecisionModel,
    decide,
    decide_all,
    load_model,
)
from memworks.pipelines.claims.features import FEATURE_NAMES, ClaimText, pair_features, read_claim
from memworks.pipelines.claims.reading import Reading, read_words
from memworks.pipelines.claims.tree import join_sentences, read_sentence

__all__ = [
    # claims and what is read of them
    "ClaimText",
    "Reading",
    "join_sentences",
    "read_claim",
    "read_sentence",
    "read_words",
    # pair features
    "FEATURE_NAMES",
    "pair_features",
    # the decision
    "MODEL_FILE",
    "Decision",
    "DecisionModel",
    "decide",
    "decide_all",
    "load_model",
]
