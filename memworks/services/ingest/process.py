"""Turn stored episodes into governed memory: judge, embed, decide, write, index."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial

import numpy as np
import numpy.typing as npt
from sqlalchemy import Engine
from sqlmodel import Session

from memworks.models.drafts import Candidate, MemoryView, Turn
from memworks.models.enums import CandidateOp, EpisodeState, GateOutcome, MemoryKind, MemoryStatus, Op, Source
from memworks.models.schemas import EpisodeIn
from memworks.models.tables import Episode, Memory
from memworks.pipelines.consolidation import EvictionPolicy
from memworks.pipelines.deletion.forget import ForgetMatch, needs_matching, resolve_forget_requests
from memworks.pipelines.extraction.base import Extractor
from memworks.pipelines.gate import Verdict
from memworks.pipelines.ingest import DEFAULT_CAPS, EpisodeCaps, EpisodeJudgement, Judged, bounded_turn, judge_episode
from memworks.pipelines.ingest.slots import companions, index_text
from memworks.pipelines.ingest.supersession import (
    Accepted,
    decide_writes,
    scope_key,
    transcript_id,
)
from memworks.pipelines.protocols import Embedder
from memworks.pipelines.text.spans import spans
from memworks.services.deps import Deps
from memworks.services.ingest import forget_requests
from memworks.services.ingest.claims import govern_batch
from memworks.services.ingest.turns import speakers, to_turn
from memworks.services.profiles import rebuild_profile
from memworks.store import audit, episodes, memories, versions
from memworks.store.deletion.forget_matches import forget_candidates
from memworks.store.indexing import index_memories
from memworks.store.projections import lexical, vector
from memworks.store.sql.db import lock_scope, session_scope
from memworks.store.turns import named_speaker


@dataclass
class IngestOutcome:
    """What one extraction run did."""

    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    tenants: list[str] = field(default_factory=list)
    #: Deletion requests opened by users' retractions ("forget where I live"), to be driven.
    deletions: list[str] = field(default_factory=list)
    #: Gate verdicts by (outcome, reason category), for the metrics.
    gate: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: Episodes of the message left received: past its candidate budget, for a message of their own.
    deferred: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Stored:
    """What storing a batch of episodes did: the new rows' ids, the duplicates, and the
    duplicates still unprocessed (their message was lost: they are sent again)."""

    ids: list[int]
    duplicates: list[str]
    #: (row id, episode id) of each duplicate stored earlier and never processed.
    stuck: list[tuple[int, str]]


def accept(deps: Deps, items: Sequence[EpisodeIn], *, now: datetime) -> Stored:
    """Store validated episodes in one transaction (idempotent on tenant + episode id).

    The rows are committed before any message exists (outbox): a lost message is re-sent by the
    sweeper, never lost.

    Raises:
        Conflict: an episode id is already stored with other content; nothing is stored.
    """
    with session_scope(deps.engine) as s:
        ids, dups = episodes.insert_episodes(s, episodes=items, now=now)
        dup, new = set(dups), set(ids)
        again = [(e.tenant_id, e.user_id, e.episode_id) for e in items if e.episode_id in dup]
        stuck = [(i, e) for i, e in episodes.unprocessed_of(s, keys=again) if i not in new]
    return Stored(list(ids), list(dups), stuck)


def extract(deps: Deps, ids: Sequence[int], *, now: Callable[[], datetime]) -> IngestOutcome:
    """:func:`process_episodes` with the deployment's extractor, caps and policies."""
    st = deps.settings
    return process_episodes(
        deps.engine,
        ids=ids,
        extractor=deps.extractor,
        embedder=deps.embedder,
        now=now,
        eviction=deps.eviction_policy,
        after_write=partial(rebuild_profile, deps),
        caps=EpisodeCaps(st.episode_max_chars, st.episode_max_candidates),
        most_candidates=st.ingest_batch_candidates,
        claims=st.claims,
    )


def process_episodes(
    engine: Engine,
    *,
    ids: Sequence[int],
    extractor: Extractor,
    embedder: Embedder,
    now: Callable[[], datetime],
    eviction: EvictionPolicy | None = None,
    after_write: Callable[[Session, str, str, datetime], object] | None = None,
    caps: EpisodeCaps = DEFAULT_CAPS,
    most_candidates: int | None = None,
    claims: bool = False,
) -> IngestOutcome:
    """Process received episodes ``ids``; already processed or tombstoned ones are skipped.

    Extraction and embedding run outside any transaction; the message's scopes are then written
    in one transaction under their locks, re-checking that their episodes are still unprocessed,
    so two workers handed the same episode write it once.

    A retraction that ends a fact ("I quit Acme") closes its valid time and keeps history; only
    a forget request ("forget where I live", "forget about the cello") opens a topic deletion
    request for the slots it names, so their history, evidence and every projection entry are
    erased with a manifest, as for an officer's. A forget request that matches no slot is kept
    as a pending record the user can see. ``caps`` bound what one episode may cost (the text
    its extractor reads, the candidates it keeps); ``most_candidates`` what one run may: once
    its episodes (in arrival order) have that many, the later ones are left received and named
    in ``deferred``, so a message of dense episodes holds a worker for a bounded time.

    Returns:
        Counts (episodes processed and skipped, memories added, ops by type, rejections), the
        tenants written and the deletion requests opened.
    """
    out = IngestOutcome()
    counts = out.counts
    judge = _Judge(extractor, embedder, caps)
    with session_scope(engine, write=False) as s:
        rows = [
            e for e in episodes.get_episodes(s, ids=ids) if e.state is EpisodeState.RECEIVED and e.tombstoned_at is None
        ]
        counts["skipped"] = len(set(ids)) - len(rows)
        rows = sorted(rows + episodes.earlier_received(s, ahead_of=rows), key=episodes.event_order)
        judgements = judge(s, rows, most_candidates)
    left = {e.id for e in rows} - {e.id for e, _ in judgements}
    out.deferred = [i for i in dict.fromkeys(ids) if i in left]
    counts["deferred"] = len(out.deferred)
    groups: dict[tuple[str, str], list[tuple[Episode, EpisodeJudgement]]] = defaultdict(list)
    for e, j in judgements:
        groups[(e.tenant_id, e.user_id)].append((e, j))
    if groups:
        out.deletions += _write(engine, groups, judge, now(), out, eviction, after_write, claims)
    out.counts, out.tenants = dict(counts), sorted({t for t, _ in groups})
    return out


#: Earlier turns of its session read beside a verified tool's result (the request is near it).
TOOL_CONTEXT_TURNS = 4


class _Judge:
    """Extraction and embedding (outside any transaction where possible), vectors kept by text."""

    def __init__(self, extractor: Extractor, embedder: Embedder, caps: EpisodeCaps) -> None:
        self.extractor, self.embedder, self.caps = extractor, embedder, caps
        self.context_turns = int(getattr(extractor, "context_turns", 0))
        self.vectors: dict[str, npt.NDArray[np.float32]] = {}

    def __call__(
        self, s: Session, rows: Sequence[Episode], most_candidates: int | None = None
    ) -> list[tuple[Episode, EpisodeJudgement]]:
        """``rows`` judged and their accepted texts embedded. With ``most_candidates``, only
        those (in arrival order) judged before that many candidates (transcripts aside) were: a
        prefix of every scope's arrivals, so none is left behind an earlier one of its scope."""
        earlier = episodes.session_contexts(s, [(e, self._context_of(e)) for e in rows])
        # Who else speaks in each scope, as far as this batch tells: "tom-ayo" is Tom's and Ayo's.
        peers = speakers([*rows, *(c for cs in earlier.values() for c in cs)])
        scoped = {e.id: peers.get((e.tenant_id, e.user_id), set()) for e in rows}
        contexts = {e.id: [to_turn(c, scoped[e.id]) for c in earlier.get(e.id or 0, [])] for e in rows}
        turns = [to_turn(e, scoped[e.id]) for e in rows]
        warm = getattr(self.extractor, "warm", None)  # a BatchExtractor parses the batch at once
        if callable(warm) and turns:
            warm([bounded_turn(t, self.caps.max_chars) for t in turns])
        extractors = self._per_scope(s, rows)
        by_row: dict[int | None, EpisodeJudgement] = {}
        total = 0
        for e, t in sorted(zip(rows, turns, strict=True), key=lambda et: et[0].id or 0):
            if most_candidates is not None and total >= most_candidates:
                break
            extractor = extractors.get((e.tenant_id, e.user_id), self.extractor)
            by_row[e.id] = judge_episode(t, extractor=extractor, context=contexts[e.id], caps=self.caps)
            total += len(by_row[e.id].judged) - 1  # its transcript aside
        judged = [(e, by_row[e.id]) for e in rows if e.id in by_row]
        turns = [t for e, t in zip(rows, turns, strict=True) if e.id in by_row]
        refuse = getattr(self.extractor, "refusal_of", None)
        for t, (_, j) in zip(turns, judged, strict=True):
            if callable(refuse) and (why := refuse(t)):  # audited like any gate refusal, nothing stored
                refused = Candidate(evidence=(t.episode_id,), source=t.source, extractor=self.extractor.name)
                j.judged.append(
                    Judged(
                        refused,
                        Verdict(
                            GateOutcome.REJECTED, f"not read by the open extractor: {why}", MemoryKind.SEMANTIC, False
                        ),
                    )
                )
        whole = [index_text(a.candidate.key, a.candidate.text) for _, j in judged for a in j.accepted()]
        # Each text and its sentences (a long text is also scored by its best one) are embedded
        # here, before the write's transaction, so the scope's lock is not held while the model runs.
        texts = [t for t in dict.fromkeys([*whole, *(x for t in whole for x in spans(t))]) if t not in self.vectors]
        self.vectors.update(zip(texts, self.embedder.embed(texts), strict=True))
        return judged

    def _context_of(self, e: Episode) -> int:
        """Earlier turns read beside ``e``: the extractor's, and for a verified tool's result the
        few before it, where the request it answers was made."""
        return max(self.context_turns, TOOL_CONTEXT_TURNS if e.source is Source.VERIFIED_TOOL else 0)

    def _per_scope(self, s: Session, rows: Sequence[Episode]) -> dict[tuple[str, str], Extractor]:
        """For an extractor that reads the stored slots (the ``llm`` one): bound to each scope's."""
        if not getattr(self.extractor, "wants_known_slots", False):
            return {}
        out: dict[tuple[str, str], Extractor] = {}
        for tenant, user in dict.fromkeys((e.tenant_id, e.user_id) for e in rows):
            current = [
                m
                for m in memories.keyed_records(s, tenant_id=tenant, user_id=user)
                if m.status is MemoryStatus.ACTIVE and m.valid_to is None
            ]
            out[(tenant, user)] = _KnownSlots(self.extractor, current)
        return out


class _KnownSlots:
    """An extractor that reads stored slots, bound to one scope's current records."""

    def __init__(self, extractor: Extractor, known: Sequence[MemoryView]) -> None:
        self.extractor, self.known, self.name = extractor, known, extractor.name

    def __call__(self, turn: Turn, *, context: Sequence[Turn] = ()) -> list[Candidate]:
        call: Callable[..., list[Candidate]] = self.extractor
        return call(turn, context=context, known=self.known)


@dataclass
class _Writes:
    """What a message's scopes wrote that goes to its table in one statement at the end."""

    new_rows: list[Memory] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    decided: list[audit.Decided] = field(default_factory=list)
    processed: list[int] = field(default_factory=list)
    #: Scopes whose derived state (the profile) follows their records.
    changed: list[tuple[str, str]] = field(default_factory=list)
    #: Per scope, the new transcripts of trusted turns (transcript id → episode id): claims to govern.
    statements: dict[tuple[str, str], dict[str, str]] = field(default_factory=lambda: defaultdict(dict))


def _write(
    engine: Engine,
    groups: dict[tuple[str, str], list[tuple[Episode, EpisodeJudgement]]],
    judge: _Judge,
    now: datetime,
    out: IngestOutcome,
    eviction: EvictionPolicy | None,
    after_write: Callable[[Session, str, str, datetime], object] | None,
    claims: bool = False,
) -> list[str]:
    """Write every scope of the message in one transaction, each under its lock.

    The locks are taken in one order (by scope), so two writers never wait on each other in a
    circle. Statements go per table for the whole message, not per scope: on PostgreSQL each is
    a round trip, and a message spans dozens of users.
    """
    with session_scope(engine, write=True) as s:
        for tenant, user in sorted(groups):
            lock_scope(s, scope_key(tenant, user))
        ids = [e.id for group in groups.values() for e, _ in group if e.id is not None]
        still = {e.id for e in episodes.get_episodes(s, ids=ids) if e.state is EpisodeState.RECEIVED}
        out.counts["skipped"] += sum(1 for group in groups.values() for e, _ in group if e.id not in still)
        live: dict[tuple[str, str], list[tuple[Episode, EpisodeJudgement]]] = defaultdict(list)
        for key, group in groups.items():
            if kept := [(e, j) for e, j in group if e.id in still]:
                live[key] = kept
        # Arrived since the pre-pass, ahead of these: written first, in this transaction.
        for e, j in judge(s, episodes.earlier_received(s, ahead_of=[e for g in live.values() for e, _ in g])):
            live[(e.tenant_id, e.user_id)].append((e, j))
        writes, deletions = _Writes(), []
        for (tenant, user), group in sorted(live.items()):
            group.sort(key=lambda ej: episodes.event_order(ej[0]))
            deletions += _write_scope(s, tenant, user, group, now, out, eviction, writes, judge.embedder)
        index_memories(s, writes.new_rows, judge.embedder, judge.vectors, fresh=True)
        if claims:  # after indexing: claims meet by vector
            parse = getattr(judge.extractor, "parse", None)
            writes.changed += govern_batch(
                s,
                writes.statements,
                parse=parse,
                now=now,
                counts=out.counts,
                max_chars=judge.caps.max_chars,
                index=lambda s_, rows: index_memories(s_, rows, judge.embedder, judge.vectors, fresh=True),
            )
        if writes.deleted:
            lexical.purge(s, writes.deleted)
            vector.purge(s, writes.deleted)
        audit.record_decisions(s, decided=writes.decided, now=now)
        episodes.mark_processed(s, ids=writes.processed, now=now)
        for tenant, user in sorted(live):
            versions.bump(s, tenant_id=tenant, user_id=user)
        if after_write is not None:
            for tenant, user in writes.changed:
                after_write(s, tenant, user, now)  # e.g. the profile follows the records it cites
        return deletions


def _write_scope(
    s: Session,
    tenant: str,
    user: str,
    group: list[tuple[Episode, EpisodeJudgement]],
    now: datetime,
    out: IngestOutcome,
    eviction: EvictionPolicy | None,
    writes: _Writes,
    embedder: Embedder | None = None,
) -> list[str]:
    """Decide and write one scope's records (its lock held); the batched rows go to ``writes``.

    ``embedder`` embeds a forget request's topic (and what the batch said before it) to match
    the user's records by meaning; it runs only for a batch holding a request.
    """
    counts = out.counts
    items: list[Accepted] = []
    where: list[tuple[int, int]] = []  # (group index, judged index) of each item
    for gi, (_, j) in enumerate(group):
        accepted = iter(j.accepted())
        for ji, jd in enumerate(j.judged):
            if jd.verdict.accepted:
                items.append(next(accepted))
                where.append((gi, ji))
    matches: dict[int, ForgetMatch] = {}
    if any(needs_matching(a) for a in items):  # "forget my old address": which records say it?
        resolved = resolve_forget_requests(
            items,
            memories.keyed_records(s, tenant_id=tenant, user_id=user),
            forget_candidates(s, tenant_id=tenant, user_id=user) if embedder is not None else (),
            embedder=embedder,
            speakers={
                e.episode_id: who
                for e, _ in group
                if (who := named_speaker(e.metadata_json, str(getattr(e.role, "value", e.role)))) is not None
            },
        )
        items, where = [a for _, a in resolved.items], [where[i] for i, _ in resolved.items]
        matches = resolved.matches
    keys = {a.candidate.key for a in items if a.candidate.key}
    keys |= {k for a in items if a.candidate.op is CandidateOp.RETRACT for k in companions(a.candidate.key)}
    prefixes = {a.candidate.key for a in items if a.candidate.key and a.candidate.key_is_prefix}
    texts = {a.candidate.text for a in items if a.candidate.key is None}
    existing = memories.load_slots(s, tenant_id=tenant, user_id=user, keys=keys, texts=texts, prefixes=prefixes)
    plan = decide_writes(items, existing, scope_key=scope_key(tenant, user), now=now)
    new_rows = memories.apply_plan(s, plan=plan, tenant_id=tenant, user_id=user, now=now, eviction=eviction)
    counts["transcripts_stale"] += forget_requests.retire_transcripts(s, tenant, user, items, plan, now)
    writes.new_rows += new_rows
    fresh = {m.memory_id for m in new_rows if m.extractor == "transcript"}
    for e, _ in group:
        if (tid := transcript_id(scope_key(tenant, user), e.episode_id)) in fresh:
            writes.statements[(tenant, user)][tid] = e.episode_id
    writes.deleted += plan.deleted
    ops: dict[int, dict[int, tuple[Op, str | None]]] = defaultdict(dict)
    for (gi, ji), op in zip(where, plan.ops, strict=True):
        ops[gi][ji] = op
        counts[f"op_{op[0].value}"] += 1
    writes.decided += [(tenant, user, e.episode_id, j.judged, ops[gi]) for gi, (e, j) in enumerate(group)]
    for e, j in group:
        counts["rejected"] += sum(1 for jd in j.judged if not jd.verdict.accepted)
        out.gate.update((jd.verdict.outcome.value, jd.verdict.reason.split(":")[0]) for jd in j.judged)
        if j.extraction_error:
            audit.record_rejected(
                s,
                kind="extraction",
                payload={"episode_id": e.episode_id},
                reason=j.extraction_error,
                now=now,
                tenant_id=tenant,
                reference=e.episode_id,
            )
            counts["extraction_rejected"] += 1
    writes.processed += [e.id for e, _ in group if e.id is not None]
    if plan.closes or plan.deleted or plan.reinforces or any(n.kind is not MemoryKind.EPISODIC for n in plan.new):
        writes.changed.append((tenant, user))
    counts["processed"] += len(group)
    counts["memories_added"] += len(new_rows)
    return forget_requests.open_deletions(s, tenant, user, items, plan, matches, now)
