"""Who is calling: the key decides the tenant (and, for an end-user key, the user)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import ValidationError

from memworks.api.errors import ApiError
from memworks.client import Memworks
from memworks.models.schemas import Scope

_bearer = HTTPBearer(auto_error=False, description="An API key: `memworks keys create --tenant T`")


@dataclass(frozen=True)
class Principal:
    """An authenticated key: its tenant, and its user when it is an end-user key."""

    key_id: str
    tenant_id: str
    user_id: str | None

    @property
    def is_tenant_key(self) -> bool:
        return self.user_id is None


def get_mw(request: Request) -> Memworks:
    mw = request.app.state.mw
    assert isinstance(mw, Memworks), "the app's facade is built at startup"
    return mw


Facade = Annotated[Memworks, Depends(get_mw)]


def _unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message, field="Authorization", headers={"WWW-Authenticate": "Bearer"})


def get_principal(mw: Facade, creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> Principal:
    """The caller's key, from ``Authorization: Bearer <key>``; 401 when missing, unknown or revoked."""
    if creds is None:
        raise _unauthorized("send an API key as 'Authorization: Bearer <key>'")
    row = mw.authenticate(creds.credentials)
    if row is None:
        raise _unauthorized("the API key is unknown or revoked")
    return Principal(key_id=row.key_id, tenant_id=row.tenant_id, user_id=row.user_id)


Caller = Annotated[Principal, Depends(get_principal)]


def check_tenant(p: Principal, tenant_id: str | None, *, field: str = "tenant_id") -> str:
    """The key's tenant; a request naming another one is refused (403), naming the field."""
    if tenant_id is not None and tenant_id != p.tenant_id:
        raise ApiError(
            403, "forbidden_tenant", f"{field} names a tenant this key does not belong to; omit it", field=field
        )
    return p.tenant_id


def check_user(p: Principal, user_id: str | None, *, field: str = "user_id") -> str | None:
    """The user a request acts for: an end-user key's own user, or any user a tenant key names."""
    if p.user_id is None:
        return user_id
    if user_id is not None and user_id != p.user_id:
        raise ApiError(403, "forbidden_user", f"{field} names a user this key is not bound to; omit it", field=field)
    return p.user_id


def scope_for(p: Principal, tenant_id: str | None, user_id: str | None, *, prefix: str = "") -> Scope:
    """The scope a read or write runs in: the key's tenant, and the user the key allows."""
    tenant = check_tenant(p, tenant_id, field=prefix + "tenant_id")
    user = check_user(p, user_id, field=prefix + "user_id")
    try:
        return Scope(tenant_id=tenant, user_id=user)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = prefix + str(err["loc"][0])
        raise ApiError(422, "invalid_input", f"{field}: {err['msg']}", field=field) from None


def require_tenant_key(p: Principal, what: str) -> None:
    if not p.is_tenant_key:
        raise ApiError(
            403, "forbidden_user_key", f"{what} needs a tenant key, not an end-user key", field="Authorization"
        )
