"""The labelled claim pairs the decision model learns from and is measured on.

Two kinds of pairs live in ``labels/claim_pairs_train.json`` and ``labels/claim_pairs_heldout.json``:

* **story pairs**, rebuilt from the written conversations in ``labels/claim_stories_*.txt``: each claim
  of a story meets its subject's nearest current claims (by vector, as ingestion will find them), the
  claims its line names, and the nearest claim of another subject; every such pair gets the label the
  line gives it, else ``compatible`` when both claims share the story's topic tag or are close
  (:data:`RELATED_MIN_COSINE`), else ``unrelated``.
  ``changed``/``ended`` close the old claim; a ``restated`` claim adds no current claim.
* **dataset pairs**, sentences drawn from LoCoMo, LongMemEval and PrefEval (see
  :mod:`memworks_tools.evaluation.decisions.sources`) and labelled by hand: kept as they are.

``python -m memworks_tools.evaluation.decisions.data`` rebuilds the story pairs of both files and
keeps every dataset pair.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memworks.pipelines.claims import Decision

LABELS_DIR = Path(__file__).parents[1] / "labels"
#: Nearest current claims of the same subject each new claim meets.
NEIGHBOURS = 3
#: A claim of another subject joins as a hard negative when at least this similar (cosine).
CROSS_MIN_COSINE = 0.45
#: Claims of different topics this similar (cosine) are related: "compatible" unless a line says more.
RELATED_MIN_COSINE = 0.45
SPLITS = ("train", "heldout")

Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]

_HEADER = re.compile(r"^==\s+(\S+)\s+(\d{4}-\d{2}-\d{2})\s*(.*)$")
_RELATION = re.compile(r"^(restated|changed|ended|compatible|unrelated):([\w,]+)$")


@dataclass
class StoryClaim:
    """One line of a story."""

    key: str
    day: float
    topic: str
    subject: str
    source: str
    text: str
    said_at: datetime
    #: old claim key → the label this claim gives their pair
    relations: dict[str, str] = field(default_factory=dict)


@dataclass
class Story:
    name: str
    domains: str
    claims: list[StoryClaim]


def parse_stories(text: str, *, origin: str = "stories") -> list[Story]:
    """The stories of a ``claim_stories_*.txt`` file (format in the file's header).

    Raises:
        ValueError: a line that does not parse, naming it.
    """
    stories: list[Story] = []
    start = datetime(2024, 1, 1, tzinfo=UTC)
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if m := _HEADER.match(line):
            start = datetime.fromisoformat(m[2]).replace(tzinfo=UTC)
            stories.append(Story(m[1], m[3].strip(), []))
            continue
        if not stories:
            raise ValueError(f"{origin}:{n}: a claim before any '==' story header")
        body, _, rels = line.partition("||")
        parts = body.split()
        if len(parts) < 4:
            raise ValueError(f"{origin}:{n}: expected '<day> <id> <topic> <sentence>'")
        day, key, topic, rest = float(parts[0]), parts[1], parts[2], parts[3:]
        subject, source = "user", "user"
        while rest and rest[0][0] in "@!":
            tag = rest.pop(0)
            if tag.startswith("@"):
                subject = tag[1:]
            elif tag == "!tool":
                source = "verified_tool"
            else:
                raise ValueError(f"{origin}:{n}: unknown tag {tag}")
        story = stories[-1]
        if key == "-":
            key = f"_{len(story.claims)}"
        relations: dict[str, str] = {}
        for r in rels.split():
            if not (rm := _RELATION.match(r)):
                raise ValueError(f"{origin}:{n}: bad relation {r!r}")
            for old in rm[2].split(","):
                if old.startswith("_") or old not in {c.key for c in story.claims}:
                    raise ValueError(f"{origin}:{n}: {old} is not an earlier claim of {story.name}")
                relations[old] = rm[1]
        said_at = start + timedelta(days=day, hours=9, minutes=len(story.claims))
        story.claims.append(StoryClaim(key, day, topic, subject, source, " ".join(rest), said_at, relations))
    return stories


def _side(c: StoryClaim) -> dict[str, Any]:
    return {"text": c.text, "subject": c.subject, "source": c.source, "said_at": c.said_at.isoformat()}


def story_pairs(stories: Sequence[Story], embed: Embed, *, split: str) -> list[dict[str, Any]]:
    """Every pair the stories' claims meet as ingestion would feed them (see the module doc)."""
    out: list[dict[str, Any]] = []
    for story in stories:
        vecs = embed([c.text for c in story.claims])
        current: list[int] = []
        for i, new in enumerate(story.claims):
            sims = {j: float(vecs[i] @ vecs[j]) for j in current}
            mine = sorted((j for j in current if story.claims[j].subject == new.subject), key=lambda j: -sims[j])
            met = {j: "nearest" for j in mine[:NEIGHBOURS]}
            others = sorted((j for j in current if story.claims[j].subject != new.subject), key=lambda j: -sims[j])
            if others and sims[others[0]] >= CROSS_MIN_COSINE:
                met.setdefault(others[0], "other-subject")
            for j, c in enumerate(story.claims[:i]):
                if c.key in new.relations and j not in met:
                    met[j] = "named" if j in current else "named-closed"
            for j, how in met.items():
                old = story.claims[j]
                cos = sims.get(j, float(vecs[i] @ vecs[j]))
                near = old.topic == new.topic or cos >= RELATED_MIN_COSINE
                label = new.relations.get(old.key) or ("compatible" if near else "unrelated")
                Decision(label)  # a misspelt label fails here
                out.append(
                    {
                        "id": f"{story.name}:{new.key}>{old.key}",
                        "new": _side(new),
                        "old": _side(old),
                        "label": label,
                        "origin": {"source": "story", "conversation": story.name, "split": split, "met": how},
                        "cosine": round(cos, 4),
                    }
                )
            closed = {story.claims[j].key for j in current} & {
                k for k, lab in new.relations.items() if lab in ("changed", "ended")
            }
            current = [j for j in current if story.claims[j].key not in closed]
            if "restated" not in new.relations.values():
                current.append(i)
    return out


def pairs_path(split: str) -> Path:
    return LABELS_DIR / f"claim_pairs_{split}.json"


ABOUT = (
    "Labelled (new claim, old claim) pairs for the claim-pair decision model "
    "(memworks.pipelines.claims). 'story' pairs come from the written conversations in "
    "claim_stories_{split}.txt; the others are sentences of LoCoMo, LongMemEval and PrefEval "
    "(read from the dev data, never copied whole) labelled by hand. Held-out pairs come from "
    "conversations, topics and questions that no training pair comes from."
)
RULE = (
    "restated: the new claim states the fact the old one states (same subject, same value) in other words; "
    "it may add a reason or a qualifier. changed: the new claim gives a new value for what the old one "
    "stated (another place, number, object or plan; a new status of the same record), so the old one stops "
    "holding; a plan or pending state that came true counts. ended: the old claim stops holding and the new "
    "one names nothing in its place (quit, stopped, cancelled, closed, died, no longer; a record cancelled, "
    "closed, removed or expired). compatible: both hold and are about the same thing or person. unrelated: "
    "different topics. Story pairs without a written label are compatible when their claims share a topic "
    "tag or their cosine is at least 0.45, else unrelated."
)


def load_pairs(split: str) -> list[dict[str, Any]]:
    """The labelled pairs of ``split`` ("train" or "heldout")."""
    path = pairs_path(split)
    if not path.exists():
        return []
    pairs: list[dict[str, Any]] = json.loads(path.read_text())["pairs"]
    return pairs


def write_pairs(split: str, pairs: Sequence[dict[str, Any]]) -> Path:
    path = pairs_path(split)
    body = {"about": ABOUT.replace("{split}", split), "rule": RULE, "pairs": list(pairs)}
    path.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n")
    return path


def rebuild(embed: Embed, *, say: Callable[[str], None] = print) -> None:
    """Story pairs of both splits rebuilt from their stories; dataset pairs kept."""
    for split in SPLITS:
        stories = parse_stories((LABELS_DIR / f"claim_stories_{split}.txt").read_text(), origin=split)
        kept = [p for p in load_pairs(split) if p["origin"]["source"] != "story"]
        fresh = story_pairs(stories, embed, split=split)
        write_pairs(split, fresh + kept)
        say(f"{split}: {len(stories)} stories, {len(fresh)} story pairs, {len(kept)} dataset pairs")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m memworks_tools.evaluation.decisions.data", description=__doc__)
    ap.parse_args(argv)
    from memworks.adapters.embedder import get_embedder

    rebuild(get_embedder("minilm").embed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
