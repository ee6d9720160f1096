"""Bytes, not rows, on PostgreSQL: once a completed deletion's rewrite has run, none of the
subject's words is in any file of memworks' tables, their TOAST tables or their indexes.

The test reads the relation files themselves (it runs beside the server, as CI does).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from memworks.services import deletion as deletion_service
from memworks.services.deps import utcnow
from memworks.store.deletion.erasure import disk
from tests.factories import episode
from tests.integration.test_doctor import run_cli  # noqa: F401 - a fixture
from tests.workers.test_deletion_residue import NEEDLES, delete_subject, world

pytestmark = pytest.mark.integration

#: memworks' tables, their TOAST tables and every index on either.
RELATIONS = """
SELECT pg_relation_filepath(c.oid) FROM pg_class c
WHERE c.oid = ANY(:tables) OR c.oid IN (SELECT reltoastrelid FROM pg_class WHERE oid = ANY(:tables))
   OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = ANY(:tables)
                OR indrelid IN (SELECT reltoastrelid FROM pg_class WHERE oid = ANY(:tables)))
"""


def on_disk(engine: Any) -> bytes:
    """The bytes of every file of memworks' relations, lower-cased, after a checkpoint."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("CHECKPOINT")  # dirty pages reach the files
        root = Path(conn.exec_driver_sql("SHOW data_directory").scalar_one())
        oid = text("SELECT CAST(:t AS regclass)::oid")
        oids = [conn.execute(oid, {"t": t}).scalar_one() for t in disk.CONTENT_TABLES]
        paths = [p for (p,) in conn.execute(text(RELATIONS), {"tables": oids}) if p]
    if not root.is_dir():
        pytest.skip(f"PostgreSQL's data directory {root} is not readable here: the files cannot be scanned")
    files = [f for p in paths for f in (root / p).parent.glob((root / p).name + "*") if f.is_file()]
    return b"".join(f.read_bytes() for f in files).lower()


def test_a_completed_deletion_leaves_the_files_once_they_are_rewritten(pg_url: str, make_memworks: Any) -> None:
    mw = make_memworks(pg_url)
    world(mw)
    mw.enqueue_episodes([episode(5, "My favourite band is Zorblax Quintet.", user="u1")])
    mw.drain()
    assert [n for n in NEEDLES if n.encode() in on_disk(mw.runtime.engine)] == list(NEEDLES)
    # Given a completed deletion, its erased tuples are still in the files (the rows are not);
    assert delete_subject(mw).status == "complete"
    assert [n for n in NEEDLES if n.encode() in on_disk(mw.runtime.engine)], "nothing to rewrite: the test sees nothing"
    # when the rewrite runs, no file holds a word of the subject, and others' words are still there;
    done = deletion_service.rewrite_files(mw.runtime, now=utcnow())
    assert len(done.requests) == 1 and done.tables_left == []
    raw = on_disk(mw.runtime.engine)
    assert [n for n in NEEDLES if n.encode() in raw] == []
    assert b"oslo" in raw and b"escalate_security" in raw
    # and a second run has nothing to do (no deletion completed since).
    assert deletion_service.rewrite_files(mw.runtime, now=utcnow()) == deletion_service.Rewritten([], [])


def test_a_table_whose_lock_is_not_granted_is_left_for_the_next_run(pg_url: str, make_memworks: Any) -> None:
    mw = make_memworks(pg_url)
    world(mw)
    assert delete_subject(mw).status == "complete"
    with mw.runtime.engine.connect() as blocker:
        blocker.exec_driver_sql("LOCK TABLE lesson IN ACCESS SHARE MODE")  # a long read holds the table
        done = deletion_service.rewrite_files(mw.runtime, now=utcnow(), lock_timeout_s=0.2)
        assert done == deletion_service.Rewritten([], ["lesson"])  # the request stays unmarked
        blocker.rollback()
    again = deletion_service.rewrite_files(mw.runtime, now=utcnow())
    assert len(again.requests) == 1 and again.tables_left == []


def test_db_rewrite_says_what_it_took_off_the_disk(pg_url: str, make_memworks: Any, run_cli: Any) -> None:  # noqa: F811
    env = {"MEMWORKS_DATABASE_URL": pg_url, "MEMWORKS_BROKER_URL": "stub://", "MEMWORKS_EXTRACTOR": "rules"}
    mw = make_memworks(pg_url)
    code, out, _ = run_cli(["db", "rewrite"], **env)
    assert code == 0 and "nothing to do" in out, out
    world(mw)
    assert delete_subject(mw).status == "complete"
    code, out, _ = run_cli(["db", "rewrite"], **env)
    assert code == 0 and "1 completed deletion(s) off the disk" in out, out
    assert [n for n in NEEDLES if n.encode() in on_disk(mw.runtime.engine)] == []
