"""One error shape for every 4xx/5xx answer: ``{"error": {"code", "message", "field"}}``."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from memworks.errors import Conflict, InvalidInput, NotFound


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = None


class ErrorBody(BaseModel):
    """What every rejected request gets back; ``field`` names the part of the request at fault."""

    error: ErrorDetail


class ApiError(Exception):
    """An HTTP answer decided by the API itself (auth, tenant binding, pagination)."""

    def __init__(
        self, status: int, code: str, message: str, *, field: str | None = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.field, self.headers = status, code, message, field, headers


#: Documented on every /v1 route (OpenAPI), so clients and the fuzzer know the error shape.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    s: {"model": ErrorBody, "description": d}
    for s, d in (
        (401, "missing, unknown or revoked key"),
        (403, "the request names another tenant or user"),
        (404, "no such record in the key's tenant"),
        (409, "conflicts with what is stored"),
        (413, "request body over the size limit"),
        (422, "invalid input; `field` names it"),
        (429, "over the key's or the tenant's rate limit; retry after `Retry-After` seconds"),
    )
}

_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
}


def error_response(
    status: int, code: str, message: str, field: str | None = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    body = {"error": {"code": code, "message": message, "field": field}}
    return JSONResponse(body, status_code=status, headers=headers)


def field_path(loc: tuple[Any, ...] | list[Any], *, single: bool = False) -> str:
    """``("body", 0, "content")`` → ``[0].content`` (``content`` when the body was one object)."""
    parts = list(loc)
    if parts and parts[0] in ("body", "query", "path", "header"):
        where = parts.pop(0)
        if not parts:
            return str(where)
    if single and parts and parts[0] == 0:
        parts.pop(0)
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "body"


async def _validation(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    if not errors:
        return error_response(422, "invalid_input", "invalid request", "body")
    err = errors[0]
    single = isinstance(getattr(exc, "body", None), dict)
    field = field_path(tuple(err.get("loc", ())), single=single)
    msg = str(err.get("msg", "invalid value"))
    if err.get("type") == "json_invalid":
        field, msg = "body", f"the body is not valid JSON ({err.get('ctx', {}).get('error', msg)})"
    return error_response(422, "invalid_input", f"{field}: {msg}", field)


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, InvalidInput)
    return error_response(422, "invalid_input", str(exc), exc.field)


async def _not_found(request: Request, exc: Exception) -> JSONResponse:
    return error_response(404, "not_found", str(exc))


async def _conflict(request: Request, exc: Exception) -> JSONResponse:
    return error_response(409, "conflict", str(exc))


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.code, exc.message, exc.field, exc.headers)


async def _http(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _CODES.get(exc.status_code, "error" if exc.status_code < 500 else "internal")
    field = "body" if exc.status_code == 400 else None  # FastAPI's 400 is a body it could not decode
    return error_response(exc.status_code, code, str(exc.detail), field, dict(exc.headers or {}) or None)


def install_error_handlers(app: FastAPI) -> None:
    """Map request validation and memworks errors to the one error shape (never a stack trace)."""
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(InvalidInput, _invalid)
    app.add_exception_handler(NotFound, _not_found)
    app.add_exception_handler(Conflict, _conflict)
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(StarletteHTTPException, _http)
