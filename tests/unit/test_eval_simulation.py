"""The store simulation (``memworks eval simulation``): its stream, its scoring and its report."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memworks.models.drafts import Turn
from memworks.models.enums import Role, Source
from memworks.pipelines.extraction.rules import RulesExtractor
from memworks_tools.evaluation import simulation as sim

SMALL: dict[str, Any] = {"n_facts": 10, "n_sessions": 24, "per_session": 4, "sessions_per_write": 6}
SILENT: dict[str, Any] = {"out": lambda s: None}


@pytest.fixture(scope="module")
def clean() -> dict[str, Any]:
    return sim.run(**SMALL, **SILENT)


@pytest.fixture(scope="module")
def noisy() -> dict[str, Any]:
    return sim.run(error_rate=0.3, **SMALL, **SILENT)


def _extract(text: str) -> list[tuple[str | None, str]]:
    turn = Turn(
        episode_id="e1", role=Role.USER, source=Source.USER, content=text, occurred_at=datetime(2025, 1, 1, tzinfo=UTC)
    )
    return [(c.key, c.value) for c in RulesExtractor()(turn)]


def test_every_mention_is_read_by_the_rules_extractor_as_its_fact() -> None:
    """The bitemporal design gets real episodes: each one must yield exactly its key and value."""
    facts = sim.make_facts(100, seed=7)
    assert len({f.key for f in facts}) == 100
    for f in facts:
        for v in f.values:
            assert _extract(f.says(v)) == [(f.key, v)], f.says(v)
    for lead in sim._LEADS:
        f = facts[0]
        assert _extract(f.says(f.values[0], lead)) == [(f.key, f.values[0])], lead


def test_stream_follows_the_published_set_up() -> None:
    facts = sim.make_facts(100, seed=7)
    mentions, truth = sim.make_mentions(facts, n_sessions=200, per_session=10, error_rate=0.0, seed=7)
    assert len(mentions) == 2000
    per_session = Counter(m.session for m in mentions)
    assert set(per_session.values()) == {10}
    assert all(len({m.fact for m in mentions if m.session == s}) == 10 for s in range(200))
    # Then: about a quarter of the repeat mentions change the value, first mentions never do.
    firsts: dict[int, sim.Mention] = {}
    for m in mentions:
        firsts.setdefault(m.fact, m)
    assert not any(m.changed for m in firsts.values())
    assert 0.2 < sum(m.changed for m in mentions) / (2000 - len(firsts)) < 0.3
    assert all(len(set(f.values)) == sim.N_VALUES for f in facts)
    assert [m.at for m in mentions] == sorted(m.at for m in mentions)
    assert all(p is None or p != c for p, c in zip(truth.previous, truth.current, strict=True))


def test_errors_corrupt_more_mentions_as_the_rate_grows_and_never_the_truth() -> None:
    facts = sim.make_facts(30, seed=3)
    runs = {e: sim.make_mentions(facts, n_sessions=60, per_session=5, error_rate=e, seed=3) for e in (0.0, 0.1, 0.3)}
    bad = {e: {j for j, m in enumerate(ms) if m.corrupted} for e, (ms, _) in runs.items()}
    assert bad[0.0] == set() and bad[0.1] <= bad[0.3] and len(bad[0.1]) < len(bad[0.3])
    assert len({(tuple(m.meant for m in ms), tuple(t.current)) for ms, t in runs.values()}) == 1
    ms, _ = runs[0.3]
    assert all(m.value in facts[m.fact].values and m.value in m.text for m in ms if m.corrupted)


def test_newest_among_top_k_reads_retrieved_mentions_in_time_order() -> None:
    def said(value: str, session: int) -> sim.Mention:
        return sim.Mention(session, 0, 0, value, value, False, value, sim.START)

    assert sim._newest_and_before([said("red", 1), said("blue", 2), said("blue", 3)]) == ("blue", "red")
    assert sim._newest_and_before([said("red", 1)]) == ("red", None)


def test_run_reports_every_design_with_reference_and_targets(clean: dict[str, Any]) -> None:
    assert set(clean["rows"]) == set(sim.DESIGNS)
    for row in clean["rows"].values():
        assert set(row) == {"current", "history"} and all(0.0 <= v <= 1.0 for v in row.values())
    assert clean["n_facts"] == 10 and clean["n_mentions"] == 96 and clean["error_rate"] == 0.0
    assert clean["reference"]["top1"]["current"] == 0.31
    assert clean["targets"]["bitemporal"] == {"current": 0.95, "history": 0.90}
    assert clean["n_history_questions"] > 0


def test_bitemporal_store_knows_current_and_previous_values(clean: dict[str, Any]) -> None:
    """Given no extraction errors, the store beats overwrite-in-place and keeps history."""
    rows = clean["rows"]
    assert rows["bitemporal"]["current"] >= rows["update_in_place"]["current"]
    assert rows["bitemporal"]["history"] > 0
    assert rows["update_in_place"]["history"] == 0
    assert all(v == 0 for k, v in clean["store_checks"].items() if k != "keys_stored")
    assert clean["store_checks"]["keys_stored"] == 10


def test_extraction_errors_degrade_accuracy(clean: dict[str, Any], noisy: dict[str, Any]) -> None:
    assert noisy["n_corrupted"] > 0
    for design in ("update_in_place", "bitemporal"):
        assert noisy["rows"][design]["current"] < clean["rows"][design]["current"]
    assert sum(r["current"] + r["history"] for r in noisy["rows"].values()) < sum(
        r["current"] + r["history"] for r in clean["rows"].values()
    )


def test_same_seed_same_result(clean: dict[str, Any]) -> None:
    assert sim.run(**SMALL, **SILENT) == clean


def test_writes_group_sessions_and_shuffle_only_their_order() -> None:
    facts = sim.make_facts(10, seed=5)
    mentions, _ = sim.make_mentions(facts, n_sessions=9, per_session=3, error_rate=0.0, seed=5)
    in_order = sim._writes(mentions, 4, None)
    assert [sorted({m.session for m in w}) for w in in_order] == [[0, 1, 2, 3], [4, 5, 6, 7], [8]]
    shuffled = sim._writes(mentions, 4, 11)
    assert sorted(shuffled, key=lambda w: w[0].session) == in_order and shuffled != in_order
    # update_in_place keeps whatever arrived last.
    assert sim._update_in_place(facts, in_order) != sim._update_in_place(facts, in_order[::-1])


@pytest.mark.xfail(
    strict=True,
    reason=(
        "known gap: a reinforced record keeps the valid time of its first statement only, so a "
        "statement that arrives late (an older event) inside it is taken as the latest change, even "
        "when a restatement after that event exists"
    ),
)
def test_store_answers_do_not_depend_on_delivery_order() -> None:
    """Given the same episodes delivered in another order, the valid-time answers are the same."""
    r = sim.run(**SMALL, shuffle_writes=True, **SILENT)
    assert r["rows"]["bitemporal"] == {"current": 1.0, "history": 1.0}
    assert r["store_checks"]["as_of_days_wrong"] == 0


def test_sweep_keys_runs_by_error_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[float] = []

    def fake_run(*, error_rate: float, **kw: Any) -> dict[str, Any]:
        seen.append(error_rate)
        return {"error_rate": error_rate}

    monkeypatch.setattr(sim, "run", fake_run)
    out = sim.sweep()
    assert seen == [0.0, 0.05, 0.10, 0.20]
    assert list(out["by_error_rate"]) == ["0.00", "0.05", "0.10", "0.20"]
    assert out["by_error_rate"]["0.10"] == {"error_rate": 0.10}


def test_plot_writes_a_png(clean: dict[str, Any], noisy: dict[str, Any], tmp_path: Path) -> None:
    png = sim.plot([clean, noisy], tmp_path / "plots" / "simulation.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="n_facts"):
        sim.make_facts(101, seed=1)
    with pytest.raises(ValueError, match="error_rate"):
        sim.make_mentions(sim.make_facts(5, seed=1), n_sessions=2, per_session=2, error_rate=1.5, seed=1)
    with pytest.raises(ValueError, match="per_session"):
        sim.make_mentions(sim.make_facts(5, seed=1), n_sessions=2, per_session=6, error_rate=0.0, seed=1)
