"""Reflexion-style lessons: mine ``pattern → action`` from failures, promote through a replay gate.

* **Mining** (:func:`mine_candidates`): a failed outcome whose verified action differs from the
  action taken proposes the subsets of its features best supported by *other* cases. Equally
  supported patterns of the smallest size are all proposed (up to a few): the miner does not
  pick between "refund" and "fraud" by the alphabet, the gate picks by held-out evidence. A
  blocked pattern is never re-proposed, so the next run proposes a more specific one.
* **Gate** (:func:`judge_candidate`, :func:`run_gate`): a candidate is replayed on held-out
  cases (never the cases it was mined from). It is blocked when it would break a case that works
  today (a *negative misfire*: the action taken there was right; a *regression*: an active
  lesson answers it) or when its action reads as an instruction. It becomes active when it
  fixes enough held-out cases, leaves few of them wrong (cases wrong today that want a third
  action: noise or a finer pattern, not a break), its action is one the tenant knows, and its
  evidence does not rest on one end user's word alone; at most a few promotions per run.
* **Use** (:func:`select_lesson`): the most specific matching active lesson fires. The online
  guard that rolls a lesson back lives in :mod:`memworks.pipelines.lessons.guard`.

A *case* is ``task_id or outcome_id`` (see :attr:`OutcomeView.case`): repeated attempts at
one task are one case, and count once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from pydantic import BaseModel, ConfigDict, Field

from memworks.models.drafts import LessonView, OutcomeView
from memworks.models.enums import LessonStatus, Source
from memworks.pipelines.gate import instruction_marker

#: How many offending outcome ids a report names.
_SHOWN = 3


class LessonPolicy(BaseModel):
    """Thresholds of the lesson gate (passed in, never read from settings)."""

    model_config = ConfigDict(frozen=True)

    #: Distinct held-out cases a candidate must fix (with no misfire) to be promoted. One is
    #: enough by default: the failure it was mined from is the training case, a second case
    #: it fixes is the held-out check, and any counter-example blocks it.
    min_support: int = Field(default=1, ge=1)
    #: Largest pattern the miner considers (mining is combinatorial in it).
    max_pattern_size: int = Field(default=3, ge=1)
    #: Promotions allowed in one gate run (a governance batch).
    max_promotions_per_run: int = Field(default=1, ge=0)
    #: Equally supported patterns one failure may propose in one run.
    max_proposals_per_failure: int = Field(default=3, ge=1)
    #: Distinct end users whose outcomes must back a promotion when no tenant-level report does.
    min_reporters: int = Field(default=2, ge=1)
    #: Share of the held-out cases a candidate may leave wrong (cases that fail today and want a
    #: third action): they do not block, as the lesson breaks nothing there, but past this share
    #: the pattern is too impure to promote and the candidate waits. Any case that works today
    #: and would break (a negative misfire or a regression) blocks it.
    max_unfixed_share: float = Field(default=0.25, ge=0, le=1)
    #: Live cases where a lesson fired before the online guard may judge it.
    guard_min_cases: int = Field(default=5, ge=1)
    #: Actions the tenant declared (they count as known without a tenant-level outcome).
    declared_actions: tuple[str, ...] = ()


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

    status: LessonStatus  # active | blocked | candidate
    held_out: int
    fixed: int
    negatives: int
    regressions: int
    support: int
    report: str
    evidence: tuple[str, ...]
    #: Distinct voices behind the promotion evidence ("tenant" or one per end user).
    reporters: int = 0
    #: Held-out cases wrong today that it would leave wrong (they want a third action).
    unfixed: int = 0


def matches(pattern: Sequence[str], features: Iterable[str]) -> bool:
    """True when every feature of ``pattern`` is among ``features``; an empty pattern never matches."""
    return bool(pattern) and set(pattern) <= set(features)


def guidance_for(task_type: str, pattern: Sequence[str], action: str) -> str:
    """One human-readable line: ``"For ticket_triage with billing + enterprise: do escalate_billing."``."""
    return f"For {task_type} with {' + '.join(pattern)}: do {action}."


def action_refusal(action: str) -> str | None:
    """Why ``action`` can never be a lesson's action (it reads as an instruction), or None.

    Judged as strictly as tool output: a lesson is guidance every agent of the tenant follows.
    """
    marker = instruction_marker(action, source=Source.VERIFIED_TOOL)
    return f"the action reads as an instruction ({marker})" if marker else None


def known_actions(outcomes: Iterable[OutcomeView], declared: Iterable[str] = ()) -> set[str]:
    """Actions the tenant vouched for: right on a tenant-level outcome, or declared."""
    return {o.correct_action for o in outcomes if o.reporter == "tenant" and o.correct_action} | set(declared)


def voice(o: OutcomeView) -> str:
    """Whose word an outcome is: "tenant" for a tenant-level report, else its end user's."""
    return "tenant" if o.reporter == "tenant" else f"user:{o.user_id}"


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
        l.status == LessonStatus.CANDIDATE
        and l.action == action
        and (failure.outcome_id in l.mined_from or matches(l.pattern, failure.features))
        for l in same
    )


def _best_patterns(
    feats: list[str],
    wanting: list[tuple[str, ...]],
    action: str,
    taken: set[tuple[tuple[str, ...], str]],
    policy: LessonPolicy,
) -> tuple[list[tuple[str, ...]], int]:
    """The untaken subsets of ``feats`` matched by most ``wanting`` cases, smallest size only.

    Returns (patterns in lexicographic order, at most ``max_proposals_per_failure``; their support).
    """
    # Count from the positives' side: each wanting case supports exactly the subsets of its
    # overlap with ``feats``, which is far fewer than all C(64, 3) subsets of a failure.
    counts: Counter[tuple[str, ...]] = Counter()
    own = set(feats)
    for fs in wanting:
        overlap = sorted(own.intersection(fs))
        for size in range(1, min(policy.max_pattern_size, len(overlap)) + 1):
            counts.update(combinations(overlap, size))
    ranked = sorted((-n, len(p), p) for p, n in counts.items() if (p, action) not in taken)
    if ranked:
        best_n, best_len = ranked[0][0], ranked[0][1]
        tied = [p for n, size, p in ranked if n == best_n and size == best_len]
        return tied[: policy.max_proposals_per_failure], -best_n
    # No supported subset left: the most general untaken one (combinations of a sorted list
    # come out in lexicographic order, so the first hit is the tie-break winner). Unsupported
    # guesses are proposed one at a time: they wait for evidence either way.
    for size in range(1, min(policy.max_pattern_size, len(feats)) + 1):
        for pattern in combinations(feats, size):
            if (pattern, action) not in taken:
                return [pattern], 0
    return [], 0


def mine_candidates(
    outcomes: Sequence[OutcomeView],
    lessons: Sequence[LessonView],
    *,
    task_type: str,
    policy: LessonPolicy,
    known: Collection[str] | None = None,
) -> list[Proposal]:
    """Propose candidate lessons ``(pattern, action)`` from the failures of ``task_type``.

    For each failure with a verified action different from the action taken, every non-empty
    subset of its features (up to ``policy.max_pattern_size``) not already a lesson with that
    action (in any status) is scored by the *other* cases that match it and want the action.
    The subsets with the most such cases and the fewest features are proposed (lexicographic
    order, at most ``policy.max_proposals_per_failure``). A proposal is mined from the earliest
    failure that yields it; later failures of other cases that it matches stay held-out evidence.

    Only actions in ``known`` are proposed (default: :func:`known_actions` of ``outcomes`` and
    ``policy.declared_actions``), and never an action that reads as an instruction: a failure's
    verified action is free text from whoever reported it.
    Returned sorted by (-positives, pattern size, pattern, action).
    """
    own = [o for o in outcomes if o.task_type == task_type]
    allowed = set(known) if known is not None else known_actions(outcomes, policy.declared_actions)
    taken = {(tuple(sorted(l.pattern)), l.action) for l in lessons if l.task_type == task_type}
    known_cases = _known_by_case(own)
    found: dict[tuple[tuple[str, ...], str], tuple[int, set[str]]] = {}
    for f in sorted(own, key=lambda o: (o.occurred_at, o.outcome_id)):
        action = f.verified_action
        if f.success or not action or action == f.action_taken or not f.features:
            continue
        if action not in allowed or action_refusal(action) or _covered(f, action, lessons):
            continue
        # Positives are counted per case (repeated attempts count once), never the failure's own.
        wanting = [o.features for case, o in known_cases.items() if case != f.case and o.correct_action == action]
        patterns, positives = _best_patterns(sorted(set(f.features)), wanting, action, taken, policy)
        for pattern in patterns:
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
    fired = [l for l in lessons if l.status == LessonStatus.ACTIVE and matches(l.pattern, feats)]
    if not fired:
        return None
    return min(fired, key=lambda l: (-len(l.pattern), -l.version, l.lesson_id))


def _summary(fixed: int, held_out: int, negatives: int, regressions: int, support: int, unfixed: int) -> str:
    left = f", {unfixed} left wrong" if unfixed else ""
    return (
        f"held-out {fixed}/{held_out} fixed, {negatives} negative misfire, "
        f"{regressions} regression{left}, support {support}"
    )


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _blocked_report(misfires: Sequence[OutcomeView], regressed: Sequence[tuple[OutcomeView, LessonView]]) -> str:
    reasons = []
    if misfires:
        shown = ", ".join(f"outcome {o.outcome_id} wants {o.correct_action}" for o in misfires[:_SHOWN])
        reasons.append(f"{plural(len(misfires), 'negative misfire')} ({shown})")
    if regressed:
        shown = ", ".join(f"outcome {o.outcome_id} answered by {l.lesson_id}" for o, l in regressed[:_SHOWN])
        reasons.append(f"{plural(len(regressed), 'regression')} ({shown})")
    return f"blocked: {', '.join(reasons)}"


def judge_candidate(
    candidate: LessonView,
    outcomes: Sequence[OutcomeView],
    active: Sequence[LessonView],
    *,
    policy: LessonPolicy,
    known: Collection[str] | None = None,
) -> Decision:
    """Replay ``candidate`` on held-out cases and decide: "active", "blocked" or still "candidate".

    Held-out cases are the candidate's task-type cases other than those of ``mined_from``
    (another attempt at the same task is not independent evidence). A case's correct action
    is that of its latest outcome that knows one. Blocked: the action reads as an instruction,
    or a held-out case that works today would break (its action taken was right: a negative
    misfire; an active lesson answers it: a regression). Promoted when at most
    ``max_unfixed_share`` of the held-out cases stay wrong, at least ``min_support`` are fixed,
    the action is ``known`` (default: :func:`known_actions` of ``outcomes``) and the evidence
    (the outcomes mined from and those of the fixed cases) comes from a tenant-level report or
    ``min_reporters`` end users. Otherwise it stays a candidate, the report saying what it waits for.
    """
    own = [o for o in outcomes if o.task_type == candidate.task_type]
    by_id = {o.outcome_id: o for o in own}
    # An id missing from ``outcomes`` still names its own case (a case defaults to the outcome id).
    mined_cases = {by_id[i].case if i in by_id else i for i in candidate.mined_from}
    matching = [o for o in own if o.case not in mined_cases and matches(candidate.pattern, o.features)]
    known_cases = _known_by_case(matching)
    rivals = [l for l in active if l.task_type == candidate.task_type and l.lesson_id != candidate.lesson_id]
    fixed: list[OutcomeView] = []
    misfires: list[OutcomeView] = []
    unfixed: list[OutcomeView] = []
    regressed: list[tuple[OutcomeView, LessonView]] = []
    for case in sorted(known_cases):
        o = known_cases[case]
        want = o.correct_action
        if want == candidate.action:
            fixed.append(o)
            continue
        # A regression: an active lesson answers this case right today, and the candidate is at
        # least as specific as it, so the candidate would fire instead.
        current = select_lesson(rivals, o.features)
        if current is not None and current.action == want and len(candidate.pattern) >= len(current.pattern):
            regressed.append((o, current))
        elif o.action_taken != want:
            # Wrong today and wrong with the lesson: not a break, but evidence the pattern is not pure.
            unfixed.append(o)
            continue
        misfires.append(o)  # solved today (the action taken was right, or a lesson answers it): it would break
    held_out, support = len(known_cases), len({o.case for o in matching})
    fixed_cases = {o.case for o in fixed}
    backing = [by_id[i] for i in candidate.mined_from if i in by_id]
    backing += [o for o in matching if o.case in fixed_cases and o.correct_action == candidate.action]
    voices = {voice(o) for o in backing}
    summary = _summary(len(fixed), held_out, len(misfires), len(regressed), support, len(unfixed))
    evidence = tuple(sorted(o.outcome_id for o in matching))
    allowed = set(known) if known is not None else known_actions(outcomes, policy.declared_actions)

    def decided(status: LessonStatus, report: str) -> Decision:
        return Decision(
            status,
            held_out,
            len(fixed),
            len(misfires),
            len(regressed),
            support,
            report,
            evidence,
            len(voices),
            len(unfixed),
        )

    blocked, pending = LessonStatus.BLOCKED, LessonStatus.CANDIDATE
    if refusal := action_refusal(candidate.action):
        return decided(blocked, f"blocked: {refusal}; {summary}")
    if misfires or regressed:
        return decided(blocked, f"{_blocked_report(misfires, regressed)}; {summary}")
    if len(unfixed) > policy.max_unfixed_share * held_out:
        shown = ", ".join(f"outcome {o.outcome_id} wants {o.correct_action}" for o in unfixed[:_SHOWN])
        return decided(
            pending,
            f"pending: {len(unfixed)} of {held_out} held-out cases left wrong ({shown}), "
            f"more than {policy.max_unfixed_share:.0%}; {summary}",
        )
    if len(fixed) < policy.min_support:
        return decided(pending, f"pending: {held_out} of {policy.min_support} held-out cases; {summary}")
    if candidate.action not in allowed:
        return decided(
            pending,
            "pending: the action is not among the tenant's known actions (verified on a "
            f"tenant-level outcome, or declared); {summary}",
        )
    if "tenant" not in voices and len(voices) < policy.min_reporters:
        return decided(
            pending,
            f"pending: evidence from {plural(len(voices), 'user')}, a lesson needs "
            f"{policy.min_reporters} users or a tenant-level report; {summary}",
        )
    return decided(LessonStatus.ACTIVE, summary)


def run_gate(
    candidates: Sequence[LessonView],
    outcomes: Sequence[OutcomeView],
    active: Sequence[LessonView],
    *,
    policy: LessonPolicy,
    known: Collection[str] | None = None,
) -> list[tuple[LessonView, Decision]]:
    """Judge every candidate and promote at most ``policy.max_promotions_per_run`` of them.

    Order: more support first, then more specific, then lesson id. Each candidate is judged
    against ``active`` plus the candidates promoted earlier in this run; one that would pass
    once the batch is full stays a candidate, its report prefixed ``"deferred: governance batch full; "``.
    """
    first = {c.lesson_id: judge_candidate(c, outcomes, active, policy=policy, known=known) for c in candidates}
    order = sorted(candidates, key=lambda c: (-first[c.lesson_id].support, -len(c.pattern), c.lesson_id))
    in_force = list(active)
    promoted = 0
    out: list[tuple[LessonView, Decision]] = []
    for c in order:
        d = judge_candidate(c, outcomes, in_force, policy=policy, known=known)
        if d.status == LessonStatus.ACTIVE:
            if promoted < policy.max_promotions_per_run:
                promoted += 1
                in_force.append(c.model_copy(update={"status": LessonStatus.ACTIVE}))
            else:
                d = replace(d, status=LessonStatus.CANDIDATE, report=f"deferred: governance batch full; {d.report}")
        out.append((c, d))
    return out
