"""Reflexion notes: what one failed task taught, written down for the next similar task.

A failure reported with feedback becomes one *episodic* note in the reporting user's scope
("On a ticket_triage task — Refund request flagged as fraud — route_billing did not work;
the right action was route_fraud. Feedback: the card was stolen."). It is not a lesson: a
lesson is a tenant-wide procedure that passed the replay gate; a note is one case's
experience, found by retrieval when a similar task comes up, and it belongs to the user whose
outcome it came from (deleted with them). A note is derived memory, so the write gate judges
it again and a refused one is not written: a reflection is read back to agents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memworks.models.enums import Source
from memworks.pipelines.gate import derived_refusal

#: Longest task description or feedback a note quotes (characters).
MAX_QUOTE = 500


@dataclass(frozen=True)
class ReflectionDraft:
    """A note to store, or the reason it is not stored."""

    key: str
    text: str
    refused: str | None = None


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_QUOTE else text[: MAX_QUOTE - 1] + "…"


def reflection_key(task_type: str) -> str:
    """The slot notes of a task type are filed under: ``reflection.<task_type>``."""
    return "reflection." + (re.sub(r"[^a-z0-9_]+", "_", task_type.lower()).strip("_") or "task")


def reflect(
    *, task_type: str, task: str, action_taken: str, verified_action: str | None, feedback: str
) -> ReflectionDraft:
    """The note for one failure with feedback; ``task`` is its description (or its keywords)."""
    right = f" The right action was {verified_action}." if verified_action else ""
    text = f"On a {task_type} task ({_quote(task)}), {action_taken} did not work.{right} Feedback: {_quote(feedback)}"
    key = reflection_key(task_type)
    # A note is derived memory: the gate judges it again, as a tool's words (the reporter's).
    if reason := derived_refusal(text, source=Source.VERIFIED_TOOL):
        return ReflectionDraft(key, "", refused=f"the note does not pass the write gate ({reason})")
    return ReflectionDraft(key, text)
