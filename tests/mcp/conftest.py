"""Fixtures for the MCP server: a temp SQLite store, API keys in it, and ``memworks mcp`` subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.mcp.mcp_helpers import ROOT, free_port


@pytest.fixture
def store_url(tmp_path: Path) -> Iterator[str]:
    """A fresh SQLite store with its schema, shared by the server subprocess and the test."""
    from memworks.store.sql.db import get_engine, upgrade

    url = f"sqlite:///{tmp_path / 'memworks.db'}"
    upgrade(url)
    yield url
    get_engine(url).dispose()


@pytest.fixture
def server_env(store_url: str) -> dict[str, str]:
    env = dict(os.environ, MEMWORKS_DATABASE_URL=store_url, MEMWORKS_BROKER_URL="stub://", MEMWORKS_MAX_RETRIES="0")
    env.pop("MEMWORKS_API_KEY", None)
    return env


@pytest.fixture
def make_key(store_url: str) -> Callable[..., str]:
    """``make_key("t1")`` → a tenant key's secret; ``make_key("t1", "u1")`` → an end-user key's."""
    from memworks.store.keys import create_key
    from memworks.store.sql.db import get_engine, session_scope

    def make(tenant: str, user: str | None = None) -> str:
        with session_scope(get_engine(store_url)) as s:
            return create_key(s, tenant_id=tenant, user_id=user, label="mcp test", now=datetime.now(UTC))[1]

    return make


@pytest.fixture
def row_counts(store_url: str) -> Callable[[], dict[str, int]]:
    """Rows per table of the server's database right now."""
    from sqlalchemy import func, select
    from sqlmodel import SQLModel

    from memworks.store.sql.db import get_engine

    def counts() -> dict[str, int]:
        with get_engine(store_url).connect() as conn:
            return {
                name: int(conn.execute(select(func.count()).select_from(t)).scalar_one())
                for name, t in SQLModel.metadata.tables.items()
            }

    return counts


@pytest.fixture
def mcp_http(server_env: dict[str, str], tmp_path: Path) -> Iterator[str]:
    """``memworks mcp --http`` on a free loopback port; its /mcp URL. Stopped after the test."""
    import httpx

    port = free_port()
    log = (tmp_path / "mcp-http.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memworks.cli", "mcp", "--http", "--port", str(port)],
        env=server_env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 60
    try:
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("memworks mcp --http did not start:\n" + (tmp_path / "mcp-http.log").read_text())
            try:
                if httpx.post(url, timeout=5).status_code == 401:  # up, and asking for a key
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()
