"""Eviction: TTL expiry, capacity eviction order, attention decay — pure data, fixed clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus, Source
from memworks.pipelines.consolidation import (
    EvictionPolicy,
    decayed_attention,
    expires_at_for,
    select_evictions,
    select_expired,
)

NOW = datetime(2025, 6, 1, tzinfo=UTC)


def mem(mid: str, **kw: Any) -> MemoryView:
    base: dict[str, Any] = dict(
        memory_id=mid,
        kind=MemoryKind.SEMANTIC,
        key=f"k.{mid}",
        value=mid,
        text=f"fact {mid}",
        source=Source.USER,
        confidence=0.9,
        trusted=True,
        status=MemoryStatus.ACTIVE,
        valid_from=NOW - timedelta(days=10),
        recorded_at=NOW - timedelta(days=10),
    )
    base.update(kw)
    return MemoryView(**base)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (MemoryKind.WORKING, NOW + timedelta(days=1)),
        (MemoryKind.EPISODIC, NOW + timedelta(days=365)),
        (MemoryKind.SEMANTIC, None),
        (MemoryKind.PROCEDURAL, None),
        ("unknown", None),
    ],
)
def test_expires_at_for_default_policy(kind: MemoryKind | str, expected: datetime | None) -> None:
    assert expires_at_for(kind, NOW, EvictionPolicy()) == expected


def test_expires_at_for_custom_ttl() -> None:
    policy = EvictionPolicy(ttl_days={"semantic": 0.5})
    assert expires_at_for(MemoryKind.SEMANTIC, NOW, policy) == NOW + timedelta(hours=12)
    assert expires_at_for(MemoryKind.WORKING, NOW, policy) is None


def test_policy_is_frozen() -> None:
    with pytest.raises(ValidationError):
        EvictionPolicy().max_records = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("record", "expired"),
    [
        (mem("a", expires_at=NOW - timedelta(seconds=1)), True),
        (mem("a", expires_at=NOW), True),  # boundary: <= now
        (mem("a", expires_at=NOW + timedelta(seconds=1)), False),
        (mem("a"), False),  # no TTL
        (mem("a", expires_at=NOW - timedelta(days=1), status=MemoryStatus.SUPERSEDED), False),
        (mem("a", expires_at=NOW - timedelta(days=1), status=MemoryStatus.EXPIRED), False),
        (mem("a", expires_at=NOW - timedelta(days=1), retracted_at=NOW - timedelta(days=2)), False),
    ],
)
def test_select_expired(record: MemoryView, expired: bool) -> None:
    assert select_expired([record], NOW) == (["a"] if expired else [])


def test_select_expired_is_sorted() -> None:
    past = NOW - timedelta(days=1)
    assert select_expired([mem("c", expires_at=past), mem("a", expires_at=past), mem("b")], NOW) == ["a", "c"]


def test_no_eviction_under_capacity() -> None:
    records = [mem(str(i), confidence=0.1) for i in range(3)]
    assert select_evictions(records, now=NOW, policy=EvictionPolicy(max_records=3)) == []


def ids(evictions: list[tuple[str, str]]) -> list[str]:
    return [m for m, _ in evictions]


OLD = NOW - timedelta(days=100)


@pytest.mark.parametrize(
    ("records", "cap", "evicted"),
    [
        # (1) expired first, even at high confidence
        ([mem("exp", confidence=0.99, expires_at=NOW), mem("low", confidence=0.1)], 1, ["exp"]),
        # (2) hold is never evicted
        ([mem("held", confidence=0.1, hold=True), mem("ok", confidence=0.8)], 1, ["ok"]),
        # (3) lowest confidence
        ([mem("hi", confidence=0.9), mem("lo", confidence=0.4), mem("mid", confidence=0.6)], 2, ["lo"]),
        ([mem("hi", confidence=0.9), mem("lo", confidence=0.4), mem("mid", confidence=0.6)], 1, ["lo", "mid"]),
        ([mem("hi", confidence=0.9), mem("lo", confidence=0.4), mem("mid", confidence=0.6)], 0, ["lo", "mid", "hi"]),
        # (3b) unverified before verified at equal confidence
        (
            [
                mem("ver", confidence=0.5, last_verified_at=OLD, attention=0.0),
                mem("unv", confidence=0.5, attention=9.0),
            ],
            1,
            ["unv"],
        ),
        # (4) lowest attention
        ([mem("used", attention=5.0), mem("idle", attention=0.5)], 1, ["idle"]),
        # (5) oldest recorded_at
        ([mem("new", recorded_at=NOW), mem("old", recorded_at=OLD)], 1, ["old"]),
        # (6) memory_id
        ([mem("b"), mem("a")], 1, ["a"]),
        # only active records count and are evicted
        ([mem("sup", status=MemoryStatus.SUPERSEDED, confidence=0.0), mem("x"), mem("y", confidence=0.2)], 1, ["y"]),
        ([mem("pend", status=MemoryStatus.PENDING_CONFIRMATION, confidence=0.0), mem("x")], 1, []),
        ([mem("q", status=MemoryStatus.QUARANTINED, confidence=0.0), mem("x"), mem("y")], 1, ["x"]),
        # holds win over capacity: scope stays over cap
        ([mem("h1", hold=True), mem("h2", hold=True), mem("x")], 1, ["x"]),
    ],
)
def test_eviction_order(records: list[MemoryView], cap: int, evicted: list[str]) -> None:
    assert ids(select_evictions(records, now=NOW, policy=EvictionPolicy(max_records=cap))) == evicted


def test_eviction_reasons() -> None:
    records = [mem("exp", expires_at=NOW), mem("lo", confidence=0.4), mem("keep", confidence=0.95)]
    out = dict(select_evictions(records, now=NOW, policy=EvictionPolicy(max_records=1)))
    assert out["exp"] == "capacity: expired"
    assert out["lo"].startswith("capacity: low confidence 0.40")


def test_eviction_is_order_independent() -> None:
    records = [mem(f"m{i}", confidence=(i % 3) / 3, attention=float(i % 2)) for i in range(9)]
    policy = EvictionPolicy(max_records=4)
    assert select_evictions(records, now=NOW, policy=policy) == select_evictions(records[::-1], now=NOW, policy=policy)


POLICY = EvictionPolicy(attention_half_life_days=30)


@pytest.mark.parametrize(
    ("attention", "last", "expected"),
    [
        (8.0, None, 8.0),  # never retrieved: unchanged
        (8.0, NOW, 8.0),
        (8.0, NOW - timedelta(days=30), 4.0),
        (8.0, NOW - timedelta(days=60), 2.0),
        (8.0, NOW - timedelta(days=15), 8.0 * 0.5**0.5),
        (8.0, NOW + timedelta(days=5), 8.0),  # future retrieval: no growth
        (0.0, NOW - timedelta(days=30), 0.0),
    ],
)
def test_decayed_attention(attention: float, last: datetime | None, expected: float) -> None:
    assert decayed_attention(attention, last, NOW, POLICY) == pytest.approx(expected)
