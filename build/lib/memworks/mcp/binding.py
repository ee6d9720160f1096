"""Which scope an MCP connection acts in: fixed when the server starts, never chosen by a tool call.

Over stdio the binding is the server's (``--tenant/--user``, or an API key from the
environment); over HTTP it is the request's Bearer key, the same keys the HTTP API takes. An
end-user key is confined to its own user; a tenant key may name one user of its tenant with
the ``X-Memworks-User`` header. Tool arguments never carry a tenant or a user.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError

from memworks.client import Memworks
from memworks.errors import InvalidInput
from memworks.models.schemas import Scope

#: The header a tenant key uses to act for one user of its tenant.
USER_HEADER = "X-Memworks-User"


class Unauthenticated(InvalidInput):
    """The key is missing, unknown or revoked."""


class Forbidden(InvalidInput):
    """The key is valid but may not act for what was asked."""


@dataclass(frozen=True)
class Binding:
    """The scope every tool call of one connection (or HTTP request) runs in."""

    tenant_id: str
    user_id: str | None
    #: Who asked, recorded on deletion requests: ``api-key:<id>`` or ``stdio``.
    actor: str

    @property
    def scope(self) -> Scope:
        return Scope(tenant_id=self.tenant_id, user_id=self.user_id)

    def user_scope(self, what: str) -> Scope:
        """The scope of the bound user; refused when the binding names no user."""
        if self.user_id is None:
            raise InvalidInput(
                f"{what} needs a user, and this connection is bound to tenant {self.tenant_id!r} only: start "
                f"the server with --user, use an end-user key, or send {USER_HEADER} with a tenant key",
                field="user",
            )
        return self.scope


def fixed_binding(tenant_id: str, user_id: str | None, *, actor: str = "stdio") -> Binding:
    """A binding named on the command line; the ids are checked like every scope's."""
    try:
        Scope(tenant_id=tenant_id, user_id=user_id)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = "tenant" if err["loc"][0] == "tenant_id" else "user"
        raise InvalidInput(f"--{field}: {err['msg']} (letters, digits and ._:@- only)", field=field) from None
    return Binding(tenant_id, user_id, actor)


def key_binding(mw: Memworks, secret: str, *, user_id: str | None = None) -> Binding:
    """The binding of an API key: its tenant, and its user (or, for a tenant key, ``user_id``).

    Raises:
        Unauthenticated: the key is unknown or revoked.
        Forbidden: an end-user key asked to act for another user.
        InvalidInput: ``user_id`` is malformed.
    """
    row = mw.authenticate(secret)
    if row is None:
        raise Unauthenticated("the API key is unknown or revoked", field="Authorization")
    if row.user_id is not None and user_id is not None and user_id != row.user_id:
        raise Forbidden(f"this key is bound to one user; {USER_HEADER} names another", field=USER_HEADER)
    user = row.user_id or user_id
    try:
        Scope(tenant_id=row.tenant_id, user_id=user)
    except ValidationError as exc:
        raise InvalidInput(f"{USER_HEADER}: {exc.errors()[0]['msg']}", field=USER_HEADER) from None
    return Binding(row.tenant_id, user, f"api-key:{row.key_id}")
