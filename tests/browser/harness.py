"""Helpers of the browser tests: headless Chromium from the machine, an end-user key."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
    "--disable-background-networking",
    "--disable-component-update",
]


def need_chromium() -> None:
    """Skip (fail in CI) when no Chromium is installed."""
    if CHROMIUM is None:
        if IN_CI:
            pytest.fail("chromium is not installed; CI needs it for the browser tests", pytrace=False)
        pytest.skip("chromium is not installed (apt-get install chromium)")


def launch(p: Any) -> Any:
    """Headless Chromium from the machine (no browser download)."""
    return p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)


def user_key(mw: Any, tenant: str = "t1", user: str = "u1") -> str:
    """A new end-user key's secret."""
    from memworks.store.keys import create_key
    from memworks.store.sql.db import session_scope

    with session_scope(mw.runtime.engine) as s:
        return create_key(s, tenant_id=tenant, user_id=user, label="browser test", now=datetime.now(UTC))[1]
