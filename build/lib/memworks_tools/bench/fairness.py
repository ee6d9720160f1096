"""Fairness under a flood: how one tenant's reads, episode and deletion fare while another floods.

The distributed deployment on loopback: a scratch PostgreSQL database, a private ``redis-server``
(or a scratch queue namespace on the given Redis), ``memworks worker`` processes and the API
(``memworks api``) as subprocesses, with the deployment's settings (rate limits included).

Tenant B (an end-user key) does the same thing twice, for ``fairness.flood_s`` seconds each: it
reads every ``READ_GAP_S`` and, a third of the way in, sends one episode and one deletion. The
first time the machine is otherwise idle; the second time tenant A (an end-user key, as in the
probe) floods from a process of its own: batches of long "I like teaN." episodes, deletion
requests (each of its records in turn, and the whole subject) and retrievals with the longest
query the API takes. The flooding process runs at the lowest CPU priority
(``fairness.flooder_nice``): in a deployment the attacker's client runs on its own machine, and
here its own work (building and sending requests) would take the cores the benchmark measures.
Reported:

* ``read_p95_ratio``: B's retrieve p95 under the flood over idle (goal ≤ 2.0), with p50s;
* ``b_episode_s`` / ``b_deletion_s``: from B's request to its episode processed and its manifest
  complete under the flood (``…_idle_s`` the same without it), against the bound :data:`BOUND`
  states;
* A's requests by answer, the share answered 429, and A's backlog when the flood stopped.

Every loop ends by itself; the flood never leaves loopback.
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from memworks_tools.bench.common import Options, percentiles, plot, ratio
from memworks_tools.bench.fairness_load import (
    Api,
    Tally,
    call,
    cpu_seconds,
    flood,
    in_threads,
    timed_reads,
    wait_for,
)

NAME = "fairness"
#: B's facts, and the questions its reads ask about them (the cat and the parrot are there to be
#: deleted, one in each phase).
B_STORY = [
    "I live in Lisbon.",
    "My dog is called Pixel.",
    "I work at Initech as a nurse.",
    "I love sushi.",
    "My cat is called Tom.",
    "My parrot is called Kiwi.",
]
B_QUESTIONS = ["Where do I live?", "What is my dog called?", "Where do I work?", "What food do I love?"]
#: The longest query the API takes (characters).
LONG_QUERY = 1000
#: Seconds between two of B's reads (in both phases).
READ_GAP_S = 0.1
#: What B sends a third of the way into each phase: an episode, and a deletion of one key.
PROBES = {
    "idle": ("b-probe-idle", "I moved to Porto last week.", "user.pet.cat"),
    "flood": ("b-probe-flood", "I moved to Faro last week.", "user.pet.parrot"),
}
#: What bounds B's waits (the report carries it beside the figures).
BOUND = (
    "each of B's messages waits for the messages running when it arrives (at most threads × processes, each "
    "bounded by MEMWORKS_EPISODE_MAX_* and MEMWORKS_INGEST_BATCH_*) and for the normal-queue work queued ahead "
    "of it (at most MEMWORKS_BULK_*_BACKLOG per tenant), never for a bulk-lane message fetched ahead of it"
)
#: Threads of A's flood by kind: episode batches, deletion requests, long queries.
FLOODS = {"episodes": 2, "deletions": 1, "queries": 1}


def run(opts: Options) -> dict[str, Any]:
    """Run the fairness benchmark (see the module docstring); returns its report."""
    from memworks_tools.bench.common import postgres_version
    from memworks_tools.chaos import PrivateRedis, require_loopback
    from memworks_tools.chaos.scenario import drop_namespace

    sizes = {
        "reads": opts.size("fairness.reads", 50, 30),
        "flood_s": float(opts.size("fairness.flood_s", 60, 25)),
        "workers": opts.size("fairness.workers", 1, 1),
        "threads": opts.size("fairness.threads", 2, 2),
        "batch": opts.size("fairness.batch", 10, 10),
        "episode_chars": opts.size("fairness.episode_chars", 90_000, 90_000),
        "floods": opts.size("fairness.floods", FLOODS, FLOODS),
        "wait_s": float(opts.size("fairness.wait_s", 600, 300)),
        "flooder_nice": opts.size("fairness.flooder_nice", 19, 19),
    }
    if postgres_version(opts.pg_url) is None:
        opts.say(f"fairness: skipped (PostgreSQL at {opts.pg_url} is not reachable)")
        return {"skipped": f"PostgreSQL at {opts.pg_url} is not reachable", "sizes": sizes}
    try:
        private: Any = PrivateRedis()
    except Exception as exc:  # noqa: BLE001 - no redis-server binary: use the given Redis instead
        opts.say(f"fairness: no private redis-server ({exc}); using {opts.redis_url} with a scratch namespace")
        private = None
    broker_url = private.url if private else opts.redis_url
    require_loopback(opts.pg_url, broker_url)
    namespace = f"memworks-fair-{uuid.uuid4().hex[:8]}"
    try:
        return _run(opts, sizes, broker_url, namespace)
    finally:
        if private is not None:
            private.stop()
        else:
            drop_namespace(broker_url, namespace)


def _run(opts: Options, sizes: dict[str, Any], broker_url: str, namespace: str) -> dict[str, Any]:
    from memworks.client import Memworks
    from memworks.config import Settings
    from memworks.store.sql.db import get_engine, upgrade
    from memworks_tools.chaos import Workers, scratch_database

    with scratch_database(opts.pg_url) as db, tempfile.TemporaryDirectory(prefix="memworks-fair-") as tmp:
        upgrade(db)
        env = dict(
            os.environ,
            MEMWORKS_DATABASE_URL=db,
            MEMWORKS_BROKER_URL=broker_url,
            MEMWORKS_QUEUE_NAMESPACE=namespace,
            MEMWORKS_LOG_LEVEL="warning",
        )
        settings = Settings(database_url=db, broker_url=broker_url, queue_namespace=namespace)
        mw = Memworks(settings)
        workers = Workers(env, sizes["workers"], sizes["threads"], Path(tmp))
        api: Api | None = None
        try:
            _, a_key = mw.create_key("fair-a", "a1", "bench fairness: the flood")
            _, b_key = mw.create_key("fair-b", "b1", "bench fairness: the reader")
            api = Api(env, Path(tmp) / "api.log")
            found = _measure(opts, sizes, mw, api, a_key, b_key, [p.pid for p in workers.procs])
            return found | {"sizes": sizes, "settings": _limits(settings)}
        finally:
            if api is not None:
                api.stop()
            workers.stop()
            mw.close()
            get_engine(db).dispose()


def _measure(
    opts: Options, sizes: dict[str, Any], mw: Any, api: Api, a_key: str, b_key: str, workers: list[int]
) -> dict[str, Any]:
    with api.client(a_key) as a, api.client(b_key) as b:
        return _flood(opts, sizes, mw, (api.url, a_key), a, b, {"api": [api.proc.pid], "workers": workers})


def _flood(
    opts: Options,
    sizes: dict[str, Any],
    mw: Any,
    a_at: tuple[str, str],
    a: Any,
    b: Any,
    pids: dict[str, list[int]],
) -> dict[str, Any]:
    """B's phase with the machine idle, then the same phase under A's flood (see the module)."""
    url, a_key = a_at
    b_tally = Tally()
    # Warm-up: B's facts (the workers load their models on them), A's first records, one read each.
    call(b, "POST", "/v1/episodes", b_tally, json=[_episode(f"b-{i}", t, i) for i, t in enumerate(B_STORY)])
    call(a, "POST", "/v1/episodes", Tally(), json=[_episode("a-warm", "I like green tea.", 0)])
    if wait_for(lambda: _unprocessed(mw) == 0, timeout_s=300) is None:
        return {"skipped": "the workers did not process the warm-up within 300 s"}
    timed_reads(b, Tally(), B_QUESTIONS, n=4)
    spawn = multiprocessing.get_context("spawn")
    results, go = spawn.Queue(), spawn.Event()
    flooder = spawn.Process(
        target=flood,
        args=(url, a_key, sizes | {"query_chars": LONG_QUERY}, sizes["flood_s"], results, go),
        daemon=True,
    )
    flooder.start()  # ready and waiting before the idle phase: its start-up is not measured
    # Each asked once (no cached answer); both phases ask every question, with numbers alike.
    questions = {n: [f"{q} ({i})" for i in range(n, 4000, 2) for q in B_QUESTIONS] for n in (0, 1)}
    idle, idle_probe = _phase(mw, b, b_tally, questions[0], sizes, "idle")
    opts.say(f"fairness: B idle retrieve p95 {percentiles(idle)['p95']} ms ({len(idle)} reads)")

    cpu0 = {k: cpu_seconds(v) for k, v in pids.items()}
    t0 = time.monotonic()
    go.set()
    under, probe = _phase(mw, b, b_tally, questions[1], sizes, "flood")
    a_counts: dict[str, int] = results.get(timeout=max(0.0, t0 + sizes["flood_s"] - time.monotonic()) + 300)
    flooder.join(timeout=60)
    cpu = {k: round(cpu_seconds(v) - cpu0[k], 1) for k, v in pids.items()}
    cpu["wall"] = round(time.monotonic() - t0, 1)
    backlog = _backlog(mw)
    flood_p95, idle_p95 = percentiles(under)["p95"], percentiles(idle)["p95"]
    report = {
        "read_ms_idle": percentiles(idle),
        "read_ms_flood": percentiles(under),
        "read_p95_ratio": ratio(flood_p95, idle_p95),
        "read_p95_goal": 2.0,
        "raw_flood": [round(x) for x in under],
        "raw_idle": [round(x) for x in idle],
        **probe,
        "b_episode_idle_s": idle_probe["b_episode_s"],
        "b_deletion_idle_s": idle_probe["b_deletion_s"],
        "a_requests": sum(a_counts.values()),
        "a_by_status": a_counts,
        "a_429": a_counts.get("429", 0),
        "a_429_share": ratio(a_counts.get("429", 0), sum(a_counts.values())),
        "b_by_status": b_tally.as_dict(),
        "a_backlog_at_flood_end": backlog,
        #: CPU seconds the API and the workers used from the flood's start to its end (and the wall time).
        "cpu_s_during_flood": cpu,
        "bound": BOUND,
    }
    opts.say(
        f"fairness: B retrieve p95 {flood_p95} ms under flood vs {idle_p95} ms idle "
        f"(×{report['read_p95_ratio']}, goal ≤ 2.0); B episode {probe['b_episode_s']} s, "
        f"deletion {probe['b_deletion_s']} s; A: {report['a_requests']} requests, {report['a_429']} answered 429"
    )
    return report


def _phase(
    mw: Any, b: Any, tally: Tally, questions: list[str], sizes: dict[str, Any], name: str
) -> tuple[list[float], dict[str, Any]]:
    """B's reads every :data:`READ_GAP_S` for ``flood_s`` seconds (at least ``reads`` of them),
    with its probe a third of the way in: the latencies, and the probe's times."""
    t0 = time.monotonic()
    deadline = t0 + sizes["flood_s"]
    reads: list[float] = []
    reader = in_threads([lambda: reads.extend(timed_reads(b, tally, questions, deadline=deadline, gap_s=READ_GAP_S))])
    time.sleep(sizes["flood_s"] / 3)
    probe = _probe(mw, b, tally, sizes["wait_s"], t0, PROBES[name])
    for t in reader:
        t.join(timeout=max(0.0, deadline - time.monotonic()) + 180)
    if len(reads) < sizes["reads"]:
        reads += timed_reads(b, tally, questions[len(reads) + 1 :], n=sizes["reads"] - len(reads), gap_s=READ_GAP_S)
    return reads, probe


def _probe(mw: Any, b: Any, tally: Tally, wait_s: float, t0: float, what: tuple[str, str, str]) -> dict[str, Any]:
    """B's one episode and one deletion: seconds until processed and complete."""
    episode_id, text, key = what
    sent_at = round(time.monotonic() - t0, 1)
    call(b, "POST", "/v1/episodes", tally, json=_episode(episode_id, text, 99))
    r = call(b, "POST", "/v1/deletions", tally, json={"keys": [key]})
    rid = r.json().get("request_id") if r is not None and r.status_code == 202 else None
    results: dict[str, float | None] = {}

    def episode() -> None:
        results["b_episode_s"] = wait_for(lambda: _episode_done(mw, episode_id), timeout_s=wait_s)

    def deletion() -> None:
        finished = lambda: mw.manifest(rid).status not in ("pending", "open")  # noqa: E731
        results["b_deletion_s"] = wait_for(finished, timeout_s=wait_s) if rid is not None else None

    for t in in_threads([episode, deletion]):
        t.join()
    status = mw.manifest(rid).status if rid else None
    return {**results, "b_deletion_status": status, "b_sent_after_s": sent_at, "b_wait_limit_s": wait_s}


def _episode(eid: str, content: str, turn: int) -> dict[str, Any]:
    return {
        "episode_id": eid,
        "session_id": "s-" + eid.split("-")[0],
        "turn": turn,
        "role": "user",
        "source": "user",
        "content": content,
        "occurred_at": "2025-03-01T09:00:00+00:00",
    }


def _unprocessed(mw: Any, tenant: str | None = None) -> int:
    from sqlalchemy import func, select
    from sqlmodel import Session, col

    from memworks.models.enums import EpisodeState
    from memworks.models.tables import Episode

    where = [col(Episode.state) == EpisodeState.RECEIVED]
    if tenant is not None:
        where.append(col(Episode.tenant_id) == tenant)
    with Session(mw.runtime.engine) as s:
        return int(s.scalar(select(func.count()).select_from(Episode).where(*where)) or 0)


def _episode_done(mw: Any, episode_id: str) -> bool:
    from sqlalchemy import select
    from sqlmodel import Session, col

    from memworks.models.tables import Episode

    with Session(mw.runtime.engine) as s:
        state = s.scalar(select(col(Episode.state)).where(col(Episode.episode_id) == episode_id))
    return state is not None and state != "received"


def _backlog(mw: Any) -> dict[str, Any]:
    """A's work left when the flood stopped: episodes unprocessed, requests at work, queue depths."""
    from sqlalchemy import func, select
    from sqlmodel import Session, col

    from memworks.models.tables import DeletionRequest
    from memworks.workers import QUEUES
    from memworks.workers.lanes import depth

    with Session(mw.runtime.engine) as s:
        at_work = s.scalar(
            select(func.count())
            .select_from(DeletionRequest)
            .where(col(DeletionRequest.tenant_id) == "fair-a", col(DeletionRequest.status).in_(["pending", "open"]))
        )
    return {
        "episodes_unprocessed": _unprocessed(mw, "fair-a"),
        "deletions_at_work": int(at_work or 0),
        "queue_depth": {q: depth(mw.broker, q) for q in QUEUES},
    }


def _limits(settings: Any) -> dict[str, Any]:
    """The settings the figures depend on (rate limits, caps, lanes), as the run had them."""
    words = ("rate_", "episode_max_", "ingest_batch_", "bulk_", "worker_nice")
    return {k: v for k, v in settings.model_dump().items() if k.startswith(words)}


def rows(r: dict[str, Any]) -> list[tuple[Any, ...]]:
    if "skipped" in r:
        return [("skipped", r["skipped"], "", "")]
    idle, under, cpu = r["read_ms_idle"], r["read_ms_flood"], r.get("cpu_s_during_flood", {})
    return [
        ("B retrieve p50 idle / flood", f"{idle['p50']} / {under['p50']}", "ms", f"{idle['n']} / {under['n']} reads"),
        ("B retrieve p95 idle / flood", f"{idle['p95']} / {under['p95']}", "ms", ""),
        ("B retrieve p95 flood / idle", r["read_p95_ratio"], "ratio", "goal ≤ 2.0"),
        (
            "B episode: sent → processed, idle / flood",
            f"{r.get('b_episode_idle_s')} / {r['b_episode_s']}",
            "s",
            f"sent {r['b_sent_after_s']} s into the flood",
        ),
        (
            "B deletion: sent → complete, idle / flood",
            f"{r.get('b_deletion_idle_s')} / {r['b_deletion_s']}",
            "s",
            r["b_deletion_status"],
        ),
        ("A requests (answered 429)", f"{r['a_requests']} ({r['a_429']})", "requests", str(r["a_by_status"])),
        ("A backlog at flood end", r["a_backlog_at_flood_end"]["episodes_unprocessed"], "episodes", ""),
        ("A deletions at work at flood end", r["a_backlog_at_flood_end"]["deletions_at_work"], "requests", ""),
        (
            "CPU during the flood: API / workers",
            f"{cpu.get('api')} / {cpu.get('workers')}",
            "s",
            f"{cpu.get('wall')} s",
        ),
    ]


HEADERS = ["measure", "value", "unit", "note"]


def draw(r: dict[str, Any], path: Path) -> Path:
    def paint(ax: Any) -> None:
        if "skipped" in r:
            ax.text(0.5, 0.5, f"skipped: {r['skipped']}", ha="center", va="center", transform=ax.transAxes)
            return
        labels = ["p50 idle", "p50 flood", "p95 idle", "p95 flood"]
        idle, flood = r["read_ms_idle"], r["read_ms_flood"]
        values = [idle["p50"], flood["p50"], idle["p95"], flood["p95"]]
        ax.bar(labels, values, color=["#1f77b4", "#d62728", "#1f77b4", "#d62728"])
        for i, v in enumerate(values):
            ax.text(i, v, f"{v:.0f}", ha="center", va="bottom", fontsize=8)
        ax.set_ylabel("tenant B retrieve (ms)")

    return plot(path, paint, title="tenant B's reads while tenant A floods (Redis + PostgreSQL, loopback)")
