"""Every statement governed: a new trusted turn meets the scope's statements nearest to it.

Rules and the parser key only some statements; the rest are transcripts nothing superseded. Here
each new transcript of a user's turn or a verified tool's result is a claim, paired with its
subject's nearest stored claims, said before or after it, and decided by the learned pair model
(:func:`~memworks.pipelines.claims.govern.govern`):

* *changed* or *ended*: the earlier transcript, and the records extracted from its turn, stop
  holding when the later one was said (``superseded_by`` the later transcript; ``as_of`` still
  sees them). Of several closings the earliest wins, and a copy said after it holds again;
* *restated*: the earlier transcript and its turn's records, if they held then, rest on the later
  turn as well (evidence grows); the later transcript, and the records its turn added, are copies
  closed where they began, not a second current copy.

So a turn redelivered late ends in the state it would have made on time. Each decision is audited
with its probability, on the later turn, beside the gate's decisions of that turn. Runs in the
ingest transaction, under the scope's lock, after the batch's records are indexed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt
from sqlmodel import Session

from memworks.models.drafts import Candidate
from memworks.models.enums import GateOutcome, MemoryKind, MemoryStatus, Op, Source
from memworks.models.tables import Memory
from memworks.pipelines.claims import ClaimText, Decision, join_sentences, read_claim
from memworks.pipelines.claims.govern import MIN_COSINE, NEIGHBOURS, ClaimPlan, Restatement, Statement, govern
from memworks.pipelines.claims.sentences import closest_views
from memworks.pipelines.claims.values import mostly_said, names, said_in
from memworks.pipelines.extraction.open_vocab.parse import Sentence
from memworks.pipelines.gate import Verdict
from memworks.pipelines.ingest import MAX_CHARS_READ, Judged, bounded_text
from memworks.pipelines.ingest.supersession import same_value
from memworks.pipelines.ingest.write_plan import Reinforce, WritePlan
from memworks.pipelines.text.spans import spans
from memworks.services.ingest.remainders import Cut, Index, holds_sentence, write_remainders
from memworks.store import audit, memories
from memworks.store.records import claims

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
    max_chars: int = MAX_CHARS_READ,
    index: Index | None = None,
) -> list[tuple[str, str]]:
    """:func:`govern_statements` for each scope of a message's write; the scopes it changed.
    ``index`` indexes the remainders of turns only a sentence of which stopped holding."""
    changed = []
    for (tenant, user), fresh in statements.items():
        done = govern_statements(
            s, tenant=tenant, user=user, fresh=fresh, parse=parse, now=now, max_chars=max_chars, index=index
        )
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
    max_chars: int = MAX_CHARS_READ,
    index: Index | None = None,
) -> ClaimsOutcome:
    """Decide the scope's new transcripts ``fresh`` (transcript id → episode id) against its
    stored statements, earlier and later, and write what the decisions say. A statement is read
    as far as its episode's extractor reads (``max_chars``): a long turn costs no more here."""
    rows = claims.statements(s, tenant_id=tenant, user_id=user)
    new_rows = [r for r in rows if r[0].memory_id in fresh]
    if not new_rows:
        return ClaimsOutcome()
    old_rows = _candidates(new_rows, [r for r in rows if r[0].memory_id not in fresh])
    episodes = dict(fresh) | claims.episodes_of(s, tenant_id=tenant, ids=[m.memory_id for m, _, _ in old_rows])
    said = claims.records_of_episodes(s, tenant_id=tenant, user_id=user, episodes=sorted(set(episodes.values())))
    read = {m.memory_id: bounded_text(m.text, max_chars) for m, _, _ in (*new_rows, *old_rows)}
    parts = {m.memory_id: _sentences(read[m.memory_id], sp) for m, _, sp in (*new_rows, *old_rows)}
    texts = [*read.values(), *(t for ps in parts.values() for t, _ in ps)]
    parsed = parse(list(dict.fromkeys(texts))) if parse is not None else {}

    def claim_of(m: Memory, text: str, v: npt.NDArray[np.float32]) -> ClaimText:
        sentence = join_sentences(list(parsed.get(text, ())), text) if parsed else None
        return read_claim(
            text, subject=m.subject or "user", said_at=m.valid_from, source=m.source.value, vector=v, sentence=sentence
        )

    def statement(m: Memory, v: npt.NDArray[np.float32]) -> Statement:
        claim = claim_of(m, read[m.memory_id], v)
        episode = episodes.get(m.memory_id, "")
        records = said.get(episode, ())
        values = tuple(r.value for r in records)
        keys = tuple(sorted({r.key for r in records if r.key}))
        sentences = tuple(claim_of(m, t, sv) for t, sv in parts[m.memory_id])
        return Statement(m.memory_id, episode, claim, values, m.valid_to, _is_copy(m), keys, sentences)

    plan = govern(
        [statement(m, v) for m, v, _ in new_rows],
        [statement(m, v) for m, v, _ in old_rows if m.memory_id in episodes],
    )
    return _apply(s, tenant, user, plan, now, {m.memory_id: m for m, _, _ in rows}, index)


def _sentences(text: str, vectors: npt.NDArray[np.float32] | None) -> list[tuple[str, npt.NDArray[np.float32]]]:
    """The sentences of a turn of several (as its vector row holds them), each with its vector;
    none for a turn of one, or one whose stored sentences do not match its text."""
    said = spans(text)
    if vectors is None or len(said) < 2 or len(vectors) != len(said):
        return []
    return list(zip(said, vectors, strict=True))


def _keyed_later(r: Restatement, held: Sequence[Memory], news: Sequence[Memory], t: datetime) -> list[Memory]:
    """The new turn's records (``news``) of what ``r`` restates that rest on the old turn as well:
    where the old turn keyed nothing, those its restating sentence says; where it did and the new
    turn is no copy, those of what the old turn said too but keyed nothing for ("I've got coeliac
    disease" beside the old turn's 'avoids gluten', both said of "I'm coeliac")."""
    if not held:
        return _said_again(news, t, r.said or r.new.claim.text)
    if r.absorbs:
        return []  # the new turn's records become copies of the old turn's
    return [m for m in _said_again(news, t, r.part or r.old.claim.text) if all(h.key != m.key for h in held)]


def _said_again(records: Sequence[Memory], t: datetime, said: str) -> list[Memory]:
    """The keyed ``records`` holding at ``t`` that ``said`` names, or half of whose words at least
    it says ("keep functions short" of 'prefers keeping functions short', "I'm coeliac" of
    'coeliac disease')."""
    return [m for m in records if m.key and _holds_at(m, t) and (said_in(said, m.value) or mostly_said(said, m.value))]


def _is_copy(m: Memory) -> bool:
    """Closed where it began: absorbed by what it restated (or never held on its own)."""
    return m.valid_to is not None and m.valid_to == m.valid_from


def _holds_at(m: Memory, t: datetime) -> bool:
    return (
        m.status in (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED)
        and not _is_copy(m)
        and (m.valid_to is None or m.valid_to > t)
    )


#: A stored statement: its record, its vector and its sentences' vectors (a turn of several).
_Row = tuple[Memory, npt.NDArray[np.float32], npt.NDArray[np.float32] | None]


def _stack(row: _Row) -> npt.NDArray[np.float32]:
    _, v, sp = row
    return v[None, :] if sp is None or sp.shape[1] != v.size else np.vstack([v[None, :], sp])


def _candidates(new_rows: Sequence[_Row], old_rows: Sequence[_Row]) -> list[_Row]:
    """The stored statements among some new one's nearest, whole or sentence by sentence (only
    those are read and parsed)."""
    if not old_rows:
        return []
    olds = [_stack(r) for r in old_rows]
    news = np.vstack([_stack(r) for r in new_rows])
    if olds[0].shape[1] != news.shape[1]:
        return []
    keep: set[int] = set()
    for column in closest_views(news, olds).T:
        order = np.argsort(-column, kind="stable")[: NEIGHBOURS * 2]
        keep |= {int(i) for i in order if column[i] >= MIN_COSINE}
    return [old_rows[i] for i in sorted(keep)]


def _apply(
    s: Session,
    tenant: str,
    user: str,
    plan: ClaimPlan,
    now: datetime,
    records: Mapping[str, Memory],
    index: Index | None,
) -> ClaimsOutcome:
    """Closings first (the earliest wins; copies said after a closing hold again), then what
    restatements and mentions of statements still holding say."""
    out = ClaimsOutcome()
    closing_eps = claims.episodes_of(s, tenant_id=tenant, ids=[c.old for c in plan.closings])
    closed_records = claims.records_of_episodes(
        s, tenant_id=tenant, user_id=user, episodes=sorted(set(closing_eps.values()))
    )
    closes: list[tuple[str, str, datetime]] = []
    cuts: list[Cut] = []
    # A sentence no longer found in its turn's text (an edit since) closes nothing.
    for c in (c for c in plan.closings if not c.part or holds_sentence(records[c.old].text, c.part)):
        closes.append((c.old, c.by, c.at))
        # A later change naming a value of the earlier turn again says that turn's fact anew
        # ("I moved to Berlin" after "I live in Berlin"): the statement closes, its records hold.
        # An ending that names it ends it ("I've stopped playing netball"). When only a sentence
        # of the turn stops holding, only the records it names do, and the rest of it holds on.
        held = [r for r in closed_records.get(closing_eps.get(c.old, ""), []) if not c.part or said_in(c.part, r.value)]
        if c.decision is Decision.ENDED or not any(names(c.new.claim.text, r.value) for r in held):
            closes += [(r.memory_id, c.by, c.at) for r in held]
        if c.part:
            cuts.append(Cut(c.old, closing_eps.get(c.old, ""), c.part, c.at))
    out.closed = claims.close_records(s, closes=closes, now=now)
    whole = {c.old for c in plan.closings if not c.part}
    write_remainders(
        s,
        tenant=tenant,
        user=user,
        cuts=[c for c in cuts if c.memory_id not in whole and c.episode_id],
        records=records,
        now=now,
        index=index,
    )
    claims.reopen_copies(s, tenant_id=tenant, closed=[(mid, at) for mid, _, at in closes])
    applied = [r for r in plan.restatements if r.applies]
    said = claims.records_of_episodes(
        s,
        tenant_id=tenant,
        user_id=user,
        episodes=sorted(
            {e for r in applied for e in (r.old.episode_id, r.new.episode_id) if e}
            | {e for m in plan.mentions for e in (m.old.episode_id, m.new.episode_id)}
        ),
    )
    reinforces: list[Reinforce] = []
    copies: list[tuple[str, str, datetime]] = []
    for r in applied:
        t = r.new.claim.said_at
        # A restated sentence of a turn of several: only the records that sentence names.
        held = [
            m for m in said.get(r.old.episode_id, []) if _holds_at(m, t) and (not r.part or said_in(r.part, m.value))
        ]
        # The fact's own records, where the old turn's were keyed, else the new turn's records of
        # it ("again pls keep functions short" keyed, "i can't stand functions longer than ~50
        # lines" not), else the old turn's transcript: one record of the fact rests on both turns.
        mine = _keyed_later(r, held, said.get(r.new.episode_id, []), t)
        if not held and not mine:
            reinforces.append(Reinforce(r.old.memory_id, (r.new.episode_id,), 1.0))
        reinforces += [Reinforce(m.memory_id, (r.new.episode_id,), m.confidence) for m in held]
        reinforces += [Reinforce(m.memory_id, (r.old.episode_id,), m.confidence) for m in mine]
        if not r.absorbs:  # the new turn says other things too: no copy of it
            continue
        copies.append((r.new.memory_id, r.old.memory_id, t))
        if held:  # the old turn's records hold the fact: the new turn's are copies of it
            kept = {h.memory_id for h in held}
            for m in (m for m in said.get(r.new.episode_id, []) if m.memory_id not in kept):
                twin = next((h for h in held if h.key == m.key and same_value(h.value, m.value)), None)
                if twin is None and m.key and any(o.key == m.key for o in said.get(r.old.episode_id, [])):
                    # A slot the old turn also keyed, whose value there no longer holds or differs,
                    # is the slot's own supersession's to decide: the new turn's value stands.
                    continue
                twin = twin or next((h for h in held if h.key == m.key), held[0])
                copies.append((m.memory_id, twin.memory_id, m.valid_from))
    for mention in plan.mentions:
        t = mention.new.claim.said_at
        same = [
            m
            for m in said.get(mention.old.episode_id, [])
            if _fold(m.value) == _fold(mention.value) and _holds_at(m, t)
        ]
        reinforces += [Reinforce(m.memory_id, (mention.new.episode_id,), m.confidence) for m in same]
        if same:  # the new turn's own record of the value would be a second copy
            copies += [
                (m.memory_id, same[0].memory_id, m.valid_from)
                for m in said.get(mention.new.episode_id, [])
                if _fold(m.value) == _fold(mention.value) and m not in same
            ]
    if reinforces:
        memories.apply_plan(s, plan=WritePlan(reinforces=reinforces), tenant_id=tenant, user_id=user, now=now)
    out.restated = len({r.new.memory_id for r in applied})
    # A statement that became a copy holds nothing its own copies could restate: they hold again
    # (and are closed below if they restate what it restated), as they would had it come on time.
    claims.reopen_copies(s, tenant_id=tenant, closed=[(r.new.memory_id, r.new.claim.said_at) for r in applied])
    claims.close_records(s, closes=copies, now=now)
    audit.record_decisions(s, decided=_audit(tenant, user, plan), now=now)
    return out


def _audit(tenant: str, user: str, plan: ClaimPlan) -> list[audit.Decided]:
    """One audited decision per closing and restatement, on the new claim's episode."""
    rows: list[audit.Decided] = []
    for c in plan.closings:
        reason = f"claims: {c.decision.value} {c.old} (p={c.probability:.2f})"
        if c.sentence:
            reason += f" by the sentence {c.sentence[:200]!r}"
        if c.part:
            reason += f", of its sentence {c.part[:200]!r}"
        cand = Candidate(text=reason, source=Source(c.new.claim.source), extractor="claims")
        judged = Judged(cand, Verdict(GateOutcome.ACCEPTED, reason, MemoryKind.EPISODIC, True))
        rows.append((tenant, user, c.new.episode_id, [judged], {0: (Op.UPDATE, c.old)}))
    for r in plan.restatements:
        how = (
            f"said again as the speaker marks it, cosine {r.probability:.2f}" if r.marked else f"p={r.probability:.2f}"
        )
        reason = f"claims: restated {r.old.memory_id} ({how})"
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
