"""Precision of the open extractor's keyed records on 100 hand-labelled LoCoMo turns.

The turns come from conversations held out while the extractor was written; the labels
(``tests/data/locomo_heldout_labels.json``) hold turn ids and the facts each turn states, never
the dialogue text, which is read from the evaluation data at test time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memworks.adapters.nlp import SpacyParser
from memworks.models.drafts import Candidate, Turn
from memworks.models.enums import Role, Source
from memworks.pipelines.extraction.open_vocab import OpenVocabularyExtractor
from memworks.pipelines.extraction.rules import RulesExtractor
from memworks_tools.evaluation.locomo import load

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "tests" / "data" / "locomo_heldout_labels.json"
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


def _true(record: Candidate, facts: list[dict[str, list[str] | str]]) -> bool:
    who = (record.key or "").split(".")[1] if (record.key or "").startswith("person.") else ""
    text = record.text.lower()
    return any(
        fact["who"] == who
        and all(str(t).lower() in text for t in fact["terms"])
        and not any(str(u).lower() in text for u in fact.get("unless", []))
        for fact in facts
    )


def test_keyed_records_on_held_out_turns_are_precise() -> None:
    assert DATA is not None
    labels: dict[str, list[dict[str, list[str] | str]]] = json.loads(LABELS.read_text())["turns"]
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
    records = [(t.episode_id, c) for t, cs in zip(turns, extract.extract_many(turns), strict=True) for c in cs if c.key]
    true = [r for r in records if _true(r[1], labels[r[0]])]
    precision = len(true) / len(records)
    turns_with = len({tid for tid, _ in records})
    print(
        f"\nheld-out: {len(records)} keyed records from {turns_with}/100 turns, "
        f"{len(true)} true: precision {precision:.3f}"
    )
    for tid, c in records:
        if (tid, c) not in true:
            print(f"  false: {tid} {c.key} | {c.text}")
    assert records and precision >= TARGET


def test_longmemeval_knowledge_update_meets_in_one_slot() -> None:
    """The sample's knowledge update (a personal best stated twice, weeks apart) becomes one slot
    whose present value is the later one."""
    from datetime import datetime

    from memworks.pipelines.gate import judge
    from memworks.pipelines.supersession import Accepted, decide_writes

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
