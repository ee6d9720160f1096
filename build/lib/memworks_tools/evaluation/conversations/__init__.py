"""``memworks eval conversations``: a black-box evaluation on conversations written for it.

The conversations are data beside this package (one JSON file each: a personal assistant over
weeks, coding assistants, two-person chats, a support desk with verified tool results, forget
requests, restatements, dates and names, small stores). Each is replayed into a fresh embedded
store through the public facade only, and its checks ask what an agent would ask: is the current
value found, is the old one gone from the present read but there ``as_of`` before the change, is a
forgotten value gone everywhere, is a restatement one record with two pieces of evidence, does an
event carry its date, does the latest tool result win, does a question about what nobody said
abstain, is a named person's answer theirs, does the profile keep a standing constraint. Three
conversations are held out (``"split": "heldout"``) and reported apart.
"""

from __future__ import annotations

from memworks_tools.evaluation.conversations.cases import CHECK_KINDS, KINDS, Check, Conversation, files, load, parse
from memworks_tools.evaluation.conversations.grading import Grader, Verdict
from memworks_tools.evaluation.conversations.run import STAGES, TARGET, met_targets, run, summarise

__all__ = [
    # data
    "CHECK_KINDS",
    "KINDS",
    "Check",
    "Conversation",
    "files",
    "load",
    "parse",
    # grading
    "Grader",
    "Verdict",
    # the run
    "STAGES",
    "TARGET",
    "met_targets",
    "run",
    "summarise",
]
