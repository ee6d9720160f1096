"""The dataset evaluations end to end on small real slices: embedded store, real embedder.

The data is read where the workplace keeps it (``MEMWORKS_EVAL_DATA``, else ``shared/data``
beside the repository, else ``/work/shared/data``); it is never copied into the repository.
Slices are written to the test's temporary folder. Without the data the tests skip.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from memworks_tools.evaluation import locomo, longmemeval


def _data_dir() -> Path | None:
    here = Path(__file__).resolve().parents[2]
    for d in (os.environ.get("MEMWORKS_EVAL_DATA"), here.parent / "shared" / "data", "/work/shared/data"):
        if d and (Path(d) / "locomo_dev.json").exists():
            return Path(d)
    return None


DATA = _data_dir()
pytestmark = pytest.mark.skipif(
    DATA is None, reason="the LoCoMo / LongMemEval data (shared/data) is not on this machine"
)


def _locomo_slice(tmp: Path, sessions: int, questions: int) -> Path:
    """conv-26 cut to its first ``sessions`` sessions and questions answerable from them."""
    assert DATA is not None
    sample = json.loads((DATA / "locomo_dev.json").read_text())[0]
    conv = {k: v for k, v in sample["conversation"].items() if not k.startswith("session_")}
    for n in range(1, sessions + 1):
        conv[f"session_{n}"] = sample["conversation"][f"session_{n}"]
        conv[f"session_{n}_date_time"] = sample["conversation"][f"session_{n}_date_time"]
    kept = {t["dia_id"] for n in range(1, sessions + 1) for t in conv[f"session_{n}"]}
    qa = [q for q in sample["qa"] if q["evidence"] and set(q["evidence"]) <= kept][:questions]
    path = tmp / "locomo_slice.json"
    path.write_text(json.dumps([{"sample_id": sample["sample_id"], "conversation": conv, "qa": qa}]))
    return path


def test_locomo_replays_a_real_conversation_and_scores_both_systems(tmp_path: Path) -> None:
    """Given two sessions of conv-26 and the questions about them, when the evaluation runs,
    then both systems are scored per category, recall grows with k, and a plot is written."""
    path = _locomo_slice(tmp_path, sessions=2, questions=12)
    lines: list[str] = []
    result = locomo.run(path, out=lines.append)
    asked = json.loads(path.read_text())[0]["qa"]
    assert result["conversations"] == 1
    assert result["questions"] == len(asked) == sum(c["n"] for c in result["categories"].values())
    assert set(result["categories"]) == {"1", "2", "3", "4", "5"}
    for cat in result["categories"].values():
        for system in ("memworks", "bm25"):
            m: dict[str, Any] = cat[system]
            recalls = [m[f"recall@{k}"] for k in (1, 5, 10, 20)]
            assert recalls == sorted(recalls) and all(0.0 <= r <= 1.0 for r in recalls)
    single_hop = result["categories"]["4"]
    assert (
        single_hop["scored"] > 0 and single_hop["memworks"]["recall@20"] > 0 and single_hop["memworks"]["chars@10"] > 0
    )
    assert 0.0 <= result["abstention"]["recall"] <= 1.0
    assert "bm25s" in result["method"] and any("abstention" in line for line in lines)
    png = locomo.plot(result, tmp_path / "plots" / "locomo.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_locomo_results_are_deterministic(tmp_path: Path) -> None:
    path = _locomo_slice(tmp_path, sessions=1, questions=5)
    first = locomo.run(path, out=lambda s: None)
    again = locomo.run(path, out=lambda s: None)
    # Everything but the clock: retrieve latency is measured, not computed.
    assert {**again, "retrieve_latency_ms": None} == {**first, "retrieve_latency_ms": None}


def _longmemeval_slice(tmp: Path, question_ids: set[str]) -> list[Path]:
    assert DATA is not None
    items = [
        q
        for f in ("longmemeval_oracle_sample_2q.json", "longmemeval_oracle_temporal25.json")
        for q in json.loads((DATA / f).read_text())
        if q["question_id"] in question_ids
    ]
    path = tmp / "longmemeval_slice.json"
    path.write_text(json.dumps(items))
    return [path]


def test_longmemeval_cases_are_graded_with_reasons(tmp_path: Path) -> None:
    """Given the abstention case, the knowledge-update case and one day-count question, when
    the evaluation runs, then every case carries a verdict and a reason; the day count is read
    from the turns' own dates; the unanswerable question is not answered."""
    paths = _longmemeval_slice(tmp_path, {"6a1eabeb", "gpt4_70e84552_abs", "0bb5a684"})
    result = longmemeval.run(paths, out=lambda s: None)
    cases = {c["question_id"]: c for c in result["cases"]}
    assert set(cases) == {"6a1eabeb", "gpt4_70e84552_abs", "0bb5a684"}
    assert all(c["reason"] for c in cases.values())
    assert cases["0bb5a684"]["passed"] and cases["0bb5a684"]["predicted"] == "7 days"
    assert cases["gpt4_70e84552_abs"]["passed"]
    assert result["temporal"] == {"n": 1, "correct": 1, "accuracy": 1.0}
    assert result["knowledge_update"]["n"] == 1 and result["abstention"]["n"] == 1
    # Session dates are all that valid_from carries: both events fall on the same day.
    assert result["temporal_valid_from"]["correct"] == 0
