"""Rank scoped candidates and decide whether anything answers: the learned ranker
(:mod:`~memworks.pipelines.retrieval.ranker`) with its per-type relevance floors and the check that the
evidence is about the person asked about, or reciprocal rank fusion of lexical and vector ranks
(the fallback), or one side alone (for comparison).

The store has already applied scope and time filters inside its candidate queries; this module
only orders what it was given and decides whether anything is worth answering with.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from memworks.models.enums import MemoryKind
from memworks.pipelines.retrieval.answer_types import answer_kind, kind_answered, kind_first
from memworks.pipelines.retrieval.asked_thing import THING_MIN_SIMILARITY
from memworks.pipelines.retrieval.facts import below_copied_turns, below_others, facts_meet_turns, lift_facts
from memworks.pipelines.retrieval.identifiers import ids_first, unheard_ids, unheard_names
from memworks.pipelines.retrieval.latest.now import (
    asks_latest,
    below_replaced,
    definite_terms,
    latest_first,
    says_change,
)
from memworks.pipelines.retrieval.latest.runs import latest_of_series, named_first
from memworks.pipelines.retrieval.non_answers import below_echoes, below_endings
from memworks.pipelines.retrieval.possessor import (
    below_holders,
    holders,
    known_names,
    others_only,
    people_first,
    possessor,
    says_more,
)
from memworks.pipelines.retrieval.ranker import (
    FEATURES,
    Question,
    RankerModel,
    Signals,
    about,
    content_words,
    features,
    sigmoid,
)
from memworks.pipelines.retrieval.summaries import below_parts
from memworks.pipelines.retrieval.unheard import unknown_words
from memworks.pipelines.retrieval.ways import answering_ways, asked_before, asks_way, ways_first
from memworks.pipelines.text.terms import terms

#: RRF damping constant. Lower than the usual 60: among ~100 candidates a top match on one
#: side should beat a middling one on both (measured on LoCoMo, README "Evaluation").
RRF_K = 10
#: Transcripts are evidence; a fact distilled from them should rank first.
KIND_WEIGHT: Mapping[MemoryKind, float] = {
    MemoryKind.SEMANTIC: 1.0,
    MemoryKind.PROCEDURAL: 1.0,
    MemoryKind.WORKING: 0.9,
    MemoryKind.EPISODIC: 0.8,
}
TRANSCRIPT_WEIGHT = 0.6
#: A short factual question ("What is my cat's name?") abstains when one of its words is used
#: by no record of the scope and meant by no candidate: its few words leave whole-text
#: similarity little to go on ("my name is Dana" is as close to the cat question as a true
#: answer is), but "cat" is close to nothing in it. Cosine at which a word (or word pair) means
#: what a record says: "siblings" and "User's sister is named Ines" 0.48, "family members" and
#: "User's brother is named Jonas" 0.37-0.49, "cat" and "User's name is Dana" 0.20.
WORD_MIN_SIMILARITY = 0.42
#: Cosine at which a record means the rest of a short question once the words some record
#: uses are taken out (:func:`~memworks.pipelines.retrieval.unheard.residue`): in our small stores, said
#: answers 0.30-0.48 ("Where do I exercise" and "I do yoga at Triyoga"), things never said
#: 0.20-0.22 ("What's my cat's", "What car do I drive", "What am I allergic to").
RESIDUE_MIN_SIMILARITY = 0.28
#: How much closer the residue must be for each further word of the question that nothing
#: means: "What car do I drive?" (neither word meant by anything said; its residue 0.30 to "I
#: cycle to school") asks about something never said, "Which neighbourhood do I live in?" (two
#: such words, 0.45 to "Renting a little terrace in Headingley") does not.
RESIDUE_STEP = 0.05
#: Cosine (question without the name to a record's best sentence) below which a question naming
#: someone abstains though the model's floor passes (see :func:`answers`): on our conversations,
#: questions about what nobody said 0.18-0.23 ("husband", "football team", "college"), answered
#: ones 0.27-0.69; on LoCoMo (2 conversations) 199 of 205 such questions at 0.25 or more.
NAMED_MIN_SIMILARITY = 0.25
#: Log-odds added to a record of the period a question names ("in May 2023"), beside what the
#: model learnt from the few such questions it saw: between two like records, the period decides
#: (on LoCoMo, leave-one-conversation-out: recall@1 +0.01 on temporal and single-hop questions,
#: recall@10 unchanged).
PERIOD_BOOST = 2.0


@dataclass(frozen=True)
class RankPolicy:
    """Thresholds that decide relevance; the caller passes them from settings."""

    #: Cosine similarity at or above which a hit counts on its own.
    min_similarity: float = 0.25
    #: Lower cosine floor for a hit that also matched lexically.
    min_similarity_lexical: float = 0.15
    #: ``learned`` (the model, fusion if none is given), ``fusion``; ``dense`` and ``lexical``
    #: (one side alone) exist to be compared with.
    ranker: str = "learned"
    #: Score long records by their best sentence as well as by their whole text.
    spans: bool = True
    #: Let the turns just before and after a candidate speak for it (a reply's point is often
    #: set up by the turn it answers).
    neighbors: bool = True
    #: Match the period a question names against records' event and session times.
    time: bool = True
    #: Check that the evidence is about the person the question names.
    subjects: bool = True
    #: For a question about what holds now, rank the latest of its answers first (:func:`latest_first`).
    latest: bool = True
    model: RankerModel | None = field(default=None, compare=False, repr=False)


class Candidate(Protocol):
    """What ranking reads of a record (a ``MemoryView`` has it; the read path loads only this)."""

    @property
    def memory_id(self) -> str: ...
    @property
    def kind(self) -> MemoryKind: ...
    @property
    def extractor(self) -> str: ...
    @property
    def confidence(self) -> float: ...


@dataclass(frozen=True)
class Ranked:
    memory: Candidate
    score: float
    similarity: float
    lexical_rank: int | None
    vector_rank: int | None
    #: Whom the hit's best-matching sentence is about (its speaker, or whom it addresses).
    about: str | None = None
    #: The question names someone else than the one this hit is about.
    subject_mismatch: bool = False


@dataclass(frozen=True)
class Ranking:
    """The hits of one read, best first. No hits: abstain. ``subject_mismatch``: every hit is
    about someone other than the person asked about (the question is not answered either)."""

    hits: list[Ranked]
    subject_mismatch: bool = False


def rank(
    memories: Mapping[str, Candidate],
    lexical: Sequence[str],
    similarities: Mapping[str, float],
    *,
    k: int,
    policy: RankPolicy,
) -> list[Ranked]:
    """Fuse lexical order and vector similarity; drop what is not relevant enough.

    Args:
        memories: every candidate record by id (already scope- and time-filtered).
        lexical: candidate ids in lexical (BM25) order, best first.
        similarities: cosine similarity of each candidate to the query.
        k: how many hits to return at most.
        policy: relevance thresholds.

    Returns:
        At most ``k`` hits, best first. Empty means: abstain.
    """
    lex_rank = {mid: i for i, mid in enumerate(lexical) if mid in memories}
    by_vector = sorted(similarities, key=lambda mid: -similarities[mid])
    vec_rank = {mid: i for i, mid in enumerate(by_vector) if mid in memories}
    out: list[Ranked] = []
    for mid in set(lex_rank) | set(vec_rank):
        sim = similarities.get(mid, 0.0)
        relevant = sim >= policy.min_similarity or (mid in lex_rank and sim >= policy.min_similarity_lexical)
        if not relevant:
            continue
        m = memories[mid]
        fused = sum(1.0 / (RRF_K + 1 + r) for r in (lex_rank.get(mid), vec_rank.get(mid)) if r is not None)
        weight = TRANSCRIPT_WEIGHT if m.extractor == "transcript" else KIND_WEIGHT[m.kind]
        # The cosine already counts through the vector rank; multiplying by it again let the
        # vector side outvote a top lexical match.
        score = fused * (0.5 + 0.5 * m.confidence) * weight
        out.append(Ranked(m, score, sim, lex_rank.get(mid), vec_rank.get(mid)))
    out.sort(key=lambda r: (-r.score, r.memory.memory_id))
    return out[:k]


def rank_signals(
    memories: Mapping[str, Candidate], sig: Signals, q: Question, *, k: int, policy: RankPolicy
) -> Ranking:
    """Order the candidates measured in ``sig`` with the policy's ranker and decide what answers.

    Args:
        memories: every candidate record by id (already scope- and time-filtered).
        sig: the store's measurements, aligned by ``sig.ids``.
        q: the question as read (:func:`~memworks.pipelines.retrieval.ranker.read_question`).
        k: how many hits to return at most.
        policy: which ranker, which stages, which thresholds.
    """
    if not len(sig):
        return Ranking([])
    who = about(sig) if policy.subjects and q.named else [None] * len(sig)
    mismatch = [bool(q.named and policy.subjects and w is not None and w != q.named) for w in who]
    order = np.argsort(-sig.lex, kind="stable")
    lex_rank = {sig.ids[i]: r for r, i in enumerate(i for i in order if sig.lex[i] > 0)}
    sims = sig.span if policy.spans else sig.cos
    by_vec = np.argsort(-sims, kind="stable")
    vec_rank = {sig.ids[i]: r for r, i in enumerate(by_vec)}
    at = {mid: i for i, mid in enumerate(sig.ids)}

    def hit(i: int, score: float) -> Ranked:
        mid = sig.ids[i]
        return Ranked(memories[mid], score, float(sims[i]), lex_rank.get(mid), vec_rank.get(mid), who[i], mismatch[i])

    if policy.ranker == "lexical":
        return Ranking([hit(i, float(sig.lex[i])) for i in order[:k] if sig.lex[i] > 0])
    if policy.ranker == "dense":
        return Ranking([hit(i, float(sims[i])) for i in by_vec[:k] if sims[i] >= policy.min_similarity])
    if policy.ranker != "learned" or policy.model is None:
        fused = rank(
            memories,
            [sig.ids[i] for i in order if sig.lex[i] > 0],
            {mid: float(sims[i]) for i, mid in enumerate(sig.ids)},
            k=k,
            policy=policy,
        )
        return Ranking([hit(at[r.memory.memory_id], r.score) for r in fused])
    return _learned(memories, sig, q, k, policy, policy.model, who, hit)


def _learned(
    memories: Mapping[str, Candidate],
    sig: Signals,
    q: Question,
    k: int,
    policy: RankPolicy,
    model: RankerModel,
    who: Sequence[str | None],
    hit: Callable[[int, float], Ranked],
) -> Ranking:
    x = features(q, sig, who=who)
    z = model.logits(x)
    if q.period is not None:
        z = z + PERIOD_BOOST * np.maximum(x[:, FEATURES.index("period_event")], x[:, FEATURES.index("period_session")])
    p = lift_facts(sigmoid(z), sig.source, sig.span if policy.spans else sig.cos)
    # A short question is answered unless it asks about something unheard of (its few words
    # make its score a poor guide); any other when the score clears its type's floor.
    if q.kind == "short" and unknown_words(
        q, sig, min_similarity=WORD_MIN_SIMILARITY, min_residue=RESIDUE_MIN_SIMILARITY, residue_step=RESIDUE_STEP
    ):
        return Ranking([])
    if unheard_ids(q.text, sig.unseen):
        return Ranking([])  # an order or ticket number nothing stored holds
    if unheard_names(q.text, sig.unseen, [*who, q.named], sig.texts, terms):
        return Ranking([])  # a thing named that nothing stored names
    if sig.thing is not None and len(sig.thing) == len(sig) and float(sig.thing.max()) < THING_MIN_SIMILARITY:
        return Ranking([])  # "Which terminal do we fly from?": no record names or means a terminal
    texts = sig.texts if len(sig.texts) == len(sig) else [""] * len(sig)
    # "How do I get to work?": the way one gets there now is the latest ("how" asks no other present question).
    way = asks_way(q.text)
    ways = np.zeros(len(sig), dtype=np.bool_)
    if way:  # a statement of a way of travelling answers it, of whoever the question names
        near = sig.span if policy.spans else sig.cos
        if q.named is not None and sig.unnamed is not None and len(sig.unnamed) == len(sig):
            near = np.maximum(near, sig.unnamed)  # how well it answers, the name aside
        ways = answering_ways(near, texts) & np.array([w in (None, q.named) for w in who], dtype=np.bool_)
    if not answers(q, sig, p, model, policy) and not ways.any():
        return Ranking([])
    summary = [memories[mid].extractor == "summary" for mid in sig.ids]
    if (kind := answer_kind(q.text)) is not None:  # read only for a question asking for one
        values = sig.values if len(sig.values) == len(sig) else [""] * len(sig)
        kind_texts = [f"{t} {v}" for t, v in zip(texts, values, strict=True)]
        source = sig.source if len(sig.source) == len(sig) else np.full(len(sig), -1)
        keys = sig.keys if len(sig.keys) == len(sig) else [None] * len(sig)
        if not kind_answered(kind, q.text, p, kind_texts, keys, summary, source):
            return Ranking([])  # "What is the name of my dentist?": nothing said names one
    weight = np.array([_prior(memories[mid]) for mid in sig.ids])
    score = p * weight
    score = below_copied_turns(score, sig.source, sig.values, texts, summary)  # a tool's result once, as its record
    # Judged only where the store measured the candidates against the thing's word.
    owned = sig.owned.tolist() if policy.subjects and sig.owned is not None and len(sig.owned) == len(sig) else None
    owner = possessor(q.text) if owned is not None else frozenset()
    # Each candidate's index terms, read once for the two stages that weigh them.
    present = q.present or (way and not asked_before(q.text))
    words = [frozenset(terms(t)) for t in texts] if owner or (present and policy.latest) else []
    if owner:
        # A record naming the thing by the name a keyed record gives it mentions it ("Ines").
        names = known_names(owner, sig.keys, sig.values) if len(sig.keys) == len(sig.values) == len(sig) else None
        words = [w | owner if names and w & names else w for w in words]
        held = holders(owner, words, owned, sig.keys if len(sig.keys) == len(sig) else None)
        if not q.named:  # "What's my cat called?": Niamh's cat, minded for a week, is not the user's
            held = [h and not others_only(owner, texts[i]) for i, h in enumerate(held)]
        if q.named and policy.subjects:
            # Jess's sister is no one else's: a holder about another person does not hold it.
            held = [h and who[i] in (None, q.named) for i, h in enumerate(held)]
            # ... nor does a summary, about whoever its lines are, unless a record it sums up does.
            parts = sig.parts if len(sig.parts) == len(held) else [()] * len(held)
            held = [any(held[j] for j in parts[i]) if parts[i] else h for i, h in enumerate(held)]
        if not any(held):
            return Ranking([])  # nothing said is about the dog (or sister) the question asks about
        held = says_more(owner, held, sig.values, sig.facts.tolist(), texts, q.text)
        score = below_holders(score, held)
    if q.named and policy.subjects and sig.unnamed is not None and len(sig.unnamed) == len(sig):
        whole = sig.unnamed_whole if sig.unnamed_whole is not None and len(sig.unnamed_whole) == len(sig) else None
        score = facts_meet_turns(score, sig.facts, sig.unnamed, [w == q.named for w in who], whole)
    score = ways_first(score, ways)  # a way of travelling answers it, the workplace does not
    if present and policy.latest:
        # A named person's records all share the name: how well each answers is judged without it.
        sims = sig.span if policy.spans else sig.cos
        if q.named is not None and sig.unnamed is not None and len(sig.unnamed) == len(sig):
            sims = sig.unnamed
        if sig.renamed is not None and len(sig.renamed) == len(sig):
            sims = np.maximum(sims, sig.renamed)
        # Every way of getting there answers a question of the way as well as any other.
        sims = np.where(ways, 1.0, sims)
        changed = [says_change(t) for t in texts]
        asked = frozenset(t for _, t in content_words(q.text))
        covers = [asked & w for w in words]
        score = latest_first(
            score,
            sims,
            sig.session_at,
            who,
            sig.source,
            summary,
            sig.parts,
            changed,
            covers,
            words,
            [definite_terms(t) if c else frozenset() for t, c in zip(texts, changed, strict=True)],
            sig.subjects,
            anywhere=q.named is None,
        )
        score = below_replaced(score, sig.keys, sig.replaced, summary)
        score = below_endings(score, q.text, texts, sig.best_span, sig.facts, summary)  # "I stopped ..."
        if asks_latest(q.text):
            score = latest_of_series(score, sig.keys, texts, sig.session_at, summary, q.text, sig.reported.tolist())
    score = people_first(score, q.text, sig.subjects)
    if policy.subjects and len(sig.keys) == len(sig) and (q.named or q.names_user):
        score = below_others(score, sig.keys, sig.subjects, q.named, summary)  # not Lars's words for Ngozi's
    score = below_echoes(score, q.asked or q.text, sig.values, sig.facts, summary)  # "Dev's daughter?": not 'Dev'
    if kind is not None:  # "What's her email address?": a record holding one, before one about her address
        score = kind_first(score, kind, q.text, kind_texts, source)
    score = named_first(score, q.text, sig.keys, texts, sig.reported.tolist(), sig.values)  # "Which flight?"
    score = ids_first(score, q.text, texts, sig.keys)  # the ticket the question names, before any other
    score = below_parts(score, sig.parts, sig.span if policy.spans else sig.cos)
    order = sorted(range(len(sig)), key=lambda i: (-score[i], sig.ids[i]))
    if q.named and policy.subjects:
        content = model.logits(x, content_only=True)
        theirs = [content[i] for i, w in enumerate(who) if w == q.named]
        others = [content[i] for i, w in enumerate(who) if w is not None and w != q.named]
        lead = max(others) - (max(theirs) if theirs else -np.inf) if others else -np.inf
        if others and not ways.any() and (lead >= model.mismatch_margin or not means_theirs(sig, who, q.named, policy)):
            # The best evidence is about someone else, or only someone else's means the question
            # ("What instrument does Nadia play?": "Omar is learning piano"): say so, and offer
            # nothing as theirs.
            flagged = [hit(i, float(score[i])) for i in order if who[i] is not None and who[i] != q.named]
            return Ranking(flagged[:k], subject_mismatch=True)
    return Ranking([hit(i, float(score[i])) for i in order[:k]])


def answers(q: Question, sig: Signals, p: npt.NDArray[np.float64], model: RankerModel, policy: RankPolicy) -> bool:
    """Whether the best candidate clears the bar of the question's type (a short question's
    unheard-of words are checked apart).

    A question naming someone must also have a record that means what it asks without the
    name (``sig.unnamed``, measured by ``retrieval.measure``): every record of that person
    shares the subject features and the name, so the model's floor passes records that answer
    nothing ("Does Nadia have a husband?": "Nadia works at the Royal Free").
    """
    floor = q.kind == "short" or float(p.max()) >= model.floor(q.kind)
    if floor and q.kind == "named" and policy.subjects:
        sims = sig.unnamed if sig.unnamed is not None and len(sig.unnamed) else sig.span if policy.spans else sig.cos
        return float(np.max(sims)) >= NAMED_MIN_SIMILARITY
    return floor


def means_theirs(sig: Signals, who: Sequence[str | None], named: str, policy: RankPolicy) -> bool:
    """Whether a candidate about the person named (or about no one known) means what the question
    asks without the name (:data:`NAMED_MIN_SIMILARITY`, as :func:`answers` asks of any)."""
    sims = sig.unnamed if sig.unnamed is not None and len(sig.unnamed) else sig.span if policy.spans else sig.cos
    mine = [float(s) for s, w in zip(sims, who, strict=False) if w is None or w == named]
    return bool(mine) and max(mine) >= NAMED_MIN_SIMILARITY


def _prior(m: Candidate) -> float:
    """How much a record's kind counts beside a transcript's (a distilled fact ranks above the
    turn it came from), times its confidence."""
    weight = 1.0 if m.extractor == "transcript" else KIND_WEIGHT[m.kind] / TRANSCRIPT_WEIGHT
    return weight * (0.5 + 0.5 * m.confidence)
