"""An end-user key over MCP/HTTP reaches its own user's memory only, through every tool."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from tests.mcp.mcp_helpers import call, error_of, http_session


def test_an_end_user_key_cannot_reach_another_users_memory_through_any_tool(
    mcp_http: str, make_key: Callable[..., str]
) -> None:
    """Given u1's memories and deletion request, u2's key (and another tenant's key naming u1) finds
    nothing of u1 through search, list, forget, deletion status or the profile; scope arguments are
    refused; erasing "everything" erases u2 only; concurrent requests of both keys never mix."""
    u1, u2, other_tenant = make_key("t1", "u1"), make_key("t1", "u2"), make_key("t2")

    async def story() -> None:
        async with http_session(mcp_http, u1) as s1:
            for text in ("I live in Lisbon", "I work at Globex as a data engineer"):
                await call(s1, "memory_add", content=text, relays_user=True)
            mine = (await call(s1, "memory_list", include_history=True))["records"]
            lisbon = next(r["memory_id"] for r in mine if r["value"] == "Lisbon")
            u1_request = (await call(s1, "memory_forget", key="user.employer"))["request_id"]
            kept = {r["memory_id"] for r in (await call(s1, "memory_list", include_history=True))["records"]}

        async with http_session(mcp_http, u2) as s2:
            assert (await call(s2, "memory_search", query="Where do I live?"))["abstained"]
            assert (await call(s2, "memory_search", query="Lisbon Globex engineer", k=50))["abstained"]
            assert (await call(s2, "memory_list", include_history=True))["records"] == []
            assert "Lisbon" not in (await s2.read_resource("memory://profile")).contents[0].text
            for tool, args in [
                ("memory_search", {"query": "Where do I live?", "user_id": "u1"}),
                ("memory_list", {"tenant_id": "t1", "user_id": "u1"}),
                ("memory_add", {"content": "I live in Rome", "user_id": "u1", "relays_user": True}),
            ]:
                assert "connection" in await error_of(s2, tool, **args)
            assert "memory" in await error_of(s2, "memory_forget", memory_id=lisbon)
            assert "request_id" in await error_of(s2, "memory_deletion_status", request_id=u1_request)
            for forget in ({"key": "user.home_city"}, {"everything": True}):
                rid = (await call(s2, "memory_forget", **forget))["request_id"]
                manifest = await call(s2, "memory_deletion_status", request_id=rid)
                assert (manifest["tenant_id"], manifest["user_id"]) == ("t1", "u2")

        async with http_session(mcp_http, other_tenant, {"X-Memworks-User": "u1"}) as s3:
            assert (await call(s3, "memory_search", query="Where do I live?"))["abstained"]
            assert (await call(s3, "memory_list", include_history=True))["records"] == []
            assert "request_id" in await error_of(s3, "memory_deletion_status", request_id=u1_request)

        async with http_session(mcp_http, u1) as s1, http_session(mcp_http, u2) as s2:
            both = await asyncio.gather(*[call(s, "memory_search", query="Where do I live?") for s in [s1, s2] * 8])
            assert all(r["hits"][0]["value"] == "Lisbon" for r in both[0::2])
            assert all(r["abstained"] for r in both[1::2])
            after = {r["memory_id"] for r in (await call(s1, "memory_list", include_history=True))["records"]}
            assert after == kept and lisbon in after

    asyncio.run(story())
