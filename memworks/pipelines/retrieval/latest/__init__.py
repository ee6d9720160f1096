"""The latest answer: to a question about what holds now (:mod:`.now`), and to one asking for
the latest run of a tool's results (:mod:`.runs`)."""

from memworks.pipelines.retrieval.latest.now import (
    CHANGE_GAP,
    LATEST_GAP,
    LATEST_MIN_SIMILARITY,
    LATEST_TOP,
    asks_latest,
    asks_now,
    below_replaced,
    definite_terms,
    latest_first,
    lexical_query,
    out_of_top,
    says_change,
)
from memworks.pipelines.retrieval.latest.runs import commanded, latest_of_series, naming_words, run_kind, series

__all__ = [
    "CHANGE_GAP",
    "LATEST_GAP",
    "LATEST_MIN_SIMILARITY",
    "LATEST_TOP",
    "asks_latest",
    "asks_now",
    "below_replaced",
    "commanded",
    "definite_terms",
    "latest_first",
    "latest_of_series",
    "lexical_query",
    "naming_words",
    "out_of_top",
    "run_kind",
    "says_change",
    "series",
]
