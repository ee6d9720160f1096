"""Routes over a user's memory: episodes in, retrieval, listing, and a person's record controls."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query
from fastapi.responses import JSONResponse

from memworks.api.auth import (
    Caller,
    Facade,
    Principal,
    check_tenant,
    check_user,
    scope_for,
)
from memworks.api.bodies import (
    ID,
    RECORD_ID,
    SCOPE_HELP,
    Accepted,
    CorrectionBody,
    EpisodeBatch,
    ReadScope,
    RetrieveBody,
    ScopedBody,
    StrictJsonRoute,
)
from memworks.api.common import as_json, settle
from memworks.api.errors import ERROR_RESPONSES, ApiError
from memworks.client import Memworks
from memworks.models.schemas import IngestReceipt, MemoryOut, RetrieveResult, Scope

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES, route_class=StrictJsonRoute)

TenantQ = Annotated[str | None, Query(pattern=ID, description="omit it, or give the key's tenant")]
UserQ = Annotated[str | None, Query(pattern=ID, description="a tenant key names the user; an end-user key may omit it")]
MemoryId = Annotated[str, Path(pattern=RECORD_ID, description="a memory_id")]
ScopeQ = Annotated[ReadScope, Query(description=SCOPE_HELP)]
#: The next page of ``GET /v1/memories``, when there is one.
NEXT_CURSOR = "X-Next-Cursor"


@router.post("/episodes", status_code=202, response_model=IngestReceipt, tags=["memory"])
def post_episodes(batch: EpisodeBatch, p: Caller, mw: Facade) -> JSONResponse:
    """Store one episode or a list (all or nothing) and queue their extraction."""
    items: list[dict[str, Any]] = []
    for i, e in enumerate(batch.root):
        tenant = check_tenant(p, e.tenant_id, field=batch.field(i, "tenant_id"))
        user = check_user(p, e.user_id, field=batch.field(i, "user_id"))
        if user is None:
            raise ApiError(
                422, "invalid_input", "user_id is required with a tenant key", field=batch.field(i, "user_id")
            )
        items.append({**e.model_dump(), "tenant_id": tenant, "user_id": user})
    receipt = mw.enqueue_episodes(items)
    settle(mw)
    return as_json(receipt, 202)


@router.post("/retrieve", response_model=RetrieveResult, tags=["memory"])
def post_retrieve(body: RetrieveBody, p: Caller, mw: Facade) -> JSONResponse:
    """Memories relevant to the query in the user's scope (or tenant-wide), or an abstention."""
    scope = read_scope(p, body.tenant_id, body.user_id, body.scope)
    return as_json(
        mw.retrieve(
            scope,
            body.query,
            as_of=body.as_of,
            known_at=body.known_at,
            k=body.k,
            asked_at=body.asked_at,
            include_profile=body.include_profile,
        )
    )


@router.get(
    "/memories",
    response_model=list[MemoryOut],
    tags=["memory"],
    responses={
        200: {
            "headers": {
                NEXT_CURSOR: {"description": "pass as `cursor` for the next page", "schema": {"type": "string"}}
            }
        }
    },
)
def get_memories(
    p: Caller,
    mw: Facade,
    tenant_id: TenantQ = None,
    user_id: UserQ = None,
    scope: ScopeQ = "user",
    include_history: bool = False,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    cursor: Annotated[str | None, Query(max_length=2000, description="from the previous page's X-Next-Cursor")] = None,
) -> JSONResponse:
    """Everything remembered in the scope, with every clock and its evidence; paginated.

    Each record's ``evidence_detail`` gives its evidence episodes' time and a short snippet of
    their words: the caller's own episodes only, never an erased episode's words.
    """
    rows = mw.memories(read_scope(p, tenant_id, user_id, scope), include_history=include_history)
    page, nxt = paginate(rows, cursor, limit)
    return as_json(page, headers={NEXT_CURSOR: nxt} if nxt else None)


@router.get("/memories/{memory_id}", tags=["controls"])
def get_memory(
    memory_id: MemoryId, p: Caller, mw: Facade, tenant_id: TenantQ = None, user_id: UserQ = None
) -> JSONResponse:
    """One record with its provenance: evidence episodes, lineage, gate decisions."""
    return as_json(mw.memory(scope_for(p, tenant_id, user_id), memory_id))


@router.patch("/memories/{memory_id}", response_model=MemoryOut, tags=["controls"])
def patch_memory(memory_id: MemoryId, body: CorrectionBody, p: Caller, mw: Facade) -> JSONResponse:
    """Correct a record's value: the correction supersedes it (history kept)."""
    scope = _owner(mw, p, scope_for(p, body.tenant_id, body.user_id), memory_id)
    out = mw.correct_memory(scope, memory_id, body.value)
    settle(mw)
    return as_json(out)


@router.post("/memories/{memory_id}/confirm", response_model=MemoryOut, tags=["controls"])
def confirm_memory(
    memory_id: MemoryId, p: Caller, mw: Facade, body: Annotated[ScopedBody | None, Body()] = None
) -> JSONResponse:
    """Confirm a pending outward-action preference: it becomes active and usable."""
    body = body or ScopedBody()
    scope = _owner(mw, p, scope_for(p, body.tenant_id, body.user_id), memory_id)
    return as_json(mw.confirm_memory(scope, memory_id))


@router.delete("/memories/{memory_id}", status_code=202, response_model=Accepted, tags=["controls"])
def delete_memory(
    memory_id: MemoryId, p: Caller, mw: Facade, tenant_id: TenantQ = None, user_id: UserQ = None
) -> JSONResponse:
    """Erase one record and its history from every projection, with a manifest to poll."""
    rid = mw.delete_memory(scope_for(p, tenant_id, user_id), memory_id)
    settle(mw)
    return as_json({"request_id": rid, "status": mw.manifest(rid).status}, 202)


def read_scope(p: Principal, tenant_id: str | None, user_id: str | None, scope: ReadScope) -> Scope:
    """The scope of a read: a user's, or the tenant's shared records when ``scope`` is ``tenant``.

    A tenant key that names no user is refused (422 on ``user_id``) unless it asks for the
    shared records by name: a forgotten ``user_id`` would otherwise answer from the shared
    records alone, and "nothing known" about the user looks like lost memory.
    """
    if scope == "tenant":
        if user_id is not None:
            raise ApiError(
                422,
                "invalid_input",
                "scope 'tenant' reads the tenant's shared records only; omit user_id",
                field="user_id",
            )
        # Shared records are visible to every key of the tenant, an end-user key's included.
        return Scope(tenant_id=check_tenant(p, tenant_id), user_id=None)
    out = scope_for(p, tenant_id, user_id)
    if out.user_id is None:
        raise ApiError(
            422,
            "invalid_input",
            "user_id is required with a tenant key: name whose memory to read, "
            "or send scope=tenant to read only the tenant's shared records",
            field="user_id",
        )
    return out


def _owner(mw: Memworks, p: Principal, scope: Scope, memory_id: str) -> Scope:
    """The scope of the record's own user (404 when the caller may not see it).

    Changes run in the owner's scope, so its lock and its profile are the ones touched, even
    when a tenant key names no user. An end-user key may read tenant-wide records, never change them.
    """
    owner = mw.memory(scope, memory_id)["memory"].user_id
    if owner is None and not p.is_tenant_key:
        raise ApiError(
            403, "forbidden_user_key", "tenant-wide records are changed with a tenant key", field="memory_id"
        )
    return Scope(tenant_id=scope.tenant_id, user_id=owner)


# -- pagination ----------------------------------------------------------------------------


def _sort_key(m: MemoryOut) -> tuple[bool, str, str, str, str]:
    """The listing's order (key, nulls first; valid_from; recorded_at; id) as comparable values."""
    return (m.key is not None, m.key or "", m.valid_from.isoformat(), m.recorded_at.isoformat(), m.memory_id)


def encode_cursor(m: MemoryOut) -> str:
    raw = json.dumps({"id": m.memory_id, "after": list(_sort_key(m))}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[str, tuple[bool, str, str, str, str]]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        # A cursor this API gave out nests two deep; a crafted one must not recurse the parser
        # (a generous bound: brackets inside a key's text count too).
        if raw.count(b"[") + raw.count(b"{") > 32:
            raise ValueError("too deep")
        data = json.loads(raw)
        after = data["after"]
        if not isinstance(data["id"], str) or not isinstance(after, list) or len(after) != 5:
            raise ValueError("bad shape")
        return data["id"], (bool(after[0]), str(after[1]), str(after[2]), str(after[3]), str(after[4]))
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError, RecursionError):
        raise ApiError(422, "invalid_input", "cursor is not one this API gave out", field="cursor") from None


def paginate(rows: list[MemoryOut], cursor: str | None, limit: int) -> tuple[list[MemoryOut], str | None]:
    """One page of an already scoped listing, and the cursor of the next one.

    The cursor only positions within ``rows``, which hold the caller's scope alone, so a cursor
    made elsewhere (another tenant's) can only yield the caller's own records. When the record a
    cursor names has since left the listing (superseded, deleted), the page resumes after its
    place in the order.
    """
    start = 0
    if cursor:
        last_id, after = _decode_cursor(cursor)
        ids = [r.memory_id for r in rows]
        if last_id in ids:
            start = ids.index(last_id) + 1
        else:
            start = next((i for i, r in enumerate(rows) if _sort_key(r) > after), len(rows))
    page = rows[start : start + limit]
    more = start + limit < len(rows)
    return page, encode_cursor(page[-1]) if more and page else None
