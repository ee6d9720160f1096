"""From one episode to judged candidates: extraction, the transcript record, the gate."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from memworks.models.drafts import Candidate, Turn
from memworks.models.enums import GateOutcome, MemoryKind, Source
from memworks.pipelines.extraction.base import ExtractionRejected, Extractor
from memworks.pipelines.extraction.tools.results import tool_result_candidates
from memworks.pipelines.gate import Verdict, injection_marker, judge
from memworks.pipelines.ingest.supersession import Accepted

#: Confidence of a transcript record by the source of its episode.
TRANSCRIPT_CONFIDENCE = {
    Source.USER: 1.0,
    Source.VERIFIED_TOOL: 1.0,
    Source.MODEL_INFERENCE: 0.5,
    Source.RETRIEVED_DOCUMENT: 0.3,
}
#: Characters of an episode the extractor reads by default (the transcript keeps the whole text).
MAX_CHARS_READ = 8_000
#: Candidates kept from one episode by default; the rest are refused with one audited decision.
MAX_CANDIDATES = 32
#: Where a cut text may end: after a sentence's end or at a line break.
_CUT = re.compile(r"[.!?](?=\s)|\n")


@dataclass(frozen=True)
class EpisodeCaps:
    """What one episode may cost: the text its extractor reads and the candidates it keeps.

    Whatever an episode says, its extraction, embedding, writes and gate audit stay bounded,
    so one long episode cannot hold a worker (and the episodes queued behind it) for minutes.
    """

    #: Characters of the episode (and of each context turn) the extractor reads.
    max_chars: int = MAX_CHARS_READ
    #: Candidates kept from one episode, in the extractor's order.
    max_candidates: int = MAX_CANDIDATES

    def __post_init__(self) -> None:
        if self.max_chars < 1 or self.max_candidates < 1:
            raise ValueError("episode caps must be at least 1")


#: The caps when a caller names none.
DEFAULT_CAPS = EpisodeCaps()


@dataclass(frozen=True)
class Judged:
    candidate: Candidate
    verdict: Verdict


@dataclass
class EpisodeJudgement:
    """Everything the gate decided about one episode."""

    turn: Turn
    judged: list[Judged] = field(default_factory=list)
    #: Why the extractor's output was refused as a whole, if it was.
    extraction_error: str | None = None

    def accepted(self) -> list[Accepted]:
        out = []
        for j in self.judged:
            if not j.verdict.accepted:
                continue
            c = j.candidate
            # A plan is an event of the day it was said; its target date lives in its text.
            when = self.turn.occurred_at if (c.plan or c.valid_from is None) else c.valid_from
            out.append(Accepted(c, j.verdict, self.turn.episode_id, when))
        return out


def transcript_candidate(turn: Turn) -> Candidate:
    """The episode itself as an episodic record, so evidence is findable when no fact was."""
    return Candidate(
        kind=MemoryKind.EPISODIC,
        key=None,
        value=turn.content,
        text=turn.content,
        confidence=TRANSCRIPT_CONFIDENCE[turn.source],
        evidence=(turn.episode_id,),
        source=turn.source,
        extractor="transcript",
    )


def bounded_turn(turn: Turn, max_chars: int) -> Turn:
    """``turn`` as its extractor reads it: its content cut by :func:`bounded_text`."""
    if len(turn.content) <= max_chars:
        return turn
    return turn.model_copy(update={"content": bounded_text(turn.content, max_chars)})


def bounded_text(text: str, max_chars: int) -> str:
    """At most ``max_chars`` characters of ``text``, cut after the last sentence (or line) that
    fits when one ends in the second half, else at the last space."""
    if len(text) <= max_chars:
        return text
    head = text[: max_chars + 1]
    ends = [m.end() for m in _CUT.finditer(head) if m.end() <= max_chars]
    cut = ends[-1] if ends and ends[-1] > max_chars // 2 else head.rfind(" ", max_chars // 2, max_chars) + 1
    return text[: cut or max_chars].rstrip()


def overflow_refusal(turn: Turn, *, extractor: str, dropped: int, kept: int) -> Judged:
    """The one audited decision for the candidates of an episode past its cap."""
    refused = Candidate(evidence=(turn.episode_id,), source=turn.source, extractor=extractor)
    reason = f"over the per-episode candidate cap: {dropped} candidates past the first {kept} were not kept"
    return Judged(refused, Verdict(GateOutcome.REJECTED, reason, MemoryKind.SEMANTIC, False))


def judge_episode(
    turn: Turn, *, extractor: Extractor, context: Sequence[Turn] = (), caps: EpisodeCaps = DEFAULT_CAPS
) -> EpisodeJudgement:
    """Extract candidates from ``turn`` and pass each (and the transcript) through the gate.

    The extractor reads at most ``caps.max_chars`` of the episode and of each context turn; the
    transcript record keeps the whole text. Past ``caps.max_candidates`` candidates, the rest are
    refused together: one rejected decision says how many, none of them is stored.
    """
    result = EpisodeJudgement(turn)
    read = [bounded_turn(c, caps.max_chars) for c in context]
    try:
        candidates = list(extractor(bounded_turn(turn, caps.max_chars), context=read))
    except ExtractionRejected as exc:
        candidates, result.extraction_error = [], exc.reason
    # Whatever reads the user's words, a verified tool's result is keyed by its object.
    candidates += tool_result_candidates(bounded_turn(turn, caps.max_chars), read)
    kept = candidates[: caps.max_candidates]
    tainted = injection_marker(turn.content)  # an injection attempt leaves no fact behind
    for c in [transcript_candidate(turn), *kept]:
        result.judged.append(Judged(c, judge(c, episode_marker=tainted)))
    if dropped := len(candidates) - len(kept):
        result.judged.append(overflow_refusal(turn, extractor=extractor.name, dropped=dropped, kept=len(kept)))
    return result


def equal_parts(ids: Sequence[int], most: int) -> list[list[int]]:
    """``ids`` cut into as few parts of at most ``most`` as there can be, of equal size (300 by
    256: 150 + 150, not 256 + 44), so the messages' workers finish together."""
    n = -(-len(ids) // most)
    return [list(ids[k * len(ids) // n : (k + 1) * len(ids) // n]) for k in range(n)]


def weighted_parts(ids: Sequence[int], weights: Sequence[int], *, most: int, budget: int) -> list[list[int]]:
    """``ids`` cut as :func:`equal_parts` cuts them, each part cut again where its weight (the
    characters of its texts) would pass ``budget``; one id heavier than that is a part of its
    own. The order is kept.

    A message's work is then bounded by its text as well as by its count: 256 long episodes are
    not one message that holds a worker while other tenants' work waits behind it.
    """
    weight = dict(zip(ids, weights, strict=True))
    out: list[list[int]] = []
    for part in equal_parts(ids, most):
        out.append([])
        load = 0
        for i in part:
            if out[-1] and load + weight[i] > budget:
                out.append([])
                load = 0
            out[-1].append(i)
            load += weight[i]
    return out
