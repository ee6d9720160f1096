"""What a request costs: the budgets it spends from, by route and body, and the limits of each.

Pure: no I/O. :mod:`memworks.api.ratelimit` takes these from the buckets in front of the API.
"""

from __future__ import annotations

import json
from collections import Counter as Tally
from collections.abc import Mapping
from dataclasses import dataclass

from memworks.api.buckets import Draw
from memworks.config import Settings
from memworks.mcp import MCP_PATH

WRITES, DELETIONS, READS, BYTES = "writes", "deletions", "reads", "write_bytes"
#: Bytes of a read's body and query string one unit of the read budget pays for: measured, a
#: 1,000-character question costs a retrieve about six times a short one (116 vs 18 ms of CPU).
READ_UNIT_BYTES = 160
#: What each budget counts, in the words of a refusal.
_UNITS = {
    WRITES: "episodes or outcomes",
    DELETIONS: "deletion requests",
    READS: f"requests (a query counts once for each {READ_UNIT_BYTES} bytes)",
    BYTES: "bytes of write bodies",
}
#: MCP tools that spend from the write and deletion budgets (every other call is a read).
_MCP_TOOLS = {"memory_add": WRITES, "outcome_report": WRITES, "memory_forget": DELETIONS}


@dataclass(frozen=True)
class Limits:
    """The budgets a minute, per key and per tenant (0: no limit), the requests of a tenant
    running at once (0: no limit) and how many more may wait for a place."""

    per_key: Mapping[str, int]
    per_tenant: Mapping[str, int]
    concurrency: int
    queue: int
    #: Seconds of a budget its bucket holds when full.
    burst_s: float = 60.0
    #: Seconds a refusal waits before it is sent (at most its Retry-After).
    refusal_delay_s: float = 0.0

    @classmethod
    def of(cls, s: Settings) -> Limits:
        return cls(
            per_key={
                WRITES: s.rate_writes_per_min,
                DELETIONS: s.rate_deletions_per_min,
                READS: s.rate_reads_per_min,
                BYTES: s.rate_write_bytes_per_min,
            },
            per_tenant={
                WRITES: s.rate_tenant_writes_per_min,
                DELETIONS: s.rate_tenant_deletions_per_min,
                READS: s.rate_tenant_reads_per_min,
                BYTES: s.rate_tenant_write_bytes_per_min,
            },
            concurrency=s.rate_tenant_concurrency,
            queue=s.rate_tenant_queue,
            burst_s=s.rate_burst_s,
            refusal_delay_s=s.rate_refusal_delay_s,
        )

    @property
    def off(self) -> bool:
        return not (any(self.per_key.values()) or any(self.per_tenant.values()) or self.concurrency)

    def draws(self, charges: Mapping[str, int], key_id: str, tenant_id: str) -> list[Draw]:
        """The buckets a request spends from: its key's and its tenant's, for each budget it uses."""
        out = []
        for budget, cost in charges.items():
            if cost <= 0:
                continue  # an empty body: nothing to pay, and admitted even from a bucket in debt
            if n := self.per_key[budget]:
                out.append(Draw(f"{budget}:key:{key_id}", cost, n, self._size(n)))
            if n := self.per_tenant[budget]:
                out.append(Draw(f"{budget}:tenant:{tenant_id}", cost, n, self._size(n)))
        return out

    def _size(self, per_min: int) -> float:
        """What a bucket of ``per_min`` a minute holds when full: ``burst_s`` of it, at least 1."""
        return max(1.0, per_min * self.burst_s / 60.0)

    def describe(self, charges: Mapping[str, int]) -> str:
        """The limits a refused request ran into, in words."""
        parts = []
        for budget in charges:
            key, tenant, unit = self.per_key[budget], self.per_tenant[budget], _UNITS[budget]
            if key and tenant:
                parts.append(f"this key may send {key} {unit} a minute, and all the keys of its tenant {tenant}")
            elif key or tenant:
                who = "this key" if key else "all the keys of this tenant together"
                parts.append(f"{who} may send {key or tenant} {unit} a minute")
        return "; ".join(parts)


def route_budget(method: str, path: str) -> str | None:
    """The budget a request spends from (``mcp``: read from its body), or None when it is not limited."""
    if path == MCP_PATH:
        return "mcp"
    if not path.startswith("/v1/"):
        return None
    if method == "POST" and path in ("/v1/episodes", "/v1/outcomes"):
        return WRITES
    if (method == "POST" and path == "/v1/deletions") or (method == "DELETE" and path.startswith("/v1/memories/")):
        return DELETIONS
    if method == "PATCH" or (method == "POST" and (path.endswith("/confirm") or path == "/v1/consolidations")):
        return WRITES
    return READS


def read_units(size: int) -> int:
    """Units of the read budget a read of ``size`` bytes (body and query string) spends."""
    return 1 + max(0, size - 1) // READ_UNIT_BYTES


def item_count(body: bytes) -> int:
    """Episodes or outcomes in a write's body: a list's length, else 1 (a body that is no JSON
    spends 1 and is refused by the route)."""
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):
        return 1
    return max(1, len(parsed)) if isinstance(parsed, list) else 1


def mcp_charges(body: bytes) -> dict[str, int]:
    """What an MCP request spends: a write or deletion tool call from those budgets, anything else a read."""
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):
        return {READS: 1}
    out: Tally[str] = Tally()
    for msg in parsed if isinstance(parsed, list) else [parsed]:
        params = msg.get("params") if isinstance(msg, dict) else None
        tool = params.get("name") if isinstance(params, dict) and msg.get("method") == "tools/call" else None
        out[_MCP_TOOLS.get(tool, READS) if isinstance(tool, str) else READS] += 1
    return dict(out) or {READS: 1}
