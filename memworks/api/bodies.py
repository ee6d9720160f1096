"""Request bodies of the HTTP API: the facade's inputs with the tenant (and user) from the key.

``EpisodeBody`` and ``OutcomeBody`` are ``EpisodeIn`` and ``OutcomeIn`` except that ``tenant_id``
(and ``user_id``) may be omitted: the key supplies them. Bodies are read by :class:`StrictJsonRoute`:
no number longer than 40 characters, no ``NaN`` or ``Infinity``, and no type coercion.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Annotated, Any, Generic, Literal, TypeVar

from fastapi import Request, Response
from fastapi.routing import APIRoute
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    PrivateAttr,
    RootModel,
    StrictBool,
    StrictInt,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema as cs

from memworks.models.schemas import MAX_KEY_CHARS, EpisodeIn, OutcomeIn, check_keys
from memworks.models.types import BoundedTime, bounded_metadata, load_json, refuse_numbers

ID = r"^[A-Za-z0-9][A-Za-z0-9._:@\-]{0,199}$"
TASK_TYPE = r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,199}$"
#: Record and request ids (the store makes 32 hex digits); anything else cannot name a record.
RECORD_ID = r"^[A-Za-z0-9_\-]{1,64}$"
#: Most episodes or outcomes in one request.
MAX_BATCH = 1000
#: Longest query a retrieve may send (characters): the retrieval service's ``MAX_QUERY_CHARS``.
MAX_QUERY = 1000

_Tenant = Field(default=None, pattern=ID, description="omit it (the key's tenant), or give the key's tenant")


class StrictJsonRequest(Request):
    """A request whose JSON body is read by :func:`~memworks.models.types.load_json`."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = load_json(await self.body())
        return self._json


class StrictJsonRoute(APIRoute):
    """A route that reads its JSON body strictly: a number over 40 characters or a non-finite one
    (``NaN``, ``Infinity``, ``1e999``) is refused by validation as 422, naming its field."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(StrictJsonRequest(request.scope, request.receive))

        return strict


def storable_text(value: Any) -> Any:
    """Reject text no database can store: NUL characters (PostgreSQL) and lone surrogates (UTF-8),
    in strings, object keys and values, at any depth (walked without recursion)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise ValueError("text must not contain NUL characters")
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("text must be valid Unicode (no lone surrogates)") from None
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    @field_validator("*", mode="before")
    @classmethod
    def _storable(cls, v: Any, info: ValidationInfo) -> Any:
        if info.field_name == "metadata":
            if not isinstance(v, dict):
                return v  # not an object: its type check refuses it, unwalked
            bounded_metadata(v)  # first, so that the walks below never cover more than its bounds
        return storable_text(refuse_numbers(v))


class EpisodeBody(_Strict, EpisodeIn):
    """One episode (DESIGN §8); ``tenant_id`` and, with an end-user key, ``user_id`` may be omitted."""

    tenant_id: str | None = _Tenant  # type: ignore[assignment]
    user_id: str | None = Field(default=None, pattern=ID)  # type: ignore[assignment]


class OutcomeBody(_Strict, OutcomeIn):
    """One task outcome (DESIGN §8); ``tenant_id`` may be omitted."""

    tenant_id: str | None = _Tenant  # type: ignore[assignment]


T = TypeVar("T", bound=BaseModel)


class _OneOrMany(RootModel[list[T]], Generic[T]):
    """One object or a list of them; remembers which, so error fields read naturally."""

    root: list[T] = Field(min_length=1, max_length=MAX_BATCH)
    _single: bool = PrivateAttr(default=False)

    @model_validator(mode="wrap")
    @classmethod
    def _wrap(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        single = isinstance(value, dict)
        if not single and not isinstance(value, list):
            raise ValueError("expected one object or a list of objects")
        out = handler([value] if single else value)
        out._single = single
        return out

    @property
    def single(self) -> bool:
        return self._single

    def field(self, i: int, name: str) -> str:
        return name if self._single else f"[{i}].{name}"

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: cs.CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        many = handler.resolve_ref_schema(handler(core_schema))
        return {"anyOf": [many["items"], many]}


class EpisodeBatch(_OneOrMany[EpisodeBody]):
    """One episode or a list of at most 1000."""


class OutcomeBatch(_OneOrMany[OutcomeBody]):
    """One outcome or a list of at most 1000."""


class ScopedBody(_Strict):
    tenant_id: str | None = _Tenant
    user_id: str | None = Field(
        default=None, pattern=ID, description="a tenant key names the user; an end-user key may omit it"
    )


#: Which records a read covers: a user's (their own and the tenant's shared ones; the default, so
#: a tenant key must name the user) or, asked for by name, the tenant's shared records alone.
ReadScope = Literal["user", "tenant"]
SCOPE_HELP = (
    "`user` (default): a user's records and the tenant's shared ones; a tenant key must name "
    "`user_id`. `tenant`: the tenant's shared records only (no `user_id`)."
)


class RetrieveBody(ScopedBody):
    scope: ReadScope = Field(default="user", description=SCOPE_HELP)
    query: str = Field(min_length=1, max_length=MAX_QUERY)
    as_of: BoundedTime | None = Field(default=None, description="valid time: what held then")
    known_at: BoundedTime | None = Field(default=None, description="transaction time: what was believed then")
    k: StrictInt = Field(default=5, ge=1, le=100)
    asked_at: BoundedTime | None = Field(
        default=None, description="when the question is asked (default now): periods it names resolve against it"
    )
    include_profile: StrictBool = Field(
        default=False,
        description="also return the user's present profile lines that bear on the question, constraints first",
    )


class CorrectionBody(ScopedBody):
    value: str = Field(min_length=1, max_length=500)


class DeletionBody(ScopedBody):
    keys: list[str] = Field(
        default_factory=list, max_length=100, description=f"memory keys, each at most {MAX_KEY_CHARS} characters"
    )
    memory_ids: list[Annotated[str, Field(pattern=RECORD_ID)]] = Field(default_factory=list, max_length=10_000)
    requested_by: str = Field(default="", max_length=120)
    #: ``"user"`` erases the whole user: required when neither keys nor memory ids are named,
    #: so an empty or truncated body never erases everything by default.
    scope: Literal["user"] | None = None

    @field_validator("keys")
    @classmethod
    def _keys(cls, v: list[str]) -> list[str]:
        return check_keys(v)


class RecommendBody(_Strict):
    tenant_id: str | None = _Tenant
    task_type: str = Field(pattern=TASK_TYPE)
    features: list[str] | str = Field(description="keywords, or free text")

    @field_validator("features")
    @classmethod
    def _bounded(cls, v: list[str] | str) -> list[str] | str:
        if isinstance(v, list) and (len(v) > 64 or any(len(f) > 100 for f in v)):
            raise ValueError("at most 64 features of at most 100 characters each")
        if isinstance(v, str) and len(v) > 6400:
            raise ValueError("features text must be at most 6400 characters")
        return v


class ConsolidationBody(_Strict):
    tenant_id: str | None = _Tenant


class Accepted(BaseModel):
    """A deletion was accepted: poll ``GET /v1/deletions/{request_id}``."""

    request_id: str
    status: str
