"""``GET /v1/memories`` details each record's evidence: the episode's time and how it began, the caller's own only."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from memworks.models.enums import MemoryKind, MemoryStatus, Relation, Source
from memworks.models.tables import Lineage, Memory
from memworks.store.records.evidence import SNIPPET_CHARS, snippet
from tests.api.api_helpers import bearer

FIELDS = {"episode_id", "occurred_at", "role", "source", "snippet", "erased"}


def _episode(eid: str, user: str, content: str, when: str) -> dict[str, Any]:
    return {
        "episode_id": eid,
        "user_id": user,
        "session_id": "s1",
        "turn": int(eid.rsplit("-", 1)[-1]),
        "role": "user",
        "source": "user",
        "content": content,
        "occurred_at": when,
    }


def _tell(client: Any, key: dict[str, str], user: str, lines: list[str]) -> None:
    body = [_episode(f"ev-{n}", user, text, f"2025-0{n}-06T09:00:00+00:00") for n, text in enumerate(lines, 1)]
    r = client.post("/v1/episodes", json=body, headers=key)
    assert r.status_code == 202, r.text


def _listing(client: Any, key: dict[str, str], **params: Any) -> tuple[str, list[dict[str, Any]]]:
    r = client.get("/v1/memories", params={"include_history": "true", **params}, headers=key)
    assert r.status_code == 200, r.text
    return r.text, list(r.json())


def _by_text(rows: list[dict[str, Any]], text: str) -> dict[str, Any]:
    return next(m for m in rows if m["text"] == text)


def _tenant_wide_record(mw: Any, tenant: str, parents: list[str]) -> str:
    """A tenant-wide record whose evidence edges name episode ids (any user's: an edge names none)."""
    from memworks.store.sql.db import session_scope

    now = datetime(2025, 5, 1, tzinfo=UTC)
    with session_scope(mw.runtime.engine) as s:
        s.add(
            Memory(
                memory_id="shared0000000000000000000000001",
                tenant_id=tenant,
                user_id=None,
                kind=MemoryKind.SEMANTIC,
                key="team.office",
                value="Porto",
                text="The team's office is in Porto.",
                fingerprint="f" * 64,
                source=Source.USER,
                confidence=0.9,
                trusted=True,
                status=MemoryStatus.ACTIVE,
                valid_from=now,
                recorded_at=now,
            )
        )
        for p in parents:
            s.add(
                Lineage(
                    tenant_id=tenant,
                    child_id="shared0000000000000000000000001",
                    parent_type="episode",
                    parent_id=p,
                    relation=Relation.EXTRACTED_FROM,
                    created_at=now,
                )
            )
    return "shared0000000000000000000000001"


def _until_complete(client: Any, key: dict[str, str], mw: Any, request_id: str) -> None:
    """Wait for the manifest to complete: a target verified too early is purged again after a
    delay, which ``drain`` can return before."""
    deadline = time.monotonic() + 30
    while (status := client.get(f"/v1/deletions/{request_id}", headers=key).json()["status"]) != "complete":
        assert time.monotonic() < deadline, status
        mw.drain()
        time.sleep(0.1)


def test_each_record_carries_its_episodes_time_and_snippet(client: Any, make_key: Callable[..., str]) -> None:
    """Given a user who moved, When their memories are listed, Then each record's
    ``evidence_detail`` names its episodes with their time (ISO with offset), role, source and
    words; ``evidence`` is unchanged; history carries its evidence too."""
    key = bearer(make_key("ta", "u1"))
    _tell(client, key, "u1", ["I live in Lisbon and I work at Globex.", "I moved to Berlin."])
    _, rows = _listing(client, key)
    berlin = _by_text(rows, "User lives in Berlin.")
    assert berlin["evidence"] == ["ev-2"]
    [d] = berlin["evidence_detail"]
    assert set(d) == FIELDS
    assert d == {
        "episode_id": "ev-2",
        "occurred_at": "2025-02-06T09:00:00+00:00",
        "role": "user",
        "source": "user",
        "snippet": "I moved to Berlin.",
        "erased": False,
    }
    lisbon = _by_text(rows, "User lives in Lisbon.")
    assert lisbon["stale"] and lisbon["evidence_detail"][0]["snippet"] == "I live in Lisbon and I work at Globex."


def test_another_users_or_tenants_evidence_never_appears(client: Any, mw: Any, make_key: Callable[..., str]) -> None:
    """Given two users of one tenant and a user of another tenant who all used the same episode
    ids, and a tenant-wide record whose evidence ids exist for both users, When u1 lists (with
    their own key or the tenant's), Then every snippet is u1's own words, the tenant-wide record
    has no detail (its ids may be anyone's), and no word of the others' is in the answer."""
    ta, tb = bearer(make_key("ta")), bearer(make_key("tb"))
    _tell(client, ta, "u1", ["I live in Lisbon and I work at Globex.", "I moved to Berlin."])
    _tell(client, ta, "u2", ["I live in Oslo and I work at Initech.", "I moved to Bergen."])
    _tell(client, tb, "u1", ["I live in Quito and I work at Hooli.", "I moved to Lima."])
    shared = _tenant_wide_record(mw, "ta", ["ev-1", "ev-2"])
    own = {"ev-1": "I live in Lisbon and I work at Globex.", "ev-2": "I moved to Berlin."}
    for key, params in ((bearer(make_key("ta", "u1")), {}), (ta, {"user_id": "u1"})):
        body, rows = _listing(client, key, **params)
        for word in ("Oslo", "Initech", "Bergen", "Quito", "Hooli", "Lima"):
            assert word not in body, word
        details = [d for m in rows for d in m["evidence_detail"]]
        assert details and all(d["snippet"] == own[d["episode_id"]] for d in details)
        office = _by_text(rows, "The team's office is in Porto.")
        assert office["memory_id"] == shared and office["evidence"] == ["ev-1", "ev-2"]
        assert office["evidence_detail"] == []
    # The tenant's shared records alone: no user's words at all
    _, shared_rows = _listing(client, ta, scope="tenant")
    assert [m["evidence_detail"] for m in shared_rows] == [[]]
    # And u2 sees u2's words only
    body, rows = _listing(client, bearer(make_key("ta", "u2")))
    assert "Lisbon" not in body and "Globex" not in body
    assert _by_text(rows, "User lives in Bergen.")["evidence_detail"][0]["snippet"] == "I moved to Bergen."


def test_a_long_episode_gives_a_bounded_snippet_cut_at_a_word(client: Any, make_key: Callable[..., str]) -> None:
    """Given an episode of several hundred characters with runs of whitespace, Then its snippet is
    on one line, at most 160 characters, ends in an ellipsis, and is cut between two words."""
    key = bearer(make_key("ta", "u1"))
    words = "My dog is called Pixel and\n\n   she likes " + "long walks along the river every morning " * 12
    _tell(client, key, "u1", [words])
    _, rows = _listing(client, key)
    [d] = _by_text(rows, "User has a dog named Pixel.")["evidence_detail"]
    text, folded = d["snippet"], " ".join(words.split())
    assert len(text) <= SNIPPET_CHARS and text.endswith("…") and "\n" not in text
    head = text[:-1]
    assert folded.startswith(head) and folded[len(head)] == " "


def test_an_erased_episode_keeps_its_time_not_its_words(client: Any, mw: Any, make_key: Callable[..., str]) -> None:
    """Given one episode that stated a phone number and a colour, When the phone number is
    forgotten (its episode's text is purged), Then the colour's evidence still names the episode
    and its time, with no snippet and ``erased`` true, and the purged words are nowhere."""
    key = bearer(make_key("ta", "u1"))
    _tell(client, key, "u1", ["My phone number is 555-0100 and my favourite colour is green."])
    tenant = bearer(make_key("ta"))
    r = client.post("/v1/deletions", json={"user_id": "u1", "keys": ["user.phone_number"]}, headers=tenant)
    assert r.status_code == 202, r.text
    _until_complete(client, tenant, mw, r.json()["request_id"])
    body, rows = _listing(client, key)
    [d] = _by_text(rows, "User's favorite colour is green.")["evidence_detail"]
    assert d["episode_id"] == "ev-1" and d["occurred_at"] == "2025-01-06T09:00:00+00:00"
    assert d["snippet"] is None and d["erased"] is True
    assert "555-0100" not in body


@pytest.mark.parametrize(
    ("text", "truncated", "expected"),
    [
        ("  I moved\n\tto  Berlin. ", False, "I moved to Berlin."),
        ("   ", False, None),
        ("x" * SNIPPET_CHARS, False, "x" * SNIPPET_CHARS),
        ("x" * (SNIPPET_CHARS + 1), False, "x" * (SNIPPET_CHARS - 1) + "…"),
        ("I moved to Berlin.", True, "I moved to Berlin.…"),
        ("word " * 40, False, ("word " * 32).strip() + "…"),
        ("a, " * 80, False, ("a, " * 53).strip().rstrip(",") + "…"),
    ],
)
def test_snippet_folds_whitespace_and_cuts_at_a_word(text: str, truncated: bool, expected: str | None) -> None:
    """The snippet rule on its own: one line, at most 160 characters, cut between words (mid-word
    only for a word longer than half the limit), an ellipsis when anything was left out."""
    got = snippet(text, truncated=truncated)
    assert got == expected
    assert got is None or len(got) <= SNIPPET_CHARS
