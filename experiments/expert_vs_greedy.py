"""Does the expert strategy score fewer points than greedy?

One expert and three greedy players share a table; the strategies move one
seat on from game to game (``rotate=True``) so seat order favours no one.
The comparison is paired: in each round the expert's points are compared
with the mean points of the three greedy seats of that very round, which
removes most of the luck of the deal. Rounds of one game are not independent
(totals, who plays first), so the unit of the interval is the game:

    d_g = mean over the rounds of game g of
          (expert's points − mean points of the three greedy seats)

and the 95% interval is taken over the games' d_g, by the normal
approximation and by a percentile bootstrap.

Run from the repository root::

    python experiments/expert_vs_greedy.py                 # about 20,000 rounds
    python experiments/expert_vs_greedy.py --games 5000 --seed 7
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

import numpy as np
import polars as pl

if __package__ in (None, ""):
    # Run as a script: make the repository root importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sim  # noqa: E402
from experiments.stats import bootstrap_interval, normal_interval, ratio_bootstrap_interval  # noqa: E402
from sim import rules  # noqa: E402

STRATEGIES = ["expert", "greedy", "greedy", "greedy"]
FOCAL = 0  # position of the expert in STRATEGIES (the result column strategy_index)
PILOT_GAMES = 200


def game_differences(results: pl.DataFrame, focal: int = FOCAL) -> pl.DataFrame:
    """One row per game: its rounds and the paired difference ``d``.

    Parameters
    ----------
    results : polars.DataFrame
        Rows of :func:`sim.simulate` (one per game, round and seat), with
        columns ``game``, ``round``, ``strategy_index`` and ``points``.
    focal : int
        ``strategy_index`` of the strategy compared with all the others.

    Returns
    -------
    polars.DataFrame
        Columns ``game``, ``rounds`` (int), ``focal_points`` and
        ``others_points`` (mean points per round over the game) and ``d``
        (mean over the game's rounds of focal points − mean points of the
        other seats in that round), sorted by game.
    """
    is_focal = pl.col("strategy_index") == focal
    per_round = results.group_by("game", "round").agg(
        pl.col("points").filter(is_focal).mean().alias("focal_points"),
        pl.col("points").filter(~is_focal).mean().alias("others_points"),
    )
    return (
        per_round.with_columns((pl.col("focal_points") - pl.col("others_points")).alias("d"))
        .group_by("game")
        .agg(
            pl.len().alias("rounds"),
            pl.col("focal_points").mean(),
            pl.col("others_points").mean(),
            pl.col("d").mean(),
        )
        .sort("game")
    )


def win_shares(results: pl.DataFrame, focal: int = FOCAL) -> np.ndarray:
    """Per game, the focal strategy's share of the win, shape ``(games,)``.

    1 for a win alone, ``1/k`` when ``k`` seats share the best total, else 0;
    the shares of all seats of a game add up to 1, so a seat wins 1/players
    of the games by chance.
    """
    final = sim.game_summary(results).join(
        results.select("game", "seat", "strategy_index").unique(), on=["game", "seat"]
    )
    shares = (
        final.group_by("game")
        .agg(
            (pl.col("won") & (pl.col("strategy_index") == focal)).sum().alias("focal_won"),
            pl.col("won").sum().alias("winners"),
        )
        .sort("game")
        .with_columns(pl.when(pl.col("winners") > 0).then(pl.col("focal_won") / pl.col("winners")).otherwise(0.0))
    )
    return shares["focal_won"].to_numpy().astype(np.float64)


def _simulate_enough(args: argparse.Namespace) -> pl.DataFrame:
    """Results of ``--games`` games, or of enough games for ``--rounds-target`` rounds.

    Game ``i`` depends on ``(seed, i)`` alone, so a longer run repeats the
    games of a shorter one and adds new ones after them.
    """

    def run(n_games: int) -> pl.DataFrame:
        return sim.simulate(args.preset, STRATEGIES, n_games=n_games, seed=args.seed, workers=args.workers,
                            rotate=True)

    if args.games is not None:
        return run(args.games)
    pilot = run(PILOT_GAMES)
    n_games = PILOT_GAMES
    df = pilot
    while (rounds := df.select("game", "round").unique().height) < args.rounds_target:
        per_game = rounds / n_games
        n_games = max(n_games + 1, math.ceil(1.05 * args.rounds_target / per_game))
        df = run(n_games)
    return df


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds-target", type=int, default=20_000,
                        help="play enough games for at least this many rounds (default 20000)")
    parser.add_argument("--games", type=int, default=None,
                        help="play exactly this many games instead of aiming at --rounds-target")
    parser.add_argument("--seed", type=int, default=1, help="simulation seed (default 1)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="engine threads; results do not depend on it (default: all cores)")
    parser.add_argument("--preset", default="rami51", help="ruleset preset or TOML file (default rami51)")
    parser.add_argument("--bootstrap-seed", type=int, default=0,
                        help="seed of the bootstrap's numpy Generator (default 0)")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    args = parser.parse_args(argv)
    if args.rounds_target < 1:
        parser.error("--rounds-target must be at least 1")
    if args.games is not None and args.games < 2:
        parser.error("--games must be at least 2 (an interval needs two games)")
    return args


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    try:
        gain = rules.as_ruleset(args.preset).game == "basic"
        df = _simulate_enough(args)
    except (ValueError, NotImplementedError, rules.RulesetError) as exc:
        raise SystemExit(f"error: {exc}") from exc

    games = game_differences(df)
    d = games["d"].to_numpy()
    n_games, n_rounds = games.height, int(games["rounds"].sum())
    expert = df.filter(pl.col("strategy_index") == FOCAL)["points"].mean()
    greedy = df.filter(pl.col("strategy_index") != FOCAL)["points"].mean()
    mean, n_lo, n_hi = normal_interval(d)
    b_lo, b_hi = bootstrap_interval(d, np.random.default_rng(args.bootstrap_seed), n_resamples=args.resamples)
    # Per round over all rounds: each game weighs by its rounds (a ratio of
    # sums), the interval by resampling whole games.
    rounds = games["rounds"].to_numpy().astype(float)
    r_mean, r_lo, r_hi = ratio_bootstrap_interval(d * rounds, rounds, np.random.default_rng(args.bootstrap_seed),
                                                  n_resamples=args.resamples)
    wins = win_shares(df)
    w_mean, w_lo, w_hi = normal_interval(wins)
    truncated = df.filter(pl.col("truncated"))["game"].n_unique()
    blocked = int((df.filter(pl.col("strategy_index") == FOCAL)["blocked"] != "none").sum())

    meaning = "a gain: more is better" if gain else "a penalty: fewer is better"
    print(f"expert vs greedy x3 under {args.preset}, seats rotating, seed {args.seed}")
    print(f"games                          {n_games:,}")
    print(f"rounds                         {n_rounds:,}   (blocked {blocked:,}; truncated games {truncated})")
    print(f"expert points per round        {expert:.3f}   (points are {meaning})")
    print(f"greedy points per round        {greedy:.3f}   (mean of the three greedy seats)")
    print(f"mean difference per round      {mean:+.3f}   (expert - greedy, mean over games of d_g;"
          f" round-weighted: {expert - greedy:+.3f})")
    print(f"95% CI, normal over games      {n_lo:+.3f} to {n_hi:+.3f}")
    print(f"95% CI, bootstrap over games   {b_lo:+.3f} to {b_hi:+.3f}"
          f"   ({args.resamples} resamples, Generator seed {args.bootstrap_seed})")
    print(f"per round, all rounds weighed  {r_mean:+.3f}   (95% CI, games resampled: {r_lo:+.3f} to {r_hi:+.3f})")
    print(f"games won by the expert        {w_mean:.1%}   (95% CI {w_lo:.1%} to {w_hi:.1%};"
          f" ties split; a seat wins 25.0% by chance)")
    print("verdict (all rounds weighed): " + verdict(r_mean, r_lo, r_hi))


def verdict(mean: float, low: float, high: float) -> str:
    """One plain sentence on the difference ``mean`` (expert − greedy) and its interval."""
    if mean <= 0:
        head = f"expert scores {-mean:.2f} fewer points per round than greedy (95% CI {-high:.2f} to {-low:.2f})"
    else:
        head = f"expert scores {mean:.2f} more points per round than greedy (95% CI {low:.2f} to {high:.2f})"
    if low > 0 or high < 0:
        return head + ": the interval excludes zero"
    return head + ": the interval includes zero, so this run cannot tell them apart"


if __name__ == "__main__":
    main()
