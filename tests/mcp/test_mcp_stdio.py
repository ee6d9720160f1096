"""``memworks mcp`` over stdio, driven by the MCP SDK's own client as a subprocess."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from tests.cli.cli_helpers import run_here
from tests.mcp.mcp_helpers import call, error_of, remember_and_forget, stdio_session


def test_an_agent_remembers_a_change_ignores_an_injection_and_forgets_on_request(
    server_env: dict[str, str], tmp_path: Path
) -> None:
    """Given a stdio server bound to one user, when an agent adds a fact, its change and an injected
    instruction, then search puts the current value on top without the injection; after the agent
    forgets the topic and the manifest completes, search abstains."""

    async def story() -> None:
        async with stdio_session(server_env, tmp_path / "stderr.log", "--tenant", "t1", "--user", "u1") as s:
            await remember_and_forget(s)

    asyncio.run(story())


def test_the_profile_resource_is_the_users_injected_layer(server_env: dict[str, str], tmp_path: Path) -> None:
    """memory://profile reads the bound user's profile block: empty at first, the current city after."""

    async def story() -> None:
        async with stdio_session(server_env, tmp_path / "stderr.log", "--tenant", "t1", "--user", "u1") as s:
            listed = await s.list_resources()
            assert [str(r.uri) for r in listed.resources] == ["memory://profile"]
            before = (await s.read_resource("memory://profile")).contents[0].text
            assert "Lisbon" not in before
            await call(s, "memory_add", content="I live in Lisbon", relays_user=True)
            after = (await s.read_resource("memory://profile")).contents[0].text
            assert "Lisbon" in after

    asyncio.run(story())


def test_search_with_include_profile_brings_the_allergy_before_a_recommendation(
    server_env: dict[str, str], tmp_path: Path
) -> None:
    """memory_search with include_profile returns the user's constraint as a profile line, even
    when the question (an advice question) has no word in common with it and no hit answers it."""

    async def story() -> None:
        async with stdio_session(server_env, tmp_path / "stderr.log", "--tenant", "t1", "--user", "u1") as s:
            await call(s, "memory_add", content="I'm allergic to shellfish.", relays_user=True)
            ask = "Which restaurant should I book in Lisbon tonight?"
            plain = await call(s, "memory_search", query=ask)
            assert plain["profile"] is None
            found = await call(s, "memory_search", query=ask, include_profile=True)
            lines = found["profile"]
            assert [ln["tier"] for ln in lines] == ["constraint"] and "shellfish" in lines[0]["text"]

    asyncio.run(story())


def test_model_authored_content_is_not_trusted_as_a_fact(server_env: dict[str, str], tmp_path: Path) -> None:
    """Content the model writes (relays_user false) is stored as model inference: it is recorded,
    untrusted, and not served as the answer; the same words relayed from the user are."""

    async def story() -> None:
        async with stdio_session(server_env, tmp_path / "stderr.log", "--tenant", "t1", "--user", "u1") as s:
            added = await call(s, "memory_add", content="I live in Paris", role="assistant")
            assert added["source"] == "model_inference"
            assert (await call(s, "memory_search", query="Where do I live?"))["abstained"]
            records = (await call(s, "memory_list"))["records"]
            assert records and all(r["source"] == "model_inference" and not r["trusted"] for r in records)

            await call(s, "memory_add", content="I live in Paris", relays_user=True)
            top = (await call(s, "memory_search", query="Where do I live?"))["hits"][0]
            assert (top["value"], top["source"]) == ("Paris", "user")

    asyncio.run(story())


def test_bad_arguments_are_tool_errors_naming_the_argument_and_store_nothing(
    server_env: dict[str, str], tmp_path: Path, row_counts: Callable[[], dict[str, int]]
) -> None:
    """Each malformed call comes back as a tool error whose text names the argument; no row is written."""
    before = row_counts()

    async def story() -> None:
        async with stdio_session(server_env, tmp_path / "stderr.log", "--tenant", "t1", "--user", "u1") as s:
            bad = [
                ("memory_add", {"content": ""}, "content"),
                ("memory_add", {"content": "I live in Oslo", "role": "boss"}, "role"),
                ("memory_add", {"content": "I live in Oslo", "occurred_at": "2024-05-01T09:00:00"}, "occurred_at"),
                ("memory_add", {"content": "I live in Oslo", "session_id": "no spaces allowed"}, "session_id"),
                ("memory_add", {"content": "I live in Oslo", "user_id": "u2"}, "user_id"),
                ("memory_add", {"content": "a\x00b", "relays_user": True}, "content"),
                ("memory_search", {"query": "where", "k": 0}, "k"),
                ("memory_search", {"query": "where", "as_of": "yesterday"}, "as_of"),
                ("memory_search", {"query": "where", "tenant_id": "t2"}, "tenant_id"),
                ("memory_list", {"limit": "many"}, "limit"),
                ("memory_forget", {}, "key"),
                ("memory_forget", {"key": "user.home_city", "everything": True}, "everything"),
                ("memory_forget", {"key": "Home City"}, "key"),
                ("memory_forget", {"memory_id": "0" * 32}, "memory_id"),
                ("memory_deletion_status", {"request_id": "../etc"}, "request_id"),
                ("memory_deletion_status", {"request_id": "0" * 32}, "request_id"),
                ("lesson_recommend", {"task_type": "refund"}, "features"),
                ("lesson_recommend", {"task_type": "refund", "features": ["a"], "task_text": "b"}, "task_text"),
                (
                    "outcome_report",
                    {"task_type": "refund", "action_taken": "", "success": True, "task_text": "x"},
                    "action_taken",
                ),
                (
                    "outcome_report",
                    {"task_type": "bad type!", "action_taken": "a", "success": True, "task_text": "x"},
                    "task_type",
                ),
            ]
            for tool, args, argument in bad:
                text = await error_of(s, tool, **args)
                assert argument in text, f"{tool}({args}): the error does not name {argument!r}: {text}"
                # Read by a person or an agent: one line saying what is wrong, no library's URL.
                assert "errors.pydantic.dev" not in text and "\n" not in text.strip(), text

    asyncio.run(story())
    assert row_counts() == before


def test_a_stdio_server_bound_by_an_end_user_key_acts_for_that_user_only(
    server_env: dict[str, str], store_url: str, tmp_path: Path, make_key: Callable[..., str]
) -> None:
    """MEMWORKS_API_KEY binds the server to the key's tenant and user; a --user naming someone else is
    refused at start with exit status 2; an unknown key likewise."""
    env = dict(server_env, MEMWORKS_API_KEY=make_key("t1", "u7"))

    async def story() -> None:
        async with stdio_session(env, tmp_path / "u7.log") as s:
            await call(s, "memory_add", content="I live in Porto", relays_user=True)
        async with stdio_session(server_env, tmp_path / "u1.log", "--tenant", "t1", "--user", "u1") as s:
            assert (await call(s, "memory_search", query="Where do I live?"))["abstained"]
        async with stdio_session(server_env, tmp_path / "u7b.log", "--tenant", "t1", "--user", "u7") as s:
            assert (await call(s, "memory_search", query="Where do I live?"))["hits"][0]["value"] == "Porto"

    asyncio.run(story())

    # The refusals come before the server reads a byte of stdin, so the command runs in this process.
    for key, args, says in [
        (make_key("t1", "u7"), ["--user", "u8"], "X-Memworks-User"),
        ("mw_not-a-key", [], "unknown or revoked"),
        (None, [], "MEMWORKS_API_KEY"),
        (None, ["--tenant", "t 1"], "--tenant"),
    ]:
        res = run_here(["mcp", *args], store_url, MEMWORKS_API_KEY=key, MEMWORKS_MAX_RETRIES="0")
        assert res.returncode == 2, (args, res.stderr)
        assert says in res.stderr and res.stdout == ""
