"""Forget requests and retired transcripts: what a batch's writes do to the statements they end.

A forget request said in conversation ("forget where I live") opens one deletion with a manifest
over what it names; a transcript that states nothing current any more leaves present reads.
Both run in the ingest transaction of the batch (:mod:`memworks.services.ingest.process`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session

from memworks.models.schemas import DeletionRequestIn
from memworks.pipelines.deletion.forget import ForgetMatch
from memworks.pipelines.ingest.supersession import Accepted, WritePlan, is_forget_request, scope_key, transcript_id
from memworks.store import deletion
from memworks.store.records import transcripts

__all__ = ["open_deletions", "retire_transcripts"]


def retire_transcripts(
    s: Session, tenant: str, user: str, items: Sequence[Accepted], plan: WritePlan, now: datetime
) -> int:
    """Transcripts that state nothing current any more leave present reads (history keeps them).

    A transcript whose every keyed statement was superseded or ended is marked superseded; so is
    the transcript of a forget request (a request, never a statement to retrieve), by the
    pending record when nothing matched its topic.
    """
    ended = [c.memory_id for c in plan.closes] + [n.memory_id for n in plan.new if n.valid_to is not None]
    # A turn that restates a statement already ended speaks of the past too: its records are
    # looked at with the ended ones (the batch a restatement lands in must not decide).
    said_again = [r.memory_id for r in plan.reinforces]
    n = transcripts.retire_transcripts(s, tenant_id=tenant, user_id=user, ended=ended + said_again, now=now)
    key = scope_key(tenant, user)
    requests: dict[str, str | None] = {}
    for a, (_, mid) in zip(items, plan.ops, strict=True):
        if a.candidate.extractor == "forget" or is_forget_request(a.candidate):
            requests.setdefault(transcript_id(key, a.episode_id), mid)  # the pending record, if kept
    return n + transcripts.supersede_transcripts(s, successors=requests, now=now)


def open_deletions(
    s: Session,
    tenant: str,
    user: str,
    items: Sequence[Accepted],
    plan: WritePlan,
    matches: dict[int, ForgetMatch],
    now: datetime,
) -> list[str]:
    """Open one deletion per forget request turn (saved with the writes: an outbox row): the
    slots it named, the records it matched by meaning (this batch's too, by the ids the plan gave
    them) and, when it matched any, the request's own turn (it repeats the topic's words).

    Only a forget request erases; a retraction that ends a fact already closed its valid time.
    """
    keys: dict[str, set[str]] = defaultdict(set)
    ids: dict[str, set[str]] = defaultdict(set)
    for p, a in enumerate(items):
        if not is_forget_request(a.candidate):
            continue
        eid = a.episode_id
        keys[eid].update([a.candidate.key] if a.candidate.key else [])
        if (m := matches.get(p)) is not None and (m.memory_ids or m.batch):
            ids[eid].update(m.memory_ids)
            ids[eid].update(mid for q in m.batch if (mid := plan.ops[q][1]) is not None)
            ids[eid].add(transcript_id(scope_key(tenant, user), eid))
    return [
        deletion.save_request(
            s,
            request=DeletionRequestIn(
                tenant_id=tenant,
                user_id=user,
                keys=sorted(keys[eid]),
                memory_ids=sorted(ids[eid]),
                requested_by=f"retraction in episode {eid}",
            ),
            now=now,
        )
        for eid in dict.fromkeys([*keys, *ids])
        if keys[eid] or ids[eid]
    ]
