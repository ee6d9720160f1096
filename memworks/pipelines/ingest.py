"""From one episode to judged candidates: extraction, the transcript record, the gate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memworks.models.drafts import Candidate, Turn
from memworks.models.enums import MemoryKind, Source
from memworks.pipelines.extraction.base import ExtractionRejected, Extractor
from memworks.pipelines.gate import Verdict, injection_marker, judge
from memworks.pipelines.supersession import Accepted

#: Confidence of a transcript record by the source of its episode.
TRANSCRIPT_CONFIDENCE = {
    Source.USER: 1.0,
    Source.VERIFIED_TOOL: 1.0,
    Source.MODEL_INFERENCE: 0.5,
    Source.RETRIEVED_DOCUMENT: 0.3,
}


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


def judge_episode(turn: Turn, *, extractor: Extractor, context: Sequence[Turn] = ()) -> EpisodeJudgement:
    """Extract candidates from ``turn`` and pass each (and the transcript) through the gate."""
    result = EpisodeJudgement(turn)
    try:
        candidates = list(extractor(turn, context=context))
    except ExtractionRejected as exc:
        candidates, result.extraction_error = [], exc.reason
    tainted = injection_marker(turn.content)  # an injection attempt leaves no fact behind
    for c in [transcript_candidate(turn), *candidates]:
        result.judged.append(Judged(c, judge(c, episode_marker=tainted)))
    return result


def equal_parts(ids: Sequence[int], most: int) -> list[list[int]]:
    """``ids`` cut into as few parts of at most ``most`` as there can be, of equal size (300 by
    256: 150 + 150, not 256 + 44), so the messages' workers finish together."""
    n = -(-len(ids) // most)
    return [list(ids[k * len(ids) // n : (k + 1) * len(ids) // n]) for k in range(n)]
