"""The read cache: Redis when configured, in-process otherwise (and while that Redis is away).

Keys carry every dimension a read depends on (tenant, user, query, as_of, known_at, k) and
the index versions of the scopes involved, so a write to a scope makes its old entries
unreachable at once; the TTL only bounds memory.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from typing import Protocol
from urllib.parse import urlsplit, urlunsplit

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from memworks.logging import get_logger

log = get_logger(__name__)

#: Prefix of every cache key in Redis.
PREFIX = "memworks:cache:"
#: Seconds between attempts to reach a Redis that did not answer (meanwhile the in-process
#: cache serves): a dead host is not waited for on every read.
RETRY_S = 30.0
#: Seconds a cache command may wait for Redis before the read goes on without it.
TIMEOUT_S = 2.0
#: What a Redis that is down, restarting or unreachable raises.
_UNREACHABLE = (RedisConnectionError, RedisTimeoutError)


class ReadCache(Protocol):
    def get(self, key: str) -> str | None: ...
    def put(self, key: str, value: str, *, ttl_s: float, tenant_id: str) -> None: ...
    def entries(self, tenant_id: str) -> list[tuple[str, str]]: ...
    def delete(self, keys: list[str]) -> int: ...


def cache_key(
    *,
    tenant_id: str,
    user_id: str | None,
    query: str,
    as_of: str | None,
    known_at: str | None,
    k: int,
    versions: tuple[int, ...],
) -> str:
    raw = json.dumps([tenant_id, user_id, query, as_of, known_at, k, list(versions)], ensure_ascii=False)
    return f"{cache_prefix(tenant_id, user_id)}{hashlib.sha256(raw.encode()).hexdigest()}"


def cache_prefix(tenant_id: str, user_id: str | None) -> str:
    """Keys of one scope share a prefix (ids are hashed: they may hold any character)."""
    return f"{PREFIX}{tenant_id}:{hashlib.sha256((user_id or '').encode()).hexdigest()[:16]}:"


class MemoryCache:
    """A bounded LRU with per-entry expiry, for one process."""

    def __init__(self, max_entries: int = 10_000) -> None:
        self._data: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._max = max_entries
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            hit = self._data.get(key)
            if hit is None or hit[0] < time.monotonic():
                self._data.pop(key, None)
                return None
            self._data.move_to_end(key)
            return hit[1]

    def put(self, key: str, value: str, *, ttl_s: float, tenant_id: str) -> None:
        with self._lock:
            self._data[key] = (time.monotonic() + ttl_s, value)
            self._data.move_to_end(key)
            while len(self._data) > self._max:
                self._data.popitem(last=False)

    def entries(self, tenant_id: str) -> list[tuple[str, str]]:
        """Every stored entry of a tenant, expired ones included (they still hold text)."""
        prefix = f"{PREFIX}{tenant_id}:"
        with self._lock:
            return [(k, v) for k, (_, v) in self._data.items() if k.startswith(prefix)]

    def delete(self, keys: list[str]) -> int:
        with self._lock:
            return sum(1 for k in keys if self._data.pop(k, None) is not None)


class RedisCache:
    """Entries shared by every API and worker process of a deployment.

    When Redis does not answer, reads and writes of entries go to an in-process cache instead
    (one warning per outage): a cache is an optimisation, and a read must not fail for want of
    it. Redis is tried again every :data:`RETRY_S`. Listing and deleting entries (what an erasure
    relies on) still raise: absence in Redis cannot be confirmed while Redis is away.
    """

    def __init__(self, url: str, *, retry_s: float = RETRY_S, timeout_s: float = TIMEOUT_S) -> None:
        import redis

        self._r = redis.Redis.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)
        self._local = MemoryCache()
        self._retry_s = retry_s
        self._down_since: float | None = None  # monotonic time of the last failure, None while up
        self._lock = threading.Lock()
        self._where = _redacted(url)

    def _use_redis(self) -> bool:
        with self._lock:
            return self._down_since is None or time.monotonic() - self._down_since >= self._retry_s

    def _failed(self, exc: BaseException) -> None:
        with self._lock:
            first = self._down_since is None
            self._down_since = time.monotonic()
        if first:
            log.warning("cache.redis_unreachable", url=self._where, error=str(exc)[:200], fallback="in-process")

    def _answered(self) -> None:
        with self._lock:
            was_down, self._down_since = self._down_since is not None, None
        if was_down:
            log.info("cache.redis_back", url=self._where)

    def get(self, key: str) -> str | None:
        if self._use_redis():
            try:
                raw = self._r.get(key)
            except _UNREACHABLE as exc:
                self._failed(exc)
            else:
                self._answered()
                return raw.decode() if isinstance(raw, bytes) else None
        return self._local.get(key)

    def put(self, key: str, value: str, *, ttl_s: float, tenant_id: str) -> None:
        if self._use_redis():
            try:
                self._r.set(key, value, px=max(1, int(ttl_s * 1000)))
            except _UNREACHABLE as exc:
                self._failed(exc)
            else:
                self._answered()
                return
        self._local.put(key, value, ttl_s=ttl_s, tenant_id=tenant_id)

    def entries(self, tenant_id: str) -> list[tuple[str, str]]:
        """Every entry of a tenant in Redis and in this process's fallback (raises while Redis is away)."""
        out = self._local.entries(tenant_id)
        for k in self._r.scan_iter(match=f"{PREFIX}{tenant_id}:*", count=500):
            v = self._r.get(k)
            if isinstance(v, bytes):
                out.append((k.decode() if isinstance(k, bytes) else str(k), v.decode()))
        return out

    def delete(self, keys: list[str]) -> int:
        local = self._local.delete(keys)
        return local + (int(self._r.delete(*keys)) if keys else 0)


def _redacted(url: str) -> str:
    """``url`` without its password (log lines must not carry one)."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{parts.netloc.rsplit('@', 1)[1]}"))
