"""How much of a replayed conversation becomes governed memory, and how much of it is right.

* the share of turns that yield keyed records (facts, preferences, events with a slot), not
  only a transcript;
* the precision of those records on hand-labelled turns (``labels/locomo_keyed_*.json``): a
  record is true when it is about the speaker the label names and contains the label's words.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memworks.models.schemas import Scope

#: The hand-labelled turn sets, by name. ``a``: conv-42..44, labelled from the extractor's output
#: and then used to fix it (a tuned figure). ``b``: the rest of conv-42..44's keyed turns, and
#: ``c``: conv-26/30/41, both labelled blind (from the turn text alone) before their errors were
#: looked at; their first figures are in the README's evaluation notes.
LABEL_SETS: Mapping[str, Path] = {
    name: Path(__file__).with_name("labels") / f"locomo_keyed_{name}.json" for name in ("a", "b", "c")
}

#: A turn's facts: ``[{"who": first name, "terms": [...], "unless": [...]?}, ...]``.
Facts = list[dict[str, Any]]


@dataclass(frozen=True)
class Record:
    """What precision reads of a keyed record."""

    key: str
    text: str
    evidence: tuple[str, ...]


def keyed_records(mw: Any, tenant_id: str, user_id: str) -> list[Record]:
    """The scope's keyed records, history included (summaries and forget requests are not facts)."""
    rows = mw.memories(Scope(tenant_id=tenant_id, user_id=user_id), include_history=True)
    return [
        Record(m.key, m.text, tuple(m.evidence))
        for m in rows
        if m.key and not m.key.startswith("summary.") and not m.key.endswith(".forget_request")
    ]


def keyed_turns(records: Sequence[Record], episode_ids: Sequence[str]) -> tuple[int, int]:
    """(turns that yield a keyed record, turns) among ``episode_ids``, given the scope's
    :func:`keyed_records`.

    A turn counts when it is evidence of a keyed record (history included), not only of its
    transcript, a session summary or a pending forget request.
    """
    facts = {e for r in records for e in r.evidence}
    return sum(1 for e in episode_ids if e in facts), len(episode_ids)


def keyed_share(per_conversation: Sequence[tuple[int, int]]) -> dict[str, float | int]:
    """The share of turns that yield keyed records, over every conversation replayed."""
    keyed, turns = sum(k for k, _ in per_conversation), sum(n for _, n in per_conversation)
    return {"turns": turns, "turns_with_keyed_records": keyed, "share": round(keyed / turns, 4) if turns else 0.0}


def keyed_line(k: Mapping[str, Any]) -> str:
    """The report line."""
    return f"keyed records: {k['turns_with_keyed_records']} of {k['turns']} turns yield one (share {k['share']:.3f})"


def load_labels(path: Path) -> dict[str, Facts]:
    """A label set's turns, by LoCoMo turn id (``conv-42:D10:4``)."""
    turns: dict[str, Facts] = json.loads(Path(path).read_text())["turns"]
    return turns


def is_true(key: str, text: str, facts: Facts) -> bool:
    """Whether a record (key and text) states one of a turn's labelled facts about the right person.

    The person is the key's (``person.<name>.…``); a record without a named person is about no
    speaker of a multi-party conversation, so it is not true of one.
    """
    who = key.split(".")[1] if key.startswith("person.") else ""
    low = text.lower()
    return any(
        f["who"] == who
        and all(str(t).lower() in low for t in f["terms"])
        and not any(str(u).lower() in low for u in f.get("unless", []))
        for f in facts
    )


def precision(labels: Mapping[str, Facts], pairs: Iterable[tuple[str, str, str]]) -> dict[str, Any]:
    """Precision of ``(turn id, key, text)`` pairs on the labelled turns among them.

    A record counts once for each labelled turn it is evidence of; pairs of unlabelled turns are
    left out. ``false`` lists the wrong ones (turn id, key) so that a report can be checked.
    """
    judged = [(tid, key, is_true(key, text, labels[tid])) for tid, key, text in pairs if tid in labels]
    true = sum(1 for *_, ok in judged if ok)
    return {
        "records": len(judged),
        "true": true,
        "precision": round(true / len(judged), 4) if judged else None,
        "turns_with_records": len({tid for tid, *_ in judged}),
        "false": [[tid, key] for tid, key, ok in judged if not ok],
    }


def labelled_pairs(
    records: Iterable[Record], turn_of: Mapping[str, str], labels: Mapping[str, Facts]
) -> list[tuple[str, str, str]]:
    """``(turn id, key, text)`` for each record and each labelled turn it is evidence of.

    ``turn_of`` maps an episode id to its LoCoMo turn id.
    """
    return [
        (tid, r.key, r.text)
        for r in records
        for e in dict.fromkeys(r.evidence)
        if (tid := turn_of.get(e)) is not None and tid in labels
    ]


def precision_report(records_by_conversation: Mapping[str, list[Record]], turn_of: Mapping[str, str]) -> dict[str, Any]:
    """Per label set, the precision of the replayed keyed records on its turns (``None`` where
    none of its turns was replayed), with the number of labelled turns replayed."""
    out: dict[str, Any] = {}
    replayed = set(turn_of.values())
    for name, path in LABEL_SETS.items():
        labels = load_labels(path)
        pairs = [p for recs in records_by_conversation.values() for p in labelled_pairs(recs, turn_of, labels)]
        out[name] = {"labelled_turns": len(labels), "replayed": len(replayed & set(labels)), **precision(labels, pairs)}
    return out


def precision_line(report: Mapping[str, Any]) -> str:
    """The report line: each label set's precision."""
    parts = []
    for name, r in report.items():
        if r["precision"] is None:
            parts.append(f"set {name}: no labelled turn replayed")
        else:
            parts.append(
                f"set {name}: {r['true']}/{r['records']} true = {r['precision']:.3f} "
                f"({r['turns_with_records']} of {r['replayed']} labelled turns yield records)"
            )
    return "keyed precision on hand-labelled turns: " + "; ".join(parts)
