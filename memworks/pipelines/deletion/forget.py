"""Forget requests said in conversation: matched by meaning to what the user said, then erased.

A request ("forget my old address", "forget what I told you about my ex", "forget about the
cello") carries the topic's words (:class:`~memworks.models.drafts.ForgetRequest`). It is matched
against every record of the user's scope (keyed slots, open-vocabulary claims and transcripts of
the turns, history included) and against what was said earlier in the same batch, by meaning and
words (:mod:`memworks.pipelines.deletion.forget_match`). A slot whose key and values hold every topic
word is still named by key (its whole history goes, as before). Everything a request matched
becomes one deletion with a manifest, which the ingest layer opens; the request's own turn goes
with it. When nothing matches, the request becomes a ``pending_confirmation`` record the user can
see in their memory (``<person>.forget_request``), never an active statement and never retrieved.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from memworks.models.drafts import Candidate
from memworks.models.enums import CandidateOp, GateOutcome, MemoryKind, Source
from memworks.pipelines.deletion.forget_match import (
    DEFAULT_THRESHOLDS,
    Known,
    Thresholds,
    match_topic,
    query_text,
    read_topic,
)
from memworks.pipelines.deletion.told import told_then, told_within
from memworks.pipelines.extraction.tools.results import KEY_PREFIX as TOOL_KEY
from memworks.pipelines.gate import Verdict
from memworks.pipelines.ingest.slots import Keyed, index_text, match_forget_topic
from memworks.pipelines.ingest.supersession import is_forget_request
from memworks.pipelines.ingest.write_plan import Accepted
from memworks.pipelines.protocols import Embedder
from memworks.pipelines.text.spans import spans

__all__ = [
    "PENDING_REASON",
    "ForgetMatch",
    "Resolution",
    "forget_key",
    "needs_matching",
    "resolve_forget_requests",
]

#: The gate reason a request that matched nothing is kept with.
PENDING_REASON = "forget request: nothing remembered matches its topic; kept pending for the user to see"


@dataclass(frozen=True)
class ForgetMatch:
    """What one request matched beyond slot keys: stored records, and items of the batch (by
    position in :attr:`Resolution.items`) whose records are written with it."""

    memory_ids: tuple[str, ...] = ()
    batch: tuple[int, ...] = ()


@dataclass
class Resolution:
    """The batch with its topic requests resolved."""

    #: ``(index in the input, item)`` pairs in order; an index repeats when a request matched
    #: several slots (one keyed retraction each).
    items: list[tuple[int, Accepted]] = field(default_factory=list)
    #: By position in :attr:`items`: what the request there matched by meaning.
    matches: dict[int, ForgetMatch] = field(default_factory=dict)


def needs_matching(item: Accepted) -> bool:
    """A forget request with a topic: matched by meaning (and, without a slot, to slots)."""
    c = item.candidate
    return is_forget_request(c) and c.forget is not None


def forget_key(c: Candidate) -> str:
    """The key of a pending request's record: ``user.forget_request``, ``person.<name>.forget_request``."""
    return f"{c.extra.get('subject') or 'user'}.forget_request"


def resolve_forget_requests(
    items: Sequence[Accepted],
    stored: Iterable[Keyed],
    known: Sequence[Known] = (),
    *,
    embedder: Embedder | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    speakers: Mapping[str, str] | None = None,
) -> Resolution:
    """Match every topic request of the batch; replace one that matched no slot and nothing
    else by a pending record.

    Args:
        items: accepted candidates of one scope, in event order.
        stored: the scope's keyed records (history included, deleted ones left out).
        known: the scope's stored records with their vectors (pending requests left out).
        embedder: embeds topics and the batch's earlier statements; None matches slots only.
        thresholds: the calibrated similarities of :mod:`.forget_match`.
        speakers: the named speaker of each of the batch's episodes that has one (by episode id):
            a request matches only what its speaker (or nobody named) said.
    """
    seen: list[Keyed] = list(stored)
    said_by = dict(speakers or {})
    batch = _BatchRecords(items, embedder, said_by)
    out = Resolution()
    done: dict[tuple[str, str], ForgetMatch] = {}  # (episode, topic): one match per request
    slots: dict[tuple[str, str], list[str]] = {}  # the slots each request names by key
    for i, item in enumerate(items):
        c = item.candidate
        if not needs_matching(item):
            if c.op is CandidateOp.ASSERT and c.key:
                seen.append(c)  # said earlier in the batch: a request later in it can name it
            continue
        assert c.forget is not None
        if (ident := (item.episode_id, c.forget.topic)) not in done:
            done[ident] = _by_meaning(item, known, batch.before(i), embedder, thresholds, said_by.get(item.episode_id))
            slots[ident] = [k for k in match_forget_topic(c.forget, seen) if not k.endswith(".forget_request")]
    pool = {k.ref: k for k in [*known, *batch.before(len(items))]} if done else {}
    pointed = {ident: _pointed(ident, done, slots, pool) for ident in done}
    done = {ident: one_object(ident, done, pointed[ident], pool) for ident in done}
    for i, item in enumerate(items):
        c = item.candidate
        if not needs_matching(item):
            out.items.append((i, item))
            continue
        assert c.forget is not None
        ident = (item.episode_id, c.forget.topic)
        found = done[ident]
        keys = [] if c.key else one_object_keys(c.forget.topic, slots[ident], pointed[ident])
        if c.key or keys or found.memory_ids or found.batch:
            first = len(out.items)
            if keys:
                out.items += [(i, replace(item, candidate=c.model_copy(update={"key": k}))) for k in keys]
            else:
                out.items.append((i, item))
            out.matches[first] = found
            continue
        out.items.append((i, _pending(item)))
    position: dict[int, int] = {}
    for p, (i, _) in enumerate(out.items):
        position.setdefault(i, p)
    out.matches = {
        p: replace(m, batch=tuple(position[j] for j in m.batch if j in position)) for p, m in out.matches.items()
    }
    return out


def _by_meaning(
    item: Accepted,
    known: Sequence[Known],
    earlier: Sequence[Known],
    embedder: Embedder | None,
    thresholds: Thresholds,
    speaker: str | None,
) -> ForgetMatch:
    c = item.candidate
    if embedder is None or c.forget is None:
        return ForgetMatch()
    topic = read_topic(c.forget)
    query = embedder.embed([query_text(c.forget)])[0]
    pool = [k for k in [*known, *earlier] if item.episode_id not in k.episodes]
    refs: set[str] = set()
    if (window := told_within(c.forget.told, item.valid_from)) is not None:
        # "what I said last week about ...": what the speaker told then (not the assistant's
        # reply to it), where the topic's few words ("where I go on Thursdays") need less to
        # point at one statement of the few.
        then = [k for k in pool if window[0] <= k.said_at <= window[1] and k.source in ("", Source.USER.value)]
        refs = set(match_topic(topic, query, then, thresholds=told_then(thresholds), speaker=speaker))
    refs = refs or set(match_topic(topic, query, pool, thresholds=thresholds, speaker=speaker))
    if topic.earlier:
        # A slot named by id is erased whole (its current value too): what no longer holds goes
        # through the turns that said it, which take the claims resting only on them.
        refs -= {k.ref for k in pool if k.key is not None}
    return ForgetMatch(
        memory_ids=tuple(k.ref for k in known if k.ref in refs),
        batch=tuple(int(k.ref[1:]) for k in earlier if k.ref in refs),
    )


#: Words that open a topic naming one thing: "the calendar entry", "that booking".
_DEFINITE = frozenset({"the", "that", "this"})


def _one_thing(topic: str) -> bool:
    """``topic`` names one thing: a definite noun phrase whose last word is not a plural
    ("the calendar entry"; not "the emails", not "my address", which may have had several values)."""
    words = topic.casefold().split()
    last = words[-1] if words else ""
    plural = last.endswith("s") and not last.endswith(("ss", "us", "is"))
    return len(words) >= 2 and words[0] in _DEFINITE and not plural


def _tool_object(k: Known) -> str | None:
    key = k.key or ""
    return key if key.startswith(TOOL_KEY) else None


def _refs(m: ForgetMatch, pool: Mapping[str, Known]) -> list[str]:
    return [r for r in (*m.memory_ids, *(f"#{j}" for j in m.batch)) if r in pool]


def _pointed(
    ident: tuple[str, str],
    done: Mapping[tuple[str, str], ForgetMatch],
    slots: Mapping[tuple[str, str], Sequence[str]],
    pool: Mapping[str, Known],
) -> set[str]:
    """The objects a tool reported on that the same turn's other requests are about: matched by
    meaning ("forget the recruiter thing": its calendar event) or named by slot key."""
    episode, topic = ident
    others = [(t, m) for (ep, t), m in done.items() if ep == episode and t != topic]
    found = {o for _, m in others for r in _refs(m, pool) if (o := _tool_object(pool[r]))}
    named = {k for t, _ in others for k in slots.get((episode, t), ()) if k.startswith(TOOL_KEY)}
    return found | named


def one_object(
    ident: tuple[str, str], done: Mapping[tuple[str, str], ForgetMatch], pointed: set[str], pool: Mapping[str, Known]
) -> ForgetMatch:
    """A request naming one thing ("Delete the calendar entry too.") that matched what a tool
    reported on (the calendar's events) means the object the same turn's other request is about
    (``pointed``: "forget the recruiter thing", its event), not every event like it: the family's
    swim lesson stays. With no other request to point at one, a match over several objects is
    ambiguous and erases none of them: nothing matched leaves the request pending, for the user
    to see what it looked for."""
    episode, topic = ident
    found = done[ident]
    if not _one_thing(topic):
        return found
    mine = _refs(found, pool)
    objects = {o for r in mine if (o := _tool_object(pool[r]))}
    if not objects or (not pointed and len(objects) == 1):
        return found
    if not pointed:
        return ForgetMatch()
    # The turns that reported on an object not pointed at are about that object alone.
    dropped = {e for r in mine if _tool_object(pool[r]) not in (None, *pointed) for e in pool[r].episodes}
    kept = [r for r in mine if _tool_object(pool[r]) in (None, *pointed) and not set(pool[r].episodes) & dropped]
    others = [r for (ep, t), m in done.items() if ep == episode and t != topic for r in _refs(m, pool)]
    kept += [r for r in others if _tool_object(pool[r]) in pointed and r not in kept]
    return ForgetMatch(
        memory_ids=tuple(r for r in kept if not r.startswith("#")),
        batch=tuple(int(r[1:]) for r in kept if r.startswith("#")),
    )


def one_object_keys(topic: str, keys: Sequence[str], pointed: set[str]) -> list[str]:
    """The slots a request naming one thing erases by key: of several objects a tool reported on
    ("the booking" when three were made), those the turn's other requests point at, else none."""
    tools = {k for k in keys if k.startswith(TOOL_KEY)}
    if not _one_thing(topic) or (len(tools) < 2 and not pointed):
        return list(keys)
    return [k for k in keys if not k.startswith(TOOL_KEY) or k in pointed]


def _pending(item: Accepted) -> Accepted:
    c = item.candidate
    assert c.forget is not None
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
    return replace(item, candidate=pending, verdict=verdict)


class _BatchRecords:
    """The batch's statements as records a later request may match, embedded on first use."""

    def __init__(self, items: Sequence[Accepted], embedder: Embedder | None, speakers: Mapping[str, str]) -> None:
        self.items, self.embedder, self.speakers = items, embedder, speakers
        self.known: list[Known] | None = None

    def before(self, i: int) -> list[Known]:
        """The statements said before item ``i`` (requests aside)."""
        if self.embedder is None:
            return []
        if self.known is None:
            self.known = self._embed()
        return [k for k in self.known if int(k.ref[1:]) < i]

    def _embed(self) -> list[Known]:
        assert self.embedder is not None
        picked = [
            (j, a)
            for j, a in enumerate(self.items)
            if a.candidate.op is CandidateOp.ASSERT and not is_forget_request(a.candidate) and a.candidate.text
        ]
        texts = [index_text(a.candidate.key, a.candidate.text) for _, a in picked]
        parts = [[t, *spans(t)] for t in texts]
        flat = [t for p in parts for t in p]
        vectors = self.embedder.embed(flat) if flat else np.zeros((0, self.embedder.dim), dtype=np.float32)
        out, at = [], 0
        for (j, a), p in zip(picked, parts, strict=True):
            out.append(
                Known(
                    ref=f"#{j}",
                    text=a.candidate.text,
                    vectors=vectors[at : at + len(p)],
                    said_at=a.valid_from,
                    current=True,
                    episodes=(a.episode_id,),
                    key=a.candidate.key,
                    speakers=frozenset([self.speakers[a.episode_id]]) if a.episode_id in self.speakers else frozenset(),
                    source=a.candidate.source.value,
                )
            )
            at += len(p)
        return out
