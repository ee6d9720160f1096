"""Rate limits and a per-tenant concurrency cap in front of the HTTP API and its ``/mcp`` endpoint.

Every request that carries a known key spends from four budgets, each a token bucket per key
and per tenant (``MEMWORKS_RATE_*``, see :mod:`memworks.config`):

- **write bytes**: the body of every write and of every ``/mcp`` call, in bytes: what a write
  costs the API to parse and the workers to store and index grows with its length, not its count;
- **writes**: episodes and outcomes, counted one by one (a batch of 256 spends 256); a
  correction, a confirmation, a consolidation and an MCP ``memory_add`` or ``outcome_report``
  spend 1;
- **deletions**: ``POST /v1/deletions``, ``DELETE /v1/memories/{id}``, MCP ``memory_forget``;
- **reads**: every other request under ``/v1`` and ``/mcp``, one unit for each started
  :data:`~memworks.api.budgets.READ_UNIT_BYTES` of its body and query string: what a read
  costs (reading the query's dates, embedding it, ranking) grows with the query's length, so a
  1,000-character question spends seven times what a short one does.

Each bucket holds ``rate_burst_s`` seconds of its budget when full: how much a key or tenant may
send at once before its rate applies.

Admission looks at the headers only: the body's ``Content-Length`` (a chunked body, already read
and capped by the body limit, by its length) and one unit of the route's budget (a read's units).
A request over either answers 429 with ``Retry-After`` (whole seconds, at least 1) and the usual
error body, code ``rate_limited``, before its body is read or parsed; it spends nothing and
reaches no route. Refusing stays cheap under a flood: a budget the last answer from Redis shows
empty is refused without asking Redis again (:meth:`Buckets.known_wait`), a large body refused
unread closes its connection instead of being drained, and the 429 is sent after
``rate_refusal_delay_s`` (waited in the event loop), so a client that ignores Retry-After costs
one refusal per connection per delay. Once
admitted, a batch's further episodes or outcomes are counted from its body and paid even into
debt, which its key's and tenant's next writes wait for. An MCP call's tool is known only from
its body: its bytes are paid first, then its budget is taken as any request's.

Besides, at most ``rate_tenant_concurrency`` requests of one tenant run at once in this process:
sync routes share one thread pool under one GIL, so this bounds how many of one tenant's
requests another tenant's request waits behind. Up to ``rate_tenant_queue`` more wait for a
place in the event loop, holding no thread, for at most :data:`~memworks.api.slots.QUEUE_WAIT_S`; one more, or a
longer wait, answers 429 with ``Retry-After: 1``.

Requests without a key, or with an unknown one, pass through untouched (the route answers 401).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
from prometheus_client import CollectorRegistry, Counter, Gauge
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memworks.api.buckets import Buckets, Draw, MemoryBuckets, buckets_for
from memworks.api.budgets import (
    BYTES,
    READS,
    WRITES,
    Limits,
    item_count,
    mcp_charges,
    read_units,
    route_budget,
)
from memworks.api.middleware import error_body, send_json
from memworks.api.slots import TenantSlots
from memworks.client import Memworks
from memworks.logging import get_logger

log = get_logger("memworks.api")

#: Routes whose body is paid for by its bytes (writes, and MCP calls, which may write).
_BODIED = (WRITES, "mcp")
#: Routes whose body holds a batch, each of whose items spends from the write budget.
_BATCHES = ("/v1/episodes", "/v1/outcomes")
#: Bodies larger than this are counted in a worker thread, off the event loop (bytes).
_INLINE_PARSE_BYTES = 64_000


@dataclass(frozen=True, slots=True)
class Holder:
    """Whose budgets a request spends: its key and the key's tenant."""

    key_id: str
    tenant_id: str


class KnownKeys:
    """Which key and tenant a secret belongs to, remembered for ``ttl_s`` (by the secret's hash).

    Only the limits use it: the route still authenticates every request, so a key revoked
    meanwhile is refused all the same.
    """

    def __init__(self, *, ttl_s: float = 60.0, max_entries: int = 10_000) -> None:
        self._seen: dict[str, tuple[float, Holder]] = {}
        self._ttl, self._max = ttl_s, max_entries

    @staticmethod
    def _id(secret: str) -> str:
        return hashlib.sha256(secret.encode()).hexdigest()

    def get(self, secret: str) -> Holder | None:
        hit = self._seen.get(self._id(secret))
        return hit[1] if hit is not None and hit[0] > time.monotonic() else None

    def put(self, secret: str, holder: Holder) -> None:
        if len(self._seen) >= self._max:
            self._seen.clear()
        self._seen[self._id(secret)] = (time.monotonic() + self._ttl, holder)


def _content_length(scope: Scope) -> int | None:
    """The body's declared length (the server reads no more), or None for a chunked body."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            return int(value) if value.isdigit() else None
    return None


def _bearer(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name == b"authorization":
            kind, _, secret = value.decode("latin-1").partition(" ")
            return secret.strip() if kind.lower() == "bearer" else ""
    return ""


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body, and a ``receive`` that hands it on to the app."""
    chunks: list[bytes] = []
    pending: Message | None = None
    while True:
        message = await receive()
        if message["type"] != "http.request":
            pending = message
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body, replayed = b"".join(chunks), False

    async def replay() -> Message:
        nonlocal replayed
        if replayed:
            return await receive()
        replayed = True
        return pending if pending is not None else {"type": "http.request", "body": body, "more_body": False}

    return body, replay


class RateLimit:
    """ASGI middleware applying the budgets and the concurrency cap of ``get_mw()``'s settings.

    Place it inside the body limit (bodies reach it already capped). Budgets live in Redis when
    the settings' cache or broker is Redis, else in this process.
    """

    def __init__(
        self, app: ASGIApp, get_mw: Callable[[], Memworks | None], registry: CollectorRegistry | None = None
    ) -> None:
        self.app, self._get_mw = app, get_mw
        self._setup: tuple[Memworks, Limits, Buckets] | None = None
        self.slots, self._keys = TenantSlots(), KnownKeys()
        # Key look-ups and Redis calls get threads of their own: not queued behind slow routes.
        self._threads = anyio.CapacityLimiter(8)
        self._refused = None
        if registry is not None:
            self._refused = Counter(
                "memworks_http_rate_limited", "Requests refused with 429, by budget", ["budget"], registry=registry
            )
            waiting = Gauge(
                "memworks_http_requests_waiting", "Requests waiting for a place of their tenant", registry=registry
            )
            waiting.set_function(self.slots.waiting)

    def _limits(self, mw: Memworks) -> tuple[Limits, Buckets]:
        if self._setup is None or self._setup[0] is not mw:
            s = mw.settings
            url = s.cache_url or ("" if s.is_embedded_broker else s.broker_url)
            self._setup = (mw, Limits.of(s), buckets_for(url, namespace=s.queue_namespace))
        return self._setup[1], self._setup[2]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        budget = route_budget(scope["method"], scope["path"]) if scope["type"] == "http" else None
        mw = self._get_mw() if budget is not None else None
        secret = _bearer(scope) if mw is not None else ""
        if budget is None or mw is None or not secret:
            await self.app(scope, receive, send)
            return
        limits, buckets = self._limits(mw)
        holder = None if limits.off else await self._holder(mw, secret)
        if holder is None:
            await self.app(scope, receive, send)
            return
        # Admission from the headers: the body's bytes and one unit of the route's budget (a
        # read's units by its length).
        size = _content_length(scope) if budget in _BODIED or budget == READS else 0
        if size is None:  # chunked: the body limit has read it already, capped; count it
            body, receive = await _buffered(receive)
            size = len(body)
        if budget == READS:
            first = {READS: read_units(size + len(scope.get("query_string", b"")))}
        else:
            first = {BYTES: size} | ({} if budget == "mcp" else {budget: 1})
        # A large body refused unread is not drained: the connection closes after the 429, so a
        # client that keeps sending refused megabytes costs this process nothing to read them.
        unread = size > _INLINE_PARSE_BYTES and _content_length(scope) is not None
        if not await self._take(send, limits, buckets, holder, first, close=unread):
            return
        charges, receive = await self._charges(limits, budget, scope["path"], receive)
        if budget == "mcp" and not await self._take(send, limits, buckets, holder, charges):
            return
        if (more := charges.get(WRITES, 0) - 1) > 0 and budget == WRITES:
            await self._pay(buckets, limits.draws({WRITES: more}, holder.key_id, holder.tenant_id), force=True)
        if not await self.slots.enter(holder.tenant_id, limits.concurrency, limits.queue):
            msg = (
                f"too many requests of this tenant in progress: {limits.concurrency} run at once here and "
                f"{limits.queue} may wait for them; retry in a second"
            )
            await self._refuse(send, "concurrency", msg, 1, delay_s=limits.refusal_delay_s)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.slots.leave(holder.tenant_id)

    async def _take(
        self,
        send: Send,
        limits: Limits,
        buckets: Buckets,
        holder: Holder,
        charges: Mapping[str, int],
        *,
        close: bool = False,
    ) -> bool:
        """Pay ``charges`` from the holder's buckets, or answer 429 and return False."""
        wait = await self._pay(buckets, limits.draws(charges, holder.key_id, holder.tenant_id))
        if wait <= 0:
            return True
        retry = max(1, math.ceil(wait))
        refused = {b: c for b, c in charges.items() if c > 0}
        msg = f"rate limit: {limits.describe(refused)}; retry in {retry} s"
        await self._refuse(send, "+".join(sorted(refused)), msg, retry, close=close, delay_s=limits.refusal_delay_s)
        return False

    async def _pay(self, buckets: Buckets, draws: list[Draw], *, force: bool = False) -> float:
        """Take (or with ``force``, spend) ``draws``: at once from this process's buckets, in a
        thread from Redis's (a network round trip). Returns the seconds to wait (0: paid)."""
        if not draws:
            return 0.0
        if not force and (known := buckets.known_wait(draws)) > 0:
            return known  # refused from what this process knows, with no round trip
        pay: Callable[[list[Draw]], float | None] = buckets.spend if force else buckets.take
        wait = pay(draws) if isinstance(buckets, MemoryBuckets) else await self._off_loop(pay, draws)
        return wait or 0.0

    async def _charges(
        self, limits: Limits, budget: str, path: str, receive: Receive
    ) -> tuple[dict[str, int], Receive]:
        """What an admitted request spends from each budget; a batch's and an MCP call's are read
        from its body (paid for by its bytes already)."""
        if budget == "mcp":
            body, receive = await _buffered(receive)
            small = len(body) <= _INLINE_PARSE_BYTES
            return (mcp_charges(body) if small else await self._off_loop(mcp_charges, body)), receive
        counted = limits.per_key[WRITES] or limits.per_tenant[WRITES]
        if budget == WRITES and path in _BATCHES and counted:
            body, receive = await _buffered(receive)
            small = len(body) <= _INLINE_PARSE_BYTES
            return {WRITES: item_count(body) if small else await self._off_loop(item_count, body)}, receive
        return {budget: 1}, receive

    async def _holder(self, mw: Memworks, secret: str) -> Holder | None:
        if (known := self._keys.get(secret)) is not None:
            return known
        row = await self._off_loop(mw.authenticate, secret)
        if row is None:
            return None
        holder = Holder(row.key_id, row.tenant_id)
        self._keys.put(secret, holder)
        return holder

    async def _off_loop(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await anyio.to_thread.run_sync(fn, *args, limiter=self._threads)

    async def _refuse(
        self, send: Send, budget: str, message: str, retry_s: int, *, close: bool = False, delay_s: float = 0.0
    ) -> None:
        if delay_s > 0:  # the event loop waits, no thread does
            await anyio.sleep(min(delay_s, retry_s))
        if self._refused is not None:
            self._refused.labels(budget).inc()
        log.debug("api.rate_limited", budget=budget, retry_s=retry_s)
        headers = [(b"retry-after", str(retry_s).encode())] + ([(b"connection", b"close")] if close else [])
        await send_json(send, 429, error_body("rate_limited", message), headers)
