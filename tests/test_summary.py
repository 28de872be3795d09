"""The simulation summary (sim.summary): every figure right, with intervals that resample games."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

import sim
from experiments.stats import normal_interval
from sim.cli import main
from sim.summary import BLOCKED_REASONS, ratio_interval, summarise, wilson_interval


@pytest.fixture(scope="module")
def contrat_rows():
    # Cautious contrat tables close the table often (issue 15's repro).
    return sim.simulate("contrat", ["cautious"] * 3, n_games=40, seed=1, workers=1)


@pytest.fixture(scope="module")
def mixed_rows():
    names = ["greedy:jokers=2,open_extra=10", "random", "expert"]
    return sim.simulate("rami51", names, n_games=60, seed=7, workers=1)


def test_the_blocked_breakdown_lists_every_reason_and_adds_up(contrat_rows):
    s = summarise(contrat_rows, "contrat", seed=1)
    per_round = contrat_rows.filter(pl.col("seat") == 0)
    assert list(s.round_ends) == list(BLOCKED_REASONS)
    for reason in BLOCKED_REASONS:
        assert s.round_ends[reason] == (per_round["blocked"] == reason).sum(), reason
    assert sum(s.round_ends.values()) == s.rounds == per_round.height == 40 * 7
    assert s.round_ends["table_closed"] > 0 and s.round_ends["stock"] > 0
    text = str(s)
    for words in ("rounds won", "stock", "turn cap 0", "cycle 0", "table closed"):
        assert words in text, words


@pytest.mark.parametrize("game,direction", [("rami51", "lower is better"), ("contrat", "lower is better"),
                                            ("basic", "higher is better")])
def test_the_direction_of_points_is_stated_per_game(game, direction):
    rows = sim.simulate(game, ["greedy"] * 3, n_games=3, seed=2, workers=1)
    s = summarise(rows, game)
    assert direction in s.points_direction and direction in str(s)
    assert s.to_dict()["points_direction"] == s.points_direction


def test_points_per_round_and_wins_match_the_rows(mixed_rows):
    s = summarise(mixed_rows, "rami51")
    for p in s.players:
        mine = mixed_rows.filter(pl.col("strategy_index") == p.index)
        assert p.points_per_round.mean == pytest.approx(mine["points"].mean())
        assert p.opened.mean == pytest.approx(mine["opened"].mean())
        assert p.went_out.mean == pytest.approx(mine["went_out"].mean())
        assert p.open_turn.mean == pytest.approx(mine.filter(pl.col("opened"))["open_turn"].mean())
        won = sim.game_summary(mixed_rows).filter(pl.col("seat") == p.index)["won"]
        assert p.games_won.mean == pytest.approx(won.mean()) and p.games == 60
        for figure in (p.points_per_round, p.games_won, p.opened, p.went_out, p.open_turn):
            assert figure.low <= figure.mean <= figure.high


def test_a_lazy_frame_gives_the_same_summary(mixed_rows, tmp_path):
    path = tmp_path / "rows.parquet"
    mixed_rows.write_parquet(path)
    eager = summarise(mixed_rows, "rami51", seed=7).to_dict()
    assert summarise(pl.scan_parquet(path), "rami51", seed=7).to_dict() == eager
    assert summarise(mixed_rows.lazy(), "rami51", seed=7).to_dict() == eager


def test_echo_and_aligned_columns_for_any_strategy_name(mixed_rows):
    s = summarise(mixed_rows, "rami51", overrides={"open_threshold": 30}, seed=7, elapsed=2.0)
    lines = s.lines()
    assert lines[0] == "rules rami51 with open_threshold=30   seed 7   strategies " \
                       "greedy:jokers=2,open_extra=10,random,expert"
    assert "rounds/s" in lines[1]
    tables = [i for i, line in enumerate(lines) if line.startswith("seat")]
    assert len(tables) == 2
    for start, end in zip(tables, [tables[1], len(lines)]):
        table = lines[start:end]
        assert len(table) == 4
        assert len({len(line) for line in table}) == 1, table  # every column as wide in every row
        # the figures start at the same column in every row
        column = table[0].index("strategy")
        assert all(row[column:].startswith(name) for row, name in
                   zip(table[1:], ["greedy:jokers=2,open_extra=10", "random ", "expert "]))


def test_json_form_is_plain_data(mixed_rows):
    data = json.loads(json.dumps(summarise(mixed_rows, "rami51", seed=7).to_dict(), allow_nan=False))
    assert data["seed"] == 7 and data["rules"] == "rami51" and data["interval"] == "95%, clustered by game"
    assert data["strategies"] == ["greedy:jokers=2,open_extra=10", "random", "expert"]
    assert set(data["players"][0]["points_per_round"]) == {"mean", "low", "high"}
    one_game = summarise(mixed_rows.filter(pl.col("game") == 0), "rami51").to_dict()
    assert one_game["players"][0]["points_per_round"]["low"] is None  # no interval from one game


def test_rotated_seats_are_recognised():
    rows = sim.simulate("rami51", ["greedy", "expert"], n_games=6, seed=1, workers=1, rotate=True)
    s = summarise(rows, "rami51")
    assert s.rotate and all(p.seat is None for p in s.players)
    assert [p.strategy for p in s.players] == ["greedy", "expert"]
    assert "(seats rotate)" in str(s)


def test_bad_rows_are_a_value_error(mixed_rows):
    with pytest.raises(ValueError, match="lack the column"):
        summarise(mixed_rows.drop("blocked"), "rami51")
    with pytest.raises(ValueError, match="no rows"):
        summarise(mixed_rows.head(0), "rami51")


# ---------------------------------------------------------------- intervals
def test_ratio_interval_with_equal_rounds_is_the_interval_of_game_means():
    rng = np.random.default_rng(3)
    means = rng.normal(30, 5, size=50)
    rounds = np.full(50, 8)
    got = ratio_interval(means * rounds, rounds)
    mean, low, high = normal_interval(means)
    assert got.mean == pytest.approx(mean)
    assert got.low == pytest.approx(low, rel=1e-4) and got.high == pytest.approx(high, rel=1e-4)


def test_ratio_interval_covers_the_true_mean_95_percent_of_the_time_with_game_effects():
    # Rounds of one game share a game effect, as real games do: an interval
    # over rounds alone would be far too narrow; one resampling games is right.
    rng = np.random.default_rng(11)
    covered = naive = 0
    trials = 400
    for _ in range(trials):
        rounds = rng.integers(3, 15, size=60)
        effect = rng.normal(0, 6, size=60)
        values = [rng.normal(20 + e, 4, size=n) for e, n in zip(effect, rounds)]
        got = ratio_interval(np.array([v.sum() for v in values]), rounds)
        covered += got.low <= 20 <= got.high
        _, low, high = normal_interval(np.concatenate(values))
        naive += low <= 20 <= high
    assert 0.92 <= covered / trials <= 0.98
    assert naive / trials < 0.8  # the round-level interval would mislead


def test_wilson_interval_known_values():
    zero = wilson_interval(0, 10)
    assert zero.mean == 0 and zero.low == 0 and zero.high == pytest.approx(0.2775, abs=1e-4)
    half = wilson_interval(5, 10)
    assert half.low == pytest.approx(0.2366, abs=1e-4) and half.high == pytest.approx(0.7634, abs=1e-4)
    assert math.isnan(wilson_interval(0, 0).mean)


def test_rami_simulate_json_is_the_summary(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["simulate", "--rules", "contrat", "--strategies", "cautious,cautious,cautious",
                                       "--games", "5", "--workers", "1", "--quiet", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["results"] == str(out) and data["games_played"] == 5 and data["games_found"] == 0
    assert set(data["tables"]) == {"rounds", "games"}
    # The same games played in memory give the same summary (timing aside).
    in_memory = sim.simulate("contrat", ["cautious"] * 3, n_games=5, seed=1, workers=1)
    expected = summarise(in_memory, "contrat", overrides={}, seed=1).to_dict()
    for key, value in expected.items():
        if key != "elapsed":
            assert data[key] == value, key


def test_shares_stay_within_zero_and_one():
    # One round in three games out of three went out: the normal interval of so
    # few games would reach below 0; a share's interval stops there.
    interval = ratio_interval(np.array([1.0, 0.0, 0.0]), np.array([7.0, 7.0, 7.0]), share=True)
    assert interval.low == 0.0 and 0 < interval.mean < interval.high <= 1.0
    assert ratio_interval(np.array([1.0, 0.0, 0.0]), np.array([7.0, 7.0, 7.0])).low < 0
