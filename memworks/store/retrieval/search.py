"""The read path: scope and time filters in the candidate queries, then rank or abstain.

A read measures each candidate (BM25 and how much of the question it covers, cosine to the
whole text and to its best sentence, the neighbouring turns' scores, who said it and when)
and hands that to the ranking pipeline, which orders, abstains, or says the evidence is about
someone else than the person asked about.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import Row, and_, or_, select
from sqlmodel import Session, col

from memworks.models.enums import Role, Source
from memworks.models.schemas import HitOut, ProfileOut, RetrieveResult, Scope
from memworks.models.tables import Memory
from memworks.pipelines.ingest import MAX_CHARS_READ, bounded_text
from memworks.pipelines.protocols import Embedder
from memworks.pipelines.retrieval.asked_thing import asked_thing, thing_name
from memworks.pipelines.retrieval.latest.now import asks_latest, asks_now, lexical_query
from memworks.pipelines.retrieval.names import as_user, without_name
from memworks.pipelines.retrieval.possessor import named_question, owned_word
from memworks.pipelines.retrieval.ranker import Question, Signals, read_question
from memworks.pipelines.retrieval.ranking import Ranking, RankPolicy, rank_signals
from memworks.pipelines.retrieval.timerange import TimeRange, answer_time
from memworks.pipelines.retrieval.unheard import phrases, residue
from memworks.pipelines.text.terms import terms
from memworks.store import memories, turns
from memworks.store.memories import chunks
from memworks.store.projections import lexical, vector
from memworks.store.retrieval.filters import visible
from memworks.store.retrieval.heirs import heirs

#: Records of the period a question names added as candidates (the closest to the question),
#: and how many of the period's records are looked at to find them.
PERIOD_CANDIDATES, PERIOD_SCAN = 30, 2000


def search(
    s: Session,
    scope: Scope,
    query: str,
    qvec: npt.NDArray[np.float32] | None,
    *,
    as_of: datetime | None,
    known_at: datetime | None,
    k: int,
    embedder: Embedder,
    policy: RankPolicy,
    now: datetime,
    version: tuple[int, int],
    asked_at: datetime,
    profile_for: Callable[[npt.NDArray[np.float32]], ProfileOut] | None = None,
) -> RetrieveResult:
    """Hits with provenance for ``query`` (embedded as ``qvec``, or here when None) in ``scope``,
    or an abstention: candidates filtered by scope and time, measured, then ranked.
    ``profile_for``: the profile for the question, given its vector, for the result to carry."""
    where = visible(scope, now=now, as_of=as_of, known_at=known_at)
    q, sig, fields = measure(
        s,
        scope,
        query,
        qvec,
        where=where,
        version=version,
        policy=policy,
        asked_at=asked_at,
        present=as_of is None and known_at is None,
        embedder=embedder,
        now=now,
    )
    ranking = rank_signals(fields, sig, q, k=k, policy=policy)
    # Whole rows and evidence for the hits only, not for every candidate.
    top = [r.memory.memory_id for r in ranking.hits]
    rows = {m.memory_id: m for m in memories.get_rows(s, ids=top)}
    evidence = memories.evidence_of(s, tenant_id=scope.tenant_id, ids=top)
    result = _result(ranking, rows, evidence, sig, query)
    if profile_for is not None:
        result.profile = profile_for(sig.question_vector)
    return result


def measure(
    s: Session,
    scope: Scope,
    query: str,
    qvec: npt.NDArray[np.float32] | None,
    *,
    where: list[Any],
    version: tuple[int, int],
    policy: RankPolicy,
    asked_at: datetime,
    present: bool,
    embedder: Embedder | None = None,
    now: datetime | None = None,
) -> tuple[Question, Signals, dict[str, Row[Any]]]:
    """The question as read and every candidate's measurements (also what the ranker is trained on).

    Candidates: the best BM25 matches, the best vector matches, and, when the question names a
    period, the records of that period that are closest to it. ``now``: a present read's time
    (its visibility is then settled from the scope's cached index, with no SQL).
    """
    layout = turns.layout(s, scope, version) if (policy.neighbors or policy.subjects) else None
    asked = query
    if layout is not None and layout.user_names:
        query = as_user(query, layout.user_names)  # "What car does Tomasz have?" of Tomasz's own store
    q = read_question(
        query, subjects=layout.subjects if layout is not None and policy.subjects else (), asked_at=asked_at
    )
    if not policy.time:
        q = Question(q.text, q.named, q.asks_when, None, q.kind)
    q = replace(q, present=present and q.period is None and (asks_now(query) or asks_latest(query)), asked=asked)
    lex = lexical.score(s, scope=scope, query=lexical_query(query, present=q.present), version=version)
    unseen = lex.unseen if lex is not None else frozenset(t for _, t in q.words)
    more = _Extra.of(query, q, unseen) if embedder is not None else _Extra()
    # The question and the extra texts this read embeds go to the model in one batch: a second
    # call cost the reads that made one about 2 ms each (fastest of five runs at 10k records).
    texts = ([query] if qvec is None else []) + more.texts()
    if texts:
        assert embedder is not None, "measure needs an embedder when it is not given the question's vector"
        batch = embedder.embed(texts)
        if qvec is None:
            qvec, batch = batch[0], batch[1:]
        more.take(batch)
    assert qvec is not None
    lex_ids = lexical.top(s, lex, where=where, present=present, now=now) if lex is not None else []
    period = _in_period(s, where, q.period) if q.period is not None else []
    vec = vector.score(s, scope=scope, query=qvec, version=version, spans=policy.spans, also=[*lex_ids, *period])
    vec_ids = vector.top(s, vec, where=where, present=present, now=now)
    closest = sorted(period, key=lambda m: -(vec.of(m) or (0.0, -1.0))[1])[:PERIOD_CANDIDATES]
    # A question about now, meant best by what was replaced: what replaced it answers in its place.
    # Not of a named person: a conversation between people closes too much of what the other said.
    inherited = heirs(s, vec) if q.present and policy.latest and q.named is None else {}
    ids = list(dict.fromkeys([*lex_ids, *vec_ids, *closest, *inherited]))
    if present and layout is not None and layout.outdated:
        ids = [m for m in ids if m not in layout.outdated]  # its record's successor answers now
    fields = {r.memory_id: r for r in _rank_fields(s, ids)}
    ids = [m for m in ids if m in fields]
    sig = _signals(ids, fields, lex, vec, layout, policy)
    # ... unless a slot's current record answers it as closely: the slot still holds the answer.
    keyed = max((float(sig.span[i]) for i, k in enumerate(sig.keys) if k), default=0.0)
    for i, mid in enumerate(ids):
        if (sim := inherited.get(mid, 0.0)) > keyed:
            sig.cos[i], sig.span[i] = max(sig.cos[i], sim), max(sig.span[i], sim)
    sig.unseen = unseen
    sig.question_vector = qvec
    if (rest := more.vector("rest")) is not None:
        unnamed = vector.score(s, scope=scope, query=rest, version=version, spans=policy.spans, also=ids)
        sig.unnamed = np.array([(unnamed.of(m) or (0.0, 0.0))[1] for m in ids])
        sig.unnamed_whole = np.array([(unnamed.of(m) or (0.0, 0.0))[0] for m in ids])
    if (word := more.vector("word")) is not None:
        owned = vector.score(s, scope=scope, query=word, version=version, spans=True, also=ids)
        sig.owned = np.array([(owned.of(m) or (0.0, 0.0))[1] for m in ids])
        # In a present read of a relative or animal a keyed record names, the question asked of
        # it by that name ("Where does Ines live?"): her news said by name ("Ines moved to
        # Copenhagen") means it as well. It needs the candidates, so it is embedded only then.
        if embedder is not None and q.present and (renamed := named_question(query, sig.keys, sig.values)):
            by_name = vector.score(
                s, scope=scope, query=embedder.embed([renamed])[0], version=version, spans=policy.spans, also=ids
            )
            sig.renamed = np.array([(by_name.of(m) or (0.0, 0.0))[1] for m in ids])
    if (thing := more.vector("thing")) is not None:
        meant = vector.score(s, scope=scope, query=thing, version=version, spans=True, also=ids)
        sig.thing = np.array([(meant.of(m) or (0.0, 0.0))[1] for m in ids])
    if (short := more.vectors_of("short")) is not None:
        e = vec.matrix
        rows = [e.index[m] for m in ids if m in e.index]
        # The candidates' whole texts and their sentences: a word may mean one sentence of a turn.
        sentences = [e.spans[e.start[i] : e.start[i] + e.count[i]] for i in rows if e.count[i]]
        sig.vectors = np.concatenate([e.matrix[rows], *sentences]) if rows else np.zeros((0, 0), dtype=np.float32)
        sig.phrase_vectors = short
    return q, sig, fields


@dataclass
class _Extra:
    """What a read embeds besides its question, known before its candidates are:

    * ``rest``: a question naming someone, without the name (:func:`names.without_name`).
      Whether some record means what it asks is measured without the name. Only for that: the
      ranker learnt its features with the name in the question, and fed the question without
      it, it left 0.09 of LoCoMo's answerable questions unanswered (was 0.02) and lost recall.
    * ``word``: the owned thing of "What's my dog's name?": which candidates mean the dog, even
      without the word ("an old border collie called Loke")?
    * ``short``: a short question with a word no record uses: its words and pairs, and what is
      left of it (:func:`phrases`, :func:`residue`): does some candidate mean them?
    * ``thing``: any other question whose asked-for thing no record names ("Which terminal do we
      fly from?", :func:`asked_thing`): does some candidate mean it?
    """

    parts: dict[str, list[str]] = field(default_factory=dict)
    #: Each part's vectors, once embedded (:meth:`take`).
    got: dict[str, npt.NDArray[np.float32]] = field(default_factory=dict)

    @classmethod
    def of(cls, query: str, q: Question, unseen: frozenset[str]) -> _Extra:
        parts: dict[str, list[str]] = {}
        if q.named is not None and terms(rest := without_name(query, q.named)):
            parts["rest"] = [rest]
        if word := owned_word(query):
            parts["word"] = [word]
        if q.words and any(t in unseen for _, t in q.words):
            parts["short"] = [*phrases(q.words), residue(q.text, unseen)]
        elif (thing := asked_thing(query)) is not None and (said := set(terms(thing))) and said <= unseen:
            # Meant by the thing's whole name: "operating systems" is near "linux and macos",
            # "systems" alone is near nothing.
            parts["thing"] = [thing_name(query) or thing]
        return cls(parts)

    def texts(self) -> list[str]:
        return [t for texts in self.parts.values() for t in texts]

    def take(self, vectors: npt.NDArray[np.float32]) -> None:
        """Split the vectors of :meth:`texts`, in their order, among the parts."""
        start = 0
        for name, texts in self.parts.items():
            self.got[name] = vectors[start : start + len(texts)]
            start += len(texts)

    def vectors_of(self, name: str) -> npt.NDArray[np.float32] | None:
        return self.got.get(name)

    def vector(self, name: str) -> npt.NDArray[np.float32] | None:
        found = self.vectors_of(name)
        return None if found is None else found[0]


def _in_period(s: Session, where: list[Any], period: TimeRange) -> list[str]:
    """Visible records whose event or session time falls in a bounded ``period`` (at most
    :data:`PERIOD_SCAN`); an open-ended one ("as of May") selects too much to help."""
    if period.start.year <= 1 or period.end.year >= 9999:
        return []
    inside = or_(
        and_(col(Memory.event_at) >= period.start, col(Memory.event_at) < period.end),
        and_(col(Memory.valid_from) >= period.start, col(Memory.valid_from) < period.end),
    )
    return list(s.scalars(select(col(Memory.memory_id)).where(*where, inside).limit(PERIOD_SCAN)))


def _rank_fields(s: Session, ids: list[str]) -> list[Row[Any]]:
    cols = (
        col(Memory.memory_id),
        col(Memory.kind),
        col(Memory.extractor),
        col(Memory.confidence),
        col(Memory.subject),
        col(Memory.event_at),
        col(Memory.valid_from),
        col(Memory.valid_to),
        col(Memory.text),
        col(Memory.value),
        col(Memory.key),
        col(Memory.source),
    )
    return [r for chunk in chunks(ids) for r in s.execute(select(*cols).where(cols[0].in_(chunk)))]


def _signals(
    ids: list[str],
    fields: dict[str, Row[Any]],
    lex: lexical.Scores | None,
    vec: vector.Scores,
    layout: turns.Layout | None,
    policy: RankPolicy,
) -> Signals:
    def lex_of(mid: str | None) -> tuple[float, float]:
        return lex.of(mid) if lex is not None and mid is not None else (0.0, 0.0)

    def vec_of(mid: str | None) -> tuple[float, float]:
        return (vec.of(mid) if mid is not None else None) or (0.0, 0.0)

    def near(mids: list[str | None], side: str) -> npt.NDArray[np.float64]:
        if not policy.neighbors:
            return np.full(len(mids), math.nan)
        at = 0 if side == "lex" else 1
        return np.array([(lex_of(m) if at == 0 else vec_of(m))[at] if m is not None else math.nan for m in mids])

    rows = [fields[m] for m in ids]
    at = {m: i for i, m in enumerate(ids)}
    source = [at.get(layout.source.get(m, ""), -1) if layout else -1 for m in ids]
    parts = [tuple(at[x] for x in layout.parts.get(m, ()) if x in at) for m in ids] if layout else []
    lengths = lex.index.lengths if lex is not None else None
    prev = [layout.prev.get(m) if layout else None for m in ids]
    nxt = [layout.next.get(m) if layout else None for m in ids]
    return Signals(
        ids=ids,
        lex=np.array([lex_of(m)[0] for m in ids]),
        cover=np.array([lex_of(m)[1] for m in ids]),
        cos=np.array([vec_of(m)[0] for m in ids]),
        span=np.array([vec_of(m)[1] for m in ids]),
        best_span=np.array([vec.best_span(m) if policy.spans else -1 for m in ids], dtype=np.int64),
        length=np.array([_length(lex, lengths, m) for m in ids]),
        texts=[r.text for r in rows],
        values=[r.value for r in rows],
        keys=[r.key for r in rows],
        replaced=[layout.replaced.get(m, frozenset()) if layout else frozenset() for m in ids],
        subjects=[_subject(r, layout) for r in rows],
        addressees=[layout.addressee(m) if layout else None for m in ids],
        event_at=[r.event_at or r.valid_from for r in rows],
        session_at=[r.valid_from for r in rows],
        timed=np.array([r.event_at is not None for r in rows], dtype=np.bool_),
        valid_to=[r.valid_to for r in rows],
        facts=np.array([r.extractor != "transcript" for r in rows], dtype=np.bool_),
        reported=np.array([r.source == Source.VERIFIED_TOOL for r in rows], dtype=np.bool_),
        prev_lex=near(prev, "lex"),
        prev_span=near(prev, "vec"),
        next_lex=near(nxt, "lex"),
        next_span=near(nxt, "vec"),
        source=np.array(source, dtype=np.int64),
        parts=parts,
    )


def _subject(row: Row[Any], layout: turns.Layout | None) -> str | None:
    """Who a candidate is about: its record's subject, else its turn's speaker; the user's own
    name, where they speak under it, is the user."""
    who = row.subject or (layout.speaker.get(row.memory_id) if layout else None)
    return Role.USER.value if layout is not None and who is not None and who == layout.own else who


def _length(lex: lexical.Scores | None, lengths: npt.NDArray[np.float64] | None, mid: str) -> float:
    i = lex.index.index.get(mid) if lex is not None else None
    return float(lengths[i]) if lengths is not None and i is not None else 0.0


#: What a hit copies from its row; the rest is the read's (scores, whom it is about, evidence).
_HIT_ROW_FIELDS = tuple(f for f in HitOut.model_fields if f in Memory.model_fields and f not in ("evidence", "subject"))


def _result(
    ranking: Ranking, rows: dict[str, Memory], evidence: dict[str, list[str]], sig: Signals, query: str
) -> RetrieveResult:
    at = {mid: i for i, mid in enumerate(sig.ids)}
    hits = []
    for r in ranking.hits:
        m = rows[r.memory.memory_id]
        i = at[m.memory_id]
        # A turn that names several times tells the question the one of the part that answers it.
        told = (
            answer_time(bounded_text(m.text, MAX_CHARS_READ), query, m.valid_from)
            if m.extractor == "transcript"
            else None
        )
        hits.append(
            HitOut(
                **{f: getattr(m, f) for f in _HIT_ROW_FIELDS} | ({"event_at": told} if told else {}),
                evidence=evidence.get(m.memory_id, []),
                score=round(r.score, 6),
                similarity=round(r.similarity, 4),
                subject=sig.subjects[i],
                about=r.about,
                subject_mismatch=r.subject_mismatch,
                event_time=told or sig.event_at[i],
            )
        )
    return RetrieveResult(abstained=not hits, hits=hits, subject_mismatch=ranking.subject_mismatch and bool(hits))
