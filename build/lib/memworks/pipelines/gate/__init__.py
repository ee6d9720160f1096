"""The write gate: which candidates may become durable memory (:mod:`.verdicts`), and the checks
behind it: text seen as a model reads it (:mod:`.textnorm`), instructions to the agent
(:mod:`.instructions`) and standing orders that would turn a memory against its user (:mod:`.hazards`).
"""

from memworks.pipelines.gate.verdicts import (
    MAX_SCAN_CHARS,
    TRUST_ORDER,
    Verdict,
    derived_refusal,
    injection_marker,
    instruction_marker,
    is_outward_preference,
    is_small_talk,
    judge,
    least_trusted,
    value_instruction,
)

__all__ = [
    "MAX_SCAN_CHARS",
    "TRUST_ORDER",
    "Verdict",
    "derived_refusal",
    "injection_marker",
    "instruction_marker",
    "is_outward_preference",
    "is_small_talk",
    "judge",
    "least_trusted",
    "value_instruction",
]
