"""Reflexion-style lessons: mine ``pattern → action`` from failures, promote through a replay gate.

* **Mining** (:func:`mine_candidates`): a failed outcome whose verified action differs from the
  action taken proposes the subset of its features best supported by *other* cases. The miner
  does not reject subsets that have counter-examples: it proposes the most general,
  best-supported pattern and lets the gate judge it. A blocked pattern is never re-proposed,
  so the next run proposes a more specific one.
* **Gate** (:func:`judge_candidate`, :func:`run_gate`): a candidate is replayed on held-out
  cases (never the cases it was mined from) and becomes active only with enough support, no
  misfire and no regression against the active lessons; at most a few promotions per run.
* **Use and rollback** (:func:`select_lesson`, :func:`needs_rollback`): the most specific
  matching active lesson fires; a lesson that misfires after activation is rolled back.

A *case* is ``task_id or outcome_id`` (see :attr:`OutcomeView.case`): repeated attempts at
one task are one case, and count once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import combinations

from pydantic import BaseModel, ConfigDict, Field

from memworks.models.drafts import LessonView, OutcomeView

#: How many offending outcome ids a report names.
_SHOWN = 3


class LessonPolicy(BaseModel):
    """Thresholds of the lesson gate (passed in, never read from settings)."""

    model_config = ConfigDict(frozen=True)

    #: Distinct held-out cases with a known correct action needed to promote.
    min_support: int = Field(default=2, ge=1)
    #: Largest pattern the miner considers (mining is combinatorial in it).
    max_pattern_size: int = Field(default=3, ge=1)
    #: Promotions allowed in one gate run (a governance batch).
    max_promotions_per_run: int = Field(default=1, ge=0)
    #: Misfires after activation that roll a lesson back.
    rollback_misfires: int = Field(default=1, ge=1)


@dataclass(frozen=True)
class Proposal:
    """A mined candidate lesson, before it is stored."""

    task_type: str
    pattern: tuple[str, ...]
    action: str
    guidance: str
    #: Ids of the failed outcomes that produced it (sorted).
    mined_from: tuple[str, ...]
    #: Other cases that match the pattern and want the action (best over ``mined_from``).
    positives: int = 0


@dataclass(frozen=True)
class Decision:
    """What the gate decided for one candidate, with the numbers behind it."""

    status: str  # "active" | "blocked" | "candidate"
    held_out: int
    fixed: int
    negatives: int
    regressions: int
    support: int
    report: str
    evidence: tuple[str, ...]


def matches(pattern: Sequence[str], features: Iterable[str]) -> bool:
    """True when every feature of ``pattern`` is among ``features``; an empty pattern never matches."""
    return bool(pattern) and set(pattern) <= set(features)


def guidance_for(task_type: str, pattern: Sequence[str], action: str) -> str:
    """One human-readable line: ``"For ticket_triage with billing + enterprise: do escalate_billing."``."""
    return f"For {task_type} with {' + '.join(pattern)}: do {action}."


def _known_by_case(outcomes: Iterable[OutcomeView]) -> dict[str, OutcomeView]:
    """Per case, the latest outcome with a known correct action (the case's current truth)."""
    best: dict[str, OutcomeView] = {}
    for o in sorted(outcomes, key=lambda o: (o.occurred_at, o.outcome_id)):
        if o.correct_action is not None:
            best[o.case] = o
    return best


def _covered(failure: OutcomeView, action: str, lessons: Sequence[LessonView]) -> bool:
    # A failure already answered by the lesson that fires today, or behind a pending candidate
    # that would give its verified action, is not mined again: otherwise every run would add one
    # more pattern from the same failure while the first still waits for held-out evidence.
    same = [l for l in lessons if l.task_type == failure.task_type]
    fired = select_lesson(same, failure.features)
    if fired is not None and fired.action == action:
        return True
    return any(
        l.status == "candidate"
        and l.action == action
        and (failure.outcome_id in l.mined_from or matches(l.pattern, failure.features))
        for l in same
    )


def _best_pattern(
    feats: list[str],
    wanting: list[tuple[str, ...]],
    action: str,
    taken: set[tuple[tuple[str, ...], str]],
    max_size: int,
) -> tuple[tuple[str, ...], int] | None:
    """The untaken subset of ``feats`` matched by most ``wanting`` cases; ties → smaller, then lexicographic."""
    # Count from the positives' side: each wanting case supports exactly the subsets of its
    # overlap with ``feats``, which is far fewer than all C(64, 3) subsets of a failure.
    counts: Counter[tuple[str, ...]] = Counter()
    own = set(feats)
    for fs in wanting:
        overlap = sorted(own.intersection(fs))
        for size in range(1, min(max_size, len(overlap)) + 1):
            counts.update(combinations(overlap, size))
    ranked = sorted((-n, len(p), p) for p, n in counts.items() if (p, action) not in taken)
    if ranked:
        return ranked[0][2], -ranked[0][0]
    # No supported subset left: the most general untaken one (combinations of a sorted list
    # come out in lexicographic order, so the first hit is the tie-break winner).
    for size in range(1, min(max_size, len(feats)) + 1):
        for pattern in combinations(feats, size):
            if (pattern, action) not in taken:
                return pattern, 0
    return None


def mine_candidates(
    outcomes: Sequence[OutcomeView], lessons: Sequence[LessonView], *, task_type: str, policy: LessonPolicy
) -> list[Proposal]:
    """Propose one candidate lesson per distinct ``(pattern, action)`` from the failures of ``task_type``.

    For each failure with a verified action different from the action taken, every non-empty
    subset of its features (up to ``policy.max_pattern_size``) not already a lesson with that
    action (in any status) is scored by the *other* cases that match it and want the action.
    The subset with the most such cases wins; ties go to fewer features, then lexicographic.
    A proposal is mined from the earliest failure that yields it; later failures of other cases
    that it matches stay held-out evidence for the gate rather than becoming its own.
    Returned sorted by (-positives, pattern size, pattern, action).
    """
    own = [o for o in outcomes if o.task_type == task_type]
    taken = {(tuple(sorted(l.pattern)), l.action) for l in lessons if l.task_type == task_type}
    known = _known_by_case(own)
    found: dict[tuple[tuple[str, ...], str], tuple[int, set[str]]] = {}
    for f in sorted(own, key=lambda o: (o.occurred_at, o.outcome_id)):
        action = f.verified_action
        if f.success or not action or action == f.action_taken or not f.features:
            continue
        if _covered(f, action, lessons):
            continue
        # Positives are counted per case (repeated attempts count once), never the failure's own.
        wanting = [o.features for case, o in known.items() if case != f.case and o.correct_action == action]
        best = _best_pattern(sorted(set(f.features)), wanting, action, taken, policy.max_pattern_size)
        if best is None:
            continue
        pattern, positives = best
        pos, ids = found.get((pattern, action), (0, {f.outcome_id}))
        found[(pattern, action)] = (max(pos, positives), ids)
    proposals = [
        Proposal(task_type, pattern, action, guidance_for(task_type, pattern, action), tuple(sorted(ids)), pos)
        for (pattern, action), (pos, ids) in found.items()
    ]
    return sorted(proposals, key=lambda p: (-p.positives, len(p.pattern), p.pattern, p.action))


def select_lesson(lessons: Sequence[LessonView], features: Iterable[str]) -> LessonView | None:
    """The active lesson that fires for ``features``: the most specific match, then newest version.

    The caller passes lessons of one task type.
    """
    feats = set(features)
    fired = [l for l in lessons if l.status == "active" and matches(l.pattern, feats)]
    if not fired:
        return None
    return min(fired, key=lambda l: (-len(l.pattern), -l.version, l.lesson_id))


def _summary(fixed: int, held_out: int, negatives: int, regressions: int, support: int) -> str:
    return (
        f"held-out {fixed}/{held_out} fixed, {negatives} negative misfire, "
        f"{regressions} regression, support {support}"
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def judge_candidate(
    candidate: LessonView, outcomes: Sequence[OutcomeView], active: Sequence[LessonView], *, policy: LessonPolicy
) -> Decision:
    """Replay ``candidate`` on held-out cases and decide: "active", "blocked" or still "candidate".

    Held-out cases are the candidate's task-type cases other than those of ``mined_from``
    (another attempt at the same task is not independent evidence). A case's correct action
    is that of its latest outcome that knows one. Promote when at least ``min_support`` such
    cases match, all of them are fixed, and none regresses a case an active lesson answers
    correctly today. Any misfire or regression blocks; too little evidence leaves it a candidate.
    """
    own = [o for o in outcomes if o.task_type == candidate.task_type]
    by_id = {o.outcome_id: o for o in own}
    # An id missing from ``outcomes`` still names its own case (a case defaults to the outcome id).
    mined_cases = {by_id[i].case if i in by_id else i for i in candidate.mined_from}
    matching = [o for o in own if o.case not in mined_cases and matches(candidate.pattern, o.features)]
    known = _known_by_case(matching)
    rivals = [l for l in active if l.task_type == candidate.task_type and l.lesson_id != candidate.lesson_id]
    fixed, misfires, regressed = 0, [], []
    for case in sorted(known):
        o = known[case]
        want = o.correct_action
        if want == candidate.action:
            fixed += 1
            continue
        misfires.append(o)
        # A regression: an active lesson answers this case right today, and the candidate is at
        # least as specific as it, so the candidate would fire instead.
        current = select_lesson(rivals, o.features)
        if current is not None and current.action == want and len(candidate.pattern) >= len(current.pattern):
            regressed.append((o, current))
    held_out, support = len(known), len({o.case for o in matching})
    summary = _summary(fixed, held_out, len(misfires), len(regressed), support)
    evidence = tuple(sorted(o.outcome_id for o in matching))
    if misfires or regressed:
        reasons = []
        if misfires:
            shown = ", ".join(f"outcome {o.outcome_id} wants {o.correct_action}" for o in misfires[:_SHOWN])
            reasons.append(f"{_plural(len(misfires), 'negative misfire')} ({shown})")
        if regressed:
            shown = ", ".join(f"outcome {o.outcome_id} answered by {l.lesson_id}" for o, l in regressed[:_SHOWN])
            reasons.append(f"{_plural(len(regressed), 'regression')} ({shown})")
        status, report = "blocked", f"blocked: {', '.join(reasons)}; {summary}"
    elif held_out >= policy.min_support:
        status, report = "active", summary
    else:
        status, report = "candidate", f"pending: {held_out} of {policy.min_support} held-out cases; {summary}"
    return Decision(status, held_out, fixed, len(misfires), len(regressed), support, report, evidence)


def run_gate(
    candidates: Sequence[LessonView],
    outcomes: Sequence[OutcomeView],
    active: Sequence[LessonView],
    *,
    policy: LessonPolicy,
) -> list[tuple[LessonView, Decision]]:
    """Judge every candidate and promote at most ``policy.max_promotions_per_run`` of them.

    Order: more support first, then more specific, then lesson id. Each candidate is judged
    against ``active`` plus the candidates promoted earlier in this run; one that would pass
    once the batch is full stays a candidate, its report prefixed ``"deferred: governance batch full; "``.
    """
    first = {c.lesson_id: judge_candidate(c, outcomes, active, policy=policy) for c in candidates}
    order = sorted(candidates, key=lambda c: (-first[c.lesson_id].support, -len(c.pattern), c.lesson_id))
    in_force = list(active)
    promoted = 0
    out: list[tuple[LessonView, Decision]] = []
    for c in order:
        d = judge_candidate(c, outcomes, in_force, policy=policy)
        if d.status == "active":
            if promoted < policy.max_promotions_per_run:
                promoted += 1
                in_force.append(c.model_copy(update={"status": "active"}))
            else:
                d = replace(d, status="candidate", report=f"deferred: governance batch full; {d.report}")
        out.append((c, d))
    return out


def find_misfires(lesson: LessonView, outcomes: Sequence[OutcomeView], *, since: datetime | None) -> list[OutcomeView]:
    """Outcomes of the lesson's task type (from ``since`` on) it matches whose known correct action differs.

    Sorted by time, then outcome id.
    """
    hits = [
        o
        for o in outcomes
        if o.task_type == lesson.task_type
        and (since is None or o.occurred_at >= since)
        and matches(lesson.pattern, o.features)
        and o.correct_action is not None
        and o.correct_action != lesson.action
    ]
    return sorted(hits, key=lambda o: (o.occurred_at, o.outcome_id))


def needs_rollback(
    lesson: LessonView, outcomes: Sequence[OutcomeView], *, policy: LessonPolicy, since: datetime | None
) -> tuple[bool, str]:
    """Whether the lesson misfired at least ``policy.rollback_misfires`` times since ``since``, and why."""
    bad = find_misfires(lesson, outcomes, since=since)
    shown = ", ".join(f"{o.outcome_id} wants {o.correct_action}" for o in bad[:_SHOWN])
    if len(bad) >= policy.rollback_misfires:
        return True, f"rolled back: {_plural(len(bad), 'misfire')} ({shown})"
    if bad:
        return False, f"kept: {_plural(len(bad), 'misfire')} ({shown}), below {policy.rollback_misfires}"
    return False, "kept: 0 misfires"
