"""``bot_losses``: its quick edition end to end through the results store, its figures, its worked examples."""

from __future__ import annotations

import json

import polars as pl
import pytest

import experiments
from experiments import bot_losses as B
from experiments.runner import DATA, read_summary
from sim.analysis.analyse import walk


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("bot_losses") / "run"
    config = B.EXPERIMENT.config(quick=True, seed=5, workers=2, resamples=100)
    return out, B.run(config, out)


def test_it_is_reported_and_its_quick_edition_is_small():
    assert "bot_losses" in experiments.REPORTED and experiments.load("bot_losses") is B.EXPERIMENT
    config = B.EXPERIMENT.config(quick=True)
    assert config.strategies == ("greedy", "cautious", "expert") and config.players == 4
    assert config.games * config.rounds * config.trials <= 3 * 1 * 60
    with pytest.raises(ValueError, match="precision"):
        B.EXPERIMENT.config(precision=0.1)
    with pytest.raises(ValueError, match="width"):
        B.EXPERIMENT.config(width=0)


def test_the_quick_edition_writes_findings_resampling_games_and_conclusions(quick):
    out, results = quick
    summary = read_summary(out)
    assert summary["conclusions"] and summary["findings"]
    assert {f["unit"] for f in summary["findings"]} == {"game"}
    metrics = {(f["metric"], f["arms"][0]) for f in summary["findings"] if not f["group"]}
    for strategy in ("greedy", "cautious", "expert"):
        assert {(B.LOSS, strategy), (B.FREQUENCY, strategy), (B.LOSS_PER_GAME, strategy)} <= metrics
    frame = results.frame
    assert set(frame["strategy"]) == {"greedy", "cautious", "expert"} and (frame["choices"] >= 2).all()
    assert (frame["seat"] == frame["game"] % 4).all()
    # The loss per decision is the games' losses over their decisions (a ratio of sums over games).
    for f in results.findings:
        if f.metric == B.LOSS and not f.group:
            mine = frame.filter(pl.col("strategy") == f.arms[0])
            assert f.estimate.estimate == pytest.approx(mine["loss"].sum() / mine.height)
            assert f.estimate.low <= f.estimate.estimate <= f.estimate.high


def test_each_worked_example_names_a_decision_of_a_stored_trace(quick):
    out, results = quick
    examples = read_summary(out)["provenance"]["examples"]
    assert examples and {e["group"] for e in examples} <= {name for name, _ in B.groups()}
    traces = B.traces(out)
    assert traces.height == 3 * results.config.games
    for ex in examples[:4]:
        row = traces.filter((pl.col("strategy") == ex["strategy"]) & (pl.col("game") == ex["game"])).row(0, named=True)
        events = json.loads(row["trace"])
        step = next(s for s in walk(events) if s.event == ex["event"] and s.position.decision == ex["kind"])
        assert (step.played, step.position.seat) == (ex["played"], ex["seat"])
        rows = results.frame.filter((pl.col("strategy") == ex["strategy"]) & (pl.col("game") == ex["game"])
                                    & (pl.col("event") == ex["event"]) & (pl.col("kind") == ex["kind"]))
        assert rows.height == 1 and rows["loss"][0] == ex["loss"] and rows["played"][0] == ex["played"]


def test_a_second_run_resumes_from_the_store_and_plays_nothing(quick):
    out, results = quick
    again = B.run(results.config, out)
    manifest = json.loads((out / DATA / "positions" / "manifest.json").read_text())
    assert manifest["runs"][-1]["games_played"] == 0
    assert again.frame.equals(results.frame)


@pytest.mark.parametrize("facts, expected", [
    ({"kind": "draw", "played": "take 9♠", "may_take": True}, {"takes the pile's top"}),
    ({"kind": "draw", "played": "stock", "may_take": True}, {"draws from the stock though it may take"}),
    ({"kind": "draw", "played": "stock", "may_take": False}, set()),
    ({"kind": "lay", "played": "open 10♥ ★ Q♥ + 6♣ 7♣ 8♣", "may_open": True, "table_turn": 2},
     {"opens", "lays a joker at its turns 1 to 3"}),
    ({"kind": "lay", "played": "stop", "may_open": True, "table_turn": 5}, {"could open and waits"}),
    ({"kind": "lay", "played": "add ★ to 3 high", "may_open": False, "table_turn": 4}, {"lays more after opening"}),
    ({"kind": "discard", "played": "K♠", "penalty": 10, "fits": True, "fewest_other": 2},
     {"throws a card that fits", "throws a card of 10 points or more",
      "throws while an opponent holds 2 cards or fewer"}),
    ({"kind": "discard", "played": "3♠", "penalty": 3, "fits": False, "fewest_other": 5}, set()),
])
def test_the_situations_are_read_off_the_position_and_the_choice(facts, expected):
    base = {"kind": "", "played": "", "may_take": False, "may_open": False, "table_turn": 9, "penalty": 0,
            "fits": False, "fewest_other": 9}
    found = {name for name, test in B.SITUATIONS.items() if test({**base, **facts})}
    assert found == expected


def test_a_longer_run_plays_only_the_games_not_on_disk(tmp_path):
    config = B.EXPERIMENT.config(quick=True, seed=2, workers=2, resamples=60, games=2)
    first = B.run(config, tmp_path)
    longer = B.run(config.replace(games=3), tmp_path)
    manifest = json.loads((tmp_path / DATA / "positions" / "manifest.json").read_text())
    assert [r["games_played"] for r in manifest["runs"]] == [2, 1]
    assert longer.frame.filter(pl.col("game") < 2).equals(first.frame)


def test_rami_info_describes_its_dataset(quick):
    from click.testing import CliRunner

    from sim.cli import main

    out, _ = quick
    result = CliRunner().invoke(main, ["info", str(out / DATA / "positions")])
    assert result.exit_code == 0, result.output
    assert "tables      positions, traces" in result.output and "every decision of one seat" in result.output
