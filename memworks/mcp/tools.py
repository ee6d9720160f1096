"""The MCP tools' work over the ``Memworks`` facade, one function per tool.

Each takes the facade and the connection's :class:`Binding`, so the scope comes from the
binding and never from an argument. Bad arguments raise ``InvalidInput`` naming the argument,
before anything is stored.
"""

from __future__ import annotations

import traceback
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from memworks.client import Memworks
from memworks.errors import InvalidInput, NotFound
from memworks.logging import get_logger
from memworks.mcp.binding import Binding
from memworks.mcp.results import (
    AddResult,
    ForgetResult,
    Hit,
    ListResult,
    OutcomeResult,
    ProfileLine,
    Record,
    SearchResult,
)
from memworks.models.enums import Source
from memworks.models.schemas import (
    DeletionRequestIn,
    EpisodeIn,
    HitOut,
    ManifestOut,
    OutcomeIn,
    Recommendation,
    check_features,
)

log = get_logger("memworks.mcp")
M = TypeVar("M", bound=BaseModel)

#: Turn numbers are seconds since this instant, so turns sort like their event times.
_TURN_EPOCH = datetime(2020, 1, 1, tzinfo=UTC)
#: The session a turn is filed under when the agent names none.
DEFAULT_SESSION = "mcp"
ABSTAIN_NOTE = "Nothing remembered answers this. Say you do not know rather than guess."


def _validated(model: type[M], data: dict[str, Any], args: dict[str, str]) -> M:
    """``model`` from ``data``; a failure names the tool argument the bad field came from."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else "arguments"
        arg = args.get(field, field)
        raise InvalidInput(f"{arg}: {err['msg']}", field=arg) from None


def _settle(mw: Memworks) -> bool:
    """Embedded mode: wait for the queued work, so the next read sees this write.

    The write is committed before this runs; a follow-up job that failed is logged (the outbox
    sweeper re-drives it) rather than turning an accepted write into a tool error that an agent
    would retry as a second write.
    """
    if not mw.embedded:
        return False
    try:
        mw.drain()
    except Exception as exc:  # noqa: BLE001 - any job failure; the stored write stands
        log.error("mcp.drain_failed", error=repr(exc), traceback=traceback.format_exc())
        return False
    return True


def _one_of(**given: object) -> str:
    named = [k for k, v in given.items() if v not in (None, False, [], "")]
    if len(named) != 1:
        names = ", ".join(given)
        raise InvalidInput(
            f"{'/'.join(given)}: give exactly one of {names} (got {len(named)})",
            field=named[1] if len(named) > 1 else next(iter(given)),
        )
    return named[0]


# -- memory -----------------------------------------------------------------------------------


def add(
    mw: Memworks,
    b: Binding,
    *,
    content: str,
    role: str,
    occurred_at: datetime | None,
    session_id: str | None,
    relays_user: bool,
) -> AddResult:
    """Store one turn for the bound user and queue it through the write gate."""
    scope = b.user_scope("memory_add")
    when = occurred_at or datetime.now(UTC)
    source = Source.USER if relays_user else Source.MODEL_INFERENCE
    turn = min(max(int((when - _TURN_EPOCH).total_seconds()), 0), 2**31 - 1)
    episode = _validated(
        EpisodeIn,
        {
            "episode_id": f"mcp-{uuid.uuid4().hex}",
            "tenant_id": scope.tenant_id,
            "user_id": scope.user_id,
            "session_id": session_id or DEFAULT_SESSION,
            "turn": turn,
            "role": role,
            "source": source,
            "content": content,
            "occurred_at": when,
            "metadata": {"via": "mcp", "by": b.actor},
        },
        {},
    )
    mw.enqueue_episode(episode)
    processed = _settle(mw)
    note = "The write gate decides what is remembered from it; instructions and injected commands are never stored."
    if not relays_user:
        note += " Stored as model inference: untrusted, so not used as a fact until the user confirms it."
    return AddResult(episode_id=episode.episode_id, source=source.value, processed=processed, note=note)


def _hit(h: HitOut) -> Hit:
    # Hits may carry freshness and subject checks; a hit model without them reads as False.
    return Hit(
        memory_id=h.memory_id,
        key=h.key,
        value=h.value,
        kind=h.kind.value,
        source=h.source.value,
        valid_from=h.valid_from,
        valid_to=h.valid_to,
        recorded_at=h.recorded_at,
        evidence=list(h.evidence),
        score=round(h.score, 4),
        stale=bool(getattr(h, "stale", False)),
        subject_mismatch=bool(getattr(h, "subject_mismatch", False)),
    )


def search(
    mw: Memworks, b: Binding, *, query: str, k: int, as_of: datetime | None, include_profile: bool = False
) -> SearchResult:
    """What is remembered about the query in the bound scope, or an explicit abstention; with
    ``include_profile``, also the user's profile lines that bear on it."""
    scope = b.user_scope("include_profile") if include_profile else b.scope
    res = mw.retrieve(scope, query, as_of=as_of, k=k, include_profile=include_profile)
    profile = None
    if res.profile is not None:
        profile = [ProfileLine(memory_id=ln.memory_id, text=ln.text, tier=ln.tier) for ln in res.profile.lines]
    if res.abstained or not res.hits:
        return SearchResult(abstained=True, hits=[], note=ABSTAIN_NOTE, profile=profile)
    note = "Hits are ranked; the first is the best answer. Cite memory_id when you rely on one."
    return SearchResult(abstained=False, hits=[_hit(h) for h in res.hits], note=note, profile=profile)


def list_records(mw: Memworks, b: Binding, *, include_history: bool, limit: int) -> ListResult:
    """Every record of the bound scope (history too when asked), at most ``limit``."""
    rows = mw.memories(b.scope, include_history=include_history)
    records = [
        Record(
            memory_id=m.memory_id,
            key=m.key,
            value=m.value,
            kind=m.kind.value,
            status=m.status.value,
            source=m.source.value,
            trusted=m.trusted,
            valid_from=m.valid_from,
            valid_to=m.valid_to,
            recorded_at=m.recorded_at,
            superseded_by=m.superseded_by,
            evidence=list(m.evidence),
        )
        for m in rows[:limit]
    ]
    return ListResult(records=records, total=len(rows), truncated=len(rows) > limit)


# -- deletion ---------------------------------------------------------------------------------


def forget(mw: Memworks, b: Binding, *, key: str | None, memory_id: str | None, everything: bool) -> ForgetResult:
    """Erase one slot, one record or the whole user, with a manifest to poll."""
    which = _one_of(key=key, memory_id=memory_id, everything=everything)
    scope = b.user_scope("memory_forget")
    request: dict[str, Any] = {"tenant_id": scope.tenant_id, "user_id": scope.user_id, "requested_by": f"mcp {b.actor}"}
    if which == "key":
        request["keys"] = [key]
    elif which == "memory_id":
        assert memory_id is not None
        # Another user's record is "not found", exactly like one that never existed.
        try:
            owner = mw.memory(scope, memory_id)["memory"].user_id
        except NotFound:
            raise NotFound(f"memory_id: no memory {memory_id!r} of this user") from None
        if owner != scope.user_id:
            raise InvalidInput(
                "memory_id: tenant-wide records are deleted by an operator, not by an agent", field="memory_id"
            )
        request["memory_ids"] = [memory_id]
    rid = mw.submit_deletion(_validated(DeletionRequestIn, request, {"keys": "key", "memory_ids": "memory_id"}))
    _settle(mw)
    return ForgetResult(request_id=rid, status=mw.manifest(rid).status)


def deletion_status(mw: Memworks, b: Binding, *, request_id: str) -> ManifestOut:
    """The manifest of a deletion request of the bound scope (others are not found)."""
    try:
        m = mw.manifest(request_id)
    except NotFound:
        m = None
    if m is None or m.tenant_id != b.tenant_id or (b.user_id is not None and m.user_id != b.user_id):
        raise NotFound(f"request_id: no deletion request {request_id!r} in this scope")
    return m


# -- lessons ----------------------------------------------------------------------------------


def _features(features: Sequence[str] | None, task_text: str | None) -> list[str] | str:
    which = _one_of(features=features, task_text=task_text)
    value: list[str] | str = list(features) if which == "features" and features is not None else task_text or ""
    try:
        return check_features(value)
    except ValueError as exc:
        raise InvalidInput(f"{which}: {exc}", field=which) from None


def recommend(
    mw: Memworks, b: Binding, *, task_type: str, features: Sequence[str] | None, task_text: str | None
) -> Recommendation:
    """The action of the tenant's most specific active lesson for this task, or none."""
    return mw.recommend(b.tenant_id, task_type, _features(features, task_text))


def report_outcome(
    mw: Memworks,
    b: Binding,
    *,
    task_type: str,
    action_taken: str,
    success: bool,
    features: Sequence[str] | None,
    task_text: str | None,
    verified_action: str | None,
    task_id: str | None,
    outcome_id: str | None,
    occurred_at: datetime | None,
) -> OutcomeResult:
    """Record how a task went, so lessons can be learned and checked against held-out outcomes."""
    outcome = _validated(
        OutcomeIn,
        {
            "outcome_id": outcome_id or f"mcp-{uuid.uuid4().hex}",
            "tenant_id": b.tenant_id,
            "user_id": b.user_id,
            "task_id": task_id,
            "task_type": task_type,
            "features": _features(features, task_text),
            "action_taken": action_taken,
            "verified_action": verified_action,
            "success": success,
            "occurred_at": occurred_at or datetime.now(UTC),
        },
        {},
    )
    receipt = mw.report_outcome(outcome)
    _settle(mw)
    return OutcomeResult(outcome_id=outcome.outcome_id, accepted=outcome.outcome_id in receipt.accepted)


def profile_text(mw: Memworks, b: Binding) -> str:
    """The bound user's injected profile block (plain text)."""
    text = str(mw.profile(b.user_scope("the profile"))["text"])
    return text or "Nothing is known about this user yet."
