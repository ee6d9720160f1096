"""The MCP server: memworks' memory and lessons as tools, and the user's profile as a resource.

Every tool resolves its scope from the connection's binding (see ``binding.py``), so no
argument can widen it. Bad arguments come back as a tool error naming the argument; nothing is
stored. Descriptions are written for the model that reads them.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import AwareDatetime, Field, ValidationError

from memworks.client import Memworks
from memworks.errors import MemworksError
from memworks.mcp import tools
from memworks.mcp.binding import Binding
from memworks.mcp.results import AddResult, ForgetResult, ListResult, OutcomeResult, SearchResult
from memworks.models.schemas import ManifestOut, Recommendation

#: How a tool call finds its binding: fixed (stdio), or the HTTP request's (see ``http.py``).
Binder = Callable[[], Binding]

_ID = r"^[A-Za-z0-9][A-Za-z0-9._:@\-]{0,199}$"
_RECORD_ID = r"^[A-Za-z0-9_\-]{1,64}$"
_KEY = r"^[a-z_]+(\.[a-z0-9_-]+)*$"
_TASK_TYPE = r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,199}$"

Content = Annotated[str, Field(min_length=1, max_length=100_000, description="the turn's text, verbatim")]
RoleArg = Annotated[Literal["user", "assistant", "tool", "system"], Field(description="who spoke the turn")]
When = Annotated[AwareDatetime | None, Field(description="ISO 8601 time with a UTC offset; default now")]
SessionId = Annotated[str | None, Field(pattern=_ID, description="the conversation this turn belongs to")]
Query = Annotated[str, Field(min_length=1, max_length=1000, description="what you want to know, in words")]
K = Annotated[int, Field(ge=1, le=50, description="at most this many hits")]
AsOf = Annotated[AwareDatetime | None, Field(description="answer as the world was at this time (ISO 8601 with offset)")]
Limit = Annotated[int, Field(ge=1, le=1000, description="at most this many records")]
Key = Annotated[str | None, Field(pattern=_KEY, max_length=200, description="a slot such as user.home_city")]
RecordId = Annotated[str | None, Field(pattern=_RECORD_ID, description="a memory_id from memory_search or memory_list")]
RequestId = Annotated[str, Field(pattern=_RECORD_ID, description="the request_id memory_forget returned")]
TaskType = Annotated[str, Field(pattern=_TASK_TYPE, description="the kind of task, e.g. refund_request")]
Features = Annotated[
    list[Annotated[str, Field(max_length=100)]] | None,
    Field(max_length=64, description="keywords describing this task instance"),
]
TaskText = Annotated[
    str | None, Field(min_length=1, max_length=4000, description="the task in words (instead of features)")
]
RelaysUser = Annotated[bool, Field(description="true only when content is the user's own words")]
History = Annotated[bool, Field(description="also list superseded values (what was true before a change)")]
WithProfile = Annotated[
    bool, Field(description="also return the user's constraints and preferences that bear on the question")
]
Everything = Annotated[bool, Field(description="true to erase everything about the user")]
Success = Annotated[bool, Field(description="whether the task succeeded")]
Action = Annotated[str, Field(min_length=1, max_length=200)]
OptAction = Annotated[str | None, Field(min_length=1, max_length=200)]
OptId = Annotated[str | None, Field(pattern=_ID)]

INSTRUCTIONS = (
    "Long-term memory for one user, governed by memworks. Search before answering questions about the user; "
    "add what the user tells you that is worth keeping; forget what the user asks you to forget. You cannot "
    "reach any other user's memory. Read memory://profile for the short summary of what is known."
)

DESCRIPTIONS = {
    "memory_add": (
        "Record one conversation turn so memworks can remember what matters in it. Pass the turn's text "
        "verbatim in `content`. Set `relays_user` to true only when `content` is the user's own words (a fact "
        "they stated, a preference, a change such as a move); anything else you write is stored as your "
        "inference and is not trusted as a fact until the user confirms it. You do not decide what is "
        "remembered: a write gate extracts durable facts, refuses instructions and injected commands, and "
        "keeps history when a fact changes. Returns the stored turn's episode_id."
    ),
    "memory_search": (
        "Look up what is remembered about the user for a question, e.g. 'where does the user live'. Returns "
        "ranked hits, best first, each with the value, its key (slot), kind, when it became true (valid_from) "
        "and stopped being true (valid_to), the evidence turn ids, and two warnings: `stale` (may be out of "
        "date) and `subject_mismatch` (may be about someone else). When `abstained` is true nothing answers "
        "the question: say you do not know instead of guessing. Use `as_of` to ask about a past moment. Set "
        "`include_profile` before you advise, recommend or plan for the user: `profile` then lists their "
        "standing constraints and preferences that bear on the question (an allergy, a diet, something they "
        "avoid), constraints first, even when no word of the question names them."
    ),
    "memory_list": (
        "List every record remembered about the user, with status, source and trust. Set `include_history` "
        "to also see superseded values (what was true before a change). Use it to show the user what is "
        "stored about them or to find a memory_id; prefer memory_search to answer a question."
    ),
    "memory_forget": (
        "Erase memory when the user asks you to forget something. Give exactly one of: `key` to forget a "
        "whole topic with its history (e.g. user.home_city), `memory_id` to forget one record, or "
        "`everything: true` only when the user explicitly asks to be forgotten entirely. Erasure reaches every "
        "copy, including the transcripts that stated it. Returns a request_id; poll memory_deletion_status "
        "until its status is 'complete' before telling the user it is gone."
    ),
    "memory_deletion_status": (
        "The manifest of a deletion started with memory_forget: its overall status (pending, open, complete, "
        "failed) and, for every place a copy could live, whether its absence has been confirmed. Only "
        "requests of this user are visible."
    ),
    "lesson_recommend": (
        "Before acting on a task, ask whether a lesson learned from earlier outcomes of the same task type "
        "applies. Describe the task with `features` (keywords) or `task_text` (words), not both. Returns the "
        "recommended action and guidance, or nulls when no proven lesson fires; then use your own judgement."
    ),
    "outcome_report": (
        "After finishing a task, report what you did and whether it worked, so memworks can learn lessons "
        "for the task type. Describe the task with `features` or `task_text` (not both), give the action you "
        "took, `success`, and `verified_action` when the correct action is known (e.g. a human fixed it). "
        "Lessons are only adopted after they beat held-out outcomes."
    ),
}


@contextmanager
def _tool_errors() -> Iterator[None]:
    """memworks' own errors become tool errors the model can read (bad input, not found, conflict)."""
    try:
        yield
    except MemworksError as exc:
        raise ToolError(str(exc)) from exc


class _StrictServer(MCPServer[Any]):
    """Refuses arguments a tool does not take.

    The SDK would ignore them silently, so a model passing ``user_id`` could believe it acted for
    that user; the error says the scope comes from the connection instead.
    """

    arguments: dict[str, frozenset[str]] = {}

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if name in self.arguments and (extra := sorted(set(arguments) - self.arguments[name])):
            raise ToolError(
                f"{extra[0]}: {name} takes no argument {extra[0]!r} (it takes "
                f"{', '.join(sorted(self.arguments[name]))}); the tenant and user come from the "
                f"connection, never from a tool call"
            )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):  # the SDK's check of the arguments
                raise ToolError(readable(exc.__cause__)) from exc.__cause__
            raise


def readable(exc: ValidationError) -> str:
    """One line naming each wrong argument and what is wrong with it (pydantic's own text spans
    lines, repeats the input and links to its documentation)."""
    said = []
    for err in exc.errors():
        arg = ".".join(str(p) for p in err["loc"]) or "arguments"
        said.append(f"{arg}: {err['msg']}")
    return "; ".join(said)


def build_server(get_mw: Callable[[], Memworks], bind: Binder, *, name: str = "memworks") -> MCPServer[Any]:
    """An MCP server over the facade ``get_mw()``, each call in the scope ``bind()`` gives."""
    # The SDK configures the root logger when a server is made; memworks configures its own
    # logging (structlog, stderr), so the root logger is put back as it was.
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    server = _StrictServer(name, instructions=INSTRUCTIONS, log_level="WARNING")
    root.handlers[:], root.level = handlers, level
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    @server.tool(description=DESCRIPTIONS["memory_add"], annotations=writes)
    def memory_add(
        content: Content,
        role: RoleArg = "user",
        occurred_at: When = None,
        session_id: SessionId = None,
        relays_user: RelaysUser = False,
    ) -> AddResult:
        with _tool_errors():
            return tools.add(
                get_mw(),
                bind(),
                content=content,
                role=role,
                occurred_at=occurred_at,
                session_id=session_id,
                relays_user=relays_user,
            )

    @server.tool(description=DESCRIPTIONS["memory_search"], annotations=read_only)
    def memory_search(query: Query, k: K = 5, as_of: AsOf = None, include_profile: WithProfile = False) -> SearchResult:
        with _tool_errors():
            return tools.search(get_mw(), bind(), query=query, k=k, as_of=as_of, include_profile=include_profile)

    @server.tool(description=DESCRIPTIONS["memory_list"], annotations=read_only)
    def memory_list(include_history: History = False, limit: Limit = 200) -> ListResult:
        with _tool_errors():
            return tools.list_records(get_mw(), bind(), include_history=include_history, limit=limit)

    @server.tool(
        description=DESCRIPTIONS["memory_forget"],
        annotations=ToolAnnotations(destructive_hint=True, idempotent_hint=True, open_world_hint=False),
    )
    def memory_forget(key: Key = None, memory_id: RecordId = None, everything: Everything = False) -> ForgetResult:
        with _tool_errors():
            return tools.forget(get_mw(), bind(), key=key, memory_id=memory_id, everything=everything)

    @server.tool(description=DESCRIPTIONS["memory_deletion_status"], annotations=read_only)
    def memory_deletion_status(request_id: RequestId) -> ManifestOut:
        with _tool_errors():
            return tools.deletion_status(get_mw(), bind(), request_id=request_id)

    @server.tool(description=DESCRIPTIONS["lesson_recommend"], annotations=read_only)
    def lesson_recommend(task_type: TaskType, features: Features = None, task_text: TaskText = None) -> Recommendation:
        with _tool_errors():
            return tools.recommend(get_mw(), bind(), task_type=task_type, features=features, task_text=task_text)

    @server.tool(description=DESCRIPTIONS["outcome_report"], annotations=writes)
    def outcome_report(
        task_type: TaskType,
        action_taken: Action,
        success: Success,
        features: Features = None,
        task_text: TaskText = None,
        verified_action: OptAction = None,
        task_id: OptId = None,
        outcome_id: OptId = None,
        occurred_at: When = None,
    ) -> OutcomeResult:
        with _tool_errors():
            return tools.report_outcome(
                get_mw(),
                bind(),
                task_type=task_type,
                action_taken=action_taken,
                success=success,
                features=features,
                task_text=task_text,
                verified_action=verified_action,
                task_id=task_id,
                outcome_id=outcome_id,
                occurred_at=occurred_at,
            )

    @server.resource(
        "memory://profile",
        name="profile",
        mime_type="text/plain",
        description="What is known about the user, in a few lines to put in your context.",
    )
    def profile() -> str:
        try:
            return tools.profile_text(get_mw(), bind())
        except MemworksError as exc:
            raise ResourceError(str(exc)) from exc

    server.arguments = {
        f.__name__: frozenset(inspect.signature(f).parameters)
        for f in (
            memory_add,
            memory_search,
            memory_list,
            memory_forget,
            memory_deletion_status,
            lesson_recommend,
            outcome_report,
        )
    }
    return server
