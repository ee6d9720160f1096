"""``memworks bench``: tiny runs of every benchmark give reports of the promised shape, and the
bulk loader writes what the product's own indexing writes."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import select
from sqlmodel import Session, col

from memworks.logging import configure_logging
from tests.conftest import PG_ADMIN

pytestmark = pytest.mark.integration

#: The smallest sizes that still fill every field of every report: two sizes wherever a report
#: fits a curve or a ratio, two interleaved rounds of ingest (medians with every run kept), both
#: databases for retrieval. The time goes on starting workers and loading models, not on rows.
TINY = {
    "pool": 150,
    "ingest.episodes": 12,
    "ingest.users": 3,
    "ingest.workers": [1],
    "ingest.repeats": 2,
    "ingest.threads": 2,
    "retrieve.sizes": [100],
    "retrieve.dbs": ["sqlite", "postgresql"],
    "retrieve.foreign": [2, 5],
    "retrieve.queries": 20,
    "retrieve.budget_s": 5.0,
    "delete.subjects": [10],
    "delete.stores": [300, 700],
    "delete.repeats": 1,
    "consolidate.sizes": [120, 240],
    "consolidate.users": 4,
}


def test_statistics_helpers() -> None:
    """Percentiles, the log-log slope and strict-JSON cleaning do what the reports rely on."""
    from memworks_tools.bench.common import finite, fit_exponent, percentiles

    stats = percentiles([float(i) for i in range(1, 101)])
    assert (stats["p50"], stats["p95"], stats["n"]) == (50.5, 95.05, 100)
    assert fit_exponent([1e3, 1e4, 1e5], [1.0, 10.0, 100.0]) == 1.0
    assert fit_exponent([1e3, 1e4], [1.0, 100.0]) == 2.0
    assert finite({"a": float("nan"), "b": [1.5, float("inf")]}) == {"a": None, "b": [1.5, None]}


def test_bulk_rows_mirror_what_indexing_writes(tmp_path: Path) -> None:
    """Given a synthetic user's rows, the loader's lexical postings and documents equal what
    ``lexical.apply`` writes for the same records, its vectors are unit length, and the records
    it marks active are exactly the ones a read may see."""
    from memworks.models.tables import LexicalDoc, LexicalPosting, Memory, VectorEntry
    from memworks.store.projections import lexical
    from memworks.store.projections.base import IndexRecord
    from memworks.store.sql.db import get_engine, session_scope, upgrade
    from memworks_tools.bench import data

    pool = data.build_pool(limit=TINY["pool"])
    url = f"sqlite:///{tmp_path / 'mirror.db'}"
    upgrade(url)
    engine = get_engine(url)
    loaded = data.load_isolated(url, [data.UserSpec("t", "u", 300)], pool, seed=3, keep=[("t", "u")])
    postings = (
        LexicalPosting.tenant_id,
        LexicalPosting.user_id,
        LexicalPosting.term,
        LexicalPosting.memory_id,
        LexicalPosting.tf,
    )
    docs = (LexicalDoc.memory_id, LexicalDoc.length, LexicalDoc.fingerprint)
    with Session(engine) as s:
        bulk_postings, bulk_docs = _rows(s, postings), _rows(s, docs)
        rows = list(s.scalars(select(Memory)))
    from memworks.pipelines.ingest.slots import index_text

    with session_scope(engine) as s:  # the product's projection, over the same records
        lexical.purge(s, [r.memory_id for r in rows])
        lexical.apply(
            s,
            [IndexRecord(r.memory_id, r.tenant_id, r.user_id, index_text(r.key, r.text)) for r in rows],
            [r.fingerprint for r in rows],
        )
    with Session(engine) as s:
        assert _rows(s, postings) == bulk_postings
        assert _rows(s, docs) == bulk_docs
        active = set(s.scalars(select(col(Memory.memory_id)).where(col(Memory.status) == "active")))
    with Session(engine) as s:
        vecs = np.stack([np.frombuffer(v, dtype=np.float32) for v in s.scalars(select(col(VectorEntry.vector)))])
    assert loaded.visible[("t", "u")] == len(active) and loaded.memories == len(rows) >= 300
    assert len(vecs) == len(rows) and np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert {r.superseded_by for r in rows if r.status == "superseded"} <= {r.memory_id for r in rows}
    assert all(r.recorded_at <= datetime.now(UTC) for r in rows)
    engine.dispose()


def _rows(s: Session, columns: tuple[Any, ...]) -> set[tuple[Any, ...]]:
    return {tuple(r) for r in s.execute(select(*columns))}


def _bench(argv: list[str]) -> int:
    from memworks.cli import bench
    from memworks.cli.common import Parser

    parser = Parser(prog="memworks")
    bench.register(parser.add_subparsers(dest="command", required=True, parser_class=Parser))
    args = parser.parse_args(argv)
    return int(args.handler(args))


@pytest.mark.timeout(170)
def test_bench_all_writes_reports_of_the_promised_shape(
    tmp_path: Path, pg_admin: Any, redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Given tiny sizes, ``memworks bench all --json`` exits 0, prints the summary and writes
    ``bench.json`` plus a JSON report and a PNG per benchmark, with sane figures: every episode
    processed, exact vector search (recall 1.0), complete manifests, no index repairs needed."""
    configure_logging()  # as the suite has it; the command would otherwise quieten this process
    sets = [f"--set={k}={json.dumps(v)}" for k, v in TINY.items()]
    code = _bench(["bench", "all", "--json", "--out", str(tmp_path), "--pg", PG_ADMIN, "--redis", redis_url, *sets])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    written = json.loads((tmp_path / "bench.json").read_text())
    assert printed == written
    for name in ("ingest", "retrieve", "delete", "consolidate"):
        assert (tmp_path / f"{name}.json").exists() and (tmp_path / f"{name}.png").stat().st_size > 1000
        assert written["peak_rss_mb"][name] > 50
    m = written["machine"]
    assert m["cpus"] >= 1 and m["python"] and m["sqlite"] and m["postgres"] and m["ram_gb"] > 0

    ing = written["ingest"]
    assert ing["embedder_sps"] > 0 and ing["embedded_eps"] > 0 and ing["redis_eps"] > 0
    assert set(ing["redis_eps_by_workers"]) == {"1"}
    full = json.loads((tmp_path / "ingest.json").read_text())
    episodes = TINY["ingest.episodes"]
    assert full["embedded"]["processed"] == episodes and full["redis"]["1"]["processed"] == episodes
    assert full["redis"]["1"]["peak_rss_mb"] > 50
    # The ceiling on its own texts: each episode's transcript at least, plus its facts.
    assert full["embedder_own_texts"]["texts"] >= episodes and 0 < ing["embedded_vs_own_texts_ceiling"]
    # Both sides of each ratio ran twice, interleaved: medians with every run and the spread kept.
    assert ing["repeats"] == 2 and len(full["embedded"]["runs"]) == len(full["redis"]["1"]["runs"]) == 2
    assert full["embedded"]["spread"] == [min(full["embedded"]["runs"]), max(full["embedded"]["runs"])]
    assert ing["redis_vs_embedded"] > 0 and set(ing["redis_vs_embedded_by_workers"]) == {"1"}

    ret = written["retrieve"]
    assert set(ret["p95_ms"]) == {"100"} and ret["p95_ms"]["100"] > 0
    assert set(ret["p95_ms_by_db"]) == {"sqlite", "postgresql"}
    assert ret["writes_per_read"] == 0.0  # a read writes nothing: attention goes to the workers
    assert ret["foreign_100x_ratio"] is None  # no 100× store at these sizes: null, not NaN
    assert ret["recall_vs_exact"] == 1.0  # the vector side is an exact search
    detail = json.loads((tmp_path / "retrieve.json").read_text())
    foreign = detail["databases"]["sqlite"]["foreign"]
    assert set(foreign) == {"0", "2", "5"} and foreign["5"]["fresh_connections"]["latency_ms"]["n"] >= 20
    assert "fresh_connections" not in foreign["2"]

    dele = written["delete"]
    assert set(dele["seconds"]) == {"10"} and dele["seconds"]["10"] > 0 and dele["all_complete"]
    assert dele["store_1m_vs_10k_ratio"] > 0
    rounds = json.loads((tmp_path / "delete.json").read_text())["stores"]
    assert [s["memory_rows"] >= int(n) * 0.9 for n, s in rounds.items()] == [True, True]
    assert all(s["by_subject"]["10"]["plan"]["outcomes"] > 0 for s in rounds.values())

    con = written["consolidate"]
    assert set(con["seconds"]) == {"120", "240"} and isinstance(con["exponent"], float)
    sizes = json.loads((tmp_path / "consolidate.json").read_text())["by_size"]
    assert all(r["counts"]["repairs"] == 0 and r["counts"]["summaries"] > 0 for r in sizes.values())
    # Both figures are there; the floor is timed apart from the run, so on a busy machine it may
    # come out above the run it is a part of: comparing the two would test the machine's load.
    assert all(con["embedding_floor_s"][n] > 0 and con["seconds"][n] > 0 for n in ("120", "240"))
