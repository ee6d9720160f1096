"""Plain shapes that pipelines take and return (no tables, no I/O)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from memworks.models.enums import CandidateOp, MemoryKind, MemoryStatus, Role, Source


class Turn(BaseModel):
    """One episode as an extractor sees it: no scope, no identity (those come from the caller)."""

    model_config = ConfigDict(frozen=True)

    episode_id: str
    role: Role
    source: Source
    content: str
    occurred_at: datetime
    #: The person who spoke, in a conversation of several named people ("Caroline"); None
    #: means the scope's own user. First-person statements are attributed to this person.
    speaker: str | None = None


class ForgetRequest(BaseModel):
    """A user's request to erase a topic, not to end a fact ("forget about the cello").

    Ending a fact ("I sold my car") closes its valid time and keeps history; a forget request
    asks for erasure. The ingest layer matches ``terms`` against the user's stored slots
    (:func:`memworks.pipelines.ingest.slots.match_forget_topic`): a match becomes a topic deletion
    with a manifest, no match a pending request the user can see.
    """

    model_config = ConfigDict(frozen=True)

    #: The topic as the user named it, pronouns made third person ("their sister's wedding").
    topic: str
    #: Lower-case lemmas of the topic's content words ("sister", "wedding").
    terms: tuple[str, ...] = ()
    #: It points at what the speaker has just said ("what I just said about my pay").
    recent: bool = False
    #: When the speaker says they told it, as they said it ("last week", "a couple of weeks
    #: back"); empty when they did not say.
    told: str = ""


class Candidate(BaseModel):
    """A proposed memory write, before the gate.

    ``key`` names a slot from the key vocabulary (``user.home_city``); a retraction names the
    slot(s) to withdraw and leaves ``value`` empty. ``text`` is the self-contained statement
    that is indexed and returned ("User lives in Lisbon.").
    """

    model_config = ConfigDict(frozen=True)

    op: CandidateOp = CandidateOp.ASSERT
    kind: MemoryKind = MemoryKind.SEMANTIC
    key: str | None = None
    value: str = ""
    text: str = ""
    confidence: float = 0.9
    #: Event time the claim starts to hold; None means the episode's ``occurred_at``.
    valid_from: datetime | None = None
    #: Episode ids this claim rests on (provenance). Empty means no provenance.
    evidence: tuple[str, ...] = ()
    source: Source = Source.USER
    #: A stated intention ("I'm transferring next week"): an event, not a current fact.
    plan: bool = False
    #: The preference makes the agent act outward (send, share, pay, forward).
    outward_action: bool = False
    #: Derived from another slot of the same episode (time zone from city).
    derived_from_key: str | None = None
    #: Extractor name, for the audit trail.
    extractor: str = "rules"
    extra: dict[str, str] = Field(default_factory=dict)
    #: When the event the statement is about happens or happened (a wedding's new date, the
    #: day of a race), read from a time expression; None when the statement names no time.
    event_at: datetime | None = None
    #: Set on a retraction that asks for erasure ("forget ..."), not for an ending.
    forget: ForgetRequest | None = None
    #: A retraction whose ``key`` names a family of slots ("user.instrument" for "I gave up
    #: the cello"): every slot under it holding ``extra["retracted_value"]`` ends.
    key_is_prefix: bool = False


class MemoryView(BaseModel):
    """A stored memory as pipelines see it (a plain copy of the row, no session attached)."""

    model_config = ConfigDict(frozen=True)

    memory_id: str
    kind: MemoryKind
    key: str | None
    value: str
    text: str
    source: Source
    confidence: float
    trusted: bool
    status: MemoryStatus
    extractor: str = "rules"
    valid_from: datetime
    valid_to: datetime | None = None
    recorded_at: datetime
    retracted_at: datetime | None = None
    superseded_at: datetime | None = None
    superseded_by: str | None = None
    #: When the event the claim is about happens or happened (``Candidate.event_at``).
    event_at: datetime | None = None
    expires_at: datetime | None = None
    last_retrieved_at: datetime | None = None
    last_verified_at: datetime | None = None
    #: Retrieval utility: bumped when retrieved, decayed by consolidation; never touches truth.
    attention: float = 0.0
    #: Kept whatever capacity says (a legal hold, or a record under review).
    hold: bool = False
    evidence: tuple[str, ...] = ()
    #: Memory ids this record was derived from (lineage ``derived_from``).
    derived_from: tuple[str, ...] = ()


class OutcomeView(BaseModel):
    """A recorded task outcome as pipelines see it."""

    model_config = ConfigDict(frozen=True)

    outcome_id: str
    user_id: str | None = None
    task_id: str | None = None
    task_type: str
    #: Normalised features (see ``pipelines.lessons.features``), sorted.
    features: tuple[str, ...]
    action_taken: str
    verified_action: str | None = None
    success: bool
    occurred_at: datetime
    #: Who vouched for it: ``tenant`` (a tenant key or the operator) or ``user`` (an end user's
    #: word only). Lessons are tenant-wide, so a user's word alone never promotes one.
    reporter: str = "tenant"
    #: When the store received it (server time, comparable with a lesson's ``activated_at``).
    received_at: datetime | None = None

    @property
    def case(self) -> str:
        """The case this outcome is an attempt at: repeated attempts share it."""
        return self.task_id or self.outcome_id

    @property
    def correct_action(self) -> str | None:
        """The action known to be right for this case, if any."""
        if self.verified_action:
            return self.verified_action
        return self.action_taken if self.success else None


class LessonView(BaseModel):
    """A stored lesson (immutable; a change is a new version)."""

    model_config = ConfigDict(frozen=True)

    lesson_id: str
    task_type: str
    pattern: tuple[str, ...]
    action: str
    guidance: str
    version: int = 1
    status: str = "candidate"
    #: Outcome ids the lesson was mined from (its own evidence, never held-out evidence).
    mined_from: tuple[str, ...] = ()
    activated_at: datetime | None = None
