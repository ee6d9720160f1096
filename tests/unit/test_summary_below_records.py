"""A session summary never outranks the current records of the turns it summarises."""

from __future__ import annotations

import numpy as np

from memworks.pipelines.retrieval.summaries import below_parts


def test_a_summary_scores_just_below_the_best_of_its_records_and_others_keep_theirs() -> None:
    # Given a summary (0) of two turns' records (1, 2), an unrelated record (3) and a summary (4)
    # none of whose records is a candidate
    score = np.array([0.9, 0.4, 0.6, 0.7, 0.8])
    parts = [(1, 2), (), (), (), ()]
    sims = np.array([0.5, 0.3, 0.6, 0.4, 0.5])
    out = below_parts(score, parts, sims)
    # Then the summary falls just below its best record, and nothing else moves
    assert out[2] == 0.6 and 0.59 < out[0] < 0.6
    assert list(out[[1, 3, 4]]) == [0.4, 0.7, 0.8]
    # And a summary already below its records is left where it is
    assert below_parts(np.array([0.3, 0.6]), [(1,), ()], np.array([0.2, 0.6]))[0] == 0.3


def test_a_summary_of_candidates_takes_no_place_in_the_top_3_from_another_record() -> None:
    # "What is Omar's role?": his job title (1, best), a summary repeating it (0), two other
    # records (2, 3) and the turn that answers (4), fourth among the records
    score = np.array([0.35, 0.9, 0.3, 0.2, 0.1])
    out = below_parts(score, [(1,), (), (), (), ()], np.zeros(5))
    order = sorted(range(5), key=lambda i: -out[i])
    assert order[:3] == [1, 2, 3] and order[3] == 0  # the summary just below the third record
