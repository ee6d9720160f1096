"""What the MCP tools return: small, flat shapes a model can read (each becomes an output schema)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class AddResult(BaseModel):
    episode_id: str = Field(description="the stored turn's id; cited as evidence by what is remembered from it")
    source: str = Field(description="'user' when the turn relays the user's own words, else 'model_inference'")
    processed: bool = Field(description="true when the write gate has already judged it (searchable now)")
    note: str


class Hit(BaseModel):
    memory_id: str
    key: str | None = Field(description="the slot the fact fills, e.g. user.home_city (null for free text)")
    value: str
    kind: str = Field(description="semantic (a fact), episodic (an event), procedural (a how-to) or working")
    source: str
    valid_from: datetime = Field(description="event time: when this became true in the world")
    valid_to: datetime | None = Field(description="when it stopped being true (null: still true)")
    recorded_at: datetime
    evidence: list[str] = Field(description="ids of the turns this was learned from")
    score: float
    stale: bool = Field(description="true when the record may be out of date; confirm before relying on it")
    subject_mismatch: bool = Field(description="true when the record may be about someone else than asked")


class ProfileLine(BaseModel):
    memory_id: str
    text: str
    tier: str = Field(description="constraint (allergies, diets, hard limits), preference or fact")


class SearchResult(BaseModel):
    abstained: bool = Field(description="true when nothing remembered answers the query")
    hits: list[Hit]
    note: str
    profile: list[ProfileLine] | None = Field(
        default=None, description="with include_profile: what to keep in mind for this user, constraints first"
    )


class Record(BaseModel):
    memory_id: str
    key: str | None
    value: str
    kind: str
    status: str
    source: str
    trusted: bool
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    superseded_by: str | None
    evidence: list[str]


class ListResult(BaseModel):
    records: list[Record]
    total: int
    truncated: bool


class ForgetResult(BaseModel):
    request_id: str = Field(description="poll it with memory_deletion_status until status is 'complete'")
    status: str


class OutcomeResult(BaseModel):
    outcome_id: str
    accepted: bool = Field(description="false when this outcome id was already reported")
