"""``memworks eval locomo`` reports how much of a conversation becomes keyed memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from memworks_tools.evaluation import locomo
from tests.integration.test_eval_datasets import DATA, _locomo_slice

pytestmark = pytest.mark.skipif(DATA is None, reason="the LoCoMo data (shared/data) is not on this machine")


def test_locomo_reports_the_share_of_turns_that_yield_keyed_records(tmp_path: Path) -> None:
    """Given two sessions of conv-26 replayed with the default (open) extractor, the report
    counts the turns that are evidence of a keyed record, speakers' facts under their names."""
    lines: list[str] = []
    result = locomo.run(_locomo_slice(tmp_path, sessions=2, questions=3), out=lines.append)
    keyed = result["keyed_records"]
    assert keyed["turns"] == result["turns"]
    assert 0 < keyed["turns_with_keyed_records"] < keyed["turns"]
    assert keyed["share"] == round(keyed["turns_with_keyed_records"] / keyed["turns"], 4)
    assert any(line.startswith("keyed records: ") for line in lines)
    # The hand-labelled turns replayed (set c has three in these sessions) are judged; the sets
    # with none replayed say so rather than report a figure.
    precision = keyed["precision"]
    assert set(precision) == {"a", "b", "c"}
    assert precision["a"]["replayed"] == 0 and precision["a"]["precision"] is None
    c = precision["c"]
    assert c["replayed"] == 3 and c["records"] >= c["true"] >= 0
    assert c["records"] == 0 or c["precision"] == round(c["true"] / c["records"], 4)
    assert any(line.startswith("keyed precision on hand-labelled turns: ") for line in lines)
