"""Strategies by name and parameter, the `rami strategies` listing, and the
interval helpers and paired difference of the expert-vs-greedy experiment."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

import strategies as S
from experiments.expert_vs_greedy import game_differences, verdict, win_shares
from experiments.stats import bootstrap_interval, normal_interval
from sim.cli import main
from sim.cli.common import seat_strategies as _seat_strategies
from sim.engine.policies import P_SLOT, KIND_HEURISTIC, KIND_RANDOM, N_PARAMS

PRESETS = ["random", "greedy", "cautious", "expert"]

# The heuristic family's parameters in the order of the table in the
# docstring of sim/engine/policies.py (P_JOKERS = 0 ... P_TAKE = 11).
DOCUMENTED_INDEX = {
    "jokers": 0, "open_extra": 1, "open_cards": 2, "open_all": 3, "discard": 4, "near_weight": 5,
    "feed_weight": 6, "take_near": 7, "add": 8, "recover": 9, "may_i": 10, "take": 11, "unopened_keep": 22,
}

# --------------------------------------------------------------- by name


@pytest.mark.parametrize("name", PRESETS)
def test_get_every_preset(name):
    s = S.get(name)
    assert s is S.STRATEGIES[name]
    assert s.name == name
    assert s.description
    assert S.get(s) is s  # a Strategy passes through
    if name == "random":
        assert s.kind == KIND_RANDOM and s.params == {}
    else:
        assert s.kind == KIND_HEURISTIC
        assert set(s.params) == set(S.PARAMETERS)  # every parameter set explicitly


def test_presets_hold_their_documented_values():
    greedy, cautious, expert = S.get("greedy").params, S.get("cautious").params, S.get("expert").params
    assert greedy["discard"] == 0 and greedy["add"] == 1 and greedy["open_extra"] == 0
    assert cautious["open_extra"] == 15 and cautious["jokers"] == 1 and cautious["add"] == 0
    assert expert["discard"] == 2 and expert["take_near"] == 1 and expert["near_weight"] == 2.5


def test_string_form_with_several_parameters():
    s = S.get("greedy:jokers=2,open_extra=10, near_weight = 1.5")
    assert s.name == "greedy:jokers=2,open_extra=10,near_weight=1.5"
    assert s.kind == KIND_HEURISTIC
    assert (s.params["jokers"], s.params["open_extra"], s.params["near_weight"]) == (2, 10, 1.5)
    untouched = {k: v for k, v in s.params.items() if k not in ("jokers", "open_extra", "near_weight")}
    assert untouched == {k: v for k, v in S.get("greedy").params.items() if k in untouched}
    assert S.get("greedy").with_params(jokers=2, open_extra=10).params == S.get("greedy:jokers=2,open_extra=10").params


def test_with_params_leaves_the_preset_unchanged():
    before = dict(S.get("expert").params)
    changed = S.get("expert").with_params(feed_weight=0)
    assert changed.params["feed_weight"] == 0
    assert S.get("expert").params == before


@pytest.mark.parametrize(
    "text, problem",
    [
        ("nosuch", "unknown strategy 'nosuch'"),
        ("nosuch:jokers=1", "unknown strategy 'nosuch'"),
        ("greedy:nosuch=1", "unknown strategy parameter 'nosuch'"),
        ("greedy:jokers=3", r"jokers = 3.0 must be a number from 0 to 2"),
        ("greedy:open_extra=-1", r"open_extra = -1.0 must be a number from 0 to 200"),
        ("greedy:near_weight=nan", r"near_weight = nan must be a number"),
        ("greedy:jokers=two", r"jokers = 'two' is not a number"),
        ("greedy:jokers", r"bad strategy parameter 'jokers'.*expected name=value"),
    ],
)
def test_bad_strings_raise_value_error_naming_the_problem(text, problem):
    with pytest.raises(ValueError, match=problem):
        S.get(text)


@pytest.mark.parametrize(
    "changes, problem",
    [
        ({"nosuch": 1}, "unknown strategy parameter 'nosuch'"),
        ({"discard": 2.5}, "discard = 2.5 must be a number from 0 to 2"),
        ({"jokers": "2"}, "jokers = '2' must be a number"),
        ({"add": True}, "add = True must be a number"),
        ({"feed_weight": math.inf}, "feed_weight = inf must be a number"),
    ],
)
def test_bad_with_params_raise_value_error_naming_the_problem(changes, problem):
    with pytest.raises(ValueError, match=problem):
        S.get("greedy").with_params(**changes)


def test_random_takes_no_parameters():
    with pytest.raises(ValueError, match="random strategy has no parameters"):
        S.get("random").with_params(jokers=1)
    with pytest.raises(ValueError, match="random strategy has no parameters"):
        S.get("random:jokers=1")


def test_get_refuses_other_types():
    with pytest.raises(TypeError, match="a strategy is a name or a Strategy"):
        S.get(3)


# ------------------------------------------------------- kernel parameters


def test_parameters_sit_at_their_documented_index():
    assert {name: spec[0] for name, spec in S.PARAMETERS.items()} == DOCUMENTED_INDEX
    # A distinct value per parameter, each inside its range, lands at its index.
    values = {name: min(high, 1 + i * 0.5) if high >= 1 else high
              for i, (name, (_, low, high, _)) in enumerate(S.PARAMETERS.items())}
    # Choice parameters take whole numbers.
    values.update(jokers=2, discard=1, may_i=0, open_all=1, take_near=1, add=0, recover=1)
    s = S.get("greedy").with_params(**values)
    kinds, params = S.parameter_arrays([S.get("random"), s], seats=6)
    assert kinds.dtype == np.int64 and kinds.shape == (6,)
    assert params.dtype == np.float64 and params.shape == (6, N_PARAMS)
    assert list(kinds) == [KIND_RANDOM, KIND_HEURISTIC, 0, 0, 0, 0]
    for name, index in DOCUMENTED_INDEX.items():
        assert params[1, index] == values[name], name
    # Every other slot stays zero (the search's, which the search alone sets), but the one that names a Python
    # policy's slot (-1: none).
    spare = [k for k in range(N_PARAMS) if k not in DOCUMENTED_INDEX.values() and k != P_SLOT]
    assert not params[1, spare].any()
    assert params[0, P_SLOT] == -1 and params[1, P_SLOT] == -1
    assert not params[0, [k for k in range(N_PARAMS) if k != P_SLOT]].any() and not params[2:].any()


# ------------------------------------------------------------------- CLI


def test_rami_strategies_lists_every_preset_and_parameter():
    result = CliRunner().invoke(main, ["strategies"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for name in PRESETS:
        assert any(line.startswith(f"{name} ") for line in lines), name
    for name, (_, low, high, meaning) in S.PARAMETERS.items():
        assert any(line.startswith(f"{name} ") and f"{low}-{high}" in line and meaning in line for line in lines), name
    assert "jokers=0 open_extra=0" in result.output  # greedy's values
    assert "near_weight=2.5" in result.output  # expert's values


def test_rami_strategies_json_parses_and_matches_the_library():
    result = CliRunner().invoke(main, ["strategies", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    # The presets first, then any strategy registered in this process.
    assert [s["name"] for s in data["strategies"]] == list(S.STRATEGIES)
    assert [s["name"] for s in data["strategies"]][: len(PRESETS)] == PRESETS
    for entry in data["strategies"]:
        assert entry["params"] == {k: float(v) for k, v in S.get(entry["name"]).params.items()}
        assert entry["description"] == S.get(entry["name"]).description
    assert {p["name"]: (p["index"], p["low"], p["high"], p["meaning"]) for p in data["parameters"]} == S.PARAMETERS


def test_simulate_strategies_option_keeps_parameters_together():
    assert _seat_strategies("greedy:jokers=2,open_extra=10,greedy, expert") == [
        "greedy:jokers=2,open_extra=10", "greedy", "expert",
    ]
    assert _seat_strategies("greedy,greedy") == ["greedy", "greedy"]
    with pytest.raises(Exception, match="follows no strategy with parameters"):
        _seat_strategies("open_extra=10,greedy")


def test_docs_table_lists_every_parameter():
    text = (Path(__file__).resolve().parent.parent / "docs" / "strategies.md").read_text()
    for name in S.PARAMETERS:
        assert f"| `{name}` |" in text, name
    for name in PRESETS:
        assert f"`{name}`" in text, name


# ----------------------------------------------------------------- stats


def test_bootstrap_of_a_constant_sample_is_that_constant():
    assert bootstrap_interval(np.full(50, 3.25), seed=0) == (3.25, 3.25)


def test_normal_interval_of_a_known_sample():
    # mean 3, sample sd sqrt(2.5), n 5: half-width 1.96 * sqrt(2.5 / 5)
    mean, low, high = normal_interval([1, 2, 3, 4, 5])
    assert mean == 3.0
    assert low == pytest.approx(3 - 1.96 * math.sqrt(0.5))
    assert high == pytest.approx(3 + 1.96 * math.sqrt(0.5))


def test_bootstrap_is_seeded_and_close_to_normal_on_a_large_sample():
    sample = np.random.default_rng(7).normal(10.0, 2.0, size=2000)
    a = bootstrap_interval(sample, seed=1)
    assert a == bootstrap_interval(sample, seed=np.random.default_rng(1))
    assert a != bootstrap_interval(sample, seed=2)
    _, low, high = normal_interval(sample)
    assert a[0] == pytest.approx(low, abs=0.03) and a[1] == pytest.approx(high, abs=0.03)
    assert a[0] < sample.mean() < a[1]


@pytest.mark.parametrize(
    "call, problem",
    [
        (lambda: normal_interval([1.0]), "at least 2 values"),
        (lambda: normal_interval(np.ones((3, 2))), "1-D sample"),
        (lambda: bootstrap_interval([1.0, math.nan], seed=0), "NaN"),
        (lambda: bootstrap_interval([1.0, 2.0], seed=0, level=1.0), "level"),
        (lambda: bootstrap_interval([1.0, 2.0], seed=0, n_resamples=0), "n_resamples"),
    ],
)
def test_stats_reject_bad_input(call, problem):
    with pytest.raises(ValueError, match=problem):
        call()


# --------------------------------------------------- the paired difference


def _frame(rows):
    return pl.DataFrame(rows, schema=["game", "round", "seat", "strategy_index", "points"], orient="row")


def test_game_differences_by_hand():
    # Game 0: round 0 expert 0 vs greedy 10, 20, 30 (d -20); round 1 expert 30
    # vs 0, 0, 30 (d +20): d_0 = 0. Game 1, rotated one seat: expert 5 vs
    # 5, 5, 8 (d -1): d_1 = -1.
    df = _frame([
        (0, 0, 0, 0, 0), (0, 0, 1, 1, 10), (0, 0, 2, 2, 20), (0, 0, 3, 3, 30),
        (0, 1, 0, 0, 30), (0, 1, 1, 1, 0), (0, 1, 2, 2, 0), (0, 1, 3, 3, 30),
        (1, 0, 0, 3, 5), (1, 0, 1, 0, 5), (1, 0, 2, 1, 5), (1, 0, 3, 2, 8),
    ])
    out = game_differences(df)
    assert out["game"].to_list() == [0, 1]
    assert out["rounds"].to_list() == [2, 1]
    assert out["d"].to_list() == [0.0, -1.0]
    assert out["focal_points"].to_list() == [15.0, 5.0]


def test_game_differences_and_win_shares_on_real_output():
    import sim

    df = sim.simulate("rami51", ["expert", "greedy", "greedy", "greedy"], n_games=20, seed=5, rotate=True)
    out = game_differences(df)
    assert out.height == 20 and int(out["rounds"].sum()) == df.select("game", "round").unique().height
    # The same numbers by a slow loop over the rows.
    points: dict[tuple[int, int], dict[int, int]] = {}
    for row in df.iter_rows(named=True):
        assert row["seat"] == (row["strategy_index"] + row["game"]) % 4  # rotation
        points.setdefault((row["game"], row["round"]), {})[row["strategy_index"]] = row["points"]
    for game, d in zip(out["game"], out["d"]):
        diffs = [p[0] - (p[1] + p[2] + p[3]) / 3 for (g, _), p in points.items() if g == game]
        assert d == pytest.approx(sum(diffs) / len(diffs))
    shares = win_shares(df)
    assert shares.shape == (20,) and ((shares >= 0) & (shares <= 1)).all()
    total = sum(win_shares(df, focal=j) for j in range(4))
    assert total == pytest.approx(np.ones(20))  # every game's win is shared out in full


def test_verdict_sentences():
    assert verdict(-2.0, -3.0, -1.0) == (
        "expert scores 2.00 fewer points per round than greedy (95% CI 1.00 to 3.00): the interval excludes zero"
    )
    assert verdict(0.5, -0.5, 1.5).endswith("the interval includes zero, so this run cannot tell them apart")
    assert verdict(0.5, -0.5, 1.5).startswith("expert scores 0.50 more points per round")


def test_ratio_bootstrap_of_a_constant_ratio_is_that_ratio():
    from experiments.stats import ratio_bootstrap_interval

    est, low, high = ratio_bootstrap_interval([2.0, 4.0, 6.0], [1.0, 2.0, 3.0], seed=0, n_resamples=200)
    assert est == low == high == 2.0
    est, low, high = ratio_bootstrap_interval([1.0, 5.0, 2.0, 9.0], [1.0, 2.0, 1.0, 3.0], seed=1, n_resamples=500)
    assert est == pytest.approx(17 / 7) and low < est < high


@pytest.mark.parametrize("discard_take", ["must_use", "free"])
def test_take_zero_never_takes_the_discard(discard_take):
    import sim

    r = sim.rules.preset("rami51", discard_take=discard_take)
    df = sim.simulate(r, ["greedy:take=0", "greedy", "greedy"], n_games=30, seed=2, rotate=True)
    never = df.filter(pl.col("strategy_index") == 0)["discard_takes"]
    others = df.filter(pl.col("strategy_index") != 0)["discard_takes"]
    assert never.sum() == 0 and others.sum() > 0
