"""Eviction: time-to-live expiry, capacity eviction and attention decay, decided as pure data.

* **TTL** (:func:`expires_at_for`, :func:`select_expired`): a record's ``expires_at`` is its
  ``recorded_at`` plus the TTL of its kind (``None`` = never expires). Expiry is a status
  change the caller makes; this module only names the records.
* **Capacity** (:func:`select_evictions`): when a user scope holds more *live* records than
  ``max_records``, the excess is evicted in one explicit order (see the function).
* **Attention** (:func:`decayed_attention`): retrieval utility fades with a half-life since the
  last retrieval. It ranks and evicts; it never changes what is believed true.

A *live* record is ``status == active`` and not retracted by transaction time
(``retracted_at is None``). Retracted history rows and every other status neither count
towards capacity nor get evicted or expired here.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus

#: Statuses that are never evicted for capacity (they wait for a person, or for review).
_PROTECTED = frozenset({MemoryStatus.PENDING_CONFIRMATION, MemoryStatus.QUARANTINED})


def _default_ttl() -> dict[str, float | None]:
    return {"working": 1, "episodic": 365, "semantic": None, "procedural": None}


class EvictionPolicy(BaseModel):
    """Thresholds of eviction (passed in, never read from settings)."""

    model_config = ConfigDict(frozen=True)

    #: Days a record of each kind lives after ``recorded_at``; ``None`` (or a missing kind) = forever.
    ttl_days: dict[str, float | None] = Field(default_factory=_default_ttl)
    #: Live records kept per user scope before capacity eviction starts.
    max_records: int = Field(default=5000, ge=0)
    #: Days after which an unretrieved record's attention has halved.
    attention_half_life_days: float = Field(default=30, gt=0)


def is_live(m: MemoryView) -> bool:
    """Counts towards capacity and may expire or be evicted: active and not retracted."""
    return m.status is MemoryStatus.ACTIVE and m.retracted_at is None


def expires_at_for(kind: MemoryKind | str, recorded_at: datetime, policy: EvictionPolicy) -> datetime | None:
    """When a record of ``kind`` recorded at ``recorded_at`` expires (``None`` = never)."""
    ttl = policy.ttl_days.get(str(kind))
    if ttl is None:
        return None
    return recorded_at + timedelta(days=ttl)


def _expired(m: MemoryView, now: datetime) -> bool:
    return m.expires_at is not None and m.expires_at <= now


def select_expired(records: Sequence[MemoryView], now: datetime) -> list[str]:
    """Ids of live records whose ``expires_at`` has passed (``<= now``), sorted.

    ``hold`` does not stop expiry: it only protects against capacity eviction.
    """
    return sorted(m.memory_id for m in records if is_live(m) and _expired(m, now))


def _verified(m: MemoryView) -> bool:
    return m.last_verified_at is not None


def _eviction_order(m: MemoryView, now: datetime) -> tuple[bool, float, bool, float, datetime, str]:
    # False sorts first: expired records lead; unverified before verified at equal confidence.
    return (not _expired(m, now), m.confidence, _verified(m), m.attention, m.recorded_at, m.memory_id)


def _reason(m: MemoryView, now: datetime) -> str:
    if _expired(m, now):
        return "capacity: expired"
    verified = "verified" if _verified(m) else "unverified"
    return f"capacity: low confidence {m.confidence:.2f} ({verified}, attention {m.attention:.2f})"


def select_evictions(records: Sequence[MemoryView], *, now: datetime, policy: EvictionPolicy) -> list[tuple[str, str]]:
    """``(memory_id, reason)`` for the records to evict so live records fit ``max_records``.

    Pass one user scope at a time. Only live records count and only live records are evicted.
    The excess (``live - max_records``) is taken in this order:

    1. expired records first (``expires_at <= now``);
    2. never a record with ``hold=True`` or status pending_confirmation / quarantined;
    3. then the lowest ``confidence``; at equal confidence an unverified record (no
       ``last_verified_at``) goes before a verified one;
    4. then the lowest retrieval utility (the stored ``attention``, as given);
    5. then the oldest ``recorded_at``;
    6. then ``memory_id``.

    When protected records alone exceed the cap, every unprotected live record is evicted and
    the scope stays over capacity (holds win over capacity).
    """
    live = [m for m in records if is_live(m)]
    excess = len(live) - policy.max_records
    if excess <= 0:
        return []
    evictable = [m for m in live if not m.hold and m.status not in _PROTECTED]
    evictable.sort(key=lambda m: _eviction_order(m, now))
    return [(m.memory_id, _reason(m, now)) for m in evictable[:excess]]


def decayed_attention(
    attention: float, last_retrieved_at: datetime | None, now: datetime, policy: EvictionPolicy
) -> float:
    """``attention`` halved every ``attention_half_life_days`` since the last retrieval.

    Never retrieved (``None``) or a retrieval in the future: unchanged. The result is a pure
    function of the attention *as of* ``last_retrieved_at``; re-applying it to an already
    decayed value with the same ``last_retrieved_at`` decays twice.
    """
    if last_retrieved_at is None:
        return attention
    days = (now - last_retrieved_at).total_seconds() / 86400.0
    if days <= 0:
        return attention
    return float(attention * 0.5 ** (days / policy.attention_half_life_days))
