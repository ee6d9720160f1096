"""Deletion targets that cannot close: bounded retries, then FAILED with the reason, counted,
and shown per target by ``memworks manifest``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memworks.store.deletion import erasure
from memworks.workers.metrics import REGISTRY
from tests.factories import episode

SUBJECT = {"tenant_id": "t1", "user_id": "u1"}


def failed_count(target: str, cause: str) -> float:
    value = REGISTRY.get_sample_value("memworks_deletion_failed_total", {"target": target, "cause": cause})
    return value or 0.0


def loaded(make_memworks: Any, url: str, **settings: Any) -> Any:
    mw = make_memworks(url, **settings)
    mw.enqueue_episodes(
        [
            episode(1, "I live in Vexhollow.", when="2025-01-06T09:00:00+00:00"),
            episode(2, "My dog is called Zorblax.", when="2025-01-07T09:00:00+00:00"),
        ]
    )
    mw.drain()
    return mw


def broken_purge(monkeypatch: pytest.MonkeyPatch, target: str) -> dict[str, int]:
    """Make ``target``'s purge raise every time; returns its call count."""
    _, check = erasure.PROJECTIONS[target]
    calls = {"n": 0}

    def broken(session: Any, subject: Any) -> int:
        calls["n"] += 1
        raise OSError("index volume unavailable")

    monkeypatch.setitem(erasure.PROJECTIONS, target, (broken, check))
    return calls


def test_a_job_that_keeps_failing_is_retried_a_bounded_number_of_times_then_failed_with_its_reason(
    db_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a lexical index whose purge always raises, and two retries per message,
    mw = loaded(make_memworks, db_url, max_retries=2, retry_min_backoff_ms=10, retry_max_backoff_ms=20)
    calls = broken_purge(monkeypatch, "lexical_index")
    before = failed_count("lexical_index", "error")
    # When the subject is deleted,
    rid = mw.submit_deletion(SUBJECT)
    with pytest.raises(OSError):
        mw.drain()
    # Then the purge ran three times (once and two retries) and no more,
    assert calls["n"] == 3
    m = mw.manifest(rid)
    # the request failed, with the reason on its target, and the other targets closed,
    t = m.targets["lexical_index"]
    assert m.status == "failed" and t.state == "FAILED"
    assert t.reason == "purge failed 3 times, retries exhausted: OSError: index volume unavailable"
    assert json.loads(t.detail)["reason"] == t.reason
    assert all(x.state == "CLOSED" and x.reason == "" for name, x in m.targets.items() if name != "lexical_index")
    # and the failure is counted once.
    assert failed_count("lexical_index", "error") == before + 1

    # When the periodic sweep runs, the FAILED target stays FAILED: its retries are used.
    import memworks.workers as w

    w.resume_deletions(0)
    mw.drain()
    assert calls["n"] == 3 and mw.manifest(rid).status == "failed"

    # When the fault clears and a person asks for another round, the deletion completes.
    monkeypatch.setitem(erasure.PROJECTIONS, "lexical_index", (erasure.purge_lexical, erasure.check_lexical))
    mw.resume_deletions()
    mw.drain()
    done = mw.manifest(rid)
    assert done.status == "complete" and done.targets["lexical_index"].reason == ""


def test_residue_after_every_round_fails_the_target_with_the_count(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a vector purge that reports success and erases nothing, and two rounds at most,
    import memworks.services.deletion as service

    monkeypatch.setattr(service, "MAX_ATTEMPTS", 2)
    mw = loaded(make_memworks, sqlite_url)
    _, check = erasure.PROJECTIONS["vector_index"]
    monkeypatch.setitem(erasure.PROJECTIONS, "vector_index", (lambda session, subject: 0, check))
    before = failed_count("vector_index", "residue")
    # When the subject is deleted,
    rid = mw.submit_deletion(SUBJECT)
    mw.drain()
    # Then the target is FAILED after two rounds, saying how much is left, and it is counted.
    t = mw.manifest(rid).targets["vector_index"]
    assert mw.manifest(rid).status == "failed"
    assert (t.state, t.attempts) == ("FAILED", 2) and t.remaining > 0
    assert t.reason == f"{t.remaining} still present after 2 purge-and-verify rounds"
    assert failed_count("vector_index", "residue") == before + 1


def test_the_manifest_command_prints_each_targets_state_attempts_and_reason(
    tmp_path: Path, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a failed deletion stored in a database file,
    db = tmp_path / "m.db"
    mw = loaded(make_memworks, f"sqlite:///{db}")
    broken_purge(monkeypatch, "lexical_index")
    rid = mw.submit_deletion(SUBJECT)
    with pytest.raises(OSError):
        mw.drain()
    mw.close()
    # When `memworks manifest ID` reads it,
    env = dict(os.environ, MEMWORKS_DATABASE_URL=f"sqlite:///{db}", MEMWORKS_BROKER_URL="stub://")
    res = subprocess.run(
        [sys.executable, "-m", "memworks.cli", "manifest", rid], env=env, capture_output=True, text=True, timeout=120
    )
    # Then it prints the request's status and, per target, its state, attempts and reason.
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert f"deletion {rid} (t1/u1): failed" in lines[0]
    header = lines[1].split()
    assert header[:4] == ["target", "state", "remaining", "attempts"] and header[-1] == "reason"
    row = next(line for line in lines if line.startswith("lexical_index"))
    assert row.split()[1] == "FAILED"
    assert row.endswith("purge failed 1 time, retries exhausted: OSError: index volume unavailable")
    closed = next(line for line in lines if line.startswith("primary_store"))
    assert closed.split()[1] == "CLOSED" and closed.split()[3] == "1"
    as_json = subprocess.run(
        [sys.executable, "-m", "memworks.cli", "manifest", rid, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(as_json.stdout)["targets"]["lexical_index"]["reason"].startswith("purge failed 1 time")
