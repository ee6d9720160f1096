"""Forget requests that name a topic, not a slot ("forget about the cello"): matched to slots.

A request the extractor could not tie to a key carries the topic's words
(:class:`~memworks.models.drafts.ForgetRequest`). Matched against the user's stored slots (and
the slots asserted earlier in the same batch), it becomes one erasing retraction per matching
slot, which the ingest layer turns into a topic deletion with a manifest. When nothing
matches, it becomes a ``pending_confirmation`` record the user can see in their memory
(``<person>.forget_request``), never an active statement and never retrieved.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from memworks.models.drafts import Candidate
from memworks.models.enums import CandidateOp, GateOutcome, MemoryKind
from memworks.pipelines.gate import Verdict
from memworks.pipelines.slots import Keyed, match_forget_topic
from memworks.pipelines.supersession import is_forget_request
from memworks.pipelines.write_plan import Accepted

__all__ = ["PENDING_REASON", "forget_key", "needs_matching", "resolve_forget_requests"]

#: The gate reason a request that matched nothing is kept with.
PENDING_REASON = "forget request: nothing remembered matches its topic; kept pending for the user to see"


def needs_matching(item: Accepted) -> bool:
    """A forget request that names a topic but no slot."""
    c = item.candidate
    return is_forget_request(c) and c.key is None and c.forget is not None


def forget_key(c: Candidate) -> str:
    """The key of a pending request's record: ``user.forget_request``, ``person.<name>.forget_request``."""
    return f"{c.extra.get('subject') or 'user'}.forget_request"


def resolve_forget_requests(items: Sequence[Accepted], stored: Iterable[Keyed]) -> list[tuple[int, Accepted]]:
    """Each item paired with its index; a topic request is replaced by one erasing retraction
    per matching slot, or by a pending record when nothing matches.

    Args:
        items: accepted candidates of one scope, in event order.
        stored: the scope's keyed records (history included, deleted ones left out).

    Returns:
        ``(index in items, item)`` pairs, in order; an index repeats when a request matched
        several slots.
    """
    seen: list[Keyed] = list(stored)
    out: list[tuple[int, Accepted]] = []
    for i, item in enumerate(items):
        c = item.candidate
        if not needs_matching(item):
            if c.op is CandidateOp.ASSERT and c.key:
                seen.append(c)  # said earlier in the batch: a request later in it can name it
            out.append((i, item))
            continue
        assert c.forget is not None
        keys = [k for k in match_forget_topic(c.forget, seen) if not k.endswith(".forget_request")]
        if keys:
            out += [(i, replace(item, candidate=c.model_copy(update={"key": k}))) for k in keys]
            continue
        pending = c.model_copy(
            update={
                "op": CandidateOp.ASSERT,
                "kind": MemoryKind.EPISODIC,
                "key": forget_key(c),
                "value": c.forget.topic,
                "extractor": "forget",
                "forget": None,
                "valid_from": None,
            }
        )
        verdict = Verdict(GateOutcome.PENDING, PENDING_REASON, MemoryKind.EPISODIC, item.verdict.trusted)
        out.append((i, replace(item, candidate=pending, verdict=verdict)))
    return out
