"""Reads go on when the read cache's Redis does not answer: the in-process cache serves instead,
with one warning per outage; an erasure still cannot confirm absence while Redis is away."""

from __future__ import annotations

import socket
from collections.abc import MutableMapping
from typing import Any

import pytest
import redis
from structlog.testing import capture_logs

from memworks.models.schemas import Scope
from memworks.store.projections.cache import RedisCache
from tests.factories import episode

pytestmark = pytest.mark.integration


@pytest.fixture
def dead_redis() -> str:
    """A Redis URL on a loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"redis://127.0.0.1:{s.getsockname()[1]}/0"


def warnings_of(logs: list[MutableMapping[str, Any]]) -> list[str]:
    """The cache's warnings (other threads of the process may log meanwhile)."""
    return [e["event"] for e in logs if e["log_level"] == "warning" and e["event"].startswith("cache.")]


def test_an_unreachable_cache_serves_from_this_process_with_one_warning(dead_redis: str) -> None:
    cache = RedisCache(dead_redis)
    with capture_logs() as logs:
        assert cache.get("memworks:cache:t1:k") is None
        cache.put("memworks:cache:t1:k", "answer", ttl_s=60, tenant_id="t1")
        assert cache.get("memworks:cache:t1:k") == "answer"
        assert cache.get("memworks:cache:t1:k") == "answer"
    assert warnings_of(logs) == ["cache.redis_unreachable"]
    assert "127.0.0.1" in logs[0]["url"]


def test_listing_entries_for_an_erasure_still_fails_while_redis_is_away(dead_redis: str) -> None:
    # An erasure must not confirm a cache clean that it could not look into.
    cache = RedisCache(dead_redis)
    cache.put("memworks:cache:t1:k", "answer", ttl_s=60, tenant_id="t1")
    with pytest.raises(redis.exceptions.ConnectionError):
        cache.entries("t1")
    with pytest.raises(redis.exceptions.ConnectionError):
        cache.delete(["memworks:cache:t1:k"])


def test_redis_serves_again_once_it_answers(redis_url: str, dead_redis: str) -> None:
    # Given a cache whose Redis went away (its client pointed at a closed port) and came back
    cache = RedisCache(redis_url, retry_s=0)
    live = cache._r
    cache._r = redis.Redis.from_url(dead_redis)
    with capture_logs() as logs:
        cache.put("memworks:cache:t1:a", "during", ttl_s=60, tenant_id="t1")
        cache._r = live
        cache.put("memworks:cache:t1:b", "after", ttl_s=60, tenant_id="t1")
    # Then one warning (its coming back is an info line, which a process logging warnings only
    # leaves out), the write after the outage is in Redis, the one during it in this process,
    # and an erasure's listing sees both
    assert warnings_of(logs) == ["cache.redis_unreachable"]
    assert live.get("memworks:cache:t1:b") == b"after" and live.get("memworks:cache:t1:a") is None
    assert sorted(v for _, v in cache.entries("t1")) == ["after", "during"]
    assert cache.delete(["memworks:cache:t1:a", "memworks:cache:t1:b"]) == 2


def test_retrieve_answers_with_the_cache_redis_down(make_memworks: Any, sqlite_url: str, dead_redis: str) -> None:
    mw = make_memworks(sqlite_url, cache_url=dead_redis, extractor="rules")
    assert isinstance(mw.runtime.cache, RedisCache)
    mw.enqueue_episodes([episode(1, "I live in Lisbon.")])
    mw.drain()
    scope = Scope(tenant_id="t1", user_id="u1")
    with capture_logs() as logs:
        first = mw.retrieve(scope, "Where do I live?")
        again = mw.retrieve(scope, "Where do I live?")
    assert [h.value for h in first.hits][:1] == ["Lisbon"] and again == first
    assert warnings_of(logs) == ["cache.redis_unreachable"]


def test_a_redis_that_failed_is_not_asked_again_before_the_retry_interval(redis_url: str, dead_redis: str) -> None:
    # A dead host would otherwise cost every read its connect timeout.
    cache = RedisCache(redis_url, retry_s=3600)
    live = cache._r
    cache._r = redis.Redis.from_url(dead_redis)
    cache.put("memworks:cache:t1:a", "during", ttl_s=60, tenant_id="t1")
    cache._r = live
    cache.put("memworks:cache:t1:b", "soon after", ttl_s=60, tenant_id="t1")
    assert live.get("memworks:cache:t1:b") is None and cache.get("memworks:cache:t1:b") == "soon after"
