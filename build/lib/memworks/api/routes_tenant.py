"""Routes over a tenant: outcomes and lessons, profiles, deletions, consolidation."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query
from fastapi.responses import JSONResponse

from memworks.api.auth import (
    Caller,
    Facade,
    check_tenant,
    check_user,
    require_tenant_key,
    scope_for,
)
from memworks.api.bodies import (
    RECORD_ID,
    TASK_TYPE,
    Accepted,
    ConsolidationBody,
    DeletionBody,
    OutcomeBatch,
    RecommendBody,
    StrictJsonRoute,
)
from memworks.api.common import as_json, settle
from memworks.api.errors import ERROR_RESPONSES, ApiError
from memworks.api.routes_memory import TenantQ, UserQ
from memworks.errors import NotFound
from memworks.models.schemas import (
    IngestReceipt,
    LessonOut,
    ManifestOut,
    Recommendation,
)

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES, route_class=StrictJsonRoute)


@router.post("/outcomes", status_code=202, response_model=IngestReceipt, tags=["lessons"])
def post_outcomes(batch: OutcomeBatch, p: Caller, mw: Facade) -> JSONResponse:
    """Store one task outcome or a list (all or nothing) and queue a learning round.

    Outcomes sent with an end-user key are that user's word; with a tenant key, the tenant's.
    A lesson is tenant-wide, so one user's outcomes alone never promote one.
    """
    items: list[dict[str, Any]] = []
    for i, o in enumerate(batch.root):
        tenant = check_tenant(p, o.tenant_id, field=batch.field(i, "tenant_id"))
        user = check_user(p, o.user_id, field=batch.field(i, "user_id"))
        items.append({**o.model_dump(), "tenant_id": tenant, "user_id": user})
    receipt = mw.report_outcomes(items, reporter="tenant" if p.is_tenant_key else "user")
    settle(mw)
    return as_json(receipt, 202)


@router.get("/lessons", response_model=list[LessonOut], tags=["lessons"])
def get_lessons(
    p: Caller, mw: Facade, tenant_id: TenantQ = None, task_type: Annotated[str | None, Query(pattern=TASK_TYPE)] = None
) -> JSONResponse:
    """Every lesson of the tenant (every status) with its gate report, for a tenant key.

    An end-user key sees only the lessons that rest on its user's outcomes alone: mined from
    them, validated on them, and citing no other outcome in their report. Other lessons carry
    patterns and actions from other users' outcomes.
    """
    tenant = check_tenant(p, tenant_id)
    if p.user_id is None:
        return as_json(mw.lessons(tenant, task_type))
    return as_json(mw.user_lessons(tenant, p.user_id, task_type))


@router.post("/recommend", response_model=Recommendation, tags=["lessons"])
def post_recommend(body: RecommendBody, p: Caller, mw: Facade) -> JSONResponse:
    """The action of the most specific active lesson that fires, or none."""
    return as_json(mw.recommend(check_tenant(p, body.tenant_id), body.task_type, body.features))


@router.get("/profile", tags=["memory"])
def get_profile(
    p: Caller,
    mw: Facade,
    tenant_id: TenantQ = None,
    user_id: UserQ = None,
    query: Annotated[str | None, Query(max_length=1000, description="the lines that bear on it, past the cap")] = None,
) -> JSONResponse:
    """The user's injected profile: the block, its token count, and the record each line cites.

    With ``query``, when the lines do not all fit the cap, those that bear on the question are chosen."""
    scope = scope_for(p, tenant_id, user_id)
    if scope.user_id is None:
        raise ApiError(422, "invalid_input", "user_id is required with a tenant key", field="user_id")
    return as_json(mw.profile(scope, query=query) if query is not None else mw.profile(scope))


@router.post("/deletions", status_code=202, response_model=Accepted, tags=["deletion"])
def post_deletion(body: DeletionBody, p: Caller, mw: Facade) -> JSONResponse:
    """Erase a user (or some keys or records of them) from every projection, with a manifest."""
    scope = scope_for(p, body.tenant_id, body.user_id)
    if scope.user_id is None:
        raise ApiError(422, "invalid_input", "user_id is required with a tenant key", field="user_id")
    if not body.keys and not body.memory_ids and body.scope != "user":
        raise ApiError(
            422,
            "invalid_input",
            'erasing the whole user needs "scope": "user"; name keys or memory_ids to erase less',
            field="scope",
        )
    if body.memory_ids:
        # Records of anyone else are "not found", exactly like a record that never existed.
        mine = mw.owned_memory_ids(scope, body.memory_ids)
        if missing := next((m for m in body.memory_ids if m not in mine), None):
            raise NotFound(f"no memory {missing!r}")
    by = f"api-key:{p.key_id}" + (f" ({body.requested_by})" if body.requested_by else "")
    rid = mw.submit_deletion(
        {
            "tenant_id": scope.tenant_id,
            "user_id": scope.user_id,
            "keys": body.keys,
            "memory_ids": body.memory_ids,
            "requested_by": by,
        }
    )
    settle(mw)
    return as_json({"request_id": rid, "status": mw.manifest(rid).status}, 202)


@router.get("/deletions/{request_id}", response_model=ManifestOut, tags=["deletion"])
def get_deletion(request_id: Annotated[str, Path(pattern=RECORD_ID)], p: Caller, mw: Facade) -> JSONResponse:
    """The manifest: status and, per projection, state, residue, attempts and evidence; decisions."""
    m = mw.manifest(request_id)
    if m.tenant_id != p.tenant_id or (p.user_id is not None and m.user_id != p.user_id):
        raise NotFound(f"no deletion request {request_id!r}")
    return as_json(m)


@router.post("/consolidations", status_code=202, tags=["maintenance"])
def post_consolidation(p: Caller, mw: Facade, body: Annotated[ConsolidationBody | None, Body()] = None) -> JSONResponse:
    """Run the tenant's consolidation now (tenant keys only); returns the run record."""
    require_tenant_key(p, "consolidation")
    tenant = check_tenant(p, body.tenant_id if body else None)
    run = mw.consolidate(tenant)
    settle(mw)
    return as_json(run, 202)
