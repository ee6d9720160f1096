"""What a claim says, read once, and the features of a (new, old) pair of claims.

A :class:`ClaimText` is one sentence-level statement with its subject, time, source and vector,
plus what :func:`read_claim` reads of it: content lemmas, the main verbs and their objects, the
grammatical subject, negation, tense, cues of change and ending, numbers, proper nouns, ids and
time phrases. With a dependency parse (:class:`~memworks.pipelines.extraction.open_vocab.parse.Sentence`)
the reading follows the tree; without one a coarser reading of the words stands in.

:func:`pair_features` turns a pair into one row of :data:`FEATURE_NAMES`: general signals of
sameness (vector and word overlap, same verb, same object, same subject), of difference under
the same frame (another object of the same verb, other proper nouns or numbers, another status of
the same id) and of time and intent (cues, negation flips, tenses, the gap between the claims).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import numpy.typing as npt

from memworks.pipelines.claims import cues as C
from memworks.pipelines.claims.reading import Reading, read_words, stem
from memworks.pipelines.claims.tree import read_sentence
from memworks.pipelines.extraction.open_vocab.parse import Sentence

__all__ = ["FEATURE_NAMES", "ClaimText", "other_person", "pair_features", "read_claim"]


@dataclass(frozen=True)
class ClaimText:
    """One claim and what was read of it (build it with :func:`read_claim`)."""

    text: str
    #: "user", or the name of the person the claim is about.
    subject: str
    said_at: datetime
    #: "user" or "verified_tool".
    source: str
    #: Unit-length float32 vector of ``text`` (the shipped 384-d embedder).
    vector: npt.NDArray[np.float32]
    sentence: Sentence | None = None
    reading: Reading = field(default_factory=Reading)


def read_claim(
    text: str,
    *,
    subject: str,
    said_at: datetime,
    source: str,
    vector: npt.NDArray[np.float32],
    sentence: Sentence | None = None,
) -> ClaimText:
    """A :class:`ClaimText`, read from ``sentence``'s tokens when given, else from the words of ``text``."""
    reading = read_sentence(sentence) if sentence is not None else read_words(text)
    vec = np.asarray(vector, dtype=np.float32).ravel()
    norm = float(np.linalg.norm(vec))
    if norm > 0 and abs(norm - 1.0) > 1e-3:
        vec = vec / norm
    return ClaimText(text, subject, said_at, source, vec, sentence, reading)


#: Feature names, in column order of :func:`pair_features`.
FEATURE_NAMES: tuple[str, ...] = (
    # how alike the two claims are
    "cosine",
    "cosine_sq",
    "content_jaccard",
    "noun_jaccard",
    "old_nouns_kept",
    "new_nouns_added",
    "same_verb",
    "same_object",
    "same_gram_subject",
    "other_gram_subject",
    "first_person_both",
    "same_subject",
    "same_source",
    "both_tool",
    "same_id",
    "other_id",
    "same_id_other_words",
    "same_lead_id",
    "other_lead_id",
    # a different value in the same frame
    "same_frame",
    "substitution",
    "slot_shared",
    "slot_same_value",
    "slot_other_value",
    "about_old_object",
    "specific_subject_same",
    "other_propn",
    "other_number",
    "other_status",
    # cues of the new claim, and whether they touch the old one
    "end_cue",
    "end_touches_old",
    "end_touches_old_noun",
    "change_verb",
    "change_touches_old",
    "start_verb",
    "start_touches_old",
    "end_scope_touches_old",
    "replaced_in_old",
    "change_word",
    "new_object",
    "new_hypothetical",
    "old_end_cue",
    "old_change_cue",
    "new_negated",
    "old_negated",
    "negation_flip",
    # time
    "new_past",
    "new_future",
    "new_perfect",
    "new_used_to",
    "old_past",
    "old_future",
    "old_used_to",
    "new_time_phrase",
    "old_time_phrase",
    "log_days",
    "log_len_ratio",
    "new_question",
    # interactions
    "end_touch_x_cosine",
    "change_touch_x_cosine",
    "substitution_x_cosine",
    "flip_x_cosine",
    "other_subject_x_cosine",
    "cue_x_same_frame",
    "event_after_state",
    "done_after_plan",
    "new_pending",
    "new_still",
    "end_with_replacement",
    "end_alone",
    "other_person",
)


_LIGHT = frozenset(stem(v) for v in C.LIGHT_VERBS)
_PRONOUNS = frozenset({"i", "we", "you", "he", "she", "it", "they", "this", "that"})


def _share(a: frozenset[str], b: frozenset[str]) -> float:
    """Share of ``a`` that is in ``b`` (0 when ``a`` is empty)."""
    return len(a & b) / len(a) if a else 0.0


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _differs(a: frozenset[str], b: frozenset[str]) -> float:
    """1 when both sides name something of the kind and share none of it."""
    return float(bool(a) and bool(b) and not (a & b))


def other_person(n: Reading, o: Reading) -> bool:
    """The new claim is about another person than the old one ("my sister ..." after "I ..."), and
    the old one does not mention them: news of someone else never closes or restates it."""
    if not n.person or n.person == o.person:
        return False
    return n.person not in o.content | o.nouns | o.propns and stem(n.person) not in o.content | o.nouns


def cue_acts_on(new: ClaimText, old: ClaimText) -> bool:
    """Whether ``new``'s cue of ending or change acts on a thing ``old`` said ("Cancelled the
    PureGym membership" on "I've got a PureGym membership"; "I'm not giving up" on nothing):
    the thing a named noun, a name or a number of ``old``'s."""
    n, o = new.reading, old.reading
    if n.negated or n.question or n.hypothetical:
        return False  # "I'm not giving up" ends nothing
    named = o.nouns | o.propns | o.numbers
    return bool(
        n.end_heads & named or (n.change_verb and n.change_heads & named) or n.replaced & (o.content | o.propns)
    )


def pair_features(new: ClaimText, old: ClaimText) -> npt.NDArray[np.float64]:
    """One row of :data:`FEATURE_NAMES` for the pair (``new`` said after ``old``)."""
    n, o = new.reading, old.reading
    cos = float(np.clip(np.dot(new.vector, old.vector), -1.0, 1.0)) if new.vector.size == old.vector.size else 0.0
    old_things = o.nouns | o.numbers | (o.verbs - _LIGHT)
    same_verb = float(bool((n.verbs & o.verbs) - _LIGHT))
    same_gs = float(bool(n.gram_subject) and n.gram_subject == o.gram_subject)
    other_gs = float(bool(n.gram_subject) and bool(o.gram_subject) and n.gram_subject != o.gram_subject)
    same_id = float(bool(n.ids & o.ids))
    shared_noun = bool(n.nouns & o.nouns)
    same_frame = float(bool(same_verb or same_id or (same_gs and n.root == o.root) or shared_noun))
    n_values, o_values = n.nouns | n.propns | n.numbers, o.nouns | o.propns | o.numbers
    substitution = float(
        same_frame > 0 and bool(n_values - o.content - o.numbers) and bool(o_values - n.content - n.numbers)
    )
    n_slots, o_slots = dict(n.slots), dict(o.slots)
    shared_slots = n_slots.keys() & o_slots.keys()
    end_cue = float(n.end_verb or n.end_word)
    end_touch = float(bool(n.end_heads & old_things))
    end_touch_noun = float(bool(n.end_heads & o.nouns))
    change_touch = float(n.change_verb and bool(n.change_heads & old_things))
    start_touch = float(n.start_verb and bool(n.start_heads & old_things))
    flip = float(n.negated != o.negated)
    days = (new.said_at - old.said_at).total_seconds() / 86400.0
    new_len, old_len = max(len(new.text.split()), 1), max(len(old.text.split()), 1)
    any_cue = float(n.end_verb or n.end_word or n.change_verb or n.change_word)
    # The new claim also names what took the old one's place ("sold X and bought Y", "so it's two now").
    replacement = float(
        n.change_verb or n.start_verb or n.change_word or bool(n.replaced) or bool(n.numbers - o.numbers)
    )
    row = (
        cos,
        cos * cos,
        _jaccard(n.content, o.content),
        _jaccard(n.nouns, o.nouns),
        _share(o.nouns, n.content),
        1.0 - _share(n.nouns, o.content) if n.nouns else 0.0,
        same_verb,
        float(bool(n.objects & o.objects)),
        same_gs,
        other_gs,
        float(n.first_person and o.first_person),
        float(new.subject == old.subject),
        float(new.source == old.source),
        float(new.source == old.source == "verified_tool"),
        same_id,
        _differs(n.ids, o.ids),
        same_id * (1.0 - _jaccard(n.content, o.content)),
        float(bool(n.lead_id) and n.lead_id == o.lead_id),
        float(bool(n.lead_id) != bool(o.lead_id) or (bool(n.lead_id) and n.lead_id != o.lead_id)),
        same_frame,
        substitution,
        float(bool(shared_slots)),
        float(any(n_slots[k] & o_slots[k] for k in shared_slots)),
        float(any(not (n_slots[k] & o_slots[k]) for k in shared_slots)),
        float(bool(n.gram_subject) and n.gram_subject.split()[-1] in (o.objects | o.nouns)),
        float(same_gs > 0 and n.gram_subject not in _PRONOUNS),
        _differs(n.propns, o.propns),
        _differs(n.numbers, o.numbers),
        float(bool(n.statuses) and bool(o.statuses) and n.statuses != o.statuses),
        end_cue,
        end_touch,
        end_touch_noun,
        float(n.change_verb),
        change_touch,
        float(n.start_verb),
        start_touch,
        float(bool(n.end_scope & old_things)),
        float(bool(n.replaced & (o.content | o.propns))),
        float(n.change_word),
        float(n.new_object),
        float(n.hypothetical),
        float(o.end_verb or o.end_word),
        float(o.change_verb or o.change_word),
        float(n.negated),
        float(o.negated),
        flip,
        float(n.tense == "past"),
        float(n.tense == "future"),
        float(n.tense == "perfect"),
        float(n.tense == "used_to"),
        float(o.tense == "past"),
        float(o.tense == "future"),
        float(o.tense == "used_to"),
        float(n.time_phrase),
        float(o.time_phrase),
        math.log1p(max(days, 0.0)),
        math.log(new_len / old_len),
        float(n.question),
        end_touch * cos,
        change_touch * cos,
        substitution * cos,
        flip * cos,
        other_gs * cos,
        any_cue * same_frame,
        float(n.tense == "past" and n.time_phrase and o.tense == "present"),
        float(o.pending and not n.pending),
        float(n.pending),
        float(n.still),
        end_cue * replacement,
        end_cue * (1.0 - replacement),
        float(other_person(n, o)),
    )
    return np.asarray(row, dtype=np.float64)
