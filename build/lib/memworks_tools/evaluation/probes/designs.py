"""The three designs ``memworks eval probes`` compares: no memory, the whole transcript in the
context, and memworks through its facade.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from memworks.models.schemas import Scope
from memworks_tools.evaluation.probes.cases import Deletion, Question
from memworks_tools.evaluation.probes.grading import Counter, Got, Reply, mentions, read_lines

if TYPE_CHECKING:
    from memworks.client import Memworks

__all__ = ["K", "LogLine", "MemworksDesign", "NoMemory", "TranscriptOnly"]

#: Hits per retrieval.
K = 5


def _slot(key: str | None, slots: Sequence[str]) -> bool:
    return key is not None and any(key == s or (s.endswith(".") and key.startswith(s)) for s in slots)


@dataclass
class LogLine:
    """One line of a user's conversation log, as the transcript design keeps it."""

    day: str
    role: str
    text: str


class NoMemory:
    """Nothing is kept: every answer is an abstention."""

    name = "no_memory"

    def __init__(self, count: Counter) -> None:
        self.count = count

    def answer(self, q: Question) -> Reply:
        return Reply(None, self.count(q.text))

    def residue(self, d: Deletion) -> dict[str, int]:
        return {"log": 0}  # nothing was ever kept


class TranscriptOnly:
    """The whole history in the context, read by the cue reader, newest line first."""

    name = "transcript_only"

    def __init__(self, count: Counter, logs: dict[tuple[str, str], list[LogLine]]) -> None:
        self.count, self.logs = count, logs
        self.history = {who: "\n".join(f"[{x.day} {x.role}] {x.text}" for x in log) for who, log in logs.items()}
        self.history_tokens = {who: count(h) for who, h in self.history.items()}

    def answer(self, q: Question) -> Reply:
        who = (q.tenant, q.user)
        got = read_lines(q, [x.text for x in self.logs[who]], newest_first=True)
        return Reply(got, self.history_tokens[who] + self.count(q.text), [self.history[who]])

    def residue(self, d: Deletion) -> dict[str, int]:
        # The naive design keeps its log: a deletion request removes nothing.
        log = self.logs[(d.tenant, d.user)]
        return {"log": len(log) if d.whole_subject else sum(mentions(x.text, d.values) for x in log)}


class MemworksDesign:
    """The embedded store behind the facade."""

    name = "memworks"

    def __init__(self, count: Counter, mw: Memworks, checkpoints: dict[str, datetime]) -> None:
        self.count, self.mw, self.checkpoints = count, mw, checkpoints

    def answer(self, q: Question) -> Reply:
        scope = Scope(tenant_id=q.tenant, user_id=q.user)
        if q.history:
            rows = [m for m in self.mw.memories(scope, include_history=True) if _slot(m.key, q.slots)]
            history = tuple(dict.fromkeys(m.value for m in rows)) or None
            texts = [m.text for m in rows]
            return Reply(history, self.count("\n".join([q.text, *texts])), texts)
        as_of = datetime.fromisoformat(q.as_of).replace(hour=12, tzinfo=UTC) if q.as_of else None
        known_at = self.checkpoints[q.known_at] if q.known_at else None
        hits = self.mw.retrieve(scope, q.text, as_of=as_of, known_at=known_at, k=K).hits
        texts = [h.text for h in hits]
        tokens = self.count("\n".join([q.text, *texts]))
        seen = texts + [h.value for h in hits]
        if not q.slots:
            return Reply(read_lines(q, texts, newest_first=False), tokens, seen, len(hits))
        found = [h.value for h in hits if _slot(h.key, q.slots)]
        got: Got = (tuple(dict.fromkeys(found)) or None) if q.many else (found[0] if found else None)
        return Reply(got, tokens, seen, len(hits))
