"""LoCoMo conversations as memworks replays them: turns in date order with episode ids, and
questions with their gold evidence checked against the conversation."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

_SESSION = re.compile(r"session_(\d+)")
_DIA = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


@dataclass(frozen=True)
class Turn:
    """One dialogue turn, ready to replay."""

    dia_id: str
    episode_id: str
    session: int
    index: int
    speaker: str
    content: str
    occurred_at: datetime


@dataclass(frozen=True)
class Question:
    question: str
    category: int
    #: Gold dialogue ids that exist in the conversation, normalised, in the dataset's order.
    evidence: tuple[str, ...]
    #: Evidence entries dropped: malformed, or naming no turn of the conversation.
    bad_evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


# -- parsing ------------------------------------------------------------------------------


def parse_session_date(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` as an aware UTC datetime.

    Raises:
        ValueError: the text is not in that form.
    """
    clean = " ".join(text.replace(",", " , ").split()).replace(" ,", ",")
    return datetime.strptime(clean, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def split_evidence(raw: Iterable[str]) -> tuple[list[str], list[str]]:
    """Normalised dialogue ids and the entries that are not ids at all.

    Handles the dataset's quirks: several ids in one string (``"D8:6; D9:17"``), an extra
    colon (``"D:11:26"`` → ``D11:26``), stray whitespace, leading zeros.
    """
    ids: list[str] = []
    bad: list[str] = []
    for entry in raw:
        for piece in re.split(r"[;,]", str(entry)):
            piece = piece.strip()
            if not piece:
                continue
            if m := _DIA.fullmatch(piece):
                ids.append(f"D{int(m[1])}:{int(m[2])}")
            else:
                bad.append(piece)
    return list(dict.fromkeys(ids)), bad


def episode_id_for(sample_id: str, dia_id: str) -> str:
    """An episode id memworks accepts for a dialogue id (``conv-26``, ``D8:6`` → ``conv-26-D8-6``)."""
    return f"{sample_id}-{dia_id.replace(':', '-')}"


def _content(turn: Mapping[str, Any]) -> str:
    text = " ".join(str(turn.get("text") or "").split())
    if caption := " ".join(str(turn.get("blip_caption") or "").split()):
        text = f"{text} [shares a photo of {caption}]".strip()
    return f"{turn['speaker']}: {text}" if text else ""


def parse_conversation(sample: Mapping[str, Any]) -> Conversation:
    """One LoCoMo sample as turns in date order and questions with checked evidence."""
    sid = str(sample["sample_id"])
    conv = sample["conversation"]
    sessions = []
    for key, turns in conv.items():
        m = _SESSION.fullmatch(key)
        if m and isinstance(turns, list) and f"{key}_date_time" in conv:
            sessions.append((parse_session_date(conv[f"{key}_date_time"]), int(m[1]), turns))
    out: list[Turn] = []
    for start, n, turns in sorted(sessions, key=lambda s: (s[0], s[1])):
        for i, t in enumerate(turns):
            if content := _content(t):
                out.append(
                    Turn(
                        t["dia_id"],
                        episode_id_for(sid, t["dia_id"]),
                        n,
                        i,
                        str(t["speaker"]),
                        content,
                        start + timedelta(seconds=i),
                    )
                )
    known = {t.dia_id for t in out}
    questions = []
    for q in sample.get("qa", []):
        ids, bad = split_evidence(q.get("evidence") or [])
        questions.append(
            Question(
                str(q["question"]),
                int(q["category"]),
                tuple(i for i in ids if i in known),
                tuple(bad + [i for i in ids if i not in known]),
            )
        )
    return Conversation(sid, tuple(out), tuple(questions))


def load(path: Path, *, limit: int | None = None) -> list[Conversation]:
    """The conversations of a LoCoMo JSON file (the first ``limit`` of them)."""
    data = json.loads(Path(path).read_text())
    return [parse_conversation(s) for s in data[:limit]]


# -- metrics ------------------------------------------------------------------------------
