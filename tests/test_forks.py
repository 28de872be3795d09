"""The fork experiments: positions that really offer the decision, forks on common futures, intervals by game."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import sim
from experiments import forks, joker_fork, opening_fork

SMALL = {"games": 4, "trials": 20, "resamples": 200, "workers": 1}


@pytest.fixture(scope="module")
def joker_run():
    return joker_fork.run(joker_fork.Config(seed=3, **SMALL))


@pytest.fixture(scope="module")
def opening_run():
    return opening_fork.run(opening_fork.Config(seed=3, **SMALL))


def _rounded(f):
    e = f.estimate
    return f.metric, f.arms, f.group, round(e.estimate, 9), round(e.low, 9), round(e.high, 9), e.clusters


def _events(run, game: int):
    c = run.config
    return sim.play_traced(c.ruleset, [c.strategy] * c.players, seed=c.seed, game=game)


def test_joker_positions_really_offer_laying_a_joker_or_keeping_it(joker_run):
    frame = joker_run.frame
    assert frame.height >= 2 and (frame.group_by("game").len()["len"] <= joker_run.config.per_game).all()
    for row in frame.iter_rows(named=True):
        p = sim.Position.from_trace(_events(joker_run, row["game"]), row["event"])
        seen = p.observe(p.seat)
        assert p.decision == "lay" and p.seat == row["seat"] and seen.opened
        assert any(c.is_joker for c in seen.hand) and "★" in row["now"] and row["now"].startswith(("meld ", "add "))
        assert p.step()[0] == row["now"] and {"stop", row["now"]} <= set(p.legal_choices())
        assert row["hand"] == p.hand(p.seat) and row["hand_size"] == len(seen.hand)


def test_opening_positions_really_offer_opening_now_or_waiting(opening_run):
    for row in opening_run.frame.iter_rows(named=True):
        p = sim.Position.from_trace(_events(opening_run, row["game"]), row["event"])
        assert p.decision == "lay" and not p.observe(p.seat).opened
        assert p.step()[0] == row["now"] and row["now"].startswith("open ") and "stop" in p.legal_choices()
        assert row["opening_points"] >= p.ruleset.open_threshold


def test_a_fork_whose_two_arms_are_one_choice_costs_exactly_nothing():
    same = forks.Fork(now="drawing", other="drawing again", other_choice="stock",
                      candidate=lambda events, i: {} if events[i]["type"] == "draw" else None,
                      plays_now=lambda choice: choice == "stock", salt=1)
    config = opening_fork.Config(seed=5, **SMALL)
    frame = forks.collect(same, config)
    assert frame.height >= 2
    assert (frame["diff"] == 0).all() and (frame["var_paired"] == 0).all() and (frame["var_unpaired"] > 0).any()
    e = forks.estimate(frame, "diff", config, 1)
    assert (e.estimate, e.low, e.high) == (0.0, 0.0, 0.0) and e.variance_ratio == 0.0


def test_the_interval_resamples_games_not_positions():
    # Ten positions of one game cost 10, one position in each of two other games costs 0: the mean over
    # positions is 100/12; resampling games, a third of the resamples leave the first game out.
    rows = [{"game": 0, "diff": 10.0}] * 10 + [{"game": 1, "diff": 0.0}, {"game": 2, "diff": 0.0}]
    frame = pl.DataFrame(rows).with_columns(pl.lit(1.0).alias("var_paired"), pl.lit(2.0).alias("var_unpaired"))
    e = forks.estimate(frame, "diff", opening_fork.Config(), 1)
    assert e.estimate == pytest.approx(100 / 12) and e.clusters == 3 and e.unit == "game"
    assert e.low == 0.0 and e.high == 10.0  # resampling the 12 positions would give about 6.3 to 10
    assert e.variance_ratio == pytest.approx(0.5)


def test_findings_are_the_mean_over_positions_with_groups_that_hold_positions(opening_run):
    frame = opening_run.frame
    head = next(f for f in opening_run.findings if f.metric == forks.HEADLINE and not f.group)
    assert head.headline and head.arms == ("waiting", "opening now")
    assert head.estimate.estimate == pytest.approx(frame["diff"].mean())
    assert head.estimate.clusters == frame["game"].n_unique()
    levels = {f.arms[0]: f.estimate.estimate for f in opening_run.findings if f.metric == forks.LEVEL}
    assert levels["waiting"] - levels["opening now"] == pytest.approx(head.estimate.estimate)
    for f in opening_run.findings:
        if f.group:
            condition = dict(opening_fork.groups(opening_run.config))[f.group]
            part = frame.filter(condition)
            assert f.estimate.clusters == part["game"].n_unique() >= 2
            assert f.estimate.estimate == pytest.approx(part["diff"].mean())


def test_fork_rows_and_findings_are_the_same_on_every_run_and_change_with_the_seed(joker_run):
    again = joker_fork.run(joker_run.config)
    assert again.frame.equals(joker_run.frame)
    assert [_rounded(f) for f in again.findings] == [_rounded(f) for f in joker_run.findings]
    shuffled = joker_run.frame.sample(fraction=1.0, shuffle=True, seed=1)  # rows read back in another order
    read_back = joker_fork.analyse(shuffled, joker_run.config)
    assert [_rounded(f) for f in read_back] == [_rounded(f) for f in joker_run.findings]
    other = joker_fork.run(joker_run.config.replace(seed=4))
    assert not np.array_equal(other.frame["diff"].to_numpy(), joker_run.frame["diff"].to_numpy())


def test_fork_config_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="'mode' must be belief or clairvoyant"):
        joker_fork.Config(mode="psychic")
    with pytest.raises(ValueError, match="no sequential mode"):
        opening_fork.Config(precision=1.0)
    with pytest.raises(ValueError, match="'trials' must be at least 2"):
        opening_fork.Config(trials=1)
