"""The write gate: which candidates may become durable memory, and on what terms.

Model output and retrieved text may *propose* a write; they never become durable authority on
their own. Every candidate gets a :class:`Verdict` with a reason, accepted or not, and the
caller stores each verdict as an audit row. The rules, first match wins:

==========================================  ==========================================
candidate                                   verdict
==========================================  ==========================================
no evidence episode ids                     rejected: missing provenance
confidence outside [0, 1]                   rejected
source ``retrieved_document``               rejected: data, not a memory command
prompt-injection markers (any source)       rejected: instruction-like content
instruction-like text, non-user source      rejected: instruction-like content
procedure authored by model inference       rejected
small talk                                  rejected: not worth remembering
outward-action preference from the user     pending_confirmation (never retrieved)
plan / intention                            accepted as an episodic event, not a fact
anything else                               accepted; trusted only from user or tool
==========================================  ==========================================

User-authored preferences legitimately read like instructions ("from now on answer in
bullets"), so only unmistakable injection markers are refused for the user's own words;
outward actions they ask for wait for confirmation instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memworks.models.drafts import Candidate
from memworks.models.enums import TRUSTED_SOURCES, CandidateOp, GateOutcome, MemoryKind, Source

_INJECTION = re.compile(
    r"\b(ignore|disregard|forget)\s+(all\s+|any\s+|the\s+)?(previous|prior|above|earlier|your)\s+"
    r"(instructions?|prompts?|rules|directions)"
    r"|\b(reveal|print|show|leak)\s+(me\s+)?(your|the)\s+(system\s+prompt|instructions|api\s+keys?)"
    r"|\byou\s+are\s+now\s+(a|an|in)\b"
    r"|\bnew\s+system\s+prompt\b"
    r"|\b(wire|transfer|send)\s+(the\s+)?(money|funds|\$\s?\d|\d+\s?(usd|eur|dollars|euros))"
    r"|\bremember\s*:\s*from\s+now\s+on\b",
    re.IGNORECASE,
)
_ADDRESS = r"([\w.+-]+@[\w-]+\.[\w.-]+|https?://\S+|\+?\d[\d\s().-]{7,}\d)"
_OUTWARD_VERB = r"(send|forward|share|e-?mail|cc|bcc|post|upload|pay|wire|transfer|publish|text|sms)"
_OUTWARD_TO_ADDRESS = re.compile(rf"\b{_OUTWARD_VERB}\b.*\b(to|with|at)\b\s+\S*{_ADDRESS}", re.IGNORECASE)
_INSTRUCTION = re.compile(
    r"\b(from\s+now\s+on|always|never|you\s+must|you\s+should|make\s+sure\s+to)\b.*\b"
    + _OUTWARD_VERB
    + r"\b",
    re.IGNORECASE,
)
_OUTWARD_PREFERENCE = re.compile(
    r"\b(from\s+now\s+on|always|every\s+time|whenever|automatically|each\s+time)\b.*\b"
    + _OUTWARD_VERB
    + r"\b"
    r"|\b" + _OUTWARD_VERB + r"\b.*\b(every|each|all)\b.*\b(to|with)\b",
    re.IGNORECASE,
)
_SMALL_TALK = re.compile(
    r"^\s*(hi|hello|hey|hiya|yo|good\s+(morning|afternoon|evening|night)|thanks?(\s+you)?|thank\s+you|"
    r"thx|ty|ok(ay)?|cool|nice|great|awesome|sure|yes|no|yep|nope|lol|haha|bye|goodbye|see\s+you|"
    r"how\s+are\s+you(\s+doing)?|what'?s\s+up|sounds\s+good|got\s+it|perfect|np|no\s+problem|"
    r"you'?re\s+welcome|welcome)"
    r"([\s,!.?:;)(-]+(hi|hello|hey|there|so|much|a\s+lot|again|lol|haha|ok(ay)?|thanks?|you|"
    r"how\s+are\s+you(\s+doing)?|today|friend|buddy|mate|man|\S{0,2}))*[\s!.?:;)(-]*$",
    re.IGNORECASE,
)
_FUTURE = re.compile(
    r"\b(going\s+to|gonna|planning\s+(to|on)|plan\s+to|intend\s+to|about\s+to|"
    r"next\s+(week|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|tomorrow|"
    r"later\s+this\s+(week|month|year)|(user|i'?m)\s+(is\s+)?(transferring|moving|relocating)\s+to)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Verdict:
    """The gate's answer for one candidate."""

    outcome: GateOutcome
    reason: str
    kind: MemoryKind
    trusted: bool

    @property
    def accepted(self) -> bool:
        return self.outcome is not GateOutcome.REJECTED


def is_small_talk(text: str) -> bool:
    """Greetings, thanks and acknowledgements with nothing else in them."""
    return bool(_SMALL_TALK.match(text)) or not re.search(r"[A-Za-z0-9]", text)


def instruction_marker(text: str, *, source: Source) -> str | None:
    """The reason ``text`` reads as an instruction to the agent, or None."""
    if m := _INJECTION.search(text):
        return f"prompt-injection marker {m.group(0)!r}"
    if source is not Source.USER:
        if m := _OUTWARD_TO_ADDRESS.search(text):
            return f"outward action to an address {m.group(0)!r}"
        if m := _INSTRUCTION.search(text):
            return f"instruction to act {m.group(0)!r}"
    return None


def is_outward_preference(candidate: Candidate) -> bool:
    """Does acting on this memory make the agent do something outward (send, share, pay)?"""
    body = f"{candidate.value} {candidate.text}"
    return candidate.outward_action or bool(_OUTWARD_PREFERENCE.search(body) or _OUTWARD_TO_ADDRESS.search(body))


def judge(candidate: Candidate) -> Verdict:
    """Decide whether ``candidate`` may be written, and how.

    Args:
        candidate: the extractor's proposal, with its evidence and source.

    Returns:
        The verdict: outcome, reason (always non-empty), the kind to store it as, and whether
        it is trusted (retrievable in present reads).
    """
    kind = candidate.kind
    trusted = candidate.source in TRUSTED_SOURCES

    def reject(reason: str) -> Verdict:
        return Verdict(GateOutcome.REJECTED, reason, kind, False)

    body = f"{candidate.value}\n{candidate.text}"
    if not candidate.evidence or not all(e.strip() for e in candidate.evidence):
        return reject("missing provenance: a memory needs the episode ids it came from")
    if not 0.0 <= candidate.confidence <= 1.0:
        return reject(f"confidence {candidate.confidence} outside [0, 1]")
    if candidate.op is CandidateOp.RETRACT and candidate.source is not Source.USER:
        return reject("only the user may retract what is remembered about them")
    if candidate.source is Source.RETRIEVED_DOCUMENT:
        return reject("retrieved document: data, not a memory command")
    if marker := instruction_marker(body, source=candidate.source):
        return reject(f"instruction-like content: {marker}")
    if kind is MemoryKind.PROCEDURAL and candidate.source is Source.MODEL_INFERENCE:
        return reject("model inference may not author a procedure")
    if candidate.op is CandidateOp.RETRACT:
        return Verdict(GateOutcome.ACCEPTED, "retraction requested by the user", kind, trusted)
    if is_small_talk(candidate.text or candidate.value):
        return reject("small talk: not worth remembering")
    if is_outward_preference(candidate):
        return Verdict(
            GateOutcome.PENDING,
            "outward action: waits for the user's confirmation before it is used",
            kind,
            trusted,
        )
    if candidate.plan or (kind is MemoryKind.SEMANTIC and _FUTURE.search(candidate.text)):
        return Verdict(
            GateOutcome.ACCEPTED, "plan: stored as an episodic event, not a current fact", MemoryKind.EPISODIC, trusted
        )
    reason = "accepted" if trusted else f"accepted untrusted: source {candidate.source.value} is not authority"
    return Verdict(GateOutcome.ACCEPTED, reason, kind, trusted)
