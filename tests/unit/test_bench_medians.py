"""Benchmark ratios rest on repeated, interleaved runs: medians and the ratios of paired runs."""

from __future__ import annotations

import math

from memworks_tools.bench.ingest import median_run, paired_ratio


def test_median_run_keeps_every_figure_and_the_spread() -> None:
    """The median run is reported whole, with every run's figure and their range; skipped runs
    are left out, and an even count takes the lower middle run."""
    runs = [{"eps": 120.0, "seconds": 3}, {"skipped": "no server"}, {"eps": 100.0, "seconds": 4}, {"eps": 140.0}]
    got = median_run(runs, "eps")
    assert got["eps"] == 120.0 and got["seconds"] == 3
    assert got["runs"] == [120.0, 100.0, 140.0] and got["spread"] == [100.0, 140.0]
    assert median_run([{"eps": 1.0}, {"eps": 3.0}], "eps")["eps"] == 1.0
    assert median_run([{"skipped": "x"}], "eps") == {"skipped": "x"}


def test_paired_ratio_is_the_median_of_side_by_side_ratios() -> None:
    """Each ratio is taken between runs made in the same round, so a slow round slows both
    sides; pairs with a skipped side do not count."""
    a = [{"eps": 80.0}, {"eps": 40.0}, {"eps": 90.0}, {"skipped": "x"}]
    b = [{"eps": 100.0}, {"eps": 50.0}, {"eps": 200.0}, {"eps": 100.0}]
    assert paired_ratio(a, "eps", b, "eps") == 0.8
    assert math.isnan(paired_ratio([{"skipped": "x"}], "eps", b, "eps"))
