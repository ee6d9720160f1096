"""Enumerations shared by tables, schemas and pipelines."""

from enum import StrEnum


class Source(StrEnum):
    """Where a piece of content came from; decides how far it is trusted."""

    USER = "user"
    VERIFIED_TOOL = "verified_tool"
    MODEL_INFERENCE = "model_inference"
    RETRIEVED_DOCUMENT = "retrieved_document"


#: Sources whose content may become trusted memory on its own.
TRUSTED_SOURCES = frozenset({Source.USER, Source.VERIFIED_TOOL})


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    SYSTEM = "system"


class MemoryKind(StrEnum):
    SEMANTIC = "semantic"
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"
    WORKING = "working"


class MemoryStatus(StrEnum):
    ACTIVE = "active"
    PENDING_CONFIRMATION = "pending_confirmation"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"
    QUARANTINED = "quarantined"
    DELETED = "deleted"


class EpisodeState(StrEnum):
    RECEIVED = "received"
    PROCESSED = "processed"
    FAILED = "failed"


class CandidateOp(StrEnum):
    """What an extractor proposes: a claim holds, or a claim is withdrawn."""

    ASSERT = "assert"
    RETRACT = "retract"


class Op(StrEnum):
    """What the store does with an accepted candidate (self-editing memory)."""

    ADD = "add"
    UPDATE = "update"
    NOOP = "noop"
    DELETE = "delete"


class GateOutcome(StrEnum):
    ACCEPTED = "accepted"
    PENDING = "pending_confirmation"
    REJECTED = "rejected"


class Relation(StrEnum):
    """Lineage edge kinds, child → parent."""

    EXTRACTED_FROM = "extracted_from"
    CONSOLIDATED_FROM = "consolidated_from"
    MINED_FROM = "mined_from"
    DERIVED_FROM = "derived_from"
    SUPERSEDES = "supersedes"
    REINFORCED_BY = "reinforced_by"
    REVISES = "revises"
    VALIDATED_ON = "validated_on"


class DeletionStatus(StrEnum):
    """A deletion request: pending (no plan yet) → open (targets being erased) → complete | failed;
    pending → nothing_matched when it named keys or records and its plan erases nothing."""

    PENDING = "pending"
    OPEN = "open"
    COMPLETE = "complete"
    FAILED = "failed"
    NOTHING_MATCHED = "nothing_matched"


class TargetState(StrEnum):
    """One manifest target: OPEN until its projection confirms absence; FAILED after too many
    rounds that found residue (the sweeper reopens it)."""

    OPEN = "OPEN"
    CLOSED = "CLOSED"
    FAILED = "FAILED"


class LessonStatus(StrEnum):
    """A lesson's life: a candidate is promoted (active) or blocked by the gate; an active one is
    rolled back by the guard or an operator, superseded by a newer version of its pattern, or
    deleted with the outcomes it rests on."""

    CANDIDATE = "candidate"
    ACTIVE = "active"
    BLOCKED = "blocked"
    ROLLED_BACK = "rolled_back"
    SUPERSEDED = "superseded"
    DELETED = "deleted"


class LessonDecision(StrEnum):
    """What an erasure does with a lesson built partly from the subject's outcomes."""

    REMOVED = "removed"
    REBUILT = "rebuilt"
    RETAINED = "retained"


class RunStatus(StrEnum):
    """A consolidation run: running until its last user is done."""

    RUNNING = "running"
    DONE = "done"


class JobOutcome(StrEnum):
    """How one actor run ended (the ``job_run`` log)."""

    OK = "ok"
    #: Refused as bad input: not retried.
    REJECTED = "rejected"
    #: Raised; retried while the delivery policy allows.
    FAILED = "failed"
