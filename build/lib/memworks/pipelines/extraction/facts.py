"""What a statement pattern of the ``rules`` extractor returns (:class:`Fact`), and the regex
fragments those patterns share ("I'm", the adverbs allowed before a verb, vocabulary
alternations).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memworks.models.enums import CandidateOp, MemoryKind
from memworks.pipelines.extraction.vocabulary import DIETS, FORMATS, LANGUAGES, RELATIONS, SPECIES, alt

EXPLICIT, HEDGED, INDIRECT = 0.9, 0.7, 0.7


@dataclass(frozen=True, slots=True)
class Fact:
    """What a pattern found; the extractor turns it into a :class:`Candidate`."""

    rule: str
    key: str
    value: str
    text: str
    kind: MemoryKind = MemoryKind.SEMANTIC
    op: CandidateOp = CandidateOp.ASSERT
    plan: bool = False
    outward: bool = False
    confidence: float = EXPLICIT
    extra: tuple[tuple[str, str], ...] = ()


def ci(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled case-insensitively, as every statement pattern is."""
    return re.compile(pattern, re.IGNORECASE)


def norm(word: str) -> str:
    """Lowercase, hyphens as spaces, single spaces: the key form of a matched vocabulary word."""
    return " ".join(word.lower().replace("-", " ").split())


IM = r"i(?:'m|\s+am)"
WERE = r"we(?:'re|\s+are)"
ADV = (
    r"(?:(?:just|recently|finally|actually|currently|now|still|also|officially|already|basically"
    r"|permanently|mostly|probably|definitely|only|really|kinda|happily|always|usually"
    r"|generally|strictly|fully|totally|completely|mainly|largely)\s+)*"
)
I_WILL = r"^(?:i|we)(?:'m|'re|'ll|\s+(?:am|are|will|shall))?\s+" + ADV
PREFER = r"^i(?:'d|\s+would)?\s+" + ADV + r"(?:prefer|like|want|love|need)\s+"
DIET_ALT, SPECIES_ALT, REL_ALT = alt(DIETS), alt(SPECIES), alt(RELATIONS)
FMT_ALT, LANG_ALT = alt(FORMATS), alt(LANGUAGES)
ANYMORE = ci(r"\b(?:no\s+longer|any\s?more)\b")
#: "my job", "my position at X": the job itself rather than an employer's name.
MY_JOB = ci(r"^(?:my\s+)?(?:job|position|role|company|work)\b(?:\s+(?:at|with)\s+(?P<org>.+))?")
