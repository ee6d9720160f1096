"""Plans of the ``rules`` extractor: a future move, job, departure or trip.

"I'm transferring to Tokyo next week" is an event, never the current value of a slot: it
becomes an episodic ``user.plan`` ("move to Tokyo") with ``plan=True``.
"""

from __future__ import annotations

import re

from memworks.models.enums import MemoryKind
from memworks.pipelines.extraction.clauses import Clause
from memworks.pipelines.extraction.facts import ADV, I_WILL, MY_JOB, Fact, ci
from memworks.pipelines.extraction.phrases import take_org, take_place

__all__ = ["plan_facts"]

_WILL = (
    I_WILL + r"(?:(?:going|planning|about|hoping"
    r"|scheduled|set|intending)\s+to\s+|gonna\s+|plan(?:ning|s)?\s+(?:to|on)\s+|intend\s+to\s+)?"
    rf"(?:be\s+)?{ADV}"
)
_PLANS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    (
        "plan.move",
        ci(
            _WILL + r"(?:mov(?:e|ing)|relocat(?:e|ing)|transfer(?:ring|red)?|emigrat(?:e|ing))"
            r"\s+(?:back\s+|over\s+)?to\s+(?P<v>.+)$"
        ),
        "move to",
    ),
    (
        "plan.job",
        ci(
            _WILL + r"(?:start(?:ing)?|join(?:ing)?|begin(?:ning)?)\s+(?:(?:a\s+|my\s+)?(?:new\s+)?"
            r"(?:job|position|role|work(?:ing)?)\s+)?(?:as\s+(?:an?\s+)?[^,]+?\s+(?=(?:at|with)\s))?(?:at\s+|with\s+)?(?P<v>.+)$"
        ),
        "start at",
    ),
    ("plan.leave", ci(_WILL + r"(?:quit(?:ting)?|leav(?:e|ing)|resign(?:ing)?\s+from)\s+(?P<v>.+)$"), "leave"),
    (
        "plan.travel",
        ci(
            _WILL + r"(?:(?:fly(?:ing)?|travel(?:l?ing)?|go(?:ing)?|head(?:ing)?)\s+(?:back\s+)?"
            r"(?:to\s+)?|visit(?:ing)?\s+|in\s+)(?P<v>.+)$"
        ),
        "travel to",
    ),
)


def plan_facts(c: Clause) -> list[Fact]:
    """The plan a future-tense clause states, as an episodic ``user.plan`` fact."""
    for rule, rx, verb in _PLANS:
        if not (m := rx.match(c.text)):
            continue
        place = take_place(m["v"])
        if verb in ("move to", "travel to"):
            what = place[0] if place and (verb == "move to" or place[1] != "other") else None
        elif verb == "leave" and (job := MY_JOB.match(m["v"])):
            what = take_org(job["org"], c.casual) if job["org"] else "their job"
        else:
            what = place[0] if place and place[1] != "other" else take_org(m["v"], c.casual)
        if what:
            value = f"{verb} {what}"
            text = f"User plans to {value}."
            return [Fact(rule, "user.plan", value, text, kind=MemoryKind.EPISODIC, plan=True)]
    return []
