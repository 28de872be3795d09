"""What does a strong player do?

The `search` strategy plays each of its decisions out to the round's end
over re-deals of the cards it cannot see, with the expert at every seat of
the playouts, and keeps the best choice: the lab's strongest player. Two
questions are put to it, at tables of one player under study (seat 0) and
three experts (seats 1 to 3), every arm playing the same seed over the same
game indices, so the player under study is dealt the same cards in the same
seat in every arm (common deals; the first player of round r is seat
r mod 4, so seat 0 plays every place of the turn order).

Strength against budget: `search` at several budgets (its most trials per
choice) in seat 0 of Rami 51, each against `expert` in that seat on the
same deals: the paired difference of points per round, and each budget
against the next smaller one. Beside it, a separate timing pass plays a few
of the same games one at a time on one thread and counts the searched
decisions (two legal choices or more) and their playouts, with the CPU time
of the whole game: the time per decision drawn on the figure's second axis
depends on the machine and on what else runs on it, so it is kept in the
provenance, never among the findings that two seeds compare.

Behaviour beside the heuristics: `search` at the behaviour budget, `expert`,
`cautious` and `greedy` each in seat 0 of the same deals with the same
field, in Rami 51 (jokers, opening, discard) and in Rami contrat ("Puis-je
?", whose games cost about seven times a Rami 51 game to search, so fewer
of them are played): points per round and each habit of the seat, as a
level per strategy and as the search's paired difference from each
heuristic, all with 95% intervals that resample whole games. Where a habit
of the search goes against the conclusion of another report (keeping
jokers, waiting to open, the discard, "Puis-je ?", the time to open), a
rule over these findings says so, and that report's page links here.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.figure import Figure

from experiments import compare, configs, metrics, plots, wording
from experiments.arms import Arm
from experiments.experiment import experiment_from
from experiments.findings import Finding, Results
from experiments.parts import ArmPart, arm_parts
from experiments.runner import read_summary

TITLE = "What does a strong player do?"
FOCAL = 0
FIELD = ("expert",) * 3
RAMI51, CONTRAT = "rami51", "contrat"
HEURISTICS = ("expert", "cautious", "greedy")
R51_GROUP, CONTRAT_GROUP = "Rami 51", "Rami contrat"
STRENGTH, STEPS = "Rami 51: against expert", "Rami 51: against the smaller budget"
PAGE = "search_player"

POINTS = metrics.POINTS_PER_ROUND
HELD = "jokers in hand at the round's end, per round"
HELD_ROUNDS = metrics.JOKER_HELD_ROUNDS
LAID = metrics.JOKERS_LAID
HELD_BY_LENGTH = {
    "jokers in hand at the end of rounds of 1 to 4 own turns": (1, 4),
    "jokers in hand at the end of rounds of 5 to 8 own turns": (5, 8),
    "jokers in hand at the end of rounds of 9 own turns or more": (9, 10**6),
}
OPENED = metrics.ROUNDS_OPENED
OPEN_TURN = "turn of opening (own turns, among openings)"
ABOVE = "opening points above the threshold (among openings)"
BY_TURN = 3
OPEN_EARLY = f"share of rounds opened by own turn {BY_TURN} (rounds of {BY_TURN} own turns or more)"
ABOVE_10 = "share of openings 10 points or more above the threshold"
TAKES = metrics.DISCARD_TAKES
MAY_I = metrics.MAY_I_CARDS


@dataclass(frozen=True)
class Config(configs.Config):
    """Config of this experiment.

    Attributes
    ----------
    games : int
        Rami 51 games per arm.
    contrat_games : int
        Rami contrat games per arm (the first ones of ``games``).
    budgets : tuple of int
        The search's trials per choice measured against expert, smallest first.
    trials : int
        The behaviour part's budget: one of ``budgets``, whose Rami 51 arm it shares.
    timing_games : int
        Games per budget of the timing pass (one thread, one game at a time).
    """

    games: int = 160
    contrat_games: int = 24
    budgets: tuple[int, ...] = (8, 32, 256, 1024)
    trials: int = 1024
    timing_games: int = 4

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.budgets) < 2 or list(self.budgets) != sorted(set(self.budgets)) or self.budgets[0] < 2:
            raise ValueError(f"config key 'budgets' must be two trial counts or more, each at least 2, smallest "
                             f"first, got {self.budgets!r}")
        if self.trials not in self.budgets:
            raise ValueError(f"config key 'trials' must be one of the budgets {list(self.budgets)}, got {self.trials}")
        if self.contrat_games < 2 or self.timing_games < 1:
            raise ValueError("config keys 'contrat_games' (at least 2) and 'timing_games' (at least 1) are too small")


QUICK = {"games": 6, "contrat_games": 2, "budgets": (2, 4), "trials": 2, "timing_games": 1}
"""A smoke edition: a few games at the smallest budgets, to check the pipeline, not to answer the question."""


def search_arm(trials: int, game: str = RAMI51) -> str:
    return f"search, trials={trials}" if game == RAMI51 else f"contrat: search, trials={trials}"


def heuristic_arm(name: str, game: str = RAMI51) -> str:
    return name if game == RAMI51 else f"contrat: {name}"


def _arms(config: Config) -> tuple[list[Arm], list[Arm]]:
    rami51 = [Arm(heuristic_arm("expert"), RAMI51, ("expert", *FIELD))]
    rami51 += [Arm(search_arm(t), RAMI51, (f"search:trials={t}", *FIELD)) for t in config.budgets]
    rami51 += [Arm(heuristic_arm(h), RAMI51, (h, *FIELD)) for h in HEURISTICS if h != "expert"]
    contrat = [Arm(search_arm(config.trials, CONTRAT), CONTRAT, (f"search:trials={config.trials}", *FIELD))]
    contrat += [Arm(heuristic_arm(h, CONTRAT), CONTRAT, (h, *FIELD)) for h in HEURISTICS]
    return rami51, contrat


@dataclass(frozen=True)
class FirstGames:
    """A part that plays only the first ``cap`` games of the run: the costly Rami contrat arms."""

    part: ArmPart
    cap: int

    @property
    def name(self) -> str:
        return self.part.name

    def play(self, folder: Path, first_game: int, n_games: int, workers: int | None, progress) -> None:
        n = max(0, min(first_game + n_games, self.cap) - first_game)
        if n:
            self.part.play(folder, first_game, n, workers, progress)
        if progress and n < n_games:
            progress(n_games - n)  # the games past the cap count as done: the run's progress still ends at its total

    def rows(self, folder: Path, n_games: int) -> pl.LazyFrame:
        return self.part.rows(folder, min(n_games, self.cap))


def parts(config: Config) -> list:
    rami51, contrat = _arms(config)
    return [*arm_parts(rami51, config.seed),
            *[FirstGames(p, config.contrat_games) for p in arm_parts(contrat, config.seed)]]


def _threshold() -> int:
    from sim import rules

    return rules.as_ruleset(RAMI51).open_threshold


def _rami51_measures() -> dict[str, compare.Metric]:
    opened = pl.col("opened")
    above = pl.col("open_points") - _threshold()
    measures = {
        POINTS: compare.Metric(pl.col("points"), "lower"),
        HELD: compare.Metric(pl.col("jokers_held")),
        HELD_ROUNDS: compare.Metric(pl.col("jokers_held") > 0),
        LAID: compare.Metric(pl.col("jokers_laid")),
    }
    for name, (low, high) in HELD_BY_LENGTH.items():
        measures[name] = compare.Metric(pl.col("jokers_held"), where=pl.col("seat_turns").is_between(low, high))
    measures |= {
        OPENED: compare.Metric(opened),
        # Opened by an early turn, over the rounds that lasted that long: opening late or not at all alike, so a
        # player that opens more rounds is not read as slower for the late openings the other never makes.
        OPEN_EARLY: compare.Metric(opened & (pl.col("open_turn") <= BY_TURN), where=pl.col("seat_turns") >= BY_TURN),
        OPEN_TURN: compare.Metric(pl.col("open_turn"), where=opened),
        ABOVE: compare.Metric(above, where=opened),
        ABOVE_10: compare.Metric(above >= 10, where=opened),
        TAKES: compare.Metric(pl.col("discard_takes")),
    }
    return measures


def _contrat_measures() -> dict[str, compare.Metric]:
    return {
        POINTS: compare.Metric(pl.col("points"), "lower"),
        MAY_I: compare.Metric(pl.col("may_i")),
        TAKES: compare.Metric(pl.col("discard_takes")),
        HELD: compare.Metric(pl.col("jokers_held")),
        OPENED: compare.Metric(pl.col("opened")),
    }


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    points = {POINTS: compare.Metric(pl.col("points"), "lower")}
    strength = compare.focal_findings(frame, config, [compare.Comparison(search_arm(t), "expert", STRENGTH)
                                                      for t in config.budgets], points, FOCAL, levels=False)
    # The headline, which the sequential mode waits for: the default budget's margin.
    strength = [dataclasses.replace(f, headline=f.arms[0] == search_arm(config.trials)) for f in strength]
    steps = compare.focal_findings(frame, config, [compare.Comparison(search_arm(b), search_arm(a), STEPS)
                                                   for a, b in zip(config.budgets, config.budgets[1:])],
                                   points, FOCAL, levels=False)
    rami51 = frame.filter(pl.col("arm").is_in([search_arm(config.trials), *HEURISTICS]))
    behaviour = compare.focal_findings(rami51, config, [compare.Comparison(search_arm(config.trials), h, R51_GROUP)
                                                         for h in HEURISTICS], _rami51_measures(), FOCAL)
    contrat = frame.filter(pl.col("arm").str.starts_with("contrat: "))
    behaviour += compare.focal_findings(contrat, config,
                                        [compare.Comparison(search_arm(config.trials, CONTRAT), heuristic_arm(h, CONTRAT),
                                                            CONTRAT_GROUP) for h in HEURISTICS],
                                        _contrat_measures(), FOCAL)
    return [*strength, *steps, *[dataclasses.replace(f, headline=False) for f in behaviour]]


# ------------------------------------------------------------------ reading the findings


def _find(findings: Sequence[Finding], metric: str, arms: tuple[str, ...], group: str) -> Finding | None:
    return next((f for f in findings if f.metric == metric and f.arms == arms and f.group == group), None)


def _trials_of(findings: Sequence[Finding]) -> int:
    """The behaviour budget, read off the findings (the search arm of the Rami 51 behaviour group)."""
    arm = next(f.arms[0] for f in findings if f.group == R51_GROUP and len(f.arms) == 2)
    return int(arm.rsplit("=", 1)[1])


def _with_interval(f: Finding, signed: bool = True) -> str:
    return f"{wording.fmt(f.metric, f.estimate.estimate, signed)} (95% interval {wording.interval_text(f, signed)})"


@dataclass(frozen=True)
class Reading:
    """What the search's habits say of another report's conclusion.

    Attributes
    ----------
    report : str
        The other experiment's name (its page's folder).
    contradicts : bool
        Whether the search does measurably otherwise than that report advises.
    text : str
        The sentence, with the numbers of this run.
    """

    report: str
    contradicts: bool
    text: str


READS = ("holding_jokers", "waiting_to_open", "discard_pile", "may_i", "time_to_open")
"""The reports whose conclusions the search's habits are read against."""


def readings(findings: Sequence[Finding]) -> list[Reading]:
    """The rules that set the search's habits beside other reports' conclusions, evaluated on ``findings``.

    Every rule compares the search with `greedy` (the player of those
    reports) on the same deals, and asks for intervals that exclude zero:
    a habit that contradicts a report must be measurably different, in a
    player that scores measurably fewer points (for "Puis-je ?", that asks
    at all). A finding absent from ``findings`` gives no reading.
    """
    try:
        trials = _trials_of(findings)
    except StopIteration:
        return []
    s, c = search_arm(trials), search_arm(trials, CONTRAT)
    out = []

    def diff(metric: str) -> Finding | None:
        return _find(findings, metric, (s, "greedy"), R51_GROUP)

    points = diff(POINTS)
    if points is None:
        return []
    stronger = wording.verdict(points) == "lower"
    lead = (f"The search player scores {_with_interval(points)} points per round against greedy in the same seat "
            "on the same deals")
    held = diff(HELD)
    if held is not None:
        keeps = wording.verdict(held) == "higher"
        out.append(Reading("holding_jokers", keeps and stronger,
                           f"{lead}, and ends its rounds with {_with_interval(held)} jokers in hand per round against "
                           "greedy: " + ("a strong player keeps jokers that greedy lays, against the advice to lay "
                                         "them as soon as they help." if keeps and stronger else
                                         "no measurable sign that keeping jokers pays.")))
    early, above = diff(OPEN_EARLY), diff(ABOVE)
    if early is not None and above is not None:
        # Waiting is opening later: more points at an opening made as early lay more at once, they do not wait.
        waits = wording.verdict(early) == "lower"
        out.append(Reading("waiting_to_open", waits and stronger,
                           f"{lead}; its share of rounds opened by its own turn {BY_TURN} differs from greedy's by "
                           f"{_with_interval(early)}, and its openings lay {_with_interval(above)} points more above the "
                           "threshold: " + ("a strong player waits to open where greedy opens, against the advice to "
                                            "open at the first chance." if waits and stronger else
                                            "no measurable sign that waiting to open pays.")))
    takes = diff(TAKES)
    if takes is not None:
        fewer = wording.verdict(takes) == "lower"
        out.append(Reading("discard_pile", fewer and stronger,
                           f"{lead}, and takes the discard {_with_interval(takes)} times per round against greedy: "
                           + ("a strong player leaves discards that greedy takes, where the discard pile's report "
                              "finds taking it when it helps worth points." if fewer and stronger else
                              "no measurable sign that taking the discard less often pays.")))
    asks = _find(findings, MAY_I, (c,), CONTRAT_GROUP)
    if asks is not None:
        asked = wording.verdict(asks) == "higher"
        out.append(Reading("may_i", asked,
                           f"In Rami contrat the search player asks \"Puis-je ?\" for "
                           f"{_with_interval(asks, False)} cards per round: "
                           + ("a strong player asks, against the advice not to ask." if asked else
                              "it does not measurably ask, as the advice not to ask would have it.")))
    if early is not None:
        differs = wording.verdict(early) != "none"
        out.append(Reading("time_to_open", differs,
                           f"The times to open measured there are greedy players'; on the same deals the search player "
                           f"has opened by its own turn {BY_TURN} in a share of rounds that differs from greedy's by "
                           f"{_with_interval(early)}: " + ("a strong player's time to open is measurably another." if differs else
                                         "no measurable difference.")))
    return out


def reading_of(report: str, summary: dict[str, Any]) -> Reading | None:
    """The reading of ``report`` in a ``summary.json`` of this experiment (None if it has none)."""
    found = [Finding.from_dict(f) for f in summary.get("findings", [])]
    return next((r for r in readings(found) if r.report == report), None)


def beside(report: str, runs: Sequence[Results]) -> list[tuple]:
    """The blocks another report's page adds when this experiment ran in the same edition: its reading, linked here.

    ``runs`` are that report's runs, written under ``EDITION/report/seed-N``;
    this experiment's first seed is read from ``EDITION/search_player``.
    """
    out = runs[0].out if runs else None
    if out is None:
        return []
    try:
        summary = read_summary(Path(out).parent.parent / PAGE / f"seed-{runs[0].config.seed}")
    except (OSError, ValueError):
        return []
    reading = reading_of(report, summary)
    if reading is None:
        return []
    link = f"[{TITLE}](../{PAGE}/index.html)"
    if reading.contradicts:
        return [("h2", "A strong player does otherwise"),
                ("p", f"⚠ {reading.text} See {link}")]
    return [("h2", "Beside a strong player"), ("p", f"{reading.text} See {link}")]


def with_reading(report: str, page_blocks: Callable[[list[Results]], list[tuple]]
                 ) -> Callable[[list[Results]], list[tuple]]:
    """``report``'s ``page_blocks`` followed by :func:`beside`: how its page links to this one."""

    def blocks(runs: list[Results]) -> list[tuple]:
        return [*page_blocks(runs), *beside(report, runs)]

    return blocks


def _step_text(findings: Sequence[Finding], config: Config) -> str:
    """Where extra budget stops paying: after the last doubling that scores measurably fewer points."""
    steps = [f for f in findings if f.group == STEPS]
    margins = [f for f in findings if f.group == STRENGTH]
    paying = [f for f in steps if wording.verdict(f) == "lower"]

    def budget(arm: str) -> int:
        return int(arm.rsplit("=", 1)[1])

    if not paying:
        return (f"No step up in budget scores measurably fewer points at this size (every step's interval holds "
                f"zero or lies above it); against the expert the margin runs from {_with_interval(margins[0])} at "
                f"trials={budget(margins[0].arms[0])} to {_with_interval(margins[-1])} at "
                f"trials={budget(margins[-1].arms[0])}")
    last = paying[-1]
    if last is steps[-1]:
        return (f"Extra budget still pays at the largest step measured: trials={budget(last.arms[0])} scores "
                f"{_with_interval(last)} points per round against trials={budget(last.arms[1])}")
    return (f"Extra budget stops paying after trials={budget(last.arms[0])}: that step scores {_with_interval(last)} "
            f"points per round against trials={budget(last.arms[1])}, and no larger step scores measurably fewer")


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    head = next(f for f in findings if f.group == STRENGTH and f.headline)
    v = wording.verdict(head)
    if v == "lower":
        margin = f"scores {_with_interval(head)} points per round against an expert in its seat on the same deals"
    else:
        margin = (f"scores {_with_interval(head)} points per round against an expert in its seat on the same deals: "
                  + ("more, so it is no stronger at this size" if v == "higher" else "not measurably fewer at this size"))
    lines = [f"In Rami 51 against three experts, the search player at trials={config.trials} {margin}.",
             _step_text(findings, config) + "; the time each decision costs grows with the budget (figure, second "
             "axis, measured on this machine)."]
    against = [r for r in readings(findings) if r.contradicts]
    if against:
        lines.append("Its habits go against " + ", ".join(f"`{r.report}`" for r in against)
                     + " (the table \"Beside the other reports\" says how).")
    else:
        lines.append("None of its habits goes measurably against the conclusions of the other reports.")
    lines.append(f"Every interval is 95% over {head.estimate.clusters:,} Rami 51 games "
                 f"({config.contrat_games:,} of Rami contrat), resampling whole games.")
    return lines


def claims(findings: list[Finding], config: Config) -> dict[str, str]:
    words = {"higher": "higher", "lower": "lower", "none": "no measurable difference"}
    out = {f"points per round ({f.group}): {' − '.join(f.arms)}": words[wording.verdict(f)]
           for f in findings if f.group in (STRENGTH, STEPS)}
    out |= {f"goes against {r.report}": "yes" if r.contradicts else "no" for r in readings(findings)}
    return out


# ------------------------------------------------------------------ the page


def measure(config: Config) -> dict[str, Any]:
    """The timing pass: per budget, ``timing_games`` Rami 51 games played one at a time on one thread."""
    import sim

    rows = []
    for t in config.budgets:
        effort = sim.search_effort(RAMI51, [f"search:trials={t}", *FIELD], config.timing_games, seed=config.seed)
        cpu, decisions, playouts = (effort[c].sum() for c in ("cpu_seconds", "decisions", "playouts"))
        rows.append({"trials": t, "games": effort.height, "cpu_seconds": round(float(cpu), 4),
                     "decisions": int(decisions), "playouts": int(playouts),
                     "ms_per_decision": round(1000 * float(cpu) / max(int(decisions), 1), 4)})
    return {"timing": rows}


def edition_note(results: Results, quick: bool) -> str:
    c = results.config
    size = (f"{c.games:,} Rami 51 games and {c.contrat_games:,} Rami contrat games per arm and seed, the search at "
            f"trials {', '.join(map(str, c.budgets))} (behaviour at {c.trials}), a timing pass of {c.timing_games} "
            f"game{'s' if c.timing_games > 1 else ''} per budget")
    if quick:
        return (f"Smoke edition (`rami report --quick`): {size}. It checks that the experiment runs, not what a "
                "strong player does: the budgets are far below the default and the intervals are wide. The full "
                "edition (`rami report`) is the reference.")
    return (f"Full edition: {size}. Every figure carries a 95% interval that resamples whole games (a game's rounds "
            "are not independent).")


def _timing_table(runs: Sequence[Results]) -> tuple:
    rows = []
    for r in runs:
        for t in r.provenance.get("measured", {}).get("timing", []):
            rows.append([f"seed {r.config.seed}", str(t["trials"]), str(t["games"]), f"{t['decisions']:,}",
                         f"{t['playouts'] / max(t['decisions'], 1):,.0f}", f"{t['cpu_seconds']:.2f}",
                         f"{t['ms_per_decision']:.2f}"])
    return ("table", ["", "trials", "games", "searched decisions", "playouts per decision", "CPU seconds",
                      "ms of CPU per decision"], rows)


def page_blocks(runs: list[Results]) -> list[tuple]:
    from experiments import report

    first = runs[0]
    c = first.config
    behaviour = [POINTS, HELD, LAID, OPENED, OPEN_EARLY, ABOVE, TAKES]
    blocks = [
        ("h2", "Strength against budget"),
        ("p", f"The search at each budget in seat 0 of Rami 51, three experts in the other seats, against an expert "
              "in seat 0 on the same deals, then each budget against the next smaller one (95% intervals; points "
              "are a penalty, fewer is better)."),
        report.difference_table(_only(runs, STRENGTH, STEPS), [POINTS], lambda f: f"{f.arms[0]} − {f.arms[1]}"),
        ("p", "Time is measured apart, in a timing pass of its own that plays the first games of the seed one at a "
              "time on one thread: the counts are deterministic, the CPU time depends on this machine and on what "
              "else ran on it (another machine gives other times), so it is no finding and the seeds are not "
              "compared on it."),
        _timing_table(runs),
        ("h2", "Behaviour beside the heuristics, Rami 51"),
        ("p", f"Each strategy in seat 0 with the same field of three experts, on the same deals; the search at "
              f"trials={c.trials}. A level per strategy (95% interval over games), then the search's difference from "
              "each heuristic."),
        _levels_table(first.findings, R51_GROUP, behaviour + [OPEN_TURN, *HELD_BY_LENGTH, HELD_ROUNDS, ABOVE_10],
                      RAMI51, c.trials),
        report.difference_table(_only(runs, R51_GROUP), behaviour, lambda f: f"search − {f.arms[1]}"),
        ("h2", "Behaviour beside the heuristics, Rami contrat"),
        ("p", f"The same, in Rami contrat over the first {c.contrat_games} games: how many cards each takes by "
              "\"Puis-je ?\" (each comes with a penalty card). The search answers \"Puis-je ?\" as its own decision, "
              "by playouts like every other, while its base, the expert's point for Rami contrat, never asks."),
        _levels_table(first.findings, CONTRAT_GROUP, list(_contrat_measures()), CONTRAT, c.trials),
        report.difference_table(_only(runs, CONTRAT_GROUP), list(_contrat_measures()),
                                lambda f: f"search − {f.arms[1].removeprefix('contrat: ')}"),
        ("h2", "Beside the other reports"),
        ("p", "Rules written over the findings above (`experiments.search_player.readings`): a habit goes against a "
              "report when the search does it measurably more or less than greedy, the player of those reports, "
              "while scoring measurably fewer points (for \"Puis-je ?\": when it asks at all). That report's page "
              "links here."),
        ("table", ["report", "goes against it", "why"],
         [[f"[{r.report}](../{r.report}/index.html)", "⚠ yes" if r.contradicts else "no", r.text]
          for r in readings(first.findings)]),
    ]
    return blocks


def _only(runs: Sequence[Results], *groups: str) -> list[Results]:
    """``runs`` with only the findings of ``groups``, for a table of one question."""
    return [dataclasses.replace(r, findings=[f for f in r.findings if f.group in groups]) for r in runs]


def _levels_table(findings: Sequence[Finding], group: str, measures: Sequence[str], game: str, trials: int) -> tuple:
    arms = [search_arm(trials, game), *[heuristic_arm(h, game) for h in HEURISTICS]]
    rows = []
    for metric in measures:
        cells = []
        for arm in arms:
            f = _find(findings, metric, (arm,), group)
            cells.append("n/a" if f is None else
                         f"{wording.fmt(metric, f.estimate.estimate)} ({wording.interval_text(f)})")
        rows.append([metric, *cells])
    return ("table", ["", "search", *HEURISTICS], rows)


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config,
            measured: dict[str, Any] | None = None) -> dict[str, Figure]:
    strength = [next(f for f in findings if f.group == STRENGTH and f.arms[0] == search_arm(t)) for t in config.budgets]
    timing = {t["trials"]: t["ms_per_decision"] for t in (measured or {}).get("timing", [])}
    fig1, _ = plots.budget_plot(list(config.budgets), [f.estimate for f in strength],
                                [timing.get(t, float("nan")) for t in config.budgets],
                                "points per round, search minus expert in its seat\n(fewer is better)",
                                "ms of CPU per searched decision\n(this machine; not a result)",
                                title="The search against an expert, by budget (Rami 51, 3 expert opponents)")
    panels = {}
    for metric in (POINTS, HELD, OPEN_EARLY, TAKES):
        names = [n for n in ("search", *HEURISTICS)
                 if _find(findings, metric, (search_arm(config.trials) if n == "search" else n,), R51_GROUP)]
        panels[metric] = (names, [_find(findings, metric, (search_arm(config.trials) if n == "search" else n,),
                                        R51_GROUP).estimate for n in names])
    fig2, _ = plots.panel_plot(panels, title=f"Habits in seat 0, Rami 51, same deals (search at trials={config.trials})")
    return {"strength": fig1, "behaviour": fig2}


EXPERIMENT = experiment_from(sys.modules[__name__], parts=parts, page_blocks=page_blocks, claims=claims,
                             edition_note=edition_note, measure=measure,
                             compiles=("searching",))


def run(config: Config, out: Path | None = None, progress=None) -> Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return EXPERIMENT.run(config, out, progress)


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(run(Config(games=4, contrat_games=2, budgets=(2, 4), trials=2)).conclusions, indent=2))
