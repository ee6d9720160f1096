"""The PrefEval evaluation's users and scores, on small made-up files (never the data itself)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from memworks_tools.evaluation.prefeval.data import load_inter_turns, load_topics, plan_users
from memworks_tools.evaluation.prefeval.report import Tally, false_positives, is_preference_key, met_targets


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for topic in ("alpha", "beta"):
        rows = [{"preference": f'"I avoid {topic} {i}."', "question": f"What about {topic} {i}?"} for i in range(3)]
        (tmp_path / f"{topic}.json").write_text(json.dumps(rows))
    convs = [
        {
            "conversation_id": str(c),
            "conversation": [{"role": r, "content": f"{r} {c}-{j}"} for j in range(3) for r in ("user", "assistant")],
        }
        for c in range(4)
    ]
    (tmp_path / "inter_turns.json").write_text(json.dumps(convs))
    return tmp_path


def test_each_user_states_one_preference_per_topic_then_the_distractors(folder: Path) -> None:
    topics, convs = load_topics(folder), load_inter_turns(folder)
    assert topics["alpha"][0].preference == "I avoid alpha 0."  # the files' stray quotes go
    assert all(role == "user" for conv in convs for role, _ in conv)
    plans = plan_users(topics, convs, users=3, distractors=7, seed=1)
    for plan in plans:
        stated = [t for t in plan.turns if t.topic is not None]
        assert [t.topic for t in plan.turns[: len(stated)]] == [t.topic for t in stated]  # preferences first
        assert sorted(t.topic or "" for t in stated) == ["alpha", "beta"]
        assert [it.topic for it in plan.items] == ["alpha", "beta"]
        assert sum(1 for t in plan.turns if t.topic is None) == 7
        assert len({t.episode_id for t in plan.turns}) == len(plan.turns)
    assert plans == plan_users(topics, convs, users=3, distractors=7, seed=1)  # seeded: the same users
    with pytest.raises(ValueError, match="distractor turns available"):
        plan_users(topics, convs, users=1, distractors=13)


def test_in_context_is_a_top_five_hit_or_a_profile_line() -> None:
    t = Tally()
    t.add([False, True], profile=False, tokens=10, static_tokens=10)  # hit at rank 2
    t.add([False] * 5, profile=True, tokens=20, static_tokens=10)  # only the profile
    t.add([], abstained=True, retrieve_abstained=True, tokens=30, static_tokens=10)  # nothing reached the agent
    r = t.rates()
    assert (r["questions"], r["top1"], r["top5"], r["in_context"]) == (3, 0.0, 0.3333, 0.6667)
    assert (r["abstained"], r["in_profile"], r["profile_tokens"]["max"]) == (0.3333, 0.3333, 30)


def test_preference_records_of_distractor_turns_are_false_positives() -> None:
    plans = [
        SimpleNamespace(
            turns=[SimpleNamespace(episode_id="p", topic="alpha"), SimpleNamespace(episode_id="d", topic=None)]
        )
    ]
    rec = [
        SimpleNamespace(key="user.pref.food.spicy_food", text="User avoids spicy food.", evidence=["p"]),
        SimpleNamespace(key="user.allergy", text="User is allergic to code.", evidence=["d"]),
        SimpleNamespace(key="user.home_city", text="User lives in Oslo.", evidence=["d"]),
    ]
    fp = false_positives({"u0": rec}, plans)
    assert (fp["records"], fp["turns"], fp["distractor_turns"]) == (1, 1, 1)
    assert is_preference_key("user.pref") and not is_preference_key("user.preferred_name")


def _result(in_context: float, abstained: float, tokens: int) -> dict[str, Any]:
    mw = {
        "in_context": in_context,
        "abstained": abstained,
        "profile_tokens": {"max": tokens},
        "static_profile_tokens": {"max": tokens},
    }
    return {"runs": {"10": {"dev": {"memworks": mw | {"in_context": 0.0}}}, "300": {"dev": {"memworks": mw}}}}


@pytest.mark.parametrize(
    ("in_context", "abstained", "tokens", "met"),
    [(0.95, 0.02, 300, True), (0.94, 0.0, 100, False), (1.0, 0.03, 100, False), (1.0, 0.0, 301, False)],
)
def test_targets_are_read_at_the_largest_count(in_context: float, abstained: float, tokens: int, met: bool) -> None:
    assert met_targets(_result(in_context, abstained, tokens)) is met
