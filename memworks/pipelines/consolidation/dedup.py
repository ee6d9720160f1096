"""Near-duplicate detection for facts and preferences, verified before anything is merged.

:func:`find_duplicate_groups` looks only at live, trusted, semantic or procedural, extracted
records (not transcripts, not events). Candidate pairs are blocked by ``key`` (``None`` keys
form one block), so the cosine matrix is quadratic inside a block and never across the store.
Pairs with cosine at least ``threshold`` form a sparse graph, and so do two records of one slot
whose values name the same thing in other words (:func:`restated`: "dark mode in my code
editor" / "dark mode in the code editor", the same words once filler is dropped; open slots
only); the graph's
connected components (SciPy) are candidate groups. Because a component may chain A~B~C with A and C apart,
every member is re-checked
against the group's representative: cosine, same key, and no :func:`contradicts`. Members
that fail are reported in ``blocked`` and are not merged.

:func:`contradicts` is deliberately conservative: any doubt blocks the merge.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memworks.models.drafts import MemoryView
from memworks.models.enums import MemoryKind, MemoryStatus
from memworks.pipelines.ingest.slots import is_multi_valued, value_terms
from memworks.pipelines.text.terms import terms

#: Polar word pairs: one text using a word and the other its partner contradict.
ANTONYMS: tuple[tuple[str, str], ...] = (
    ("dark", "light"),
    ("like", "dislike"),
    ("likes", "dislikes"),
    ("love", "hate"),
    ("loves", "hates"),
    ("always", "never"),
    ("yes", "no"),
    ("aisle", "window"),
    ("morning", "evening"),
    ("early", "late"),
    ("hot", "cold"),
    ("before", "after"),
    ("true", "false"),
    ("on", "off"),
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("allow", "deny"),
    ("more", "less"),
    ("left", "right"),
)
#: Words that negate a statement.
NEGATIONS = frozenset(
    "not never no don't doesn't didn't isn't aren't wasn't weren't won't can't cannot shouldn't "
    "wouldn't couldn't dont doesnt didnt isnt arent wont cant".split()
)
#: Float slack so a vector compared with itself always clears ``threshold=1.0``.
_EPS = 1e-9
#: Rows per matrix product, to bound memory inside a large block.
_CHUNK = 1024
#: Largest slot compared value by value for restatements (beyond it, cosine alone).
_RESTATED_BLOCK = 300


@dataclass(frozen=True)
class MergeGroup:
    """A verified duplicate group: merge ``merged`` into ``representative``.

    ``merged`` may be empty when every other member was blocked; the group is still
    returned so the blocks can be audited.
    """

    representative: str
    merged: tuple[str, ...]
    #: Evidence of the representative then of the merged members (in ``merged`` order), deduplicated.
    evidence: tuple[str, ...]
    confidence: float
    #: ``(memory_id, reason)`` for members left out by verification.
    blocked: tuple[tuple[str, str], ...] = ()


def _words(text: str) -> set[str]:
    return set(re.findall(r"[\w']+", text.replace("\u2019", "'").casefold()))


def _content(text: str) -> set[str]:
    # Stemmed content words (stop and negation words dropped) plus numbers (terms() drops 1 digit).
    norm = text.replace("\u2019", "'").casefold()
    kept = " ".join(w for w in re.findall(r"[\w']+", norm) if w not in NEGATIONS)
    return set(terms(kept)) | set(re.findall(r"\d+(?:[.,]\d+)*", norm))


def contradicts(a: str, b: str) -> bool:
    """Whether two statements of the same slot may disagree (conservative).

    They contradict when any of these holds:

    1. a polar pair from :data:`ANTONYMS` splits them: one word only in ``a``, its partner only in ``b``;
    2. one is negated (a word of :data:`NEGATIONS`) and the other is not;
    3. their content words (lower-cased, stop and negation words dropped, Snowball-stemmed,
       numbers kept)
       differ and neither set contains the other ("dark mode in the editor" vs "light mode in
       the terminal"); a plural or an added qualifier is not a contradiction ("prefers aisle
       seats" vs "prefers aisle seat", "Lisbon" vs "Lisbon, Portugal").
    """
    wa, wb = _words(a), _words(b)
    only_a, only_b = wa - wb, wb - wa
    for x, y in ANTONYMS:
        if (x in only_a and y in only_b) or (y in only_a and x in only_b):
            return True
    if bool(wa & NEGATIONS) != bool(wb & NEGATIONS):
        return True
    ca, cb = _content(a), _content(b)
    return ca != cb and not (ca <= cb or cb <= ca)


def restated(a: MemoryView, b: MemoryView) -> bool:
    """Two records of one open slot say the same thing in other words: same key and kind, one
    of them read by the ``open`` extractor or the slot one that collects values (likes,
    languages), and their values name the same words once filler and plural are set aside. A
    value that says more ("jazz and blues" beside "jazz") is not a restatement: merging would
    lose the rest."""
    if a.key is None or a.key != b.key or a.kind is not b.kind:
        return False
    if "open" not in (a.extractor, b.extractor) and not is_multi_valued(a.key):
        return False
    ta, tb = value_terms(a.value), value_terms(b.value)
    return bool(ta) and ta == tb


def _eligible(m: MemoryView) -> bool:
    return (
        m.status is MemoryStatus.ACTIVE
        and m.retracted_at is None
        and m.trusted
        and m.kind in (MemoryKind.SEMANTIC, MemoryKind.PROCEDURAL)
        and m.extractor != "transcript"
    )


def _unit_rows(rows: list[npt.NDArray[np.floating]]) -> npt.NDArray[np.float64]:
    mat = np.vstack([np.asarray(r, dtype=np.float64).ravel() for r in rows])
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    out: npt.NDArray[np.float64] = np.divide(mat, norms, out=np.zeros_like(mat), where=norms > 0)
    return out


def _claims(a: MemoryView, b: MemoryView) -> tuple[str, str]:
    """What to compare: the slot values when both have one, else the texts."""
    if a.value.strip() and b.value.strip():
        return a.value, b.value
    return a.text, b.text


def _rep_order(m: MemoryView) -> tuple[float, int, float, str]:
    return (-m.confidence, -len(m.evidence), m.valid_from.timestamp(), m.memory_id)


def _block_groups(block: list[MemoryView], unit: npt.NDArray[np.float64], threshold: float) -> list[MergeGroup]:
    n = len(block)
    rows: list[npt.NDArray[np.intp]] = []
    cols: list[npt.NDArray[np.intp]] = []
    for start in range(0, n, _CHUNK):
        sims = unit[start : start + _CHUNK] @ unit.T
        r, c = np.nonzero(sims >= threshold - _EPS)
        r = r + start
        keep = c > r
        rows.append(r[keep])
        cols.append(c[keep])
    i, j = np.concatenate(rows), np.concatenate(cols)
    same = _restated_pairs(block)
    if same:
        i = np.concatenate([i, np.array([a for a, _ in same], dtype=np.intp)])
        j = np.concatenate([j, np.array([b for _, b in same], dtype=np.intp)])
    if i.size == 0:
        return []
    # Imported here: SciPy costs a command that never consolidates a quarter of a second to load.
    from scipy.sparse import coo_matrix  # type: ignore[import-untyped]
    from scipy.sparse.csgraph import connected_components  # type: ignore[import-untyped]

    graph = coo_matrix((np.ones(i.size, dtype=np.int8), (i, j)), shape=(n, n)).tocsr()
    _, labels = connected_components(graph, directed=False)
    members: dict[int, list[int]] = {}
    for idx, label in enumerate(labels.tolist()):
        members.setdefault(int(label), []).append(idx)
    groups: list[MergeGroup] = []
    for idxs in members.values():
        if len(idxs) < 2:
            continue
        rep_i = min(idxs, key=lambda k: _rep_order(block[k]))
        rep = block[rep_i]
        merged: list[MemoryView] = []
        blocked: list[tuple[str, str]] = []
        for k in sorted(idxs, key=lambda k: block[k].memory_id):
            if k == rep_i:
                continue
            m = block[k]
            cos = float(unit[rep_i] @ unit[k])
            if cos < threshold - _EPS and not restated(rep, m):
                blocked.append((m.memory_id, f"similarity {cos:.3f} < {threshold:.3f} to representative"))
            elif m.key != rep.key:
                blocked.append((m.memory_id, "key differs from representative"))
            elif contradicts(*_claims(rep, m)):
                blocked.append((m.memory_id, "contradicts representative"))
            else:
                merged.append(m)
        evidence = tuple(dict.fromkeys(e for x in (rep, *merged) for e in x.evidence))
        confidence = max(x.confidence for x in (rep, *merged))
        groups.append(
            MergeGroup(rep.memory_id, tuple(x.memory_id for x in merged), evidence, confidence, tuple(blocked))
        )
    return groups


def _restated_pairs(block: list[MemoryView]) -> list[tuple[int, int]]:
    """Edges joining the records of ``block`` (one slot) that :func:`restated` pairs, in linear time.

    Within a slot, :func:`restated` pairs two records of the same kind and value words when the
    slot collects values or either record is the ``open`` extractor's. So inside one (kind,
    value words) class every pair is restated (a collecting slot), or every pair that has an
    ``open`` record, which joins the whole class through that record, or none. A star from one
    such record gives the same connected components as comparing every pair (which read each
    value's words once per pair: the largest step of a run at 100k memories).
    """
    if block[0].key is None or len(block) > _RESTATED_BLOCK:
        return []
    classes: dict[tuple[MemoryKind, frozenset[str]], list[int]] = {}
    for i, m in enumerate(block):
        if words := value_terms(m.value):
            classes.setdefault((m.kind, words), []).append(i)
    collects = is_multi_valued(block[0].key)
    pairs: list[tuple[int, int]] = []
    for members in classes.values():
        hub = next((i for i in members if collects or block[i].extractor == "open"), None)
        if hub is not None:
            pairs += [(min(hub, i), max(hub, i)) for i in members if i != hub]
    return pairs


def find_duplicate_groups(
    records: Sequence[MemoryView], vectors: Mapping[str, npt.NDArray[np.floating]], *, threshold: float = 0.9
) -> list[MergeGroup]:
    """Verified near-duplicate groups among one user scope's facts and preferences.

    Records without a vector in ``vectors`` are skipped. Vectors are re-normalised (a zero
    vector matches nothing). Representative: highest confidence, then most evidence, then
    oldest ``valid_from``, then ``memory_id``. Groups are returned sorted by representative id.
    """
    blocks: dict[str | None, list[MemoryView]] = {}
    seen: set[str] = set()
    for m in records:
        if _eligible(m) and m.memory_id in vectors and m.memory_id not in seen:
            seen.add(m.memory_id)
            blocks.setdefault(m.key, []).append(m)
    groups: list[MergeGroup] = []
    for block in blocks.values():
        if len(block) < 2:
            continue
        block.sort(key=lambda m: m.memory_id)
        unit = _unit_rows([vectors[m.memory_id] for m in block])
        groups.extend(_block_groups(block, unit, threshold))
    return sorted(groups, key=lambda g: g.representative)
