"""Precision of the open extractor's keyed records on 100 hand-labelled LoCoMo turns.

The turns come from conversations held out while the extractor was written; the labels
(``memworks_tools/evaluation/labels/locomo_keyed_*.json``) hold turn ids and the facts each turn
states, never the dialogue text, which is read from the evaluation data at test time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memworks.adapters.nlp import SpacyParser
from memworks.models.drafts import Candidate, Turn
from memworks.models.enums import Role, Source
from memworks.pipelines.extraction.open_vocab.extractor import OpenVocabularyExtractor
from memworks.pipelines.extraction.rules import RulesExtractor
from memworks_tools.evaluation import keyed
from memworks_tools.evaluation.locomo import load

ROOT = Path(__file__).resolve().parents[2]
#: Precision the records must reach (true, about the right person).
TARGET = 0.85


def _data_dir() -> Path | None:
    for d in (os.environ.get("MEMWORKS_EVAL_DATA"), ROOT.parent / "shared" / "data", "/work/shared/data"):
        if d and (Path(d) / "locomo_dev.json").exists():
            return Path(d)
    return None


DATA = _data_dir()
pytestmark = pytest.mark.skipif(
    DATA is None, reason="the LoCoMo data (shared/data/locomo_dev.json) is not on this machine"
)


@pytest.mark.parametrize("label_set", sorted(keyed.LABEL_SETS))
def test_keyed_records_on_held_out_turns_are_precise(label_set: str) -> None:
    """Given 100 hand-labelled LoCoMo turns (set ``a`` labelled from the extractor's output, sets
    ``b`` and ``c`` labelled blind, from the text alone), the open extractor's keyed records on
    them are true and about the right speaker at least :data:`TARGET` of the time."""
    assert DATA is not None
    labels = keyed.load_labels(keyed.LABEL_SETS[label_set])
    assert len(labels) == 100
    wanted = {tid.split(":", 1)[0] for tid in labels}
    turns = [
        Turn(
            episode_id=f"{c.sample_id}:{t.dia_id}",
            role=Role.USER,
            source=Source.USER,
            content=t.content,
            occurred_at=t.occurred_at,
            speaker=t.speaker,
        )
        for c in load(DATA / "locomo_dev.json")
        if c.sample_id in wanted
        for t in c.turns
        if f"{c.sample_id}:{t.dia_id}" in labels
    ]
    assert len(turns) == 100
    extract = OpenVocabularyExtractor(SpacyParser(), rules=RulesExtractor())
    pairs = [
        (t.episode_id, c.key, c.text)
        for t, cs in zip(turns, extract.extract_many(turns), strict=True)
        for c in cs
        if c.key
    ]
    got = keyed.precision(labels, pairs)
    print(
        f"\nset {label_set}: {got['records']} keyed records from {got['turns_with_records']}/100 turns, "
        f"{got['true']} true: precision {got['precision']}"
    )
    for tid, key in got["false"]:
        print(f"  false: {tid} {key}")
    assert got["records"] and got["precision"] >= TARGET


def test_precision_counts_the_right_person_and_every_word() -> None:
    """A record is true only when its key names the labelled speaker, it has every word of one
    fact and none of its 'unless' words; records of unlabelled turns are left out."""
    labels = {"c:D1:1": [{"who": "nate", "terms": ["tournament", "25 April 2022"], "unless": ["May"]}], "c:D1:2": []}
    pairs = [
        ("c:D1:1", "person.nate.event.tournament", "Nate won a tournament on 25 April 2022."),
        ("c:D1:1", "person.joanna.event.tournament", "Joanna won a tournament on 25 April 2022."),
        ("c:D1:1", "person.nate.event.tournament", "Nate won a tournament on 25 April 2022, in May."),
        ("c:D1:1", "user.event", "Won a tournament on 25 April 2022."),
        ("c:D1:2", "person.nate.likes", "Nate likes tea."),
        ("c:D9:9", "person.nate.likes", "Nate likes coffee."),
    ]
    got = keyed.precision(labels, pairs)
    assert (got["records"], got["true"], got["turns_with_records"]) == (5, 1, 2)
    assert got["precision"] == 0.2
    assert got["false"][0] == ["c:D1:1", "person.joanna.event.tournament"]


def test_longmemeval_knowledge_update_meets_in_one_slot() -> None:
    """The sample's knowledge update (a personal best stated twice, weeks apart) becomes one slot
    whose present value is the later one."""
    from datetime import datetime

    from memworks.pipelines.gate import judge
    from memworks.pipelines.ingest.supersession import Accepted, decide_writes

    assert DATA is not None
    sample = next(
        q
        for q in json.loads((DATA / "longmemeval_oracle_sample_2q.json").read_text())
        if q["question_type"] == "knowledge-update"
    )
    extract = OpenVocabularyExtractor(SpacyParser(), rules=RulesExtractor())
    plans = []
    rows: list[Candidate] = []
    for date, session in sorted(zip(sample["haystack_dates"], sample["haystack_sessions"], strict=True)):
        when = datetime.strptime(date[:10] + date[-6:], "%Y/%m/%d %H:%M").astimezone()
        for i, t in enumerate(x for x in session if x["role"] == "user"):
            turn = Turn(
                episode_id=f"{date}-{i}", role=Role.USER, source=Source.USER, content=t["content"], occurred_at=when
            )
            for c in extract(turn):
                if c.key and c.key.endswith("personal_best_time"):
                    rows.append(c)
                    plans.append(Accepted(c, judge(c), turn.episode_id, when))
    assert [(c.key, c.value) for c in rows] == [
        ("user.personal_best_time", "27:12"),
        ("user.personal_best_time", "25:50"),
    ]
    plan = decide_writes(plans, [], scope_key="t\x1fu", now=plans[-1].valid_from)
    assert [op.value for op, _ in plan.ops] == ["add", "update"]
    first, later = plan.new
    assert [(c.memory_id, c.valid_to, c.superseded_by) for c in plan.closes] == [
        (first.memory_id, later.valid_from, later.memory_id)
    ]
    assert (first.value, later.value, later.supersedes) == ("27:12", "25:50", first.memory_id)
