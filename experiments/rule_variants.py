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

from experiments import configs, metrics, plots, stats, wording
from experiments.arms import Arm
from experiments.experiment import experiment_from
from experiments.findings import Finding, Results, rng_for, rounds_of
from experiments.parts import arm_parts

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
class Config(configs.Config):
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
        metrics.TURNS_PER_ROUND: metrics.per_round(frame, pl.col("turns")),
        metrics.ROUNDS_PER_GAME: metrics.per_game_level(frame, pl.col("round").max() + 1),
        metrics.UNOPENED_RATE: metrics.per_game(frame, ~pl.col("opened"), won),
        metrics.BLOCKED_RATE: metrics.per_round(frame, ~won),
        metrics.POINTS_PER_ROUND: metrics.per_game(frame, pl.col("points")),
        metrics.FIRST_PLAYER_WINS: metrics.per_round(frame, pl.col("went_out")),
    }


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    findings = []
    rounds = {a: rounds_of(frame.filter(pl.col("arm") == a)) for a in (STANDARD, *config.variants)}
    for m, (metric, table) in enumerate(tables(frame).items()):
        t, c = metrics.cluster_arrays(table, arm=STANDARD)
        est = stats.ratio_estimate(t, c, rng_for(config, 100 * m), config.resamples)
        findings.append(Finding(metric, (STANDARD,), est, len(t), rounds[STANDARD]))
        for k, v in enumerate(config.variants):
            arrays = metrics.paired_arrays(table, {"arm": v}, {"arm": STANDARD})
            est = stats.paired_difference(*arrays, rng_for(config, 100 * m + 1 + k), config.resamples)
            findings.append(Finding(metric, (v, STANDARD), est, len(arrays[0]), rounds[v] + rounds[STANDARD],
                                    headline=metric == metrics.POINTS_PER_ROUND))
    return findings


METRICS = (metrics.TURNS_PER_ROUND, metrics.ROUNDS_PER_GAME, metrics.UNOPENED_RATE, metrics.BLOCKED_RATE,
           metrics.POINTS_PER_ROUND, metrics.FIRST_PLAYER_WINS)


def changes(findings: list[Finding], metric: str) -> dict[str, tuple[str, tuple[float, float]]]:
    """Per variant: ``"higher"``, ``"lower"`` or ``"none"`` for ``metric``, and its family-wise interval.

    "Which variants change it" is one question asked of every variant: a
    variant counts only when its interval, widened to hold for all the
    variants together (Bonferroni), excludes zero, and its bootstrap
    interval has a width.
    """
    diffs = [f for f in findings if f.metric == metric and len(f.arms) == 2]
    out = {}
    for f in diffs:
        low, high = stats.simultaneous_interval(f.estimate, len(diffs))
        moved = f.estimate.high > f.estimate.low and (low > 0 or high < 0)
        out[f.arms[0]] = ("none" if not moved else "higher" if low > 0 else "lower", (low, high))
    return out


def claims(findings: list[Finding], config: Config) -> dict[str, str]:
    """Per measure, the variants that change it and which way (two seeds are compared on these)."""
    out = {}
    for metric in METRICS:
        moved = [f"{v} {d}" for v, (d, _) in changes(findings, metric).items() if d != "none"]
        out[f"variants that change the {metric}"] = ", ".join(moved) or "none"
    return out


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    points = changes(findings, metrics.POINTS_PER_ROUND)
    diffs = {f.arms[0]: f for f in findings if f.metric == metrics.POINTS_PER_ROUND and len(f.arms) == 2}
    moved = sorted((v for v, (d, _) in points.items() if d != "none"), key=lambda v: -abs(diffs[v].estimate.estimate))
    still = [v for v, (d, _) in points.items() if d == "none"]
    lead = (f"For {config.players} greedy players of {wording.game_name(config.ruleset)}, the house rule that matters "
            f"most is '{moved[0]}' ({wording.fmt('points', diffs[moved[0]].estimate.estimate, True)} points per "
            f"round, 95% interval {wording.interval_text(diffs[moved[0]], True)}); {len(moved)} of {len(diffs)} "
            "variants change the points per round") if moved else \
        f"For {config.players} greedy players of {wording.game_name(config.ruleset)}, no variant changes the points per round measurably"
    lead += (f", while {', '.join(repr(v) for v in still)} leave{'s' if len(still) == 1 else ''} it unchanged "
             "within the intervals." if still else ".")
    lines = [lead]
    for metric in METRICS:
        found = changes(findings, metric)
        diffs = {f.arms[0]: f for f in findings if f.metric == metric and len(f.arms) == 2}
        base = next(f for f in findings if f.metric == metric and len(f.arms) == 1)
        moved = [v for v, (d, _) in found.items() if d != "none"]
        head = (f"{metric[0].upper() + metric[1:]}: {wording.fmt(metric, base.estimate.estimate)} under the standard "
                f"rules (95% interval {wording.interval_text(base)}); ")
        if moved:
            top = max(moved, key=lambda v: abs(diffs[v].estimate.estimate))
            f = diffs[top]
            lines.append(head + f"{len(moved)} of {len(diffs)} variants change it, the most '{top}' "
                         f"({wording.fmt(metric, f.estimate.estimate, True)}, 95% interval "
                         f"{wording.interval_text(f, True)}).")
        else:
            lines.append(head + f"none of the {len(diffs)} variants changes it measurably at this size.")
    games = next(f for f in findings if len(f.arms) == 2).estimate.clusters
    lines.append(f"A variant counts as changing a measure only when its interval, widened to hold for all "
                 f"{len(config.variants)} variants together, excludes zero ({games:,} games per variant, "
                 f"{config.players} greedy players).")
    return lines


def page_blocks(runs: list[Results]) -> list[tuple]:
    """One table: every variant's change of every measure, the family-wise verdict marked."""
    first = runs[0]
    found = [{m: changes(r.findings, m) for m in METRICS} for r in runs]
    diffs = {(f.metric, f.arms[0]): f for f in first.findings if len(f.arms) == 2}
    bases = {f.metric: f for f in first.findings if len(f.arms) == 1}
    rows = [["standard rules", *[f"{wording.fmt(m, bases[m].estimate.estimate)} "
                                 f"({wording.interval_text(bases[m])})" for m in METRICS]]]
    for v in first.config.variants:
        cells = []
        for m in METRICS:
            f = diffs[(m, v)]
            verdicts = [fd[m][v][0] for fd in found]
            mark = {"higher": " ▲", "lower": " ▼", "none": ""}[verdicts[0]]
            if len(set(verdicts)) > 1:
                mark += " ⚠ seeds differ"
            cells.append(f"{wording.fmt(m, f.estimate.estimate, True)} ({wording.interval_text(f, True)}){mark}")
        rows.append([v, *cells])
    return [("h2", "Every variant, every measure"),
            ("p", f"Each variant minus the standard rules on the same deals, seed {first.config.seed}, with its own "
                  "95% interval. ▲ or ▼: the variant changes the measure family-wise (the interval widened to hold "
                  "for every variant together excludes zero); ⚠: the other seed reads it differently."),
            ("table", ["rules", *METRICS], rows)]


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    out = {}
    for key, metric in (("turns", metrics.TURNS_PER_ROUND), ("rounds", metrics.ROUNDS_PER_GAME),
                        ("unopened", metrics.UNOPENED_RATE), ("blocked", metrics.BLOCKED_RATE),
                        ("points", metrics.POINTS_PER_ROUND), ("first", metrics.FIRST_PLAYER_WINS)):
        diffs = [f for f in findings if f.metric == metric and len(f.arms) == 2]
        fig, ax = plots.interval_plot([f.arms[0] for f in diffs], [f.estimate for f in diffs],
                                      f"{metric}: variant minus standard rules", title=f"Rule variants: {metric}",
                                      percent=wording.is_share(metric))
        out[key] = fig
    return out


EXPERIMENT = experiment_from(sys.modules[__name__],
                             parts=lambda config: arm_parts(arms(config), config.seed),
                             page_blocks=page_blocks,
                             claims=claims,
                             notes=tuple(NOTES))


def run(config: Config, out: Path | None = None, progress=None) -> Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return EXPERIMENT.run(config, out, progress)
