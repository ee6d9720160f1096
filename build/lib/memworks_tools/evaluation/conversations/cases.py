"""The conversations as typed data: sessions of turns, and the checks graded after them.

Each ``*.json`` file beside this module is one conversation:

* ``id``, ``kind`` (one of :data:`KINDS`), ``split`` (``dev`` or ``heldout``), ``about``, ``user``;
* ``sessions``: each an ``id``, a start time ``at`` (ISO 8601 with an offset) and its ``turns``.
  A turn has ``content`` and optionally ``role`` (``user`` by default), ``source`` (by role:
  ``user``, ``model_inference`` for the assistant, ``verified_tool`` for a tool), ``speaker`` (the
  person in a chat of several, sent as ``metadata.speaker``), ``gap`` (minutes after the turn
  before it, 1 by default) and ``id`` (default ``<session>-<n>``, n from 1);
* ``asked_at``: when the checks' questions are asked (default: a day after the last turn);
* ``checks``: each an ``id``, a ``kind`` (one of :data:`CHECK_KINDS`) and that kind's fields.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, model_validator

from memworks.errors import InvalidInput

HERE = Path(__file__).parent
#: The kinds of conversation the set covers.
KINDS = (
    "personal_assistant",
    "coding_assistant",
    "two_person_chat",
    "support_desk",
    "forget_requests",
    "restatements",
    "dates_and_names",
    "small_store",
)
#: The kinds of check, and the fields each one needs besides ``id`` and ``kind``.
CHECK_FIELDS: dict[str, tuple[str, ...]] = {
    "current": ("query", "expect"),
    "not_stale": ("query", "stale"),
    "as_of": ("query", "as_of", "expect"),
    "forget": ("request", "forgotten", "probe"),
    "restated": ("expect", "turns"),
    "date": ("query", "about", "date"),
    "tool": ("query", "expect", "earlier"),
    "abstain": ("query",),
    "attribution": ("query", "speaker"),
    "profile": ("expect",),
}
CHECK_KINDS = tuple(CHECK_FIELDS)
_DEFAULT_SOURCE = {"user": "user", "assistant": "model_inference", "tool": "verified_tool", "system": "user"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Turn(_Strict):
    content: str = Field(min_length=1)
    role: Literal["user", "assistant", "tool", "system"] = "user"
    source: Literal["user", "verified_tool", "model_inference", "retrieved_document"] | None = None
    speaker: str | None = None
    gap: float = Field(default=1.0, ge=0, le=24 * 60)
    id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9._-]+$")


class Session(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9._-]+$")
    at: AwareDatetime
    turns: tuple[Turn, ...] = Field(min_length=1)


class Check(_Strict):
    """One expectation; which fields it needs depends on its kind (:data:`CHECK_FIELDS`)."""

    id: str = Field(pattern=r"^[A-Za-z0-9._-]+$")
    kind: Literal[
        "current", "not_stale", "as_of", "forget", "restated", "date", "tool", "abstain", "attribution", "profile"
    ]
    query: str = ""
    #: Accepted strings (any one, case-insensitive, as a substring of a hit's value or text).
    expect: tuple[str, ...] = ()
    #: current: the rank the answer must be found within (1 or 3).
    top: Literal[1, 3] = 1
    #: current: ``value`` to look in the hit's value alone (a name that must stay whole).
    field: Literal["value", "any"] = "any"
    stale: tuple[str, ...] = ()
    as_of: AwareDatetime | None = None
    asked_at: AwareDatetime | None = None
    #: forget: the turn that asks, the values that must be gone, and the question that would find them.
    request: str = ""
    forgotten: tuple[str, ...] = ()
    probe: str = ""
    #: restated: the turns that say the same thing in other words.
    turns: tuple[str, ...] = ()
    #: date: words that mark a record as about the event, and the event's day.
    about: tuple[str, ...] = ()
    date: str = Field(default="", pattern=r"^(\d{4}-\d{2}-\d{2})?$")
    earlier: tuple[str, ...] = ()
    speaker: str = ""
    note: str = ""

    @model_validator(mode="after")
    def _has_its_fields(self) -> Check:
        missing = [f for f in CHECK_FIELDS[self.kind] if not getattr(self, f)]
        if missing:
            raise ValueError(f"a {self.kind} check needs {', '.join(missing)}")
        if self.kind == "restated" and len(self.turns) < 2:
            raise ValueError("a restated check names at least two turns")
        return self


class Conversation(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9._-]+$")
    kind: Literal[
        "personal_assistant",
        "coding_assistant",
        "two_person_chat",
        "support_desk",
        "forget_requests",
        "restatements",
        "dates_and_names",
        "small_store",
    ]
    split: Literal["dev", "heldout"] = "dev"
    about: str = ""
    user: str = Field(pattern=r"^[A-Za-z0-9._:@-]+$")
    sessions: tuple[Session, ...] = Field(min_length=1)
    asked_at: AwareDatetime | None = None
    checks: tuple[Check, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _references_exist(self) -> Conversation:
        turns = self.turn_map()
        starts = [s.at for s in self.sessions]
        if starts != sorted(starts):
            raise ValueError("sessions must be in the order they happened (by at)")
        checks = [c.id for c in self.checks]
        if len(set(checks)) != len(checks):
            raise ValueError("check ids must be unique")
        speakers = {t.speaker for t in turns.values() if t.speaker}
        for c in self.checks:
            for ref in (*c.turns, *([c.request] if c.request else [])):
                if ref not in turns:
                    raise ValueError(f"check {c.id}: no turn {ref!r} in the conversation")
            if c.kind == "attribution" and c.speaker not in speakers:
                raise ValueError(f"check {c.id}: nobody named {c.speaker!r} speaks in the conversation")
        return self

    @property
    def tenant(self) -> str:
        """The tenant the conversation is stored in (one per conversation: consolidation is per tenant)."""
        return f"conv-{self.id}"

    def turn_map(self) -> dict[str, Turn]:
        """Every turn by its id (``<session>-<n>`` unless the turn names its own)."""
        out: dict[str, Turn] = {}
        for s in self.sessions:
            for n, t in enumerate(s.turns, start=1):
                tid = t.id or f"{s.id}-{n}"
                if tid in out:
                    raise ValueError(f"turn id {tid!r} is used twice")
                out[tid] = t
        return out

    def episode_id(self, turn_id: str) -> str:
        return f"{self.id}.{turn_id}"

    def episodes(self) -> list[list[dict[str, Any]]]:
        """The episodes to enqueue, session by session, in the JSON shape agents send."""
        ids = iter(self.turn_map())
        out = []
        for s in self.sessions:
            at, batch = s.at, []
            for n, t in enumerate(s.turns):
                at = at + timedelta(minutes=t.gap) if n else at
                batch.append(
                    {
                        "episode_id": self.episode_id(next(ids)),
                        "tenant_id": self.tenant,
                        "user_id": self.user,
                        "session_id": f"{self.id}.{s.id}",
                        "turn": n,
                        "role": t.role,
                        "source": t.source or _DEFAULT_SOURCE[t.role],
                        "content": t.content,
                        "occurred_at": at.isoformat(),
                        **({"metadata": {"speaker": t.speaker}} if t.speaker else {}),
                    }
                )
            out.append(batch)
        return out

    def question_time(self, check: Check) -> datetime:
        """When ``check``'s question is asked: its own ``asked_at``, the conversation's, else a day after the
        last turn."""
        asked = check.asked_at or self.asked_at
        if asked is not None:
            return asked
        last = self.episodes()[-1][-1]["occurred_at"]
        return datetime.fromisoformat(last) + timedelta(days=1)


def parse(raw: dict[str, Any], *, where: str) -> Conversation:
    """One conversation from its JSON object.

    Raises:
        InvalidInput: naming the file and the field that is wrong (``where: checks.3.kind``).
    """
    try:
        return Conversation.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        path = ".".join(str(p) for p in err["loc"]) or "conversation"
        raise InvalidInput(f"{where}: {path}: {err['msg']}", field=f"{where}: {path}") from None


def files() -> list[Path]:
    """The conversation files shipped beside this module, in name order."""
    return sorted(HERE.glob("*.json"))


def load(paths: Iterable[Path] | None = None) -> list[Conversation]:
    """The conversations of ``paths`` (files, or folders of ``*.json``; default: every shipped file);
    ids must be unique.

    Raises:
        InvalidInput: a file is not JSON, or a field is wrong (the message names file and field).
    """
    out: list[Conversation] = []
    chosen = files() if paths is None else [f for p in paths for f in (sorted(p.glob("*.json")) if p.is_dir() else [p])]
    for p in chosen:
        try:
            raw = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InvalidInput(f"{p.name}: not a readable JSON file ({exc})", field=p.name) from None
        out.append(parse(raw, where=p.name))
    ids = [c.id for c in out]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise InvalidInput(f"conversation ids must be unique: {', '.join(dup)}", field="id")
    return out
