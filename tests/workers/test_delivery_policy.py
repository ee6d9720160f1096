"""The delivery policy comes from settings, once, in the broker set-up; actors stay thin; lock names stay put."""

from __future__ import annotations

import ast
import contextlib
import inspect
import textwrap
from pathlib import Path
from typing import Any

import pytest
from dramatiq.middleware import Retries, TimeLimit

from memworks.config import Settings
from memworks.errors import InvalidInput

ROOT = Path(__file__).resolve().parents[2]


def test_retries_and_time_limits_come_from_settings() -> None:
    from memworks.workers import build_broker

    settings = Settings(max_retries=2, retry_min_backoff_ms=20, retry_max_backoff_ms=40, time_limit_ms=5_000)
    broker = build_broker(settings)
    retries = [m for m in broker.middleware if isinstance(m, Retries)]
    limits = [m for m in broker.middleware if isinstance(m, TimeLimit)]
    assert [(r.max_retries, r.min_backoff, r.max_backoff) for r in retries] == [(2, 20, 40)]
    assert [t.time_limit for t in limits] == [5_000]


def test_a_message_sent_without_options_gets_the_deployments_retries(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a deployment allowing two retries, when a scheduler job sends a maintenance message
    # with no options at all and its work keeps failing, then it runs three times, then is a dead letter.
    import memworks.workers as w
    from memworks.services import consolidation

    mw = make_memworks(sqlite_url, max_retries=2, retry_min_backoff_ms=10, retry_max_backoff_ms=20)
    calls: list[int] = []

    def down(*args: Any, **kwargs: Any) -> int:
        calls.append(1)
        raise ConnectionError("database away")

    monkeypatch.setattr(consolidation, "expire_due", down)
    w.sweep_expired.send()  # as memworks.scheduler.jobs.expire_memories does
    with contextlib.suppress(ConnectionError):  # raised unless the failure beat drain() to its start
        mw.drain()
    assert len(calls) == 3
    assert [(m.actor_name, type(m._exception)) for m in mw.broker.dead_letters] == [("sweep_expired", ConnectionError)]


def test_bad_input_raised_by_a_service_is_not_retried(
    sqlite_url: str, make_memworks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memworks.workers as w
    from memworks.services import lessons as learning

    mw = make_memworks(sqlite_url, max_retries=3, retry_min_backoff_ms=10)
    calls: list[int] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        raise InvalidInput("task_type: unknown", field="task_type")

    monkeypatch.setattr(learning, "run_round", refuse)
    w.mine_lessons.send("t1", "triage")
    with contextlib.suppress(InvalidInput):
        mw.drain()
    assert len(calls) == 1
    assert [(m.actor_name, type(m._exception)) for m in mw.broker.dead_letters] == [("mine_lessons", InvalidInput)]


def _actor_functions() -> list[tuple[str, Any]]:
    import memworks.workers as w

    return [(name, getattr(w, name).fn) for name in w.__all__ if hasattr(getattr(w, name), "send_with_options")]


@pytest.mark.parametrize("name", [n for n, _ in _actor_functions() if n != "extract_memories"])
def test_actors_are_thin(name: str) -> None:
    # An actor decodes its message, calls a service, sends what comes next and logs: 20 lines at most,
    # and no transaction of its own.
    fn = dict(_actor_functions())[name]
    source = textwrap.dedent(inspect.getsource(fn))
    body = ast.parse(source).body[0]
    assert isinstance(body, ast.FunctionDef)
    lines = body.end_lineno - body.lineno + 1  # type: ignore[operator]  # from `def` to the end
    assert lines <= 20, f"{name}: {lines} lines"
    assert "session_scope" not in source and "locks." not in source and "lock_scope" not in source


def test_services_take_their_dependencies_explicitly() -> None:
    for path in sorted((ROOT / "memworks" / "services").glob("*.py")):
        text = path.read_text()
        assert "get_runtime" not in text and "get_settings" not in text, path.name


def test_lock_names_are_those_running_workers_use() -> None:
    # Workers of two releases may run side by side: the names must not change.
    from memworks.store.sql import locks

    assert locks.scope("t1", "u1") == "t1\x1fu1"
    assert locks.scope("t1", None) == "t1\x1f"
    assert locks.lessons("t1", "triage") == "lessons\x1ft1\x1ftriage"
    assert locks.deletion("ab" * 16) == "deletion\x1f" + "ab" * 16
