"""Input and output schemas of the public interfaces (DESIGN §8)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationInfo,
    computed_field,
    field_validator,
)

from memworks.models.enums import MemoryKind, MemoryStatus, Role, Source
from memworks.models.types import METADATA_HELP, BoundedTime, Metadata, refuse_numbers

_ID = r"^[A-Za-z0-9][A-Za-z0-9._:@\-]{0,199}$"
#: A memory key (a slot such as ``user.home_city``), as a deletion names it.
_KEY = re.compile(r"[a-z_]+(\.[a-z0-9_-]+)*")
#: Longest memory key a deletion may name.
MAX_KEY_CHARS = 200
#: A record id as the store makes them (32 hex digits); anything else cannot name a record.
RecordId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_\-]{1,64}$")]


class Scope(BaseModel):
    """Who a read or write belongs to. ``user_id=None`` means tenant-wide records only."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tenant_id: str = Field(pattern=_ID)
    user_id: str | None = Field(default=None, pattern=_ID)


class _Input(BaseModel):
    """An input shape: JSON must carry each field's documented type (no number read as text,
    time or boolean), and a number :func:`~memworks.models.types.load_json` refused is named
    by the field it stands in."""

    @field_validator("*", mode="before")
    @classmethod
    def _no_refused_numbers(cls, v: Any, info: ValidationInfo) -> Any:
        # Metadata is walked once, by its own bounded check, which also refuses such numbers.
        return v if info.field_name == "metadata" else refuse_numbers(v)


class EpisodeIn(_Input):
    """One conversation turn or tool result, as an agent reports it. ``turn`` is an integer and
    ``occurred_at`` an ISO 8601 string with an offset (an aware ``datetime`` in Python), never a
    number; ``metadata`` is bounded (``models.types.METADATA_HELP``)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    episode_id: str = Field(pattern=_ID)
    tenant_id: str = Field(pattern=_ID)
    user_id: str = Field(pattern=_ID)
    session_id: str = Field(pattern=_ID)
    turn: StrictInt = Field(ge=0, le=2**31 - 1)
    role: Role
    source: Source
    content: str = Field(min_length=1, max_length=100_000)
    occurred_at: BoundedTime
    metadata: Metadata = Field(default_factory=dict, description=METADATA_HELP)

    @field_validator("content")
    @classmethod
    def _storable_text(cls, v: str) -> str:
        # NUL cannot be stored by PostgreSQL, and lone surrogates are not UTF-8.
        if "\x00" in v:
            raise ValueError("content may not contain NUL characters")
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("content must be valid Unicode (no unpaired surrogates)") from None
        return v


class HitOut(BaseModel):
    """One retrieved memory with its provenance."""

    memory_id: str
    kind: MemoryKind
    key: str | None
    value: str
    text: str
    source: Source
    status: MemoryStatus
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    evidence: list[str]
    score: float
    similarity: float
    #: When the event the record is about happens or happened (a wedding's date), if it names one;
    #: of a turn that names several, the time of the part that answers the question.
    event_at: datetime | None = None
    #: The record that replaced this one (a later value, or the fact a transcript stated).
    superseded_by: str | None = None
    #: Who said it (a conversation's speaker) or whom the record is about; None when unknown.
    subject: str | None = None
    #: Whom the best-matching sentence is about (its speaker, or the one it addresses as "you").
    about: str | None = None
    #: The question names someone other than the one this hit is about.
    subject_mismatch: bool = False
    #: When the event happened, resolved: ``event_at``, else the time the record's words name,
    #: else its valid-time start (for a turn, when it was said).
    event_time: datetime | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def stale(self) -> bool:
        """No longer current: superseded, ended or (a transcript) every statement of it replaced.
        Only ``as_of`` / ``known_at`` reads return such records."""
        return _stale(self.status, self.valid_to)


class ProfileLineOut(BaseModel):
    """One line of the injected profile and the record it cites."""

    memory_id: str
    text: str
    #: ``constraint`` (health and safety, hard limits), ``preference`` or ``fact``.
    tier: str


class ProfileOut(BaseModel):
    """The user's profile for one question: all of it when it fits its cap, else the lines that
    bear on the question, constraints first."""

    text: str
    tokens: int
    lines: list[ProfileLineOut]


class RetrieveResult(BaseModel):
    abstained: bool
    hits: list[HitOut]
    #: Every hit is about someone other than the person the question names: not an answer.
    subject_mismatch: bool = False
    #: With ``include_profile``: the user's present profile for this question (whatever
    #: ``as_of`` says: what the agent must keep in mind now); None when not asked for.
    profile: ProfileOut | None = None


class EvidenceOut(BaseModel):
    """One episode a record rests on, as its owner sees it: when it was said and its first words."""

    episode_id: str
    occurred_at: datetime
    role: Role
    source: Source
    #: The episode's words, whitespace folded, cut at a word boundary (at most 160 characters);
    #: None once its text is erased.
    snippet: str | None
    #: A deletion erased the episode's text; only its id, time, role and source remain.
    erased: bool = False


class MemoryOut(BaseModel):
    memory_id: str
    kind: MemoryKind
    key: str | None
    value: str
    text: str
    status: MemoryStatus
    source: Source
    trusted: bool
    confidence: float
    user_id: str | None
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    retracted_at: datetime | None
    superseded_at: datetime | None
    expires_at: datetime | None
    last_retrieved_at: datetime | None
    superseded_by: str | None
    evidence: list[str]
    #: When the event the record is about happens or happened (a wedding's date), if it names one.
    event_at: datetime | None = None
    #: The listing's detail of ``evidence``: the caller's own episodes only (none for a tenant-wide
    #: record), at most five per record (the first and the latest), in the order they happened.
    evidence_detail: list[EvidenceOut] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def stale(self) -> bool:
        """No longer current: superseded, ended, expired or retracted (history, not a present fact)."""
        return self.retracted_at is not None or _stale(self.status, self.valid_to)


def _stale(status: MemoryStatus, valid_to: datetime | None) -> bool:
    return valid_to is not None or status in (MemoryStatus.SUPERSEDED, MemoryStatus.EXPIRED, MemoryStatus.DELETED)


class IngestReceipt(BaseModel):
    """What enqueueing returned: which episodes are new and which were already known."""

    accepted: list[str]
    duplicates: list[str]
    #: Duplicates stored before but not yet processed (a lost message), queued again; left out
    #: of the JSON when there are none.
    resent: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)


def check_keys(v: list[str]) -> list[str]:
    """Memory keys of a deletion: each at most ``MAX_KEY_CHARS`` characters of the key grammar
    (lower-case words joined by dots, e.g. ``user.home_city``)."""
    for i, k in enumerate(v):
        if len(k) > MAX_KEY_CHARS:
            raise ValueError(f"key {i} has {len(k)} characters; a memory key has at most {MAX_KEY_CHARS}")
        if not _KEY.fullmatch(k):
            raise ValueError(f"{k!r} is not a memory key (e.g. user.home_city)")
    return v


class DeletionRequestIn(_Input):
    """Erase a subject (tenant + user), or only some keys (at most 100, each at most 200 characters)
    or records of it."""

    model_config = ConfigDict(extra="forbid")

    tenant_id: str = Field(pattern=_ID)
    user_id: str = Field(pattern=_ID)
    keys: list[str] = Field(default_factory=list, max_length=100)
    memory_ids: list[RecordId] = Field(default_factory=list, max_length=10_000)
    requested_by: str = Field(default="", max_length=200)

    @field_validator("keys")
    @classmethod
    def _keys_are_slots(cls, v: list[str]) -> list[str]:
        return check_keys(v)


class TargetOut(BaseModel):
    state: str
    remaining: int
    attempts: int
    checked_at: datetime | None
    detail: str
    #: Why the target is not CLOSED: what kept it open, or why it FAILED ("" once CLOSED).
    reason: str = ""


class ManifestOut(BaseModel):
    """A deletion request and, per projection, whether its absence is confirmed."""

    request_id: str
    status: str
    tenant_id: str
    user_id: str
    keys: list[str]
    memory_ids: list[str]
    created_at: datetime
    completed_at: datetime | None
    plan: dict[str, int]
    #: Derived artifacts built from several users' data: what happened to each, and why.
    decisions: list[dict[str, str]] = Field(default_factory=list)
    targets: dict[str, TargetOut]


def check_features(v: list[str] | str) -> list[str] | str:
    """Outcome features: a keyword list (at most 64, each at most 100 characters) or non-empty text."""
    if isinstance(v, str) and not v.strip():
        raise ValueError("features must be a keyword list or non-empty text")
    if isinstance(v, list) and (len(v) > 64 or any(len(f) > 100 for f in v)):
        raise ValueError("at most 64 features of at most 100 characters each")
    return v


class OutcomeIn(_Input):
    """One task outcome. ``features`` is a keyword list or free text (normalised either way);
    ``task_text`` describes the task in the agent's words and may stand in for ``features``;
    ``feedback`` is what a person said about the result (a failure's feedback becomes a note).
    ``success`` is a boolean and ``occurred_at`` an ISO 8601 string with an offset (an aware
    ``datetime`` in Python): neither is read from text or a number."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    outcome_id: str = Field(pattern=_ID)
    tenant_id: str = Field(pattern=_ID)
    user_id: str | None = Field(default=None, pattern=_ID)
    task_id: str | None = Field(default=None, pattern=_ID)
    task_type: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,199}$")
    task_text: str | None = Field(default=None, min_length=1, max_length=4000)
    features: list[str] | str = Field(default_factory=list, validate_default=True)
    action_taken: str = Field(min_length=1, max_length=200)
    verified_action: str | None = Field(default=None, min_length=1, max_length=200)
    success: StrictBool
    feedback: str | None = Field(default=None, min_length=1, max_length=2000)
    occurred_at: BoundedTime

    @field_validator("features")
    @classmethod
    def _features(cls, v: list[str] | str, info: ValidationInfo) -> list[str] | str:
        if v == [] and not info.data.get("task_text"):
            raise ValueError("give features (keywords or text) or a task_text")
        return check_features(v)

    @field_validator("task_text", "feedback")
    @classmethod
    def _text(cls, v: str | None) -> str | None:
        if v is not None and "\x00" in v:
            raise ValueError("text must not contain NUL characters")
        return v


class LessonOut(BaseModel):
    lesson_id: str
    task_type: str
    pattern: list[str]
    action: str
    guidance: str
    status: str
    version: int
    origin: str
    report: str
    created_at: datetime
    activated_at: datetime | None
    #: The version of the same pattern this one replaced; a rollback restores it.
    previous_id: str | None = None


class Recommendation(BaseModel):
    action: str | None
    lesson_id: str | None
    guidance: str | None
