"""A support-ticket triage task set with exceptions a naive keyword policy gets wrong.

Written for this evaluation: each ticket has keywords and an equivalent free-text sentence,
the action a person verified as right, and a naive base policy routes by keyword alone.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

TASK_TYPE = "ticket_triage"


@dataclass(frozen=True)
class Ticket:
    task_id: str
    keywords: tuple[str, ...]
    text: str
    correct: str


#: (kind, keywords, sentence templates, correct action). Sentences share only the keywords.
KINDS: tuple[tuple[str, tuple[str, ...], tuple[str, ...], str], ...] = (
    ("billing", ("billing", "invoice"), ("Billing question about an invoice total.",
                                         "Invoice looks wrong on my billing page."), "route_billing"),  # fmt: skip
    ("login", ("login", "password"), ("Login fails after a password reset.",
                                      "Cannot login, password rejected."), "route_tech"),  # fmt: skip
    ("pricing", ("pricing", "quote"), ("Pricing quote for next year.", "Need a quote on pricing tiers."), "route_sales"),
    ("crash", ("crash", "app"), ("The app crash happens on startup.", "Crash in the mobile app."), "route_tech"),
    # Exceptions: the keyword policy routes these by their common word and is wrong.
    ("chargeback", ("billing", "chargeback"), ("Billing dispute: bank chargeback filed.",
                                               "Chargeback opened on billing."), "escalate_disputes"),  # fmt: skip
    ("breach", ("login", "breach"), ("Login from abroad, possible breach.",
                                     "Breach suspected: strange login."), "escalate_security"),  # fmt: skip
    ("enterprise_quote", ("pricing", "enterprise"), ("Enterprise pricing for 5000 seats.",
                                                     "Pricing for an enterprise rollout."), "route_account_manager"),  # fmt: skip
    ("data_loss", ("crash", "data_loss"), ("Crash wiped my files, data_loss confirmed.",
                                           "After the crash: data_loss in projects."), "incident_response"),  # fmt: skip
)
#: Share of tickets drawn from the exception kinds.
EXCEPTION_SHARE = 0.4


def base_policy(features: set[str]) -> str:
    """The naive policy an agent starts with: route by the first keyword it recognises."""
    for word, action in (("billing", "route_billing"), ("invoice", "route_billing"), ("login", "route_tech"),
                         ("password", "route_tech"), ("crash", "route_tech"), ("pricing", "route_sales"),
                         ("quote", "route_sales")):  # fmt: skip
        if word in features:
            return action
    return "route_general"


def episodes(n: int, size: int, *, seed: int = 7) -> list[list[Ticket]]:
    """``n`` episodes of ``size`` tickets, deterministic for a seed."""
    rng = random.Random(seed)
    normal, special = KINDS[:4], KINDS[4:]
    out = []
    for e in range(n):
        batch = []
        for i in range(size):
            kind, kws, texts, correct = rng.choice(special if rng.random() < EXCEPTION_SHARE else normal)
            batch.append(Ticket(f"ep{e}-t{i}-{kind}", kws, rng.choice(texts), correct))
        out.append(batch)
    return out
