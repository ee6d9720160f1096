"""The subject of an erasure, and the counting every target's check is built from."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session, col

from memworks.pipelines.deletion import DeletionPlan
from memworks.store.projections.base import Evidence
from memworks.store.projections.cache import ReadCache
from memworks.store.projections.dead_letters import DeadLetters

__all__ = ["CHUNK", "Subject", "chunks", "count", "count_in", "evidence"]

#: Rows per IN (...) list.
CHUNK = 500


@dataclass
class Subject:
    """What erasure needs besides the session: who, the plan, and the non-SQL projections."""

    tenant_id: str
    user_id: str
    plan: DeletionPlan
    cache: ReadCache
    dead_letters: DeadLetters
    now: datetime
    #: Rebuilds the subject's profile without the given record ids (token counting lives outside).
    rebuild_profile: Callable[[Session, str, str, datetime, Collection[str]], object]
    whole_subject: bool = False


def chunks(items: Sequence[Any]) -> list[Sequence[Any]]:
    """``items`` in slices of :data:`CHUNK`, one IN (...) list each."""
    return [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]


def count(session: Session, stmt: Any) -> int:
    """The integer a ``select(func.count())`` statement returns (0 for none)."""
    return int(session.scalar(stmt) or 0)


def count_in(session: Session, table: Any, column: Any, values: Sequence[Any], *where: Any) -> int:
    """Rows of ``table`` whose ``column`` is one of ``values`` and that match every ``where``."""
    return sum(
        count(session, select(func.count()).select_from(table).where(*where, col(column).in_(chunk)))
        for chunk in chunks(values)
    )


def evidence(name: str, remaining: int, checked: list[str]) -> Evidence:
    """A target's evidence, checked now."""
    return Evidence(name, remaining, checked, datetime.now(UTC))
