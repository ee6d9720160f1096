"""The probe suite's scenarios: five users, ten months of conversations, and the answer key.

The key was written first, as data beside each question; the conversations were then written to
make those answers true, using only statement forms the ``rules`` extractor understands
(``memworks/pipelines/extraction/rules.py``) or, for the questions whose answer lives only in a
transcript, plain sentences that no pattern reads.

Users (every one talks to the agent once a week, 2024-09-02 to 2025-06-30):

* ``acme/maya`` — moves Lisbon → Berlin (said with a relative time: "two weeks ago"), changes job
  and diet, has a dog and later a kitten, reminisces about Lisbon after the move.
* ``acme/omar`` — moves Porto → Valencia, then asks to be forgotten in conversation ("forget where I
  work", "please forget about my hamster"); talks hypothetically about Madrid; the assistant once
  guesses his airline.
* ``acme/lena`` — a few facts and a transcript-only one; erased as a whole subject at the end.
* ``acme/theo`` — never says where he lives, only where he *would* live.
* ``globex/maya`` — same user id as acme's Maya in another tenant, with same-shaped facts.

Filler (task requests with the assistant's replies, chit-chat, thanks) is generated from fixed
pools with a seeded ``random.Random`` per user, so every run builds the same histories. Filler
never states a fact about the user and names no place, pet or employer.

Answers (``Question.expect``): ``None`` means the right answer is to abstain; a string is one
answer, ``|`` separating accepted spellings; a tuple is a set answer (every item, nothing else).

Reader cues (:mod:`.cues`): a deterministic reader needs to know which words in a line answer a question. The
cues are the naive patterns a keyword matcher would use (``a`` is the answer group); the
``transcript_only`` design runs them over the whole history, and the ``memworks`` design runs them
over its hits when a question has no memory key (``slots``) to read.
"""

from __future__ import annotations

from datetime import date, timedelta

from memworks_tools.evaluation.probes.filler import Filler
from memworks_tools.evaluation.probes.model import (
    CHECKPOINTS,
    FIRST_WEEK,
    LAST_WEEK,
    SLICES,
    USERS,
    Deletion,
    Line,
    Question,
    Session,
)
from memworks_tools.evaluation.probes.questions import RECALL_QUESTIONS
from memworks_tools.evaluation.probes.safeguards import DELETIONS, SAFEGUARD_QUESTIONS
from memworks_tools.evaluation.probes.story import STORY

__all__ = [
    "CHECKPOINTS",
    "DELETIONS",
    "QUESTIONS",
    "SLICES",
    "USERS",
    "Deletion",
    "Line",
    "Question",
    "Session",
    "conversation",
]

#: Every question, slice by slice in the order of :data:`SLICES` (deletion probes are :data:`DELETIONS`).
QUESTIONS: tuple[Question, ...] = RECALL_QUESTIONS + SAFEGUARD_QUESTIONS


def conversation(tenant: str, user: str, *, weeks: int | None = None) -> list[Session]:
    """Every session of one user in order: story sessions with a little filler, and filler weeks.

    ``weeks`` keeps only the first N weeks' filler sessions (story sessions are always kept); the
    default is the whole ten months.
    """
    filler = Filler(f"probes/{tenant}/{user}")
    story = {s.day: s for s in STORY[(tenant, user)]}
    out: list[Session] = []
    week, n = FIRST_WEEK, 0
    while week <= LAST_WEEK:
        days = sorted(d for d in story if week <= date.fromisoformat(d) < week + timedelta(days=7))
        for d in days:
            out.append(Session(d, story[d].lines + tuple(filler(1))))
        if not days and (weeks is None or n < weeks):
            day = week + timedelta(days=USERS[(tenant, user)])
            out.append(Session(day.isoformat(), tuple(filler(filler.rng.randint(1, 3)))))
        week, n = week + timedelta(days=7), n + 1
    return out
