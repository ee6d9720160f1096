"""Deletion plans: from a request to every record, episode and projection entry it must erase.

Pure: the store hands over the subject's records (with their lineage) and episodes; this module
decides what goes. A plan is saved as the manifest before anything is deleted, so the work can
be resumed after a crash and audited afterwards.

Forms of request:

* whole subject — every record and episode of (tenant, user);
* topic — the named keys of a subject, plus the keys they reveal (a time zone reveals a
  location), with their whole supersession history;
* explicit memory ids — those records and the rest of their slot's history (a transcript, a
  summary or a reflection note has none: see :func:`plan_deletion` for what each kind takes).

Whatever the form, the plan also takes records derived from the targeted ones (lineage
``derived_from``, followed transitively), the episodes they were extracted from (tombstoned:
text purged, marker kept), any other episode of the subject whose text names an erased value
("Zorblax loves the beach" goes with the dog's name), those episodes' transcript records, and
summaries built from any of those episodes (the next consolidation rebuilds them from survivors).

A request naming keys or records that matches nothing ends ``nothing_matched``, never
``complete``; a finished plan keeps its keys only hashed (:func:`redact_keys`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from memworks.models.drafts import MemoryView
from memworks.pipelines.deletion.lesson_decisions import decide_lessons as decide_lessons

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

#: Extractor names of the records that are not claims with a slot history: a transcript (what
#: was said), a summary (of a session's turns) and a reflection note (on a task outcome).
TRANSCRIPT, SUMMARY, REFLECTION = "transcript", "summary", "reflection"
#: Records that stand alone when named: their key (if any) names a session or a task type.
STANDALONE = frozenset({TRANSCRIPT, SUMMARY, REFLECTION})
#: Records whose erasure retracts the turns they rest on: what was said goes, and every record
#: resting only on those turns with it.
RETRACTS_SAID = frozenset({TRANSCRIPT, SUMMARY})

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
    #: Set once the request is finished: ``keys`` then hold keyed hashes under this salt (see
    #: :func:`redact_keys`), so a key named to an auditor can be checked but none can be read.
    keys_salt: str = ""

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


def slot_keys(subject: DeletionSubject, records: Sequence[MemoryView]) -> list[str]:
    """The keys named and those they reveal, plus the key of each record named that has a slot
    history (a summary's or a reflection note's key names a session or a task type)."""
    picked = set(subject.memory_ids)
    own = {m.key for m in records if m.memory_id in picked and m.key and m.extractor not in STANDALONE}
    return sorted(set(expand_keys(subject.keys)) | own)


def plan_deletion(
    subject: DeletionSubject,
    *,
    records: Sequence[MemoryView],
    fingerprints: Mapping[str, str],
    episodes: Sequence[EpisodeRef],
    transcript_of: Mapping[str, str],
    outcomes_of: Mapping[str, Sequence[str]] | None = None,
    proposed: Mapping[str, Sequence[str]] | None = None,
) -> DeletionPlan:
    """Decide what a deletion request erases.

    What each kind of record takes with it, when a request names it (by id, or by its key):

    * a **fact** — its slot's whole history, records derived from it, the episodes it rests on
      (tombstoned: the text goes, the marker stays as provenance of the other claims made
      there), other episodes that name its value, episodes where a candidate for its slot was
      judged even if none was stored (a forget request in the same batch drops them), and any
      other claim of those episodes that names its value (the same sentence read again);
    * a **transcript** — what was said: its episode is tombstoned, and every record whose only
      evidence was that episode goes too (a fact without provenance may not stand);
    * a **summary** — what it summarises: the turns it was built from, as for a transcript;
    * a **reflection note** — the task outcome it reflects on, whose words it repeats (the
      store decides what happens to the lessons resting on that outcome).

    Whatever the kind: episodes with the same text as an erased one are the same words and go
    too, and so does any record of the subject holding an erased record's or episode's exact
    text (a verbatim copy: it takes its outcomes and derived records, nothing else). Only a
    record with no provenance at all (never written by the pipeline) is left for verification
    to report. So every fingerprint the plan lists belongs to something the plan erases, and a
    check looking for the plan's ids and fingerprints finds only what arrived later.

    Args:
        subject: who and what to delete.
        records: every record of the subject (any status), with evidence and ``derived_from``.
        fingerprints: content fingerprint of each record id.
        episodes: the subject's episodes.
        transcript_of: transcript record id of each episode id.
        outcomes_of: outcome ids each record was built from (reflection notes).
        proposed: episode ids where the gate judged a candidate for a key, by key (the audit).

    Returns:
        The plan: record ids (derived ones listed apart too), episodes to tombstone, their
        fingerprints, the slot keys, and the outcomes the erased records were built from.
    """
    by_id = {m.memory_id: m for m in records}
    outcomes_of = outcomes_of or {}
    if subject.whole_subject:
        chosen = set(by_id)
        episode_ids = {e.episode_id for e in episodes}
        keys = sorted({m.key for m in records if m.key is not None})
        derived = _derived_closure(chosen, records) | {mid for mid in chosen if by_id[mid].derived_from}
        derived |= {m.memory_id for m in records if m.extractor == SUMMARY and episode_ids.intersection(m.evidence)}
    else:
        keys = slot_keys(subject, records)
        chosen, episode_ids, derived = _partial(
            subject, keys, records, fingerprints, episodes, transcript_of, outcomes_of, proposed or {}
        )
    refs = [e for e in episodes if e.episode_id in episode_ids]
    prints = {fingerprints[mid] for mid in chosen if mid in fingerprints} | {e.fingerprint for e in refs}
    return DeletionPlan(
        memory_ids=sorted(chosen),
        derived_ids=sorted(derived),
        episode_ids=sorted(episode_ids),
        episode_row_ids=sorted(e.row_id for e in refs),
        fingerprints=sorted(prints),
        keys=keys,
        outcome_ids=sorted({o for mid in chosen for o in outcomes_of.get(mid, ())}),
    )


def _partial(
    subject: DeletionSubject,
    keys: list[str],
    records: Sequence[MemoryView],
    fingerprints: Mapping[str, str],
    episodes: Sequence[EpisodeRef],
    transcript_of: Mapping[str, str],
    outcomes_of: Mapping[str, Sequence[str]],
    proposed: Mapping[str, Sequence[str]],
) -> tuple[set[str], set[str], set[str]]:
    """(records, episodes, derived records) of a request naming keys or records."""
    by_id = {m.memory_id: m for m in records}
    text_of = {e.episode_id: e.fingerprint for e in episodes if e.fingerprint}
    named = {mid for mid in subject.memory_ids if mid in by_id} | {m.memory_id for m in records if m.key in keys}
    heard = {e for k in keys for e in proposed.get(k, ())}
    said = _same_text(
        {e for mid in named if by_id[mid].extractor in RETRACTS_SAID for e in by_id[mid].evidence}, text_of
    )
    orphans = {m.memory_id for m in records if m.evidence and said.issuperset(m.evidence)}
    facts = {mid for mid in named if by_id[mid].extractor not in STANDALONE}
    naming = _naming({by_id[mid].value for mid in facts | _derived_closure(facts, records)})
    stated = said | heard | _mentioning(records, naming)
    copies: set[str] = set()
    while True:
        taken = named | orphans | copies
        derived = _derived_closure(taken, records) | {mid for mid in taken if by_id[mid].derived_from}
        taken |= derived
        gone = _same_text(stated | {e for mid in taken - copies for e in by_id[mid].evidence}, text_of)
        # Summaries built from an erased episode go too; consolidation rebuilds them from survivors.
        rebuilt = {m.memory_id for m in records if m.extractor == SUMMARY and gone.intersection(m.evidence)} - taken
        # Another claim of an erased turn that names an erased value states it again (the open
        # extractor's reading of the same sentence, under a key of its own): it goes as a copy.
        again = {m.memory_id for m in records if gone.intersection(m.evidence) and _names(naming, m)}
        again -= taken | rebuilt
        chosen = taken | rebuilt | {transcript_of[e] for e in gone if transcript_of.get(e) in by_id}
        prints = {fingerprints[mid] for mid in chosen if mid in fingerprints}
        prints |= {text_of[e] for e in gone if e in text_of}
        # A record the pipeline wrote rests on an episode, a record or an outcome; one with no
        # provenance at all is a stray copy, which verification reports rather than the plan adopts.
        more = again - chosen
        # ... and one that quotes an erased turn (a tool result quotes the request it answers).
        if quoted := _quoted_texts(gone, transcript_of, by_id):
            more |= {m.memory_id for m in records if m.memory_id not in chosen and _quotes(m.text, quoted)}
        more |= {
            m.memory_id
            for m in records
            if m.memory_id not in chosen
            and fingerprints.get(m.memory_id) in prints
            and (m.evidence or m.derived_from or outcomes_of.get(m.memory_id))
        }
        if not more:
            return chosen, gone, derived | rebuilt
        copies |= more


def nothing_matched(subject: DeletionSubject, plan: DeletionPlan) -> bool:
    """A request that named keys or records and whose plan erases no record, no episode and no
    outcome: nothing of the subject matched it (a whole-subject request is never this)."""
    return not subject.whole_subject and not (plan.memory_ids or plan.episode_ids or plan.outcome_ids)


def hash_key(salt: str, key: str) -> str:
    """A slot key as a finished plan keeps it: HMAC-SHA256 under the plan's salt (hex, prefixed)."""
    return "hmac-sha256:" + hmac.new(salt.encode(), key.encode(), hashlib.sha256).hexdigest()


def redact_keys(plan: DeletionPlan, salt: str) -> DeletionPlan:
    """``plan`` with its slot keys replaced by keyed hashes (same count); a plan already redacted
    comes back as it is."""
    if plan.keys_salt:
        return plan
    return replace(plan, keys=sorted(hash_key(salt, k) for k in plan.keys), keys_salt=salt)


def _same_text(episode_ids: set[str], text_of: Mapping[str, str]) -> set[str]:
    """``episode_ids`` and every other episode with the same text as one of them."""
    prints = {text_of[e] for e in episode_ids if e in text_of}
    return set(episode_ids) | {e for e, fp in text_of.items() if fp in prints}


#: Fewest characters of an erased turn's words that, found in another record's text, quote it.
MIN_QUOTE_CHARS = 24


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _quoted_texts(gone: set[str], transcript_of: Mapping[str, str], by_id: Mapping[str, MemoryView]) -> list[str]:
    """The erased turns' words, as another record would quote them (whitespace folded)."""
    ids = [t for e in gone if (t := transcript_of.get(e)) is not None and t in by_id]
    texts = [_fold(by_id[t].value) for t in ids]
    return [t for t in texts if len(t) >= MIN_QUOTE_CHARS]


def _quotes(text: str, quoted: Sequence[str]) -> bool:
    """``text`` holds the start of one of ``quoted`` (a quote may be cut at its end)."""
    folded = _fold(text)
    return any(q[: MIN_QUOTE_CHARS * 4] in folded for q in quoted)


def _naming(values: set[str]) -> re.Pattern[str] | None:
    """A pattern finding any of the erased ``values`` as whole words (None when none is long enough)."""
    words = sorted((v for v in values if len(v.strip()) >= MIN_VALUE_CHARS), key=len, reverse=True)
    if not words:
        return None
    return re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)


def _names(pattern: re.Pattern[str] | None, m: MemoryView) -> bool:
    return pattern is not None and bool(pattern.search(m.text) or pattern.search(m.value))


def _mentioning(records: Sequence[MemoryView], pattern: re.Pattern[str] | None) -> set[str]:
    """Episodes whose transcript names one of the erased values: they are evidence of it too."""
    return {e for m in records if m.extractor == TRANSCRIPT and _names(pattern, m) for e in m.evidence}


def _derived_closure(roots: set[str], records: Sequence[MemoryView]) -> set[str]:
    """Records derived (directly or not) from ``roots``."""
    children: dict[str, list[str]] = {}
    for m in records:
        for parent in m.derived_from:
            children.setdefault(parent, []).append(m.memory_id)
    found: set[str] = set()
    frontier = set(roots)
    while frontier:
        nxt = {c for p in frontier for c in children.get(p, ()) if c not in found}
        found |= nxt
        frontier = nxt - roots
    return found
