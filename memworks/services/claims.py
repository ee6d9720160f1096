"""Every statement governed: a new trusted turn meets the scope's current statements nearest to it.

Rules and the parser key only some statements; the rest are transcripts nothing superseded. Here
each new transcript of a user's turn or a verified tool's result is a claim, decided against its
subject's nearest current claims by the learned pair model
(:func:`~memworks.pipelines.claims.govern.govern`):

* *changed* or *ended*: the old transcript, and the records extracted from its turn, stop holding
  when the new one was said (``superseded_by`` the new transcript; ``as_of`` still sees them);
* *restated*: the old transcript and its turn's records rest on the new turn as well (evidence
  grows); the new transcript, and the records its turn added, are not a second current copy.

Each decision is audited with its probability, beside the gate's decisions of the same turn.
Runs in the ingest transaction, under the scope's lock, after the batch's records are indexed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt
from sqlmodel import Session

from memworks.models.drafts import Candidate
from memworks.models.enums import GateOutcome, MemoryKind, Op, Source
from memworks.models.tables import Memory
from memworks.pipelines.claims import ClaimText, join_sentences, read_claim
from memworks.pipelines.claims.govern import MIN_COSINE, NEIGHBOURS, ClaimPlan, Statement, govern
from memworks.pipelines.extraction.open_vocab_parse import Sentence
from memworks.pipelines.gate import Verdict
from memworks.pipelines.ingest import Judged
from memworks.pipelines.write_plan import Reinforce, WritePlan
from memworks.store import audit, claims, memories, transcripts

__all__ = ["ClaimsOutcome", "Parse", "govern_batch", "govern_statements"]

#: Parses texts into sentences (the open extractor's parser, with its cache).
Parse = Callable[[Sequence[str]], Mapping[str, Sequence[Sentence]]]


@dataclass
class ClaimsOutcome:
    closed: int = 0
    restated: int = 0


def govern_batch(
    s: Session,
    statements: Mapping[tuple[str, str], Mapping[str, str]],
    *,
    parse: Parse | None,
    now: datetime,
    counts: dict[str, int],
) -> list[tuple[str, str]]:
    """:func:`govern_statements` for each scope of a message's write; the scopes it changed."""
    changed = []
    for (tenant, user), fresh in statements.items():
        done = govern_statements(s, tenant=tenant, user=user, fresh=fresh, parse=parse, now=now)
        counts["claims_closed"] = counts.get("claims_closed", 0) + done.closed
        counts["claims_restated"] = counts.get("claims_restated", 0) + done.restated
        if done.closed or done.restated:
            changed.append((tenant, user))
    return changed


def govern_statements(
    s: Session,
    *,
    tenant: str,
    user: str,
    fresh: Mapping[str, str],
    parse: Parse | None,
    now: datetime,
) -> ClaimsOutcome:
    """Decide the scope's new transcripts ``fresh`` (transcript id → episode id) against its
    current statements, and write what the decisions say."""
    rows = claims.current_statements(s, tenant_id=tenant, user_id=user)
    new_rows = [(m, v) for m, v in rows if m.memory_id in fresh]
    if not new_rows:
        return ClaimsOutcome()
    old_rows = [(m, v) for m, v in rows if m.memory_id not in fresh]
    old_rows = _candidates(new_rows, old_rows)
    episodes = dict(fresh) | claims.episodes_of(s, tenant_id=tenant, ids=[m.memory_id for m, _ in old_rows])
    held = claims.records_of_episodes(
        s,
        tenant_id=tenant,
        user_id=user,
        episodes=sorted({episodes[m.memory_id] for m, _ in old_rows if m.memory_id in episodes}),
    )
    texts = [m.text for m, _ in (*new_rows, *old_rows)]
    parsed = parse(texts) if parse is not None else {}

    def statement(m: Memory, v: npt.NDArray[np.float32]) -> Statement:
        sentence = join_sentences(list(parsed.get(m.text, ())), m.text) if parsed else None
        claim: ClaimText = read_claim(
            m.text,
            subject=m.subject or "user",
            said_at=m.valid_from,
            source=m.source.value,
            vector=v,
            sentence=sentence,
        )
        episode = episodes.get(m.memory_id, "")
        return Statement(m.memory_id, episode, claim, tuple(r.value for r in held.get(episode, ())))

    plan = govern(
        [statement(m, v) for m, v in new_rows],
        [statement(m, v) for m, v in old_rows if m.memory_id in episodes],
    )
    return _apply(s, tenant, user, plan, now)


def _candidates(
    new_rows: Sequence[tuple[Memory, npt.NDArray[np.float32]]],
    old_rows: Sequence[tuple[Memory, npt.NDArray[np.float32]]],
) -> list[tuple[Memory, npt.NDArray[np.float32]]]:
    """The old statements among some new one's nearest (only those are read and parsed)."""
    if not old_rows:
        return []
    olds = np.vstack([v for _, v in old_rows])
    news = np.vstack([v for _, v in new_rows])
    if olds.shape[1] != news.shape[1]:
        return []
    sims = news @ olds.T
    keep: set[int] = set()
    for row in sims:
        order = np.argsort(-row)[: NEIGHBOURS * 2]
        keep |= {int(i) for i in order if row[i] >= MIN_COSINE}
    return [old_rows[i] for i in sorted(keep)]


def _apply(s: Session, tenant: str, user: str, plan: ClaimPlan, now: datetime) -> ClaimsOutcome:
    out = ClaimsOutcome()
    by_episode = claims.records_of_episodes(
        s,
        tenant_id=tenant,
        user_id=user,
        episodes=sorted({e for r in plan.restatements for e in (r.old.episode_id, r.new.episode_id) if e}),
    )
    by_old = claims.records_of_episodes(
        s, tenant_id=tenant, user_id=user, episodes=sorted({m.old.episode_id for m in plan.mentions})
    )
    closing_eps = claims.episodes_of(s, tenant_id=tenant, ids=[c.old for c in plan.closings])
    closed_records = claims.records_of_episodes(
        s, tenant_id=tenant, user_id=user, episodes=sorted(set(closing_eps.values()))
    )
    closes: list[tuple[str, str, datetime]] = []
    for c in plan.closings:
        closes.append((c.old, c.by, c.at))
        closes += [(r.memory_id, c.by, c.at) for r in closed_records.get(closing_eps.get(c.old, ""), [])]
    out.closed = claims.close_records(s, closes=closes, now=now)
    reinforces: list[Reinforce] = []
    retire: dict[str, str | None] = {}
    copies: list[tuple[str, str, datetime]] = []
    for r in plan.restatements:
        held = by_episode.get(r.old.episode_id, [])
        reinforces.append(Reinforce(r.old.memory_id, (r.new.episode_id,), 1.0))
        reinforces += [Reinforce(m.memory_id, (r.new.episode_id,), m.confidence) for m in held]
        retire[r.new.memory_id] = r.old.memory_id
        if held:  # the old turn's records hold the fact: the new turn's are copies of it
            for m in by_episode.get(r.new.episode_id, []):
                twin = next((h for h in held if h.key == m.key), held[0])
                copies.append((m.memory_id, twin.memory_id, m.valid_from))
    mentioned = claims.records_of_episodes(
        s, tenant_id=tenant, user_id=user, episodes=sorted({m.new.episode_id for m in plan.mentions})
    )
    for mention in plan.mentions:
        same = [m for m in by_old.get(mention.old.episode_id, []) if _fold(m.value) == _fold(mention.value)]
        reinforces += [Reinforce(m.memory_id, (mention.new.episode_id,), m.confidence) for m in same]
        if same:  # the new turn's own record of the value would be a second copy
            copies += [
                (m.memory_id, same[0].memory_id, m.valid_from)
                for m in mentioned.get(mention.new.episode_id, [])
                if _fold(m.value) == _fold(mention.value) and m.memory_id != same[0].memory_id
            ]
    if reinforces:
        memories.apply_plan(s, plan=WritePlan(reinforces=reinforces), tenant_id=tenant, user_id=user, now=now)
    out.restated = transcripts.supersede_transcripts(s, successors=retire, now=now)
    claims.close_records(s, closes=copies, now=now)
    audit.record_decisions(s, decided=_audit(tenant, user, plan), now=now)
    return out


def _audit(tenant: str, user: str, plan: ClaimPlan) -> list[audit.Decided]:
    """One audited decision per closing and restatement, on the new claim's episode."""
    rows: list[audit.Decided] = []
    for c in plan.closings:
        reason = f"claims: {c.decision.value} {c.old} (p={c.probability:.2f})"
        cand = Candidate(text=reason, source=Source(c.new.claim.source), extractor="claims")
        judged = Judged(cand, Verdict(GateOutcome.ACCEPTED, reason, MemoryKind.EPISODIC, True))
        rows.append((tenant, user, c.new.episode_id, [judged], {0: (Op.UPDATE, c.old)}))
    for r in plan.restatements:
        reason = f"claims: restated {r.old.memory_id} (p={r.probability:.2f})"
        cand = Candidate(text=reason, source=Source(r.new.claim.source), extractor="claims")
        judged = Judged(cand, Verdict(GateOutcome.ACCEPTED, reason, MemoryKind.EPISODIC, True))
        rows.append((tenant, user, r.new.episode_id, [judged], {0: (Op.NOOP, r.old.memory_id)}))
    for m in plan.mentions:
        reason = f"claims: named again {m.value!r} of {m.old.memory_id}"
        cand = Candidate(text=reason, source=Source(m.new.claim.source), extractor="claims")
        judged = Judged(cand, Verdict(GateOutcome.ACCEPTED, reason[:400], MemoryKind.EPISODIC, True))
        rows.append((tenant, user, m.new.episode_id, [judged], {0: (Op.NOOP, m.old.memory_id)}))
    return rows


def _fold(s: str) -> str:
    return " ".join(s.split()).casefold()
