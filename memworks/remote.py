"""``RemoteMemworks``: the ``Memworks`` facade's methods over the HTTP API.

Same method names, arguments and return types as the embedded facade, so an agent can switch
with one line (``Memworks.remote(url, key)``). Input is validated here first, with the same
errors as the embedded facade; HTTP errors come back as memworks errors (422 → ``InvalidInput``
with its field, 404 → ``NotFound``, 409 → ``Conflict``).

Differences that follow from the wire: the key decides the tenant, so a scope naming another
tenant is refused (``InvalidInput`` on ``tenant_id``); a batch bigger than one request body is
sent in several requests, each all or nothing; ``drain`` has nothing to wait for, since an
embedded server settles each write before answering and distributed workers run elsewhere.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import TypeAdapter

from memworks.errors import Conflict, InvalidInput, MemworksError, NotFound
from memworks.models.schemas import (
    DeletionRequestIn,
    EpisodeIn,
    IngestReceipt,
    LessonOut,
    ManifestOut,
    MemoryOut,
    OutcomeIn,
    Recommendation,
    RetrieveResult,
    Scope,
)
from memworks.models.validation import check_time, parse_model, require_scope

#: Largest request body the client sends (bytes); the server refuses over 1 MB.
MAX_REQUEST_BYTES = 900_000
#: Records per page when listing memories.
PAGE_SIZE = 500
_MEMORIES = TypeAdapter(list[MemoryOut])
_LESSONS = TypeAdapter(list[LessonOut])
_TIME = TypeAdapter(datetime)


class Unauthorized(MemworksError):
    """The server refused the key (missing, unknown or revoked)."""


class RemoteError(MemworksError):
    """The server failed (5xx) or answered something this client does not understand."""

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status


def _scoped(scope: Scope) -> dict[str, str]:
    return {k: v for k, v in (("tenant_id", scope.tenant_id), ("user_id", scope.user_id)) if v is not None}


def _read(scope: Scope) -> dict[str, str]:
    """A read's scope on the wire: a scope without a user asks for the tenant's shared records by
    name (the server refuses a read that names no user otherwise)."""
    return {**_scoped(require_scope(scope)), **({"scope": "tenant"} if scope.user_id is None else {})}


def _times(d: dict[str, Any], *names: str) -> dict[str, Any]:
    for n in names:
        if isinstance(d.get(n), str):
            d[n] = _TIME.validate_python(d[n])
    return d


def _chunks(items: list[dict[str, Any]]) -> Iterable[list[dict[str, Any]]]:
    """Consecutive runs of items whose JSON stays under the request size limit."""
    run: list[dict[str, Any]] = []
    size = 2
    for item in items:
        n = len(json.dumps(item, ensure_ascii=False).encode()) + 1
        if run and (size + n > MAX_REQUEST_BYTES or len(run) >= 1000):
            yield run
            run, size = [], 2
        run.append(item)
        size += n
    if run:
        yield run


class RemoteMemworks:
    """The facade over HTTP: ``RemoteMemworks("https://memory.example", key)``."""

    def __init__(self, url: str, key: str, timeout_s: float = 30, transport: httpx.BaseTransport | None = None) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {key}"}, timeout=timeout_s, transport=transport
        )

    # -- plumbing ---------------------------------------------------------------------------

    def _call(
        self, method: str, path: str, *, json_body: Any = None, params: dict[str, Any] | None = None
    ) -> httpx.Response:
        resp = self._http.request(method, path, json=json_body, params=params)
        if resp.status_code < 400:
            return resp
        try:
            err = resp.json()["error"]
            message, field = str(err.get("message", "")), err.get("field")
        except (ValueError, KeyError, TypeError):
            message, field = resp.text[:500] or resp.reason_phrase, None
        status = resp.status_code
        if status == 401:
            raise Unauthorized(message)
        if status in (400, 403, 413, 422):
            raise InvalidInput(message, field=field)
        if status == 404:
            raise NotFound(message)
        if status == 409:
            raise Conflict(message)
        raise RemoteError(f"{method} {path}: HTTP {status}: {message}", status=status)

    def _json(self, method: str, path: str, **kw: Any) -> Any:
        return self._call(method, path, **kw).json()

    # -- writes -----------------------------------------------------------------------------

    def enqueue_episode(self, episode: EpisodeIn | dict[str, Any]) -> IngestReceipt:
        """Store one episode and queue its extraction (idempotent on tenant + episode id)."""
        return self.enqueue_episodes([episode])

    def enqueue_episodes(self, batch: Iterable[EpisodeIn | dict[str, Any]]) -> IngestReceipt:
        """Validate every episode here, then send them (one request per ~1 MB, each all or nothing)."""
        items = [parse_model(EpisodeIn, e, f"episode {i}").model_dump(mode="json") for i, e in enumerate(batch)]
        return self._ingest("/v1/episodes", items)

    def report_outcome(self, outcome: OutcomeIn | dict[str, Any]) -> IngestReceipt:
        """Store one task outcome and queue a learning round for its task type."""
        return self.report_outcomes([outcome])

    def report_outcomes(
        self, batch: Iterable[OutcomeIn | dict[str, Any]], *, reporter: str | None = None
    ) -> IngestReceipt:
        """Validate every outcome here, then send them (one request per ~1 MB, each all or nothing).

        ``reporter`` is accepted for parity with :meth:`Memworks.report_outcomes` and not sent:
        the server decides whose word the outcomes are from the key (tenant key: the tenant's).
        """
        items = [parse_model(OutcomeIn, o, f"outcome {i}").model_dump(mode="json") for i, o in enumerate(batch)]
        return self._ingest("/v1/outcomes", items)

    def _ingest(self, path: str, items: list[dict[str, Any]]) -> IngestReceipt:
        accepted: list[str] = []
        duplicates: list[str] = []
        resent: list[str] = []
        for run in _chunks(items):
            r = IngestReceipt.model_validate(self._json("POST", path, json_body=run))
            accepted += r.accepted
            duplicates += r.duplicates
            resent += r.resent
        return IngestReceipt(accepted=accepted, duplicates=duplicates, resent=resent)

    # -- reads ------------------------------------------------------------------------------

    def retrieve(
        self,
        scope: Scope,
        query: str,
        *,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        k: int = 5,
        asked_at: datetime | str | None = None,
        include_profile: bool = False,
    ) -> RetrieveResult:
        """Memories relevant to ``query`` in ``scope`` (required), or an abstention.

        ``as_of``, ``known_at`` and ``asked_at`` (when the question is asked) are aware
        datetimes or ISO 8601 strings with an offset. ``include_profile``: also the user's
        profile lines that bear on the question.
        """
        body: dict[str, Any] = {**_read(scope), "query": query, "k": k, "include_profile": include_profile}
        for name, t in (("as_of", as_of), ("known_at", known_at), ("asked_at", asked_at)):
            if (when := check_time(t, name)) is not None:
                body[name] = when.isoformat()
        return RetrieveResult.model_validate(self._json("POST", "/v1/retrieve", json_body=body))

    def memories(self, scope: Scope, *, include_history: bool = False) -> list[MemoryOut]:
        """Everything remembered in ``scope`` with all clocks and evidence (every page)."""
        params: dict[str, Any] = {**_read(scope), "include_history": include_history, "limit": PAGE_SIZE}
        out: list[MemoryOut] = []
        while True:
            resp = self._call("GET", "/v1/memories", params=params)
            out += _MEMORIES.validate_python(resp.json())
            if not (cursor := resp.headers.get("X-Next-Cursor")):
                return out
            params["cursor"] = cursor

    def profile(self, scope: Scope, query: str | None = None) -> dict[str, Any]:
        """The user's injected profile: the block, its token count, and the record each line cites;
        with ``query``, the profile for that question (sent as the ``query`` parameter)."""
        if not isinstance(scope, Scope) or scope.user_id is None:
            raise InvalidInput("profile needs a scope with a user: Scope(tenant_id=..., user_id=...)", field="scope")
        params = _scoped(scope) | ({"query": query} if query is not None else {})
        return _times(self._json("GET", "/v1/profile", params=params), "built_at")

    # -- a person's controls over one record ------------------------------------------------

    def memory(self, scope: Scope, memory_id: str) -> dict[str, Any]:
        """One record with its provenance: evidence episodes, lineage, gate decisions."""
        d = self._json("GET", f"/v1/memories/{quote(memory_id, safe='')}", params=_scoped(require_scope(scope)))
        d["memory"] = MemoryOut.model_validate(d["memory"])
        d["evidence_episodes"] = [_times(e, "occurred_at") for e in d.get("evidence_episodes", [])]
        d["gate"] = [_times(g, "decided_at") for g in d.get("gate", [])]
        return dict(d)

    def confirm_memory(self, scope: Scope, memory_id: str) -> MemoryOut:
        """Confirm a pending outward-action preference (it becomes active and usable)."""
        path = f"/v1/memories/{quote(memory_id, safe='')}/confirm"
        return MemoryOut.model_validate(self._json("POST", path, json_body=_scoped(require_scope(scope))))

    def correct_memory(self, scope: Scope, memory_id: str, value: str) -> MemoryOut:
        """Correct a record's value: the correction supersedes it (history kept)."""
        body = {**_scoped(require_scope(scope)), "value": value}
        return MemoryOut.model_validate(
            self._json("PATCH", f"/v1/memories/{quote(memory_id, safe='')}", json_body=body)
        )

    def delete_memory(self, scope: Scope, memory_id: str) -> str:
        """Erase one record (and its history) with a manifest; returns the deletion request id."""
        d = self._json("DELETE", f"/v1/memories/{quote(memory_id, safe='')}", params=_scoped(require_scope(scope)))
        return str(d["request_id"])

    # -- deletion ---------------------------------------------------------------------------

    def submit_deletion(self, request: DeletionRequestIn | dict[str, Any]) -> str:
        """Send a deletion request; returns the request id to poll with :meth:`manifest`."""
        req = parse_model(DeletionRequestIn, request, "deletion request")
        body = req.model_dump(mode="json")
        body["requested_by"] = body["requested_by"][:120]
        if not req.keys and not req.memory_ids:  # the whole user, as the request says: the API wants it explicit
            body["scope"] = "user"
        return str(self._json("POST", "/v1/deletions", json_body=body)["request_id"])

    def manifest(self, request_id: str) -> ManifestOut:
        """The deletion manifest: status and, per projection, state, residue, attempts, evidence."""
        return ManifestOut.model_validate(self._json("GET", f"/v1/deletions/{quote(request_id, safe='')}"))

    # -- lessons and maintenance --------------------------------------------------------------

    def lessons(self, tenant: str, task_type: str | None = None) -> list[LessonOut]:
        """Every lesson of the tenant (every status) with its gate report."""
        params = {"tenant_id": tenant, **({"task_type": task_type} if task_type else {})}
        return _LESSONS.validate_python(self._json("GET", "/v1/lessons", params=params))

    def recommend(self, tenant: str, task_type: str, features: Sequence[str] | str) -> Recommendation:
        """The action of the most specific active lesson that fires, or no lesson."""
        body = {
            "tenant_id": tenant,
            "task_type": task_type,
            "features": features if isinstance(features, str) else list(features),
        }
        return Recommendation.model_validate(self._json("POST", "/v1/recommend", json_body=body))

    def consolidate(self, tenant: str) -> dict[str, Any]:
        """Run the tenant's consolidation now (a tenant key); returns its run record."""
        if not tenant or not isinstance(tenant, str):
            raise InvalidInput("tenant is required", field="tenant")
        return _times(
            self._json("POST", "/v1/consolidations", json_body={"tenant_id": tenant}), "started_at", "finished_at"
        )

    def drain(self, timeout_s: float = 600) -> None:
        """Nothing to wait for: the server settles each write before it answers (embedded)."""

    # -- lifecycle ----------------------------------------------------------------------------

    @property
    def embedded(self) -> bool:
        return False

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    def __enter__(self) -> RemoteMemworks:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
