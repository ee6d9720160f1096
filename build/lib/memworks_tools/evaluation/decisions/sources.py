"""Candidate claim pairs drawn from the dev data sets, for labelling by hand.

``python -m memworks_tools.evaluation.decisions.sources candidates --data ../shared/data --out pairs.json``
reads LoCoMo conversations, LongMemEval haystacks and PrefEval preferences, keeps the first-person
statement sentences of each speaker (a claim as ingestion would see one: not a question, a subject
of its own, five words or more), and pairs each with its nearest earlier claims of the same speaker
by vector, as ingestion will. The pairs are written without labels; ``merge`` adds the labelled ones
(``<pair id> <label>`` per line) to the labelled pair files, held out by conversation, question or topic:

* LoCoMo: conv-43 and conv-44 held out, the other dev conversations for training;
* LongMemEval: the temporal-reasoning sample's last 8 questions and the 2-question file held out;
* PrefEval: topics whose file name sorts after ``pet`` held out (pet_ownership, shop_*, travel_*).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memworks.pipelines.claims import Decision
from memworks.pipelines.extraction.open_vocab.parse import Sentence
from memworks_tools.evaluation.decisions.data import load_pairs, write_pairs

#: Nearest earlier claims of the same speaker each claim is paired with.
NEIGHBOURS = 2
#: Least cosine for a dataset pair (below it the pair is unrelated and teaches little).
MIN_COSINE = 0.45
LOCOMO_HELDOUT = ("conv-43", "conv-44")
LONGMEMEVAL_HELDOUT_FROM = 17
PREFEVAL_HELDOUT_AFTER = "pet"
_FIRST = frozenset({"i", "we", "my", "our"})


@dataclass(frozen=True)
class Said:
    """One sentence a speaker said, with where it came from."""

    source: str
    conversation: str
    speaker: str
    at: datetime
    ref: str
    text: str


def is_claim(s: Sentence) -> bool:
    """A first-person statement of five words or more with a subject of its own (not a question)."""
    words = [t for t in s.tokens if t.pos not in ("PUNCT", "SPACE")]
    if len(words) < 5 or len(words) > 45 or s.text.rstrip().endswith("?") or "?" in s.text:
        return False
    subjects = [t for t in s.tokens if t.dep in ("nsubj", "nsubjpass")]
    if not subjects or any(t.lower == "you" for t in subjects[:1]):
        return False
    return any(t.lower in _FIRST for t in s.tokens)


def locomo_said(path: Path) -> Iterator[Said]:
    from memworks_tools.evaluation.locomo.data import parse_session_date

    for conv in json.loads(path.read_text()):
        c = conv["conversation"]
        sessions = sorted((int(k.split("_")[1]), k) for k in c if k.startswith("session_") and k.count("_") == 1)
        for _n, key in sessions:
            when = parse_session_date(c[f"{key}_date_time"])
            for i, turn in enumerate(c[key]):
                yield Said(
                    "locomo",
                    conv["sample_id"],
                    turn["speaker"],
                    when + timedelta(minutes=i),
                    turn["dia_id"],
                    turn["text"],
                )


def longmemeval_said(paths: Sequence[Path]) -> Iterator[Said]:
    from memworks_tools.evaluation.longmemeval.data import parse_case

    for path in paths:
        for q, item in enumerate(json.loads(path.read_text())):
            case = parse_case(item)
            conv = f"{path.stem}#{q}:{case.question_id}"
            for sid, when, turns in case.sessions:
                for i, turn in enumerate(turns):
                    if turn["role"] == "user":
                        yield Said(
                            "longmemeval", conv, "user", when + timedelta(minutes=i), f"{sid}:{i}", turn["content"]
                        )


def prefeval_said(folder: Path) -> Iterator[Said]:
    start = datetime(2024, 1, 1, 9, tzinfo=UTC)
    for path in sorted(folder.glob("*.json")):
        if path.name == "inter_turns.json":
            continue
        for i, item in enumerate(json.loads(path.read_text())):
            yield Said("prefeval", path.stem, "user", start + timedelta(days=i), f"{path.stem}:{i}", item["preference"])


def split_of(said: Said) -> str:
    if said.source == "locomo":
        return "heldout" if said.conversation in LOCOMO_HELDOUT else "train"
    if said.source == "longmemeval":
        name, _, rest = said.conversation.partition("#")
        q = int(rest.split(":")[0])
        held = "temporal25" not in name or q >= LONGMEMEVAL_HELDOUT_FROM
        return "heldout" if held else "train"
    return "heldout" if said.conversation > PREFEVAL_HELDOUT_AFTER else "train"


def candidates(
    said: Sequence[Said], parse: Callable[[list[str]], list[list[Sentence]]], embed: Any
) -> list[dict[str, Any]]:
    """Claim sentences of each speaker paired with their nearest earlier claims (see the module doc)."""
    claims: list[tuple[Said, str]] = []
    parsed = parse([s.text for s in said])
    for s, sentences in zip(said, parsed, strict=True):
        claims += [(s, sent.text) for sent in sentences if is_claim(sent)]
    vecs = embed([t for _, t in claims])
    out: list[dict[str, Any]] = []
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (s, _) in enumerate(claims):
        groups.setdefault((s.conversation, s.speaker), []).append(i)
    for (conv, _speaker), idx in groups.items():
        for k, i in enumerate(idx):
            earlier = [j for j in idx[:k] if claims[j][1] != claims[i][1]]
            sims = sorted(((float(vecs[i] @ vecs[j]), j) for j in earlier), reverse=True)[:NEIGHBOURS]
            for cos, j in sims:
                if cos < MIN_COSINE:
                    continue
                (new, new_text), (old, old_text) = claims[i], claims[j]
                out.append(
                    {
                        "id": f"{new.source}:{conv}:{new.ref}>{old.ref}:{len(out)}",
                        "new": _side(new, new_text),
                        "old": _side(old, old_text),
                        "origin": {
                            "source": new.source,
                            "conversation": conv,
                            "split": split_of(new),
                            "new": new.ref,
                            "old": old.ref,
                        },  # fmt: skip
                        "cosine": round(cos, 4),
                    }
                )
    return out


def _side(s: Said, text: str) -> dict[str, Any]:
    subject = "user" if s.speaker == "user" else s.speaker
    return {"text": text, "subject": subject, "source": "user", "said_at": s.at.isoformat()}


def merge(pairs: Sequence[dict[str, Any]], labels: dict[str, str]) -> dict[str, int]:
    """Add the labelled ``pairs`` to the pair files of their splits (replacing pairs of the same id)."""
    added: dict[str, int] = {}
    for split in ("train", "heldout"):
        mine = [p | {"label": str(Decision(labels[p["id"]]))} for p in pairs
                if p["id"] in labels and p["origin"]["split"] == split]  # fmt: skip
        ids = {p["id"] for p in mine}
        kept = [p for p in load_pairs(split) if p["id"] not in ids]
        write_pairs(split, kept + mine)
        added[split] = len(mine)
    return added


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m memworks_tools.evaluation.decisions.sources", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("candidates", help="write unlabelled candidate pairs")
    c.add_argument("--data", type=Path, required=True, help="the folder of the dev data (locomo_dev.json, ...)")
    c.add_argument("--out", type=Path, required=True)
    m = sub.add_parser("merge", help="add labelled candidates to the pair files")
    m.add_argument("candidates", type=Path)
    m.add_argument("labels", type=Path, help="lines of '<pair id> <label>'")
    args = ap.parse_args(argv)
    if args.command == "candidates":
        from memworks.adapters.embedder import get_embedder
        from memworks.adapters.nlp import SpacyParser

        said = [
            *locomo_said(args.data / "locomo_dev.json"),
            *longmemeval_said(sorted(args.data.glob("longmemeval_oracle_*.json"))),
            *prefeval_said(args.data / "prefeval_dev"),
        ]
        out = candidates(said, SpacyParser().parse, get_embedder("minilm").embed)
        args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False))
        print(f"{len(out)} candidate pairs written to {args.out}")
        return 0
    pairs = json.loads(args.candidates.read_text())
    labels = dict(line.split()[:2] for line in args.labels.read_text().splitlines() if line.strip())
    print(merge(pairs, labels))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
