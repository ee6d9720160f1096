"""The load of ``memworks bench fairness``: the API as a loopback subprocess, and the bounded loops
of a flooding tenant (big episodes, deletion requests, long queries) and of a reading one.

Every loop stops by itself at its deadline (or when told to); every request goes to 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from memworks_tools.chaos import free_port

#: Longest a request of the load may take before it counts as a timeout (s).
REQUEST_TIMEOUT_S = 120.0


class Api:
    """``memworks api`` on a free loopback port, with the given environment; stopped by :meth:`stop`."""

    def __init__(self, env: dict[str, str], log: Path, *, timeout_s: float = 120) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        with log.open("wb") as out:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "memworks.cli", "api", "--host", "127.0.0.1", "--port", str(self.port)],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"memworks api exited with {self.proc.returncode}; see {log}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"memworks api did not answer /healthz within {timeout_s:.0f} s; see {log}")

    def client(self, secret: str) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {secret}"}, timeout=REQUEST_TIMEOUT_S)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)


class Tally:
    """Answers by status (thread-safe); ``"timeout"`` and ``"error"`` for requests that got none."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def add(self, status: int | str) -> None:
        with self._lock:
            self.counts[str(status)] += 1

    def total(self) -> int:
        return sum(self.counts.values())

    def as_dict(self) -> dict[str, int]:
        return dict(sorted(self.counts.items()))


def call(client: httpx.Client, method: str, path: str, tally: Tally, **kw: Any) -> httpx.Response | None:
    """One request; its status (or failure) goes to ``tally``."""
    try:
        r = client.request(method, path, **kw)
    except httpx.TimeoutException:
        tally.add("timeout")
        return None
    except httpx.HTTPError:
        tally.add("error")
        return None
    tally.add(r.status_code)
    return r


def tea(n: int | str, chars: int) -> str:
    """The probe's text: "I like tea0. I like tea1. ..." of about ``chars`` characters."""
    parts, size, i = [], 0, 0
    while size < chars:
        s = f"I like tea{n}x{i}."
        parts.append(s)
        size, i = size + len(s) + 1, i + 1
    return " ".join(parts)[:chars]


#: Where a batch's number goes in its encoded body.
MARK = b"@K@"


def batch_template(who: str, batch: int, chars: int) -> bytes:
    """One batch of ``batch`` long episodes, JSON-encoded once, :data:`MARK` where each batch's
    number goes (in its ids, its session and every sentence)."""
    mark = MARK.decode()
    body = [
        {
            "episode_id": f"{who}-{mark}-{i}",
            "session_id": f"{who}-s{mark}",
            "turn": i,
            "role": "user",
            "source": "user",
            "content": tea(f"{mark}y{i}", chars),
            "occurred_at": "2025-03-01T09:00:00+00:00",
        }
        for i in range(batch)
    ]
    return json.dumps(body).encode()


def until(deadline: float, stop: threading.Event) -> bool:
    return time.monotonic() < deadline and not stop.is_set()


def flood_episodes(
    client: httpx.Client, tally: Tally, *, template: bytes, deadline: float, stop: threading.Event
) -> None:
    """Batches of long episodes from ``template`` (:func:`batch_template`), as fast as they are
    answered, until the deadline.

    Each batch differs from the others (ids, session, text) but is made from one body encoded
    before the flood: the flooding client's own work would run on the attacker's machine, and
    here it would take the cores from the service the benchmark measures.
    """
    headers = {"content-type": "application/json"}
    k = 0
    while until(deadline, stop):
        call(client, "POST", "/v1/episodes", tally, content=template.replace(MARK, str(k).encode()), headers=headers)
        k += 1


def flood_deletions(client: httpx.Client, tally: Tally, *, deadline: float, stop: threading.Event) -> None:
    """Deletion requests until the deadline: each of the tenant's own records in turn (requests
    that differ, so none is the same as one pending), and the whole subject between them."""
    ids: list[str] = []
    k = 0
    while until(deadline, stop):
        if not ids or k % 50 == 0:
            r = call(client, "GET", "/v1/memories", tally)
            if r is not None and r.status_code == 200:
                ids = [m["memory_id"] for m in r.json()] or ids
        body: dict[str, Any] = {"memory_ids": [ids[k % len(ids)]]} if ids and k % 4 else {"scope": "user"}
        call(client, "POST", "/v1/deletions", tally, json=body)
        k += 1


def flood_queries(client: httpx.Client, tally: Tally, *, chars: int, deadline: float, stop: threading.Event) -> None:
    """Retrievals with the longest query the API takes, until the deadline."""
    words = ("what", "tea", "do", "I", "like", "best", "and", "which", "one", "did", "I", "say", "first")
    query = " ".join(words[i % len(words)] for i in range(chars // 3))[:chars]
    while until(deadline, stop):
        call(client, "POST", "/v1/retrieve", tally, json={"query": query, "k": 10})


def timed_reads(
    client: httpx.Client,
    tally: Tally,
    queries: list[str],
    *,
    n: int | None = None,
    deadline: float | None = None,
    stop: threading.Event | None = None,
    gap_s: float = 0.0,
) -> list[float]:
    """Latencies (ms) of answered retrievals (200), ``n`` of them or until the deadline."""
    out: list[float] = []
    i = 0
    while (n is None or i < n) and (deadline is None or time.monotonic() < deadline):
        if stop is not None and stop.is_set():
            break
        t0 = time.perf_counter()
        r = call(client, "POST", "/v1/retrieve", tally, json={"query": queries[i % len(queries)]})
        if r is not None and r.status_code == 200:
            out.append((time.perf_counter() - t0) * 1000)
        i += 1
        if gap_s:
            time.sleep(gap_s)
    return out


def flood(url: str, secret: str, sizes: dict[str, Any], seconds: float, out: Any, go: Any) -> None:
    """Tenant A's whole flood for ``seconds`` from when ``go`` is set, in threads of this process;
    puts its answers by status on ``out``. Run in a process of its own, so building its bodies
    shares no interpreter lock with the reader whose latency is measured, started ahead (its
    imports and bodies are made before the idle phase) at ``flooder_nice``."""
    if sizes.get("flooder_nice"):
        os.nice(int(sizes["flooder_nice"]))
    tally, stop = Tally(), threading.Event()
    templates = [batch_template(f"a{n}", sizes["batch"], sizes["episode_chars"]) for n in range(8)]
    if not go.wait(timeout=3600):
        out.put(tally.as_dict())
        return
    deadline = time.monotonic() + seconds
    floods = sizes["floods"]
    headers = {"Authorization": f"Bearer {secret}"}
    with httpx.Client(base_url=url, headers=headers, timeout=REQUEST_TIMEOUT_S) as a:
        jobs: list[Callable[[], None]] = [
            *[
                lambda n=n: flood_episodes(
                    a, tally, template=templates[n % len(templates)], deadline=deadline, stop=stop
                )
                for n in range(floods.get("episodes", 0))
            ],
            *[lambda: flood_deletions(a, tally, deadline=deadline, stop=stop)] * floods.get("deletions", 0),
            *[lambda: flood_queries(a, tally, chars=sizes["query_chars"], deadline=deadline, stop=stop)]
            * floods.get("queries", 0),
        ]
        for t in in_threads(jobs):
            t.join(timeout=seconds + REQUEST_TIMEOUT_S + 60)
        stop.set()
    out.put(tally.as_dict())


def cpu_seconds(roots: list[int]) -> float:
    """CPU time (user + system, s) used so far by ``roots`` and their descendants (Linux ``/proc``)."""
    from memworks_tools.bench.common import process_tree

    ticks, total = os.sysconf("SC_CLK_TCK"), 0
    for pid in process_tree(roots):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, ValueError, IndexError):
            continue
    return total / ticks


def in_threads(jobs: list[Callable[[], None]]) -> list[threading.Thread]:
    """Start each job on a daemon thread of its own."""
    threads = [threading.Thread(target=j, daemon=True, name=f"bench-fairness-{i}") for i, j in enumerate(jobs)]
    for t in threads:
        t.start()
    return threads


def wait_for(check: Callable[[], bool], *, timeout_s: float, poll_s: float = 0.2) -> float | None:
    """Seconds until ``check()`` holds, or None after ``timeout_s``."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        if check():
            return round(time.monotonic() - t0, 2)
        time.sleep(poll_s)
    return None
