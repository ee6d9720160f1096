"""The API's access log names routes, never a user id or words from a query string."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from memworks.logging import DropQueryStrings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_served_requests_are_logged_without_their_query_strings(tmp_path: Path) -> None:
    # Given `memworks api` on loopback, its output captured, and a tenant key,
    env = dict(os.environ, MEMWORKS_DATABASE_URL=f"sqlite:///{tmp_path / 'm.db'}", MEMWORKS_BROKER_URL="stub://")
    made = subprocess.run(
        [sys.executable, "-m", "memworks.cli", "keys", "create", "--tenant", "acme", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    auth = {"Authorization": f"Bearer {json.loads(made.stdout)['key']}"}
    port = free_port()
    log = tmp_path / "api.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "memworks.cli", "api", "--port", str(port)], env=env, stdout=out, stderr=out
        )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()
            time.sleep(0.1)
        # When requests carry a user id and a question in their query strings (answered or refused),
        listed = httpx.get(f"{url}/v1/memories?user_id=alice&include_history=true", headers=auth)
        assert listed.status_code == 200, listed.text
        httpx.get(f"{url}/v1/profile?user_id=alice&question=where%20does%20alice%20live", headers=auth)
        httpx.get(f"{url}/v1/memories?user_id=alice")  # no key: refused, logged all the same
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    text = log.read_text()
    # Then the log has a line per request, by path, and neither the user id nor the question.
    assert '"GET /v1/memories HTTP/1.1" 200' in text and '"GET /v1/memories HTTP/1.1" 401' in text, text
    assert "/v1/profile HTTP/1.1" in text, text
    assert "alice" not in text and "user_id" not in text and "where" not in text


def test_the_filter_cuts_queries_from_urls_and_leaves_other_arguments() -> None:
    record = logging.LogRecord(
        "httpx",
        logging.INFO,
        __file__,
        1,
        'HTTP Request: %s %s "%s %d"',
        ("GET", "https://memory.example/v1/memories?user_id=alice#top", "HTTP/1.1", 200),
        None,
    )
    assert DropQueryStrings().filter(record)
    assert record.getMessage() == 'HTTP Request: GET https://memory.example/v1/memories "HTTP/1.1 200"'
    plain = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, "GET /v1/profile?user_id=bob", None, None)
    DropQueryStrings().filter(plain)
    assert plain.getMessage() == "GET /v1/profile"
    untouched = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, "%s asked %s", ("a?b", 3), None)
    DropQueryStrings().filter(untouched)
    assert untouched.getMessage() == "a?b asked 3"
