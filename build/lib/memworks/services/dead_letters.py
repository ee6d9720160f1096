"""Dead letters: messages that failed after their retries, as an operator and a deletion see them.

The broker keeps them (Redis for 7 days, or in process); SQL keeps the work they were about.
An operator lists them and sends them again; a deletion purges those naming its subject
(:mod:`memworks.store.projections.dead_letters`). Every queue the workers serve is passed,
the bulk lanes included.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import dramatiq

from memworks.store.projections.dead_letters import DeadLetters, dead_letters_of

__all__ = ["DeadLetters", "listed", "of", "take"]


def of(broker: dramatiq.Broker, queues: Iterable[str]) -> DeadLetters:
    """The dead letters of ``queues`` on ``broker``."""
    return dead_letters_of(broker, tuple(queues))


def listed(broker: dramatiq.Broker, queues: Iterable[str]) -> list[dict[str, Any]]:
    """Every dead letter: queue, message id, actor and arguments."""
    return of(broker, queues).entries()


def take(broker: dramatiq.Broker, queues: Iterable[str], message_ids: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Remove and return the named dead letters (all when none is named), to be sent again."""
    return of(broker, queues).take(set(message_ids))
