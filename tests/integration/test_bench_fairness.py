"""``memworks bench fairness``: a tiny run of the harness gives a report of the promised shape (no
figure is judged here: speed targets live in the benchmark's own report)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memworks.logging import configure_logging
from tests.conftest import PG_ADMIN

pytestmark = pytest.mark.integration

#: A flood of a few seconds, small episodes, one thread of each kind.
TINY = {
    "fairness.reads": 5,
    "fairness.flood_s": 4,
    "fairness.batch": 2,
    "fairness.episode_chars": 3_000,
    "fairness.floods": {"episodes": 1, "deletions": 1, "queries": 1},
    "fairness.wait_s": 90,
}


@pytest.mark.timeout(170)
def test_the_fairness_harness_reports_bs_work_done_and_as_answers(
    tmp_path: Path, pg_admin: object, redis_url: str
) -> None:
    """Given tiny sizes, the run starts the API and a worker on loopback, floods as tenant A while
    B reads, and reports B's read latencies both ways, B's episode processed and B's deletion
    complete (with how long each took), and A's requests by answer; JSON and PNG are written."""
    from memworks_tools.bench import Options, run_benchmark

    configure_logging()
    opts = Options(out=tmp_path, progress=False, pg_url=PG_ADMIN, redis_url=redis_url, sizes=dict(TINY))
    report = run_benchmark("fairness", opts)
    assert "skipped" not in report, report
    written = json.loads((tmp_path / "fairness.json").read_text())
    assert written["read_p95_ratio"] == report["read_p95_ratio"]
    assert (tmp_path / "fairness.png").stat().st_size > 1000
    assert report["read_ms_idle"]["n"] >= 5 and report["read_ms_flood"]["n"] >= 5
    assert report["b_episode_idle_s"] is not None and report["b_deletion_idle_s"] is not None
    assert report["b_episode_s"] is not None and report["b_deletion_status"] == "complete"
    assert report["b_deletion_s"] is not None and report["b_sent_after_s"] >= 0
    assert report["a_requests"] == sum(report["a_by_status"].values()) > 0
    assert set(report["a_backlog_at_flood_end"]["queue_depth"]) >= {"extraction", "extraction.bulk", "deletion.bulk"}
    assert set(report["cpu_s_during_flood"]) == {"api", "workers", "wall"}
    assert report["settings"]["bulk_extraction_backlog"] == 8 and "episode_max_candidates" in report["settings"]
