"""A question's word in another form than the store's ("subscribed" beside "subscription") is
not a word the store has never heard of (pure: the scope's index in memory)."""

from __future__ import annotations

import numpy as np
import pytest

from memworks.pipelines.text.terms import terms
from memworks.store.projections.lexical import _Index


def index_of(*words: str) -> _Index:
    held = {t for w in words for t in terms(w)}
    postings = {t: (np.array([0], dtype=np.int32), np.array([1.0])) for t in held}
    return _Index((1, 1), ["m"], np.ones(1), postings, np.ones(1, dtype=np.bool_), np.full(1, np.inf))


@pytest.mark.parametrize(
    ("said", "asked", "known"),
    [
        ("subscription", "subscribed", True),  # the stemmer keeps them apart: "subscript", "subscrib"
        ("subscribed", "subscription", True),
        ("marathon", "marathon", True),
        ("marathon", "marathons", True),
        ("passport", "insurance", False),
        ("painting", "paid", False),  # short stems are matched whole only
        ("vodafone", "voucher", False),
    ],
)
def test_another_form_of_a_held_word_is_known(said: str, asked: str, known: bool) -> None:
    (term,) = terms(asked)
    assert index_of(said).knows(term) is known
