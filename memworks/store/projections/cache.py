"""The read cache: Redis when configured, in-process otherwise.

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

#: Prefix of every cache key in Redis.
PREFIX = "memworks:cache:"


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
    """Entries shared by every API and worker process of a deployment."""

    def __init__(self, url: str) -> None:
        import redis

        self._r = redis.Redis.from_url(url)

    def get(self, key: str) -> str | None:
        raw = self._r.get(key)
        return raw.decode() if isinstance(raw, bytes) else None

    def put(self, key: str, value: str, *, ttl_s: float, tenant_id: str) -> None:
        self._r.set(key, value, px=max(1, int(ttl_s * 1000)))

    def entries(self, tenant_id: str) -> list[tuple[str, str]]:
        out = []
        for k in self._r.scan_iter(match=f"{PREFIX}{tenant_id}:*", count=500):
            v = self._r.get(k)
            if isinstance(v, bytes):
                out.append((k.decode() if isinstance(k, bytes) else str(k), v.decode()))
        return out

    def delete(self, keys: list[str]) -> int:
        return int(self._r.delete(*keys)) if keys else 0
