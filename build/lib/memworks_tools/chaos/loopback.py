"""Loopback-only services for the harness: the refusal of any other host, a scratch database on
the configured server, and a private ``redis-server`` that can be restarted for real.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from memworks.errors import InvalidInput

__all__ = ["LOOPBACK", "PrivateRedis", "free_port", "require_loopback", "scratch_database"]

LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})


def require_loopback(database_url: str, broker_url: str) -> None:
    """Refuse anything but loopback: chaos kills processes and empties queues."""
    if not database_url.startswith("sqlite"):
        host = make_url(database_url).host or ""
        if host not in LOOPBACK:
            raise InvalidInput(
                f"chaos runs only against loopback; MEMWORKS_DATABASE_URL host is {host!r}",
                field="MEMWORKS_DATABASE_URL",
            )
    if not broker_url.startswith("redis"):
        raise InvalidInput(
            "chaos needs a Redis broker: set MEMWORKS_BROKER_URL=redis://127.0.0.1:6379/0", field="MEMWORKS_BROKER_URL"
        )
    host = urlparse(broker_url).hostname or ""
    if host not in LOOPBACK:
        raise InvalidInput(
            f"chaos runs only against loopback; MEMWORKS_BROKER_URL host is {host!r}", field="MEMWORKS_BROKER_URL"
        )


@contextmanager
def scratch_database(database_url: str) -> Iterator[str]:
    """A new, empty database beside ``database_url`` (same server), dropped afterwards."""
    if database_url.startswith("sqlite"):
        with tempfile.TemporaryDirectory(prefix="memworks-chaos-") as tmp:
            yield f"sqlite:///{Path(tmp) / 'chaos.db'}"
        return
    url = make_url(database_url)
    name = f"memworks_chaos_{uuid.uuid4().hex[:10]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}"'))
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateRedis:
    """A redis-server of the harness's own on a loopback port, nothing kept on disk."""

    def __init__(self) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            raise InvalidInput("--own-redis needs redis-server on PATH", field="own_redis")
        self.exe, self.port = exe, free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.exe, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_for_port(self.port)

    def restart(self) -> None:
        """SIGKILL and start afresh: every queued message is gone, as after a crash."""
        self.stop()
        self.start()

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=30)
            self.proc = None


def _wait_for_port(port: int, timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")
