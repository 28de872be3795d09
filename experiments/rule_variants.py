"""What do the rule variants of Rami 51 change?

Four greedy players under the standard Rami 51 rules, and under each
variant of the variants table, one knob changed at a time. Every arm plays
the same game indices with the same seed: where the deck is the same (all
variants but the joker count and the deal size), the same hands are dealt,
so a variant is compared with the standard rules game by game. Measured:
the round's length in turns (all seats together), rounds per game (to 500
points), the share of seat-rounds that end unopened (in rounds someone won),
the share of rounds blocked (nobody went out), points per round and seat,
and the share of rounds won by the round's first player.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

from experiments import design, metrics, plots, stats, wording
from experiments.design import Arm, Finding

TITLE = "What do the rule variants of Rami 51 change?"
STANDARD = "standard"
VARIANTS: dict[str, tuple[dict, str]] = {
    # arm name: (knob overrides, what it means, with cards where cards help)
    "threshold 30": ({"open_threshold": 30}, "the opening needs 30 points instead of 51"),
    "threshold 0": ({"open_threshold": 0}, "any meld opens, e.g. 2♣ 3♣ 4♣"),
    "tierce franche": ({"open_needs_natural_run": True},
                       "the opening must hold a run without joker, such as 7♣ 8♣ 9♣"),
    "2 jokers": ({"jokers": 2}, "two jokers in the deck instead of four"),
    "14 cards": ({"deal": 14}, "14 cards each instead of 13"),
    "14 to the first player": ({"first_player_extra_card": True},
                               "the first player gets 14 cards and starts by discarding"),
    "rami sec flat 200": ({"rami_sec": "flat_200"}, "a rami sec costs each other player 200 points"),
    "no rami sec bonus": ({"rami_sec": "none"}, "a rami sec scores like any other round"),
    "stock turned once": ({"stock_exhausted": "turn_once_then_block"},
                          "the pile becomes the stock once, then the round is blocked"),
    "free discard take": ({"discard_take": "free"}, "a card taken from the pile may be kept"),
    "take after opening": ({"discard_take": "only_after_opening"}, "no discard take before opening"),
}

@dataclass(frozen=True)
class Config(design.Config):
    """Config of this experiment.

    Attributes
    ----------
    ruleset : str
        The standard rules the variants change.
    players : int
        Seats at the table, all greedy.
    variants : tuple of str
        Names of the variants played (keys of ``VARIANTS``).
    """

    games: int = 5000
    ruleset: str = "rami51"
    players: int = 4
    variants: tuple[str, ...] = tuple(VARIANTS)


QUICK = {"games": 500}

NOTES = [f"{name}: {meaning} (`{', '.join(f'{k}={v}' for k, v in knobs.items())}`)"
         for name, (knobs, meaning) in VARIANTS.items()]


def arms(config: Config) -> list[Arm]:
    from sim import rules

    unknown = [v for v in config.variants if v not in VARIANTS]
    if unknown:
        raise ValueError(f"unknown variant {unknown[0]!r}; the variants are: {', '.join(VARIANTS)}")
    base = rules.as_ruleset(config.ruleset)
    strategies = ("greedy",) * config.players
    return [Arm(STANDARD, base, strategies)] + [
        Arm(v, base.replace(**VARIANTS[v][0]), strategies) for v in config.variants]


def tables(frame: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """Per arm and game, the sums behind each measure."""
    won = pl.col("blocked") == "none"
    return {
        "turns per round": metrics.per_round(frame, pl.col("turns")),
        "rounds per game": metrics.per_game_level(frame, pl.col("round").max() + 1),
        "unopened rate": metrics.per_game(frame, ~pl.col("opened"), won),
        "blocked rate": metrics.per_round(frame, ~won),
        "points per round": metrics.per_game(frame, pl.col("points")),
        "first player round win rate": metrics.per_round(frame, pl.col("went_out")),
    }


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    findings = []
    rounds = {a: design.rounds_of(frame.filter(pl.col("arm") == a)) for a in (STANDARD, *config.variants)}
    for m, (metric, table) in enumerate(tables(frame).items()):
        t, c = metrics.cluster_arrays(table, arm=STANDARD)
        est = stats.ratio_estimate(t, c, design.rng_for(config, 100 * m), config.resamples)
        findings.append(Finding(metric, (STANDARD,), est, len(t), rounds[STANDARD]))
        for k, v in enumerate(config.variants):
            arrays = metrics.paired_arrays(table, {"arm": v}, {"arm": STANDARD})
            est = stats.paired_difference(*arrays, design.rng_for(config, 100 * m + 1 + k), config.resamples)
            findings.append(Finding(metric, (v, STANDARD), est, len(arrays[0]), rounds[v] + rounds[STANDARD],
                                    headline=metric == "points per round"))
    return findings


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    lines = []
    for metric in ("turns per round", "rounds per game", "unopened rate", "blocked rate", "points per round",
                   "first player round win rate"):
        diffs = [f for f in findings if f.metric == metric and len(f.arms) == 2]
        moved = [f for f in diffs if wording.verdict(f) != "none"]
        base = next(f for f in findings if f.metric == metric and len(f.arms) == 1)
        if moved:
            top = max(moved, key=lambda f: abs(f.estimate.estimate))
            lines.append(f"Standard rules: {metric} {wording.fmt(metric, base.estimate.estimate)} "
                         f"(95% interval {wording.interval_text(base)}). "
                         + wording.difference_sentence(top, f"the variant '{top.arms[0]}'", "the standard rules")
                         .replace(" scores ", " has ") + f" {len(moved)} of {len(diffs)} variants change it measurably"
                         " (the largest change is named).")
        else:
            lines.append(f"No variant changes the {metric} measurably at this size (standard: "
                         f"{wording.fmt(metric, base.estimate.estimate)}).")
    return lines


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    out = {}
    for key, metric in (("turns", "turns per round"), ("rounds", "rounds per game"),
                        ("unopened", "unopened rate"), ("blocked", "blocked rate"),
                        ("points", "points per round"), ("first", "first player round win rate")):
        diffs = [f for f in findings if f.metric == metric and len(f.arms) == 2]
        fig, ax = plots.interval_plot([f.arms[0] for f in diffs], [f.estimate for f in diffs],
                                      f"{metric}: variant minus standard rules", title=f"Rule variants: {metric}")
        if wording.is_share(metric):
            ax.xaxis.set_major_formatter(lambda v, _: f"{100 * v:+.0f}pp")
        out[key] = fig
    return out


def run(config: Config, out: Path | None = None, progress=None) -> design.Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return design.run_experiment(sys.modules[__name__], config, out, progress)
