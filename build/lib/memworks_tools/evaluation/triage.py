"""Support-ticket triage sets for the lessons evaluation: the seed example, in keywords and in
free text, and a noisy stream of the same ticket kinds.

The seed is the worked example lessons are explained with: three exceptions to a keyword
routing policy, one held-out case per exception and a plain negative per keyword.

    train     c1 {refund} BILLING · c2 {refund, fraud} FRAUD · c3 {crash} ENGINEERING
              c4 {crash, security} SECURITY · c5 {password} ACCOUNT · c6 {password, vip} PRIORITY
    held out  h1 {refund, fraud, eu} FRAUD · h2 {crash, security, prod} SECURITY
              h3 {password, vip, gold} PRIORITY
    negatives n1 {refund} BILLING · n2 {crash} ENGINEERING · n3 {password} ACCOUNT

The base policy routes refund → BILLING, crash → ENGINEERING, password → ACCOUNT. Each
ticket also has a sentence written for this evaluation that says the same thing in words
(for the free-text version, whose tickets carry ``task_text`` only).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from memworks.pipelines.lessons.features import normalize_features

TASK_TYPE = "ticket_triage"
ACTIONS = ("BILLING", "FRAUD", "ENGINEERING", "SECURITY", "ACCOUNT", "PRIORITY")


@dataclass(frozen=True)
class Ticket:
    task_id: str
    keywords: tuple[str, ...]
    text: str
    correct: str


def _t(task_id: str, keywords: str, text: str, correct: str) -> Ticket:
    return Ticket(task_id, tuple(keywords.split()), text, correct)


TRAIN = (
    _t("c1", "refund", "Customer wants a refund for a duplicate charge.", "BILLING"),
    _t("c2", "refund fraud", "Refund requested, but the card looks like fraud.", "FRAUD"),
    _t("c3", "crash", "The app crash happens on startup.", "ENGINEERING"),
    _t("c4", "crash security", "Crash right after a security scan of the server.", "SECURITY"),
    _t("c5", "password", "Password reset link never arrives.", "ACCOUNT"),
    _t("c6", "password vip", "VIP customer locked out: password not accepted.", "PRIORITY"),
)
HELD_OUT = (
    _t("h1", "refund fraud eu", "EU refund claim, the bank reports fraud.", "FRAUD"),
    _t("h2", "crash security prod", "Production crash, a security alert fired.", "SECURITY"),
    _t("h3", "password vip gold", "Gold tier VIP cannot reset a password.", "PRIORITY"),
)
NEGATIVES = (
    _t("n1", "refund", "Please refund my last order.", "BILLING"),
    _t("n2", "crash", "Crash when I open the settings.", "ENGINEERING"),
    _t("n3", "password", "Forgot my password again.", "ACCOUNT"),
)

#: Words a ticket of the noisy stream may carry besides its kind's (they are noise to a lesson).
EXTRAS = ("eu", "us", "mobile", "web", "prod", "gold", "email", "phone")


def base_policy(features: set[str]) -> str:
    """The naive policy an agent starts with: route by the first keyword it recognises."""
    for word, action in (("refund", "BILLING"), ("crash", "ENGINEERING"), ("password", "ACCOUNT")):
        if word in features:
            return action
    return "ENGINEERING"


def features_of(ticket: Ticket, *, free_text: bool) -> tuple[str, ...]:
    """The normalised features memworks derives from the ticket as the agent reports it."""
    return normalize_features(ticket.text if free_text else list(ticket.keywords))


def noisy_stream(n: int, size: int, *, noise: float = 0.1, seed: int = 11) -> list[list[tuple[Ticket, str]]]:
    """``n`` episodes of ``size`` tickets of the seed's kinds (each may carry one extra word),
    each with the verified action a person reports: the right one, or (with probability
    ``noise``) another action. Deterministic for a seed."""
    rng = random.Random(seed)
    out = []
    for e in range(n):
        batch = []
        for i in range(size):
            kind = rng.choice(TRAIN)
            extra = rng.sample(EXTRAS, rng.randint(0, 1))
            ticket = Ticket(f"s{e}-{i}-{kind.task_id}", kind.keywords + tuple(extra), kind.text, kind.correct)
            reported = kind.correct if rng.random() >= noise else rng.choice([a for a in ACTIONS if a != kind.correct])
            batch.append((ticket, reported))
        out.append(batch)
    return out


def episodes(n: int, size: int, *, seed: int = 7) -> list[list[Ticket]]:
    """``n`` episodes of ``size`` tickets of the seed's kinds, without noise."""
    return [[t for t, _ in batch] for batch in noisy_stream(n, size, noise=0.0, seed=seed)]
