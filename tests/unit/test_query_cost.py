"""What one question may cost to read: at most 8 time expressions, each looked for once over the
rest of the text (work linear in its length), and at most 1,000 characters on every door."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memworks.pipelines.retrieval import timerange
from memworks.pipelines.retrieval.timerange import MAX_PHRASES, question_range

ASKED = datetime(2024, 6, 1, 12, tzinfo=UTC)
#: Date phrases without a year: every one of them is a time expression to read.
NO_YEAR = "last May and in June and two weeks ago and since March and yesterday and next Tuesday and May 5 "


def padded(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text the question reader searches for a time expression."""
    seen: list[int] = []
    real = timerange.find_time

    def counted(text: str, anchor: datetime) -> Any:
        seen.append(len(text))
        return real(text, anchor)

    monkeypatch.setattr(timerange, "find_time", counted)
    return seen


def test_a_question_is_searched_for_at_most_eight_time_expressions(scans: list[int]) -> None:
    # Given a question of ~100 date phrases, none naming a year
    query = padded(NO_YEAR, 1000)
    # When its period is read
    found = question_range(query, ASKED)
    # Then the text was searched at most MAX_PHRASES times, and the first phrase decides
    assert MAX_PHRASES == 8
    assert 1 <= len(scans) <= MAX_PHRASES
    assert found is not None and found.phrase == "last May"


@pytest.mark.parametrize("unit", [NO_YEAR, "May 5 may 6 ", "yesterday "])
def test_the_work_of_reading_a_question_grows_linearly_with_its_length(scans: list[int], unit: str) -> None:
    """Characters searched for time expressions, at 500 to 4,000 characters of date phrases:
    at most MAX_PHRASES passes over the text (it was one pass per phrase: quadratic)."""
    work = {}
    for n in (500, 1000, 2000, 4000):
        scans.clear()
        question_range(padded(unit, n), ASKED)
        work[n] = sum(scans)
        assert work[n] <= MAX_PHRASES * n, (n, work[n])
    assert work[4000] <= 8 * work[500] * 1.1, work


def test_a_year_among_the_first_expressions_still_names_the_period() -> None:
    june = question_range("What did I do last May and in June 2023?", ASKED)
    assert june is not None and (june.start.year, june.start.month) == (2023, 6)
    monday = question_range("What did I do the Monday before July 24, 2023?", ASKED)
    assert monday is not None and monday.end.date() == datetime(2023, 7, 25).date()
    # A year named only after eight other expressions is not read: the first one decides
    late = question_range("What happened " + "yesterday, " * MAX_PHRASES + "in June 2023?", ASKED)
    assert late is not None and late.start.date() == (ASKED - timedelta(days=1)).date()


# -- the length cap --------------------------------------------------------------------------


def test_every_door_refuses_a_query_over_the_same_limit() -> None:
    from memworks.api.bodies import MAX_QUERY
    from memworks.mcp.server import Query
    from memworks.services.retrieval import MAX_QUERY_CHARS

    mcp_max = next(m.max_length for m in Query.__metadata__[0].metadata if hasattr(m, "max_length"))
    assert MAX_QUERY_CHARS == MAX_QUERY == mcp_max == 1000


def test_the_facade_refuses_a_long_query_naming_it(sqlite_url: str, make_memworks: Any) -> None:
    from memworks.errors import InvalidInput
    from memworks.models.schemas import Scope

    mw = make_memworks(sqlite_url)
    scope = Scope(tenant_id="t1", user_id="u1")
    with pytest.raises(InvalidInput) as refused:
        mw.retrieve(scope, padded(NO_YEAR, 1001))
    assert refused.value.field == "query" and "1000" in str(refused.value)
    assert mw.retrieve(scope, padded(NO_YEAR, 1000)).hits == []


def test_the_api_answers_422_naming_query(sqlite_url: str, make_memworks: Any) -> None:
    from fastapi.testclient import TestClient

    from memworks.api import create_app
    from memworks.store.keys import create_key
    from memworks.store.sql.db import session_scope

    mw = make_memworks(sqlite_url)
    with session_scope(mw.runtime.engine) as s:
        secret = create_key(s, tenant_id="t1", user_id="u1", label="test", now=datetime.now(UTC))[1]
    with TestClient(create_app(mw)) as client:
        r = client.post(
            "/v1/retrieve", json={"query": padded(NO_YEAR, 1001)}, headers={"Authorization": f"Bearer {secret}"}
        )
    assert r.status_code == 422 and r.json()["error"]["field"] == "query", r.text


def test_the_cli_exits_2_naming_query(tmp_path: Path) -> None:
    env = dict(os.environ, MEMWORKS_DATABASE_URL=f"sqlite:///{tmp_path / 'm.db'}", MEMWORKS_BROKER_URL="stub://")
    args = ["retrieve", padded(NO_YEAR, 1001), "--tenant", "t1", "--user", "u1", "--json"]
    res = subprocess.run(
        [sys.executable, "-m", "memworks.cli", *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 2, res.stderr
    assert "query" in res.stderr and json.loads(res.stdout)["error"]["field"] == "query"
