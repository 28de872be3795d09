"""Does the expert strategy score fewer points than greedy?

One expert and three greedy players share a table, on duplicate deals: every
game is played once per rotation of the four strategies through the seats,
so each strategy plays every seat's cards. Two readings. Inside the table,
in each round the expert's points are compared with the mean points of the
greedy seats of that very round:

    d_g = sum over the rounds (and rotations) of game g of
          (expert's points − mean points of the greedy seats)

divided by the rounds, as a ratio over games (rounds of one game are not
independent: totals, who plays first), with intervals that resample games.
Against the same deals played by four greedy players, the expert's seat is
compared with a greedy player in that seat (the design of the other
experiments), points per round and share of games won.

Run from the repository root::

    python experiments/expert_vs_greedy.py                 # 2,000 games
    python experiments/expert_vs_greedy.py --games 500 --seed 7

or ``rami experiment run expert_vs_greedy``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.figure import Figure

if __package__ in (None, ""):
    # Run as a script: make the repository root importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sim  # noqa: E402
from experiments import compare, configs, metrics, plots, stats, wording  # noqa: E402
from experiments.arms import Arm  # noqa: E402
from experiments.experiment import experiment_from  # noqa: E402
from experiments.findings import Finding, Results, rng_for, rounds_of  # noqa: E402
from experiments.parts import arm_parts  # noqa: E402

TITLE = "Does the expert strategy score fewer points than greedy?"
FOCAL = 0  # position of the expert in its arm's strategy list (the column strategy_index)
EXPERT = "expert at the table"
GREEDY = "greedy in its seat"


@dataclass(frozen=True)
class Config(configs.Config):
    """Config of this experiment.

    Attributes
    ----------
    ruleset : str
        Preset or ruleset file.
    players : int
        Seats: one expert, the others greedy.
    """

    games: int = 2000
    ruleset: str = "rami51"
    players: int = 4


QUICK = {"games": 150}


def game_differences(results: pl.DataFrame, focal: int = FOCAL) -> pl.DataFrame:
    """One row per game: its rounds and the paired difference ``d``.

    Parameters
    ----------
    results : polars.DataFrame
        Result rows (one per game, round and seat; with a ``rotation``
        column, per rotation too), with columns ``game``, ``round``,
        ``strategy_index`` and ``points``.
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
    keys = ["game", "round"] + (["rotation"] if "rotation" in results.columns else [])
    per_round = results.group_by(*keys).agg(
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
    of the games by chance. Rows need no ``arm`` or ``rotation`` column.
    """
    frame = results
    if "arm" not in frame.columns:
        frame = frame.with_columns(pl.lit("").alias("arm"), pl.lit(0).alias("rotation"))
    shares = metrics.win_shares(frame).filter(pl.col("strategy_index") == focal).sort("game")
    return (shares["total"] / shares["count"]).to_numpy().astype(np.float64)


def verdict(mean: float, low: float, high: float) -> str:
    """One plain sentence on the difference ``mean`` (expert − greedy) and its interval."""
    if mean <= 0:
        head = f"expert scores {-mean:.2f} fewer points per round than greedy (95% CI {-high:.2f} to {-low:.2f})"
    else:
        head = f"expert scores {mean:.2f} more points per round than greedy (95% CI {low:.2f} to {high:.2f})"
    if low > 0 or high < 0:
        return head + ": the interval excludes zero"
    return head + ": the interval includes zero, so this run cannot tell them apart"


def arms(config: Config) -> list[Arm]:
    field = ("greedy",) * (config.players - 1)
    return [Arm(GREEDY, config.ruleset, ("greedy", *field), duplicate=True),
            Arm(EXPERT, config.ruleset, ("expert", *field), duplicate=True)]


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    table = frame.filter(pl.col("arm") == EXPERT)
    games = game_differences(table)
    rounds = games["rounds"].to_numpy().astype(float)
    est = stats.ratio_estimate(games["d"].to_numpy() * rounds, rounds, rng_for(config, 1), config.resamples)
    findings = [Finding("points per round, expert minus the greedy seats of its table", (EXPERT,), est, games.height,
                        rounds_of(table), headline=True, better="lower")]
    measures = {metrics.POINTS_PER_ROUND: compare.Metric(pl.col("points"), "lower")}
    findings += compare.focal_findings(frame, config, [compare.Comparison(EXPERT, GREEDY)], measures, FOCAL,
                                       levels=False)
    wins = metrics.win_shares(frame).filter(pl.col("strategy_index") == FOCAL)
    arrays = metrics.paired_arrays(wins, {"arm": EXPERT}, {"arm": GREEDY})
    est = stats.paired_difference(*arrays, rng_for(config, 2), config.resamples)
    findings.append(Finding(metrics.GAMES_WON, (EXPERT, GREEDY), est, len(arrays[0]), rounds_of(frame),
                            better="higher"))
    return findings


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    inside = findings[0]
    paired = next(f for f in findings if f.metric == metrics.POINTS_PER_ROUND and len(f.arms) == 2)
    wins = next(f for f in findings if f.metric == metrics.GAMES_WON and len(f.arms) == 2)
    e = inside.estimate
    table = (f"In {wording.game_name(config.ruleset)} at a table of one expert and {config.players - 1} greedy "
             "players")
    if wording.verdict(inside) == "lower":
        head = (f"{table}, the expert strategy is the better one: it scores "
                f"{wording.fmt(inside.metric, -e.estimate)} fewer points per round than the greedy players of its "
                f"table (95% interval {wording.interval_text(inside, True)}).")
    elif wording.verdict(inside) == "higher":
        head = (f"{table}, greedy is the better strategy: the expert scores "
                f"{wording.fmt(inside.metric, e.estimate)} more points per round than the greedy players of its "
                f"table (95% interval {wording.interval_text(inside, True)}).")
    else:
        head = (f"{table}, the expert and greedy cannot be told apart at this size (95% interval "
                f"{wording.interval_text(inside, True)} points per round).")
    fair = 1 / config.players
    return [head,
            f"Against a greedy player dealt the same cards in the same seat, it scores "
            f"{wording.fmt(paired.metric, paired.estimate.estimate, True)} points per round (95% interval "
            f"{wording.interval_text(paired, True)}) and wins {wording.fmt(wins.metric, fair + wins.estimate.estimate)} "
            f"of the games (fair share {wording.fmt(wins.metric, fair)}; difference "
            f"{wording.fmt(wins.metric, wins.estimate.estimate, True)}, 95% interval "
            f"{wording.interval_text(wins, True)}).",
            f"Every interval is 95% over {e.clusters:,} games, each strategy played from every seat of every deal."]


def page_blocks(runs: list[Results]) -> list[tuple]:
    from experiments import report

    return [("h2", "The expert against greedy"),
            ("p", "Differences of the expert's seat from a greedy player dealt the same cards in the same seat, at an "
                  "all-greedy table (95% interval); points are a penalty, fewer is better. A greedy player at a table "
                  "of four greedy players, rotated through the seats, wins exactly 1/4 of each game by construction: "
                  "the games-won difference is the expert's share minus 1/4, and its interval is the expert's alone."),
            report.difference_table(runs, [metrics.POINTS_PER_ROUND, metrics.GAMES_WON], lambda f: "expert − greedy"),
            ("table", ["", *[f"seed {r.config.seed}" for r in runs]],
             [["points per round, expert minus the greedy seats of its table",
               *[f"{wording.fmt('points', r.findings[0].estimate.estimate, True)} "
                 f"({wording.interval_text(r.findings[0], True)})" for r in runs]]])]


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    fig, _ = plots.interval_plot(["same table", "same deals, all-greedy table"],
                                 [findings[0].estimate, findings[1].estimate],
                                 "points per round, expert minus greedy (fewer is better)",
                                 title=f"Expert against greedy, {config.players} players")
    return {"points": fig}


EXPERIMENT = experiment_from(sys.modules[__name__],
                             parts=lambda config: arm_parts(arms(config), config.seed),
                             page_blocks=page_blocks)


def run(config: Config, out: Path | None = None, progress=None) -> Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return EXPERIMENT.run(config, out, progress)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=TITLE)
    parser.add_argument("--games", type=int, default=Config.games, help="games (each played once per rotation)")
    parser.add_argument("--seed", type=int, default=1, help="simulation seed (default 1)")
    parser.add_argument("--preset", default="rami51", help="ruleset preset or TOML file (default rami51)")
    args = parser.parse_args(argv)
    if args.games < 2:
        parser.error("--games must be at least 2 (an interval needs two games)")
    try:
        results = run(Config(games=args.games, seed=args.seed, ruleset=args.preset))
    except (ValueError, NotImplementedError, sim.rules.RulesetError) as exc:
        raise SystemExit(f"error: {exc}") from exc
    print(TITLE)
    for line in results.conclusions:
        print("-", line)
    p = results.provenance
    print(f"{p['games']:,} games, {p['rounds']:,} rounds (every rotation), {p['wall_seconds']:.1f} s; "
          "intervals resample whole games")


if __name__ == "__main__":
    main()
