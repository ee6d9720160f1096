"""Deletion plans: from a request to every record, episode and projection entry it must erase.

Pure: the store hands over the subject's records (with their lineage) and episodes; this module
decides what goes. A plan is saved as the manifest before anything is deleted, so the work can
be resumed after a crash and audited afterwards.

Forms of request:

* whole subject — every record and episode of (tenant, user);
* topic — the named keys of a subject, plus the keys they reveal (a time zone reveals a
  location), with their whole supersession history;
* explicit memory ids — those records and the rest of their slot's history.

Whatever the form, the plan also takes records derived from the targeted ones (lineage
``derived_from``, followed transitively), the episodes they were extracted from (tombstoned:
text purged, marker kept), any other episode of the subject whose text names an erased value
("Zorblax loves the beach" goes with the dog's name), those episodes' transcript records, and
summaries built from any of those episodes (the next consolidation rebuilds them from survivors).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from memworks.models.drafts import LessonView, MemoryView, OutcomeView
from memworks.models.enums import LessonDecision, LessonStatus
from memworks.pipelines.lessons import LessonPolicy, judge_candidate

#: One manifest target per place the subject's data can live. A target closes only when its
#: projection confirms that nothing of the subject remains there.
TARGETS = (
    "primary_store",
    "transcripts",
    "lexical_index",
    "vector_index",
    "cache",
    "profile",
    "derived",
    "outcomes",
    "lessons",
    "audit_log",
    "dead_letters",
)

#: Shortest value searched for in transcripts (shorter ones match too much to mean anything).
MIN_VALUE_CHARS = 3

#: Keys whose value gives away another key's: deleting a location also deletes the time zone.
REVEALS: Mapping[str, tuple[str, ...]] = {
    "user.home_city": ("user.timezone",),
    "user.work_city": ("user.timezone",),
    "user.hometown": ("user.timezone",),
    "user.home_country": ("user.timezone",),
}


@dataclass(frozen=True)
class DeletionSubject:
    tenant_id: str
    user_id: str
    keys: tuple[str, ...] = ()
    memory_ids: tuple[str, ...] = ()

    @property
    def whole_subject(self) -> bool:
        return not self.keys and not self.memory_ids


@dataclass(frozen=True)
class EpisodeRef:
    episode_id: str
    row_id: int
    fingerprint: str


@dataclass
class DeletionPlan:
    """Everything a request erases. Fingerprints let verification find stray copies by content."""

    memory_ids: list[str] = field(default_factory=list)
    derived_ids: list[str] = field(default_factory=list)
    episode_ids: list[str] = field(default_factory=list)
    episode_row_ids: list[int] = field(default_factory=list)
    fingerprints: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    #: The subject's task outcomes (a whole-subject deletion only), their content hashes (a copy
    #: under another id has the same), and what happens to each lesson resting on them:
    #: ``{"artifact", "decision", "basis"}``. A basis never quotes the subject's data.
    outcome_ids: list[str] = field(default_factory=list)
    outcome_fingerprints: list[str] = field(default_factory=list)
    decisions: list[dict[str, str]] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        return {
            "memories": len(self.memory_ids),
            "derived": len(self.derived_ids),
            "episodes": len(self.episode_ids),
            "fingerprints": len(self.fingerprints),
            "outcomes": len(self.outcome_ids),
            "lessons": len(self.decisions),
        }


#: A quoted literal in a reason: Python's repr of a matched span ('…' or "…", escapes inside).
_QUOTED = re.compile(r"""\s*(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")""")


def scrub_reason(reason: str) -> str:
    """A gate or rejection reason reduced to the rule it names: what it quotes goes.

    Reasons read ``rule: detail 'quoted text'``. Quoted literals are dropped; from the first
    part that still holds a quote character on (an unpaired one, so a literal may hide there),
    the rest is dropped too. Idempotent: a scrubbed reason scrubs to itself.
    """
    kept = []
    for part in reason.split(":"):
        part = _QUOTED.sub("", part)
        if "'" in part or '"' in part:
            break
        kept.append(part)
    return ":".join(kept).strip() or "withdrawn"


def expand_keys(keys: Sequence[str]) -> list[str]:
    """The keys a topic deletion covers: those named and those they reveal."""
    out = list(dict.fromkeys(keys))
    for k in keys:
        out += [r for r in REVEALS.get(k, ()) if r not in out]
    return out


def plan_deletion(
    subject: DeletionSubject,
    *,
    records: Sequence[MemoryView],
    fingerprints: Mapping[str, str],
    episodes: Sequence[EpisodeRef],
    transcript_of: Mapping[str, str],
) -> DeletionPlan:
    """Decide what a deletion request erases.

    Args:
        subject: who and what to delete.
        records: every record of the subject (any status), with evidence and ``derived_from``.
        fingerprints: content fingerprint of each record id.
        episodes: the subject's episodes.
        transcript_of: transcript record id of each episode id.

    Returns:
        The plan: record ids (derived ones listed apart too), episodes to tombstone, fingerprints.
    """
    by_id = {m.memory_id: m for m in records}
    if subject.whole_subject:
        chosen = set(by_id)
        episode_ids = {e.episode_id for e in episodes}
        keys: list[str] = sorted({m.key for m in records if m.key is not None})
    else:
        keys = expand_keys(subject.keys)
        picked = {mid for mid in subject.memory_ids if mid in by_id}
        slot_keys = set(keys) | {k for mid in picked if (k := by_id[mid].key) is not None}
        chosen = picked | {m.memory_id for m in records if m.key and m.key in slot_keys}
        chosen |= _derived_closure(chosen, records)
        episode_ids = {e for mid in chosen if by_id[mid].extractor != "transcript" for e in by_id[mid].evidence}
        episode_ids |= _mentioning(
            records, {by_id[mid].value for mid in chosen if by_id[mid].extractor != "transcript"}
        )
        keys = sorted(slot_keys)
    derived = _derived_closure(chosen, records) | {mid for mid in chosen if by_id[mid].derived_from}
    # Summaries built from an erased episode go too; consolidation rebuilds them from survivors.
    derived |= {m.memory_id for m in records if m.extractor == "summary" and episode_ids.intersection(m.evidence)}
    chosen |= derived
    chosen |= {transcript_of[e] for e in episode_ids if transcript_of.get(e) in by_id}
    refs = [e for e in episodes if e.episode_id in episode_ids]
    prints = {fingerprints[mid] for mid in chosen if mid in fingerprints} | {e.fingerprint for e in refs}
    return DeletionPlan(
        memory_ids=sorted(chosen),
        derived_ids=sorted(derived),
        episode_ids=sorted(episode_ids),
        episode_row_ids=sorted(e.row_id for e in refs),
        fingerprints=sorted(prints),
        keys=keys,
    )


def _mentioning(records: Sequence[MemoryView], values: set[str]) -> set[str]:
    """Episodes whose transcript names one of the erased values: they are evidence of it too."""
    words = sorted((v for v in values if len(v.strip()) >= MIN_VALUE_CHARS), key=len, reverse=True)
    if not words:
        return set()
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)
    return {e for m in records if m.extractor == "transcript" and pattern.search(m.text) for e in m.evidence}


def _derived_closure(roots: set[str], records: Sequence[MemoryView]) -> set[str]:
    """Records derived (directly or not) from ``roots``."""
    found: set[str] = set()
    frontier = set(roots)
    while frontier:
        nxt = {m.memory_id for m in records if frontier.intersection(m.derived_from) and m.memory_id not in found}
        found |= nxt
        frontier = nxt - roots
    return found


def decide_lessons(
    lessons: Sequence[LessonView],
    outcomes: Sequence[OutcomeView],
    *,
    subject_outcomes: set[str],
    rests_on: Mapping[str, set[str]],
    policy: LessonPolicy,
) -> list[dict[str, str]]:
    """What happens to each lesson built partly or wholly from the subject's outcomes.

    Policy, in order:

    * built only from the subject's outcomes → **removed**;
    * a pattern feature that occurs only in the subject's outcomes (it may be personal) → **removed**;
    * an action that no surviving outcome took or verified (the subject's own words) → **removed**;
    * otherwise the pattern and action are a generic procedure. An active lesson is judged again
      by the promotion gate on the surviving outcomes alone: it passes → **rebuilt** (kept, its
      lineage to the subject's outcomes cut), it fails → **removed**. A lesson not in use
      (candidate, blocked, rolled back) is **retained** for audit, its lineage cut.

    Args:
        lessons: lessons whose lineage reaches one of ``subject_outcomes``.
        outcomes: every outcome of those lessons' task types.
        subject_outcomes: ids of the subject's outcomes.
        rests_on: outcome ids each lesson was mined from or validated on.
        policy: the promotion gate's policy.
    """
    survivors = [o for o in outcomes if o.outcome_id not in subject_outcomes]
    seen = {f for o in survivors for f in o.features}
    actions = {a for o in survivors for a in (o.action_taken, o.verified_action) if a}
    out = []
    for lesson in sorted(lessons, key=lambda l: l.lesson_id):
        own = rests_on.get(lesson.lesson_id, set())
        n = len(own & subject_outcomes)
        # Bases name counts and rules, never a feature or an action: the manifest outlives the data.
        if not own - subject_outcomes:
            decision, basis = LessonDecision.REMOVED, f"built only from the subject's outcomes ({n})"
        elif private := set(lesson.pattern) - seen:
            decision = LessonDecision.REMOVED
            basis = f"{len(private)} pattern feature(s) occur only in the subject's outcomes"
        elif lesson.action not in actions:
            decision, basis = LessonDecision.REMOVED, "its action occurs only in the subject's outcomes"
        elif lesson.status == LessonStatus.ACTIVE:
            again = judge_candidate(lesson.model_copy(update={"mined_from": ()}), survivors, [], policy=policy)
            passed = again.status == LessonStatus.ACTIVE
            decision = LessonDecision.REBUILT if passed else LessonDecision.REMOVED
            basis = (
                "generic procedure, still passes the gate without the subject's outcomes: "
                if passed
                else "no longer passes the gate without the subject's outcomes: "
            ) + again.report
        else:
            decision = LessonDecision.RETAINED
            basis = f"generic procedure, not in use ({lesson.status}); lineage to {n} outcome(s) cut"
        out.append({"artifact": f"lesson:{lesson.lesson_id}", "decision": decision, "basis": basis})
    return out
