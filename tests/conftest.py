"""Shared fixtures: a fresh SQLite file or PostgreSQL database per test, the machine's Redis.

The machine's services (PostgreSQL 127.0.0.1:5432, Redis 127.0.0.1:6379) are required in CI
(``CI=true``): a missing one fails the run. Elsewhere the tests that need one skip, saying why.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

PG_ADMIN = os.environ.get("MEMWORKS_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("MEMWORKS_TEST_REDIS", "redis://127.0.0.1:6379/13")
#: Redis databases a run may use: the given one, then one more per parallel test process.
REDIS_DATABASES = 16
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _unavailable(what: str, exc: BaseException) -> None:
    msg = f"{what} is not reachable ({type(exc).__name__}: {exc})"
    if IN_CI:
        pytest.fail(f"{msg}; CI requires it", pytrace=False)
    pytest.skip(msg)


@pytest.fixture(scope="session")
def pg_admin() -> Iterator[Any]:
    from sqlalchemy import create_engine, text

    engine = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as c:
            c.execute(text("SELECT 1"))
    except Exception as exc:  # noqa: BLE001 - any connection failure means "not reachable"
        engine.dispose()
        _unavailable("PostgreSQL at " + PG_ADMIN, exc)
    yield engine
    engine.dispose()


@pytest.fixture
def pg_url(pg_admin: Any) -> Iterator[str]:
    """A new, empty PostgreSQL database for one test, dropped afterwards."""
    from sqlalchemy import text

    name = f"memworks_t_{uuid.uuid4().hex[:12]}"
    with pg_admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    url = PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    yield url
    from memworks.store.sql.db import get_engine

    get_engine(url).dispose()
    get_engine.cache_clear()
    with pg_admin.connect() as c:
        c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def sqlite_url(tmp_path: Any) -> str:
    return f"sqlite:///{tmp_path / 'memworks.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    """Each test using it runs on both databases."""
    name = "sqlite_url" if request.param == "sqlite" else "pg_url"
    return str(request.getfixturevalue(name))


def _redis_for(worker: str) -> str:
    """``REDIS`` for the first test process; for pytest-xdist's ``gwN``, the database N after
    it, so parallel processes never flush each other's keys."""
    base, _, db = REDIS.rpartition("/")
    n = int(worker.removeprefix("gw")) if worker.startswith("gw") else 0
    if int(db) + n >= REDIS_DATABASES:
        pytest.fail(f"Redis has {REDIS_DATABASES} databases: {REDIS} leaves none for test process {worker}")
    return f"{base}/{int(db) + n}"


@pytest.fixture
def redis_url(worker_id: str) -> Iterator[str]:
    """The machine's Redis, on a database of its own, flushed before and after."""
    import redis

    url = _redis_for(worker_id)
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except Exception as exc:  # noqa: BLE001
        client.close()
        _unavailable("Redis at " + url, exc)
    client.flushdb()
    yield url
    client.flushdb()
    client.close()


@pytest.fixture
def make_memworks() -> Iterator[Any]:
    """Build embedded ``Memworks`` instances (closed after the test)."""
    from memworks.client import Memworks
    from memworks.config import Settings

    made: list[Any] = []

    def make(database_url: str, **overrides: Any) -> Any:
        if database_url.startswith("postgresql"):
            from memworks.store.sql.db import upgrade

            upgrade(database_url)
        overrides.setdefault("broker_url", "stub://")
        overrides.setdefault("max_retries", 0)  # a failure surfaces at once in drain()
        mw = Memworks(Settings(database_url=database_url, **overrides))
        made.append(mw)
        return mw

    yield make
    for mw in made:
        mw.close()


from tests.llm_server import serve  # noqa: E402,F401  (the loopback LLM server fixture)
