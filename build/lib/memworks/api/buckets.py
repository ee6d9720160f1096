"""Token buckets behind the API's rate limits: in this process, or in Redis for every API process.

A bucket refills at ``per_min`` tokens a minute and holds at most its ``size`` (a minute's worth
unless the draw says less: how large a burst may be). A request costing ``c`` tokens is admitted
when each bucket it draws on holds at least ``min(c, size)``: a batch larger than a whole bucket
is admitted from a full one and leaves it in debt, so no allowed batch size is refused for ever,
and the rate over time still holds. Either every bucket
of a request pays or none does (a refused request spends nothing). :meth:`Buckets.spend` pays
without asking, into debt if need be: for what a request turns out to cost once it was admitted
(its later requests wait for the debt to refill).

With Redis, one Lua script checks and pays all the buckets of a request atomically on Redis's
clock, so API processes behind a load balancer share the budgets. The script also answers each
bucket's level, which bounds it from above until the next answer (other processes only take
from it; it refills no faster than its rate): a request that bound already refuses is refused
in this process, with no round trip, so a client hammering an empty budget costs Redis nothing
and the API little. When Redis does not answer, the buckets of this process stand in (the
request is limited, never failed) and Redis is tried again a few seconds later.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from memworks.logging import exception_fields, get_logger

log = get_logger("memworks.ratelimit")

#: Prefix of every bucket's key in Redis (the deployment's queue namespace follows it).
PREFIX = "memworks:rate:"
#: Seconds the in-process buckets stand in after Redis failed, before Redis is asked again.
REDIS_RETRY_S = 5.0
#: Longest wait for Redis on one request (connect or answer), in seconds.
REDIS_TIMEOUT_S = 0.25


@dataclass(frozen=True, slots=True)
class Draw:
    """One bucket a request draws on: its name, what the request costs, the bucket's rate a
    minute and the most it holds (0: a minute's worth)."""

    bucket: str
    cost: int
    per_min: int
    size: float = 0.0

    @property
    def capacity(self) -> float:
        return self.size if self.size > 0 else float(self.per_min)


class Buckets(Protocol):
    def take(self, draws: Sequence[Draw]) -> float:
        """Pay every draw and return 0, or pay none and return the seconds until all would be admitted."""
        ...

    def spend(self, draws: Sequence[Draw]) -> None:
        """Pay every draw, leaving a bucket in debt when it holds too little."""
        ...

    def known_wait(self, draws: Sequence[Draw]) -> float:
        """Seconds this process already knows ``draws`` must wait (0: ask :meth:`take`); cheap,
        callable from an event loop."""
        ...


def refill(tokens: float, elapsed_s: float, draw: Draw) -> float:
    """A bucket's tokens ``elapsed_s`` seconds after it held ``tokens`` (at most full)."""
    return min(draw.capacity, tokens + max(0.0, elapsed_s) * draw.per_min / 60.0)


def shortfall_s(tokens: float, draw: Draw) -> float:
    """Seconds until a bucket holding ``tokens`` can admit ``draw`` (0 when it can now)."""
    need = min(float(draw.cost), draw.capacity)
    return 0.0 if tokens >= need else (need - tokens) * 60.0 / draw.per_min


class MemoryBuckets:
    """Buckets of one process (thread-safe). Full buckets are forgotten once there are many."""

    def __init__(self, *, max_buckets: int = 100_000, clock: Callable[[], float] = time.monotonic) -> None:
        self._state: dict[str, tuple[float, float, Draw]] = {}  # bucket -> (tokens, at, its last draw)
        self._lock = threading.Lock()
        self._max, self._clock = max_buckets, clock

    def take(self, draws: Sequence[Draw]) -> float:
        return self._pay(draws, force=False)

    def spend(self, draws: Sequence[Draw]) -> None:
        self._pay(draws, force=True)

    def known_wait(self, draws: Sequence[Draw]) -> float:
        return 0.0  # take() is as cheap

    def _pay(self, draws: Sequence[Draw], *, force: bool) -> float:
        now = self._clock()
        with self._lock:
            levels = [self._level(d, now) for d in draws]
            wait = max((shortfall_s(t, d) for t, d in zip(levels, draws, strict=True)), default=0.0)
            if wait > 0 and not force:
                return wait
            for t, d in zip(levels, draws, strict=True):
                self._state[d.bucket] = (t - d.cost, now, d)
            if len(self._state) > self._max:
                self._forget_full(now)
        return 0.0

    def _level(self, d: Draw, now: float) -> float:
        tokens, at, _ = self._state.get(d.bucket, (d.capacity, now, d))
        return refill(tokens, now - at, d)

    def _forget_full(self, now: float) -> None:
        """Drop the buckets that have refilled (forgetting them changes nothing), then the oldest."""
        for name, (tokens, at, d) in list(self._state.items()):
            if refill(tokens, now - at, d) >= d.capacity:
                del self._state[name]
        if len(self._state) > self._max:
            for name, _ in sorted(self._state.items(), key=lambda kv: kv[1][1])[: len(self._state) - self._max]:
                del self._state[name]


# KEYS: the buckets; ARGV: "1" to pay even into debt (else "0"), then cost, per_min and capacity
# of each, in turn. Returns "0" when paid, else the seconds to wait, then "|" and each bucket's
# tokens as the script left them (a string: Lua numbers come back from Redis as truncated integers).
_TAKE = """
if redis.replicate_commands then pcall(redis.replicate_commands) end
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local force = ARGV[1] == '1'
local levels, wait = {}, 0
for i, key in ipairs(KEYS) do
  local cost, per_min, size = tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  local rate = per_min / 60
  local h = redis.call('HMGET', key, 'tokens', 'at')
  local tokens, at = tonumber(h[1]) or size, tonumber(h[2]) or now
  tokens = math.min(size, tokens + math.max(0, now - at) * rate)
  levels[i] = tokens
  local need = math.min(cost, size)
  if tokens < need then wait = math.max(wait, (need - tokens) / rate) end
end
if wait > 0 and not force then return tostring(wait) .. '|' .. table.concat(levels, ',') end
for i, key in ipairs(KEYS) do
  local cost, per_min, size = tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  local left = levels[i] - cost
  levels[i] = left
  redis.call('HSET', key, 'tokens', left, 'at', now)
  redis.call('PEXPIRE', key, math.ceil((size - left) * 60000 / per_min) + 1000)
end
return '0|' .. table.concat(levels, ',')
"""
#: Buckets whose upper bound one process keeps (past it, the bounds start again from none).
MAX_BOUNDS = 100_000


class RedisBuckets:
    """Buckets in Redis, shared by every process using it; in-process ones stand in while it is down.

    Args:
        url: the Redis URL.
        namespace: keeps the buckets of deployments sharing one Redis apart.
        fallback: the buckets used while Redis does not answer.
    """

    def __init__(self, url: str, *, namespace: str, fallback: Buckets) -> None:
        import redis

        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        self._r = redis.Redis.from_url(url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S)
        self._script: Any = self._r.register_script(_TAKE)
        self._prefix = f"{PREFIX}{namespace}:"
        self._fallback = fallback
        self._down_until = 0.0
        self._bounds: dict[str, tuple[float, float]] = {}  # bucket -> (tokens at most, when)
        self._lock = threading.Lock()

    def take(self, draws: Sequence[Draw]) -> float:
        return self._pay(draws, force=False)

    def spend(self, draws: Sequence[Draw]) -> None:
        self._pay(draws, force=True)

    def known_wait(self, draws: Sequence[Draw]) -> float:
        now = time.monotonic()
        wait = 0.0
        with self._lock:
            for d in draws:
                if (bound := self._bounds.get(d.bucket)) is not None:
                    wait = max(wait, shortfall_s(refill(bound[0], now - bound[1], d), d))
        return wait

    def _pay(self, draws: Sequence[Draw], *, force: bool) -> float:
        if not draws:
            return 0.0
        if time.monotonic() < self._down_until:
            return self._fallback_pay(draws, force)
        args: list[float] = [int(force)]
        for d in draws:
            args += [d.cost, d.per_min, d.capacity]
        asked = time.monotonic()  # before Redis's clock read the levels: the bound errs high
        try:
            raw = self._script(keys=[self._prefix + d.bucket for d in draws], args=args)
        except self._errors as exc:
            self._down_until = time.monotonic() + REDIS_RETRY_S
            log.warning(
                "ratelimit.redis_unavailable", fallback="in-process", retry_s=REDIS_RETRY_S, **exception_fields(exc)
            )
            return self._fallback_pay(draws, force)
        head, _, levels = (raw.decode() if isinstance(raw, bytes) else str(raw)).partition("|")
        self._bound(draws, levels, asked)
        wait = float(head)
        return wait if math.isfinite(wait) and wait > 0 else 0.0

    def _bound(self, draws: Sequence[Draw], levels: str, at: float) -> None:
        try:
            tokens = [float(x) for x in levels.split(",")] if levels else []
        except ValueError:
            return
        with self._lock:
            if len(self._bounds) + len(draws) > MAX_BOUNDS:
                self._bounds.clear()
            for d, t in zip(draws, tokens, strict=False):
                self._bounds[d.bucket] = (t, at)

    def _fallback_pay(self, draws: Sequence[Draw], force: bool) -> float:
        if force:
            self._fallback.spend(draws)
            return 0.0
        return self._fallback.take(draws)

    def close(self) -> None:
        self._r.close()


def buckets_for(url: str, *, namespace: str) -> MemoryBuckets | RedisBuckets:
    """Redis buckets when ``url`` is a Redis URL, else buckets of this process."""
    if url.startswith(("redis://", "rediss://")):
        return RedisBuckets(url, namespace=namespace, fallback=MemoryBuckets())
    return MemoryBuckets()
