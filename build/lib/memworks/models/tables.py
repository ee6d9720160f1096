"""SQL tables: the source of truth. Shapes only, no queries."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Column, Index, LargeBinary, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from memworks.models.enums import EpisodeState, GateOutcome, MemoryKind, MemoryStatus, Relation, Role, Source
from memworks.models.types import UTCDateTime, enum_type


def _time(nullable: bool = True, index: bool = False) -> Any:
    return Field(default=None, sa_column=Column(UTCDateTime(), nullable=nullable, index=index))


def _enum(enum: type[StrEnum], default: Any = None) -> Any:
    return Field(default=default, sa_column=Column(enum_type(enum), nullable=False))


class Episode(SQLModel, table=True):
    """What happened, as the agent reported it (the transcript layer)."""

    __tablename__ = "episode"
    __table_args__ = (
        # Ids are the client's idempotency keys, one namespace per user: another user's id is
        # neither revealed (a conflict) nor taken.
        UniqueConstraint("tenant_id", "user_id", "episode_id", name="uq_episode_tenant_user_episode"),
        Index("ix_episode_state_received", "state", "received_at"),
        Index("ix_episode_scope", "tenant_id", "user_id", "occurred_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    episode_id: str = Field(max_length=200)
    tenant_id: str = Field(max_length=200)
    user_id: str = Field(max_length=200)
    session_id: str = Field(max_length=200)
    turn: int
    role: Role = _enum(Role)
    source: Source = _enum(Source)
    content: str = Field(sa_column=Column(Text, nullable=False))
    content_hash: str = Field(max_length=64)
    #: Fingerprint of the text alone: finds a copy of it anywhere, even after the text is purged.
    content_fingerprint: str = Field(default="", max_length=64)
    metadata_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    occurred_at: datetime = _time(nullable=False)
    received_at: datetime = _time(nullable=False)
    state: EpisodeState = _enum(EpisodeState, EpisodeState.RECEIVED)
    processed_at: datetime | None = _time()
    tombstoned_at: datetime | None = _time()


class Memory(SQLModel, table=True):
    """One immutable claim with its clocks of time and belief."""

    __tablename__ = "memory"
    __table_args__ = (
        Index("ix_memory_scope_key", "tenant_id", "user_id", "key", "status"),
        Index("ix_memory_scope_status", "tenant_id", "user_id", "status"),
        Index("ix_memory_expires", "expires_at"),
    )

    memory_id: str = Field(primary_key=True, max_length=32)
    tenant_id: str = Field(max_length=200)
    user_id: str | None = Field(default=None, max_length=200)
    kind: MemoryKind = _enum(MemoryKind)
    key: str | None = Field(default=None, max_length=200)
    value: str = Field(sa_column=Column(Text, nullable=False))
    text: str = Field(sa_column=Column(Text, nullable=False))
    fingerprint: str = Field(max_length=64)
    source: Source = _enum(Source)
    confidence: float
    trusted: bool
    status: MemoryStatus = _enum(MemoryStatus)
    extractor: str = Field(default="rules", max_length=40)
    #: Valid time: when the claim held in the world.
    valid_from: datetime = _time(nullable=False)
    valid_to: datetime | None = _time()
    #: Transaction time: when the store came to believe it, and stopped believing it.
    recorded_at: datetime = _time(nullable=False)
    retracted_at: datetime | None = _time()
    #: Transaction time at which ``valid_to`` was closed by a successor.
    superseded_at: datetime | None = _time()
    superseded_by: str | None = Field(default=None, max_length=32)
    #: When the event the claim is about happens or happened (a wedding's date), if it names one.
    event_at: datetime | None = _time()
    last_retrieved_at: datetime | None = _time()
    last_verified_at: datetime | None = _time()
    expires_at: datetime | None = _time()
    #: Retrieval utility: bumped on retrieval, decayed by consolidation. Never truth.
    attention: float = 0.0
    #: A legal hold or a review: capacity eviction never takes it.
    hold: bool = False
    #: Who said it (a conversation's speaker, else the episode's role) unless the extractor
    #: named whom it is about; None when unknown (records stored before revision 0008).
    subject: str | None = Field(default=None, max_length=200)


class Lineage(SQLModel, table=True):
    """An edge child → parent; deletion and audit walk these."""

    __tablename__ = "lineage"
    __table_args__ = (
        UniqueConstraint("child_id", "parent_type", "parent_id", "relation", name="uq_lineage_edge"),
        Index("ix_lineage_parent", "tenant_id", "parent_type", "parent_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    tenant_id: str = Field(max_length=200)
    child_id: str = Field(max_length=200, index=True)
    parent_type: str = Field(max_length=20)
    parent_id: str = Field(max_length=200)
    relation: Relation = _enum(Relation)
    created_at: datetime = _time(nullable=False)


class GateDecision(SQLModel, table=True):
    """Every candidate the gate saw, accepted or not, with its reason."""

    __tablename__ = "gate_decision"
    __table_args__ = (Index("ix_gate_scope", "tenant_id", "user_id", "decided_at"),)

    decision_id: str = Field(primary_key=True, max_length=32)
    tenant_id: str = Field(max_length=200)
    user_id: str | None = Field(default=None, max_length=200)
    episode_id: str = Field(max_length=200, index=True)
    extractor: str = Field(max_length=40)
    kind: MemoryKind = _enum(MemoryKind)
    key: str | None = Field(default=None, max_length=200)
    candidate_text: str = Field(sa_column=Column(Text, nullable=False))
    source: Source = _enum(Source)
    outcome: GateOutcome = _enum(GateOutcome)
    reason: str = Field(max_length=400)
    op: str | None = Field(default=None, max_length=20)
    memory_id: str | None = Field(default=None, max_length=32)
    decided_at: datetime = _time(nullable=False)


class JobRun(SQLModel, table=True):
    """One row per actor run: what ran, on what, with what result."""

    __tablename__ = "job_run"

    id: int | None = Field(default=None, primary_key=True)
    actor: str = Field(max_length=100, index=True)
    message_id: str = Field(default="", max_length=64)
    tenant_id: str | None = Field(default=None, max_length=200)
    scope: str = Field(default="", max_length=400)
    counts_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    outcome: str = Field(max_length=20)
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    duration_ms: float = 0.0
    started_at: datetime = _time(nullable=False)


class RejectedInput(SQLModel, table=True):
    """A bad payload with the reason it was refused (dead letters expire; this does not)."""

    __tablename__ = "rejected_input"

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=40)
    tenant_id: str | None = Field(default=None, max_length=200)
    reference: str = Field(default="", max_length=400)
    payload: str = Field(sa_column=Column(Text, nullable=False))
    reason: str = Field(sa_column=Column(Text, nullable=False))
    field: str | None = Field(default=None, max_length=200)
    received_at: datetime = _time(nullable=False)


class VectorEntry(SQLModel, table=True):
    """The vector projection: one embedding per indexed memory, partitioned by scope."""

    __tablename__ = "vector_entry"
    __table_args__ = (Index("ix_vector_scope", "tenant_id", "user_id"),)

    memory_id: str = Field(primary_key=True, max_length=32)
    tenant_id: str = Field(max_length=200)
    user_id: str | None = Field(default=None, max_length=200)
    model: str = Field(max_length=80)
    vector: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    #: One vector per sentence of a long text (float32, concatenated); None for short texts.
    spans: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    fingerprint: str = Field(default="", max_length=64, index=True)


class LexicalDoc(SQLModel, table=True):
    """The lexical projection's documents: one per indexed memory, with its length in terms."""

    __tablename__ = "lexical_doc"
    __table_args__ = (Index("ix_lexical_doc_scope", "tenant_id", "user_id"),)

    memory_id: str = Field(primary_key=True, max_length=32)
    tenant_id: str = Field(max_length=200)
    #: "" stands for tenant-wide records, so the scope can lead the posting key.
    user_id: str = Field(max_length=200)
    length: int
    fingerprint: str = Field(max_length=64, index=True)


class LexicalPosting(SQLModel, table=True):
    """One (scope, term, memory) posting: the scope leads the key, so a search reads its scope only."""

    __tablename__ = "lexical_posting"
    __table_args__ = (Index("ix_lexical_posting_memory", "memory_id"),)

    tenant_id: str = Field(primary_key=True, max_length=200)
    user_id: str = Field(primary_key=True, max_length=200)
    term: str = Field(primary_key=True, max_length=64)
    memory_id: str = Field(primary_key=True, max_length=32)
    tf: int


class ScopeVersion(SQLModel, table=True):
    """Bumped whenever a scope's indexes change; read-cache keys carry it."""

    __tablename__ = "scope_version"

    tenant_id: str = Field(primary_key=True, max_length=200)
    #: "" stands for tenant-wide records.
    user_id: str = Field(primary_key=True, max_length=200)
    version: int = 0


class DeletionRequest(SQLModel, table=True):
    """A request to erase a subject (or a topic of it); its plan is saved before anything goes."""

    __tablename__ = "deletion_request"
    __table_args__ = (Index("ix_deletion_scope", "tenant_id", "user_id"),)

    request_id: str = Field(primary_key=True, max_length=32)
    tenant_id: str = Field(max_length=200)
    user_id: str = Field(max_length=200)
    keys_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    memory_ids_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    #: pending (no plan yet) → open (targets being erased) → complete | failed.
    status: str = Field(default="pending", max_length=20, index=True)
    #: The plan: ids and content fingerprints only, never the content itself.
    plan_json: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    requested_by: str = Field(default="", max_length=200)
    created_at: datetime = _time(nullable=False)
    planned_at: datetime | None = _time()
    completed_at: datetime | None = _time()
    #: When the files were rewritten after it completed (:mod:`memworks.store.deletion.erasure.disk`).
    rewritten_at: datetime | None = _time()


class ManifestTarget(SQLModel, table=True):
    """One projection of one deletion request: OPEN until that projection confirms absence."""

    __tablename__ = "manifest_target"

    request_id: str = Field(primary_key=True, max_length=32)
    target: str = Field(primary_key=True, max_length=40)
    state: str = Field(default="OPEN", max_length=10)
    remaining: int = -1
    attempts: int = 0
    purged: int = 0
    checked_at: datetime | None = _time()
    #: What was checked, how, and the outcome (or the error that kept it open).
    detail: str = Field(default="", sa_column=Column(Text, nullable=False))


class Outcome(SQLModel, table=True):
    """A task outcome an agent reported: what it did, whether it worked, what was right."""

    __tablename__ = "outcome"
    __table_args__ = (
        UniqueConstraint("tenant_id", "outcome_id", name="uq_outcome_tenant_outcome"),
        Index("ix_outcome_task_type", "tenant_id", "task_type", "occurred_at"),
        Index("ix_outcome_user", "tenant_id", "user_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    outcome_id: str = Field(max_length=200)
    tenant_id: str = Field(max_length=200)
    user_id: str | None = Field(default=None, max_length=200)
    task_id: str | None = Field(default=None, max_length=200)
    task_type: str = Field(max_length=200)
    #: Normalised features, a JSON list.
    features_json: str = Field(sa_column=Column(Text, nullable=False))
    #: The features as given (keywords or free text), kept for audit; erased with the subject.
    features_raw: str = Field(sa_column=Column(Text, nullable=False))
    action_taken: str = Field(max_length=200)
    verified_action: str | None = Field(default=None, max_length=200)
    success: bool
    content_hash: str = Field(max_length=64)
    occurred_at: datetime = _time(nullable=False)
    received_at: datetime = _time(nullable=False)
    tombstoned_at: datetime | None = _time()
    #: Who vouched for it, set from the caller's credentials, never from the body: ``tenant``
    #: (a tenant key, the operator) or ``user`` (an end-user key).
    reporter: str = Field(default="user", max_length=20)
    #: The task as the agent described it, and what a person said about the result; erased
    #: with the subject like the features.
    task_text: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    feedback: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class Lesson(SQLModel, table=True):
    """A procedure learned from outcomes. Immutable: a change is a new version or a new status."""

    __tablename__ = "lesson"
    __table_args__ = (Index("ix_lesson_task", "tenant_id", "task_type", "status"),)

    lesson_id: str = Field(primary_key=True, max_length=32)
    tenant_id: str = Field(max_length=200)
    task_type: str = Field(max_length=200)
    pattern_json: str = Field(sa_column=Column(Text, nullable=False))
    action: str = Field(max_length=200)
    guidance: str = Field(sa_column=Column(Text, nullable=False))
    version: int = 1
    #: candidate → active | blocked; active → rolled_back | superseded | deleted; superseded →
    #: active again when the version that replaced it is rolled back.
    status: str = Field(default="candidate", max_length=20)
    #: The active lesson of the same pattern this one replaced when it was promoted.
    previous_id: str | None = Field(default=None, max_length=32)
    #: mined | proposed (by an operator).
    origin: str = Field(default="mined", max_length=20)
    report: str = Field(default="", sa_column=Column(Text, nullable=False))
    created_at: datetime = _time(nullable=False)
    decided_at: datetime | None = _time()
    activated_at: datetime | None = _time()
    retired_at: datetime | None = _time()


class Profile(SQLModel, table=True):
    """The injected profile: a small always-loaded block per user, each line citing its record."""

    __tablename__ = "profile"

    tenant_id: str = Field(primary_key=True, max_length=200)
    user_id: str = Field(primary_key=True, max_length=200)
    text: str = Field(sa_column=Column(Text, nullable=False))
    #: [{"memory_id", "text"}], the records each line cites.
    lines_json: str = Field(sa_column=Column(Text, nullable=False))
    tokens: int
    built_at: datetime = _time(nullable=False)


class Eviction(SQLModel, table=True):
    """Every record eviction took (TTL expiry or capacity), and why."""

    __tablename__ = "eviction"
    __table_args__ = (Index("ix_eviction_scope", "tenant_id", "user_id"),)

    id: int | None = Field(default=None, primary_key=True)
    memory_id: str = Field(max_length=32, index=True)
    tenant_id: str = Field(max_length=200)
    user_id: str | None = Field(default=None, max_length=200)
    reason: str = Field(max_length=200)
    at: datetime = _time(nullable=False)


class AttentionBatch(SQLModel, table=True):
    """A batch of retrievals whose attention was recorded: a redelivered batch counts once."""

    __tablename__ = "attention_batch"

    batch_id: str = Field(primary_key=True, max_length=32)
    applied_at: datetime = _time(nullable=False, index=True)


class ConsolidationRun(SQLModel, table=True):
    """One consolidation of one tenant: counts per step and duration."""

    __tablename__ = "consolidation_run"

    id: int | None = Field(default=None, primary_key=True)
    tenant_id: str = Field(max_length=200, index=True)
    message_id: str = Field(default="", max_length=64)
    status: str = Field(default="running", max_length=20)
    counts_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    duration_ms: float = 0.0
    started_at: datetime = _time(nullable=False)
    finished_at: datetime | None = _time()


class ApiKey(SQLModel, table=True):
    """An HTTP API key: bound to a tenant, and optionally to one user (an end-user key)."""

    __tablename__ = "api_key"

    key_id: str = Field(primary_key=True, max_length=32)
    tenant_id: str = Field(max_length=200, index=True)
    user_id: str | None = Field(default=None, max_length=200)
    #: sha256 of the secret; the secret itself is shown once, at creation, and never stored.
    secret_hash: str = Field(max_length=64, unique=True)
    label: str = Field(default="", max_length=200)
    created_at: datetime = _time(nullable=False)
    revoked_at: datetime | None = _time()
