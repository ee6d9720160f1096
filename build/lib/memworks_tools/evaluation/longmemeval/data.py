"""LongMemEval's questions as ``memworks eval longmemeval`` reads them: the native JSON schema
parsed into cases, and each case's haystack as episodes to replay, one batch per session.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = ["TENANT", "Case", "episodes_for", "load", "parse_case", "parse_date"]

TENANT = "longmemeval"
_DATE_FORMAT = "%Y/%m/%d (%a) %H:%M"


@dataclass(frozen=True)
class Case:
    """One LongMemEval question with its haystack, sessions in date order."""

    question_id: str
    question_type: str
    question: str
    answer: str
    question_date: datetime
    #: (session id, session start, turns) in date order.
    sessions: tuple[tuple[str, datetime, tuple[Mapping[str, Any], ...]], ...]
    answer_session_ids: tuple[str, ...]

    @property
    def abstention(self) -> bool:
        return self.question_id.endswith("_abs")


def parse_date(text: str) -> datetime:
    """``"2023/05/30 (Tue) 08:08"`` as an aware UTC datetime."""
    return datetime.strptime(text.strip(), _DATE_FORMAT).replace(tzinfo=UTC)


def parse_case(item: Mapping[str, Any]) -> Case:
    """One question of LongMemEval's native JSON schema, its sessions sorted by date."""
    sessions = sorted(
        zip(
            item["haystack_session_ids"],
            map(parse_date, item["haystack_dates"]),
            item["haystack_sessions"],
            strict=True,
        ),
        key=lambda s: (s[1], s[0]),
    )
    return Case(
        question_id=str(item["question_id"]),
        question_type=str(item["question_type"]),
        question=str(item["question"]),
        answer=str(item["answer"]),
        question_date=parse_date(item["question_date"]),
        sessions=tuple((str(sid), when, tuple(turns)) for sid, when, turns in sessions),
        answer_session_ids=tuple(str(s) for s in item.get("answer_session_ids") or ()),
    )


def load(paths: Sequence[Path]) -> list[Case]:
    """The questions of LongMemEval JSON files (native schema), each question id once."""
    seen: dict[str, Case] = {}
    for path in paths:
        for item in json.loads(Path(path).read_text()):
            case = parse_case(item)
            seen.setdefault(case.question_id, case)
    return list(seen.values())


def episodes_for(case: Case) -> list[list[dict[str, Any]]]:
    """Episodes to enqueue, one batch per session, in date order."""
    batches = []
    for sid, start, turns in case.sessions:
        batch = []
        for i, t in enumerate(turns):
            content = str(t.get("content") or "").strip()
            if not content:
                continue
            user = t.get("role") == "user"
            batch.append(
                {
                    "episode_id": f"{case.question_id}-{sid}-{i}",
                    "tenant_id": TENANT,
                    "user_id": case.question_id,
                    "session_id": sid,
                    "turn": i,
                    "role": "user" if user else "assistant",
                    "source": "user" if user else "model_inference",
                    "content": content,
                    "occurred_at": (start + timedelta(seconds=i)).isoformat(),
                    "metadata": {"longmemeval_session": sid},
                }
            )
        batches.append(batch)
    return batches
