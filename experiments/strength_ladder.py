"""How strong are the players?

The strength ladder (`experiments.ladder`, `docs/ladder.md`) in each of the
three games, Rami 51, Rami contrat and basic rummy, at four players: every
player sits at one seat of a table whose three other seats play the expert,
and every player's table plays the same deals, each deal once for every seat
the player can hold (the table rotated through the seats), so the player
holds every seat's cards of every deal; three experts with a fourth expert
play the same deals too. For each player and game, with 95% intervals that
resample whole deals (a deal with all its rotations): its points per round
against the expert in the same seat of the same deals (signed so that
higher is better: points are a penalty in Rami 51 and Rami contrat, a gain
in basic rummy), a rating (the log odds of finishing a game ahead of a
given expert seat at its table, the expert at 0) and its share of games
won. The ceiling is the search at one budget with rollouts that see every
hidden card: it is no player, it takes no rank, and the difference between
it and the search at the same budget on the same deals is what knowing the
hidden cards is worth. A separate timing pass, after the games, measures
the CPU time of each player's seat per turn on this machine (a searching
player replays its table's first deals one game at a time on one thread):
it is drawn on the figures and tabled, and is no finding, since another
machine or a busier one gives other times.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.figure import Figure

import strategies as strategy_lib
from experiments import configs, ladder, metrics, plots, stats, wording
from experiments.experiment import experiment_from
from experiments.findings import Finding, Results, rng_for, rounds_by_arm
from experiments.stats import Estimate
from experiments.tournament import identity

TITLE = "How strong are the players?"
GAMES = ("rami51", "contrat", "basic")
"""The games of the page, in its order."""
REFERENCE = ladder.REFERENCE
PLAYERS: tuple[str, ...] = ("random", "greedy", "cautious", "expert", "search:trials=8",
                            "search:trials=32,width=2,prune=0,turn=0", "search:trials=256", "search")
"""The full edition's players in every game (the ceiling is set apart: ``ceiling_trials``, ``ceiling_width``)."""
QUICK_PLAYERS: tuple[str, ...] = ("random", "greedy", "expert", "search:trials=4")

GAIN = f"points per round against {REFERENCE} (higher is better)"
RATING = f"rating: log odds of finishing ahead of an {REFERENCE} seat"
WON = metrics.GAMES_WON
WORTH = "what knowing the hidden cards is worth, points per round (ceiling minus the search at its budget)"
CEILING_WORDS = "the ceiling: what knowing the hidden cards is worth, no player"


@dataclass(frozen=True)
class Config(configs.Config):
    """Config of this experiment.

    Attributes
    ----------
    games : int
        Rami 51 deals (each played once per rotation at every player's table).
    contrat_games, basic_games : int
        Rami contrat and basic rummy deals.
    rami51_players, contrat_players, basic_players : tuple of str
        The players of each game's ladder (strategy names with their
        parameters), at least two; no strategy that sees the hidden cards.
    ceiling_trials : int
        The ceiling's trials per choice (``ceiling:trials=T,width=W``,
        seated in every game); 0 leaves the ceiling out.
    ceiling_width : float
        The ceiling's width (the search stops a choice's trials once its
        difference is known to this many points).
    timing_games : int
        Games per searching player and game of the timing pass (one
        thread, one game at a time); a player that does not search plays a
        hundred times as many (:data:`experiments.ladder.HEURISTIC_TIMING_GAMES`).
    """

    # About 1,400 s of one core a seed, the page some 23 minutes on two cores (docs/experiments.md: the cost
    # of each searching player's game, measured with benchmarks/bench_search.py): a Rami contrat deal costs five
    # times a Rami 51 one, a basic rummy deal a third, and basic rummy's points per round vary the most.
    games: int = 80
    contrat_games: int = 12
    basic_games: int = 160
    rami51_players: tuple[str, ...] = PLAYERS
    contrat_players: tuple[str, ...] = PLAYERS
    basic_players: tuple[str, ...] = PLAYERS
    ceiling_trials: int = 1024
    ceiling_width: float = 0.25
    timing_games: int = 2

    def __post_init__(self) -> None:
        super().__post_init__()
        for key in ("contrat_games", "basic_games"):
            if getattr(self, key) < 2:
                raise ValueError(f"config key {key!r} must be at least 2 (an interval needs two deals), "
                                 f"got {getattr(self, key)!r}")
        if self.ceiling_trials < 0 or not self.ceiling_width > 0:
            raise ValueError(f"config keys 'ceiling_trials' (0 or more) and 'ceiling_width' (above 0) are out of "
                             f"range: {self.ceiling_trials!r}, {self.ceiling_width!r}")
        if self.timing_games < 1:
            raise ValueError(f"config key 'timing_games' must be at least 1, got {self.timing_games!r}")
        for game in GAMES:
            key = f"{game}_players"
            named = getattr(self, key)
            try:
                seen = [strategy_lib.clairvoyant(p) for p in named]
                if any(seen):
                    raise ValueError(f"{named[seen.index(True)]!r} sees the hidden cards; the ceiling is set by "
                                     "'ceiling_trials' and 'ceiling_width', never among the players")
                ladder.check(list(self.entries(game)), game, timing_games=self.timing_games)
            except (ValueError, TypeError, OSError) as exc:
                raise ValueError(f"config key {key!r}: {exc}") from None

    @property
    def ceiling(self) -> str | None:
        """The ceiling's name, or None without one."""
        if not self.ceiling_trials:
            return None
        # As the ladder names it (a parameter at its default is left out), since its rows are labelled so.
        return strategy_lib.get(f"ceiling:trials={self.ceiling_trials},width={self.ceiling_width:g}").name

    def players(self, game: str) -> tuple[str, ...]:
        """The players of ``game``'s ladder (the ceiling aside)."""
        return getattr(self, f"{game}_players")

    def deals(self, game: str) -> int:
        """The deals of ``game``'s ladder."""
        return self.games if game == "rami51" else getattr(self, f"{game}_games")

    def entries(self, game: str) -> tuple[str, ...]:
        """Everything ``game``'s ladder seats: the players, then the ceiling."""
        return (*self.players(game), *([self.ceiling] if self.ceiling else []))


QUICK = {"games": 4, "contrat_games": 2, "basic_games": 6, "rami51_players": QUICK_PLAYERS,
         "contrat_players": QUICK_PLAYERS, "basic_players": QUICK_PLAYERS, "ceiling_trials": 4,
         "ceiling_width": 0.25, "timing_games": 1}
"""A smoke edition: a few deals, the cheap players and the search and ceiling at 4 trials, to check the pipeline,
not to answer the question."""


# ------------------------------------------------------------------ what is played


@dataclass(frozen=True)
class LadderPart:
    """One game's ladder (:func:`experiments.ladder.play`), written to its own folder through the results store.

    The strength ladder alone seats the ceiling (it passes
    ``allow_clairvoyant`` where the ceiling sits), so each game is one
    ladder, resumed as the ladder resumes: deals on disk are not played
    again. Its rows are labelled ``"GAME: PLAYER"`` (``arm``) with the game
    in ``rules``, so that the three games' rows stack.

    Attributes
    ----------
    game : str
    players : tuple of str
        Everything the ladder seats, the ceiling included.
    deals : int or None
        The ladder's deals; None for the run's ``games`` (Rami 51).
    seed : int
    """

    game: str
    players: tuple[str, ...]
    deals: int | None
    seed: int

    @property
    def name(self) -> str:
        return self.game

    def check(self) -> None:
        """Refuse, playing nothing, what the ladder would refuse of its players (:func:`experiments.ladder.check`)."""
        ladder.check(list(self.players), self.game)

    def play(self, folder: Path, first_game: int, n_games: int, workers: int | None,
             progress: Callable[[int], None] | None) -> None:
        deals = first_game + n_games if self.deals is None else self.deals
        sent = 0

        def tick(done: int, total: int) -> None:
            # The ladder counts engine games (a deal once per rotation); the run counts this part's n_games.
            nonlocal sent
            now = n_games * done // max(total, 1)
            if progress and now > sent:
                progress(now - sent)
            sent = max(sent, now)

        ladder.play(list(self.players), self.game, deals, self.seed, workers, out=folder, progress=tick)
        if progress and sent < n_games:
            progress(n_games - sent)

    def rows(self, folder: Path, n_games: int) -> pl.LazyFrame:
        deals = n_games if self.deals is None else self.deals
        return (ladder.stored_rows(folder, deals).lazy()
                .with_columns((pl.lit(f"{self.game}: ") + pl.col("arm")).alias("arm"),
                              pl.lit(self.game).alias("rules")))


def parts(config: Config) -> list[LadderPart]:
    return [LadderPart(g, config.entries(g), None if g == "rami51" else config.deals(g), config.seed)
            for g in GAMES]


def game_rows(frame: pl.DataFrame, game: str) -> pl.DataFrame:
    """``game``'s rows, its ``arm`` the player's name again (as :func:`experiments.ladder.play` gives them)."""
    return (frame.filter(pl.col("rules") == game)
            .with_columns(pl.col("arm").str.strip_prefix(f"{game}: ")))


# ------------------------------------------------------------------ the findings


def _twin(config: Config, game: str) -> str | None:
    """The player that is the ceiling's search without its sight (the same budget and width), if one plays."""
    if config.ceiling is None:
        return None
    same = identity(f"search:trials={config.ceiling_trials},width={config.ceiling_width:g}", game)
    return next((strategy_lib.get(p).name for p in config.players(game) if identity(p, game) == same), None)


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    out = []
    for game in GAMES:
        rows = game_rows(frame, game)
        result = ladder.standings(rows, config.entries(game), game, config.seed, resamples=config.resamples)
        group = wording.game_name(game)
        by_arm = rounds_by_arm(rows)
        for r in result.rungs:
            if r.reference:
                continue  # measured against itself: 0 by construction
            deals = r.gain.clusters
            mine = by_arm.get(r.name, 0)
            rating = Estimate(r.rating, r.rating_low, r.rating_high, r.rating_low, r.rating_high, deals, ladder.UNIT)
            out += [Finding(GAIN, (r.name, REFERENCE), r.gain, deals, mine + by_arm.get(REFERENCE, 0), group,
                            headline=True, better="higher"),
                    Finding(RATING, (r.name,), rating, deals, mine, group, better="higher"),
                    Finding(WON, (r.name,), r.wins, deals, mine, group, better="higher")]
        twin = _twin(config, game)
        if twin is not None:
            points = ladder.focal_points(rows)
            ta, ca, tb, cb = metrics.paired_arrays(points, {"arm": config.ceiling}, {"arm": twin})
            rng = rng_for(config, 100 + GAMES.index(game))
            # Higher is better, as on the ladder: the search minus the ceiling where points are a penalty.
            worth = (stats.paired_difference(tb, cb, ta, ca, rng, config.resamples, unit=ladder.UNIT)
                     if result.better == "lower"
                     else stats.paired_difference(ta, ca, tb, cb, rng, config.resamples, unit=ladder.UNIT))
            out.append(Finding(WORTH, (config.ceiling, twin), worth, worth.clusters,
                               by_arm.get(config.ceiling, 0) + by_arm.get(twin, 0), group, better="higher"))
    return out


def _find(findings: Sequence[Finding], metric: str, player: str, group: str) -> Finding | None:
    return next((f for f in findings if f.metric == metric and f.arms[0] == player and f.group == group), None)


# ------------------------------------------------------------------ the words


def player_words(name: str) -> str:
    """A player as the sentences name it: "the search at 256 trials (width 0.5)", "greedy"."""
    kind, _, given = name.partition(":")
    if kind not in ("search", "ceiling"):
        return name
    values = dict(item.split("=", 1) for item in given.split(",") if "=" in item)
    trials = values.get("trials", f"{strategy_lib.SEARCH_DEFAULTS['trials']:g}")
    width = values.get("width")
    words = f"the search at {trials} trials" + (f" (width {width})" if width else "")
    if kind == "ceiling":
        return f"the ceiling ({words.removeprefix('the ')} that sees the hidden cards)"
    return words + (" (its default)" if not given else "")


def _signed(f: Finding) -> str:
    return f"{wording.fmt(f.metric, f.estimate.estimate, True)} (95% interval {wording.interval_text(f, True)})"


def _against(f: Finding) -> str:
    """What a player's points per round against the expert say, in words that follow the interval."""
    e = f.estimate
    if wording.verdict(f) == "higher":
        return f"gains {wording.fmt(f.metric, e.estimate)} points per round over {REFERENCE} " \
               f"(95% interval {wording.interval_text(f)})"
    if wording.verdict(f) == "lower":
        return (f"loses {wording.fmt(f.metric, -e.estimate)} points per round to {REFERENCE} (95% interval "
                f"{wording.fmt(f.metric, -e.high)} to {wording.fmt(f.metric, -e.low)})")
    return f"is not measurably stronger or weaker than {REFERENCE}: {_signed(f)} points per round"


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    lines = []
    for game in GAMES:
        group = wording.game_name(game)
        gains = [f for f in findings if f.group == group and f.metric == GAIN]
        players = sorted((f for f in gains if not strategy_lib.clairvoyant(f.arms[0])),
                         key=lambda f: -f.estimate.estimate)
        if not players:
            continue
        best, rest = players[0], players[1:]
        line = (f"In {group}, against {seats(game) - 1} × {REFERENCE} on the same {config.deals(game):,} deals "
                f"(each played from every seat), {player_words(best.arms[0])} {_against(best)}"
                + (", the strongest estimate on the ladder" if rest and best.estimate.estimate > 0 else ""))
        if rest:
            line += (f"; the others' points per round against {REFERENCE}: "
                     + ", ".join(f"{player_words(f.arms[0])} {_signed(f).replace('95% interval ', '')}"
                                 for f in rest))
        line += "."
        worth = next((f for f in findings if f.group == group and f.metric == WORTH), None)
        if worth is not None:
            v = wording.verdict(worth)
            verdict = {"higher": "", "none": ": no measurable gain at this size",
                       "lower": ": a loss, at this size"}[v]
            line += (f" Knowing the hidden cards is worth {_signed(worth)} points per round to "
                     f"{player_words(worth.arms[1])}{verdict} (the ceiling, the same search seeing every card, "
                     "against it on the same deals; no player, it takes no rank).")
        lines.append(line)
    deals = ", ".join(f"{config.deals(g):,} of {wording.game_name(g)}" for g in GAMES)
    lines.append(f"Every interval is 95% over the deals ({deals}), resampling whole deals with their rotations; "
                 "the CPU time each player's seat costs is drawn against its strength (the figures, measured on "
                 "this machine: no result).")
    return lines


def claims(findings: list[Finding], config: Config) -> dict[str, str]:
    words = {"higher": "stronger", "lower": "weaker", "none": "no measurable difference"}
    out = {f"{f.group}: {f.arms[0]} against {REFERENCE}": words[wording.verdict(f)]
           for f in findings if f.metric == GAIN}
    out |= {f"{f.group}: knowing the hidden cards, {f.arms[0]} against {f.arms[1]}": words[wording.verdict(f)]
            for f in findings if f.metric == WORTH}
    return out


# ------------------------------------------------------------------ the machine's measure


def measure(config: Config) -> dict[str, Any]:
    """The timing pass, per game (:func:`experiments.ladder.clock`): what the clock read for every entry.

    Each seat's share needs the turns of its timed deals, which the page
    and the figures read off the rows (:func:`experiments.ladder.charge`).
    """
    return {"note": "CPU time on this machine: not a result, differs between runs",
            "timing": {g: [c.to_dict() for c in ladder.clock(g, config.entries(g), REFERENCE, config.seed,
                                                             min(config.timing_games, config.deals(g)))]
                       for g in GAMES}}


def timings(frame: pl.DataFrame, measured: dict[str, Any], game: str) -> dict[str, ladder.Timing]:
    """The CPU time of each entry's seat in ``game``, from the timing pass (``measured``) and the rows ``frame``."""
    clocked = [ladder.Clocked.from_dict(c) for c in (measured or {}).get("timing", {}).get(game, [])]
    if not clocked:
        return {}
    return ladder.charge(clocked, game_rows(frame, game), seats(game))


# ------------------------------------------------------------------ the page


def _zero(deals: int) -> Estimate:
    """The reference's own figure against itself: 0 by construction."""
    return Estimate(0.0, 0.0, 0.0, 0.0, 0.0, deals, ladder.UNIT)


def _label(name: str, figure: bool = False) -> str:
    """An entry as the page names it: the reference and the ceiling say what they are."""
    if name == REFERENCE:
        return f"{name} (reference)"
    if strategy_lib.clairvoyant(name):
        return f"{name}:\nwhat knowing the hidden cards is worth" if figure else f"{name}: {CEILING_WORDS}"
    return name


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config,
            measured: dict[str, Any] | None = None) -> dict[str, Figure]:
    out = {}
    for game in GAMES:
        group = wording.game_name(game)
        gains = [f for f in findings if f.group == group and f.metric == GAIN]
        names = [REFERENCE, *(f.arms[0] for f in gains)]
        estimates = [_zero(config.deals(game)), *(f.estimate for f in gains)]
        cost = timings(frame, measured or {}, game)
        fig, _ = plots.strength_cost_plot(
            [_label(n, figure=True) for n in names], estimates, [cost[n].per_turn if n in cost else math.nan for n in names],
            f"points per round against {REFERENCE}, same seat and deals\n(higher is better; {group})",
            "CPU seconds per turn of the seat (log scale; this machine, not a result)",
            apart=[strategy_lib.clairvoyant(n) for n in names],
            title=f"Strength against CPU per turn, {group} ({seats(game) - 1} × {REFERENCE} opponents; hollow: "
                  "the ceiling)")
        _labels_inward(fig)
        out[figure_name(game)] = fig
    return out


def figure_name(game: str) -> str:
    """The name (and file name) of ``game``'s figure."""
    return f"strength-{game}"


def _labels_inward(fig: Figure) -> None:
    """Keep the points' labels inside the axes and apart from one another.

    The searches cost the most CPU: the labels of the points in the right
    half go on their left, or their long names would run past the axes
    (and the layout would shrink the axes to hold them). The heuristics
    cost alike: their labels, bottom to top, are moved up until none
    overlaps another.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    ax = fig.axes[0]
    left, right = (math.log10(x) for x in ax.get_xlim())
    for text in ax.texts:
        x = text.xy[0]
        if x > 0 and (math.log10(x) - left) / (right - left) > 0.5:
            text.set_horizontalalignment("right")
            text.xyann = (-6, 4)
    ax.margins(y=0.12)  # room above the highest point for its label (the ceiling's is two lines)
    fig.tight_layout()
    renderer = FigureCanvasAgg(fig).get_renderer()
    placed = []
    for text in sorted(ax.texts, key=lambda t: t.xy[1]):
        for _ in range(len(ax.texts)):
            box = text.get_window_extent(renderer)
            hit = next((b for b in placed if box.overlaps(b)), None)
            if hit is None:
                break
            # Up by the overlap, in points (the offset's unit), and a point more.
            text.xyann = (text.xyann[0], text.xyann[1] + (hit.y1 - box.y0) * 72 / fig.dpi + 1)
        placed.append(text.get_window_extent(renderer))


def _cell(f: Finding | None, signed: bool = True) -> str:
    if f is None:
        return "n/a"
    e = f.estimate

    def num(x: float) -> str:
        if math.isinf(x):
            return "+∞" if x > 0 else "−∞"
        return wording.fmt(f.metric, x, signed)

    return f"{num(e.estimate)} ({num(e.low)} to {num(e.high)})"


def _rating_cell(f: Finding | None) -> str:
    """The rating with its interval; in words where it has no finite value (every finish on one side)."""
    if f is not None and f.estimate.low == f.estimate.high and math.isinf(f.estimate.low):
        where = "ahead of" if f.estimate.low > 0 else "behind"
        return (f"{'+∞' if f.estimate.low > 0 else '−∞'}: finished {where} every {REFERENCE} seat in every game "
                "(no finite rating)")
    return _cell(f)


def seats(game: str) -> int:
    """Players at a table of ``game`` (its preset's)."""
    from sim import rules

    return rules.as_ruleset(game).players


def _ladder_table(first: Results, game: str) -> tuple:
    """The game's ladder: the players best first with their rank, then the ceiling apart, with no rank."""
    group = wording.game_name(game)
    n = seats(game)
    deals = first.config.deals(game)
    gains = {f.arms[0]: f.estimate.estimate for f in first.findings if f.group == group and f.metric == GAIN}
    order = sorted([REFERENCE, *gains], key=lambda name: -gains.get(name, 0.0))
    players = [name for name in order if not strategy_lib.clairvoyant(name)]
    rows = []
    for rank, name in enumerate(players, 1):
        if name == REFERENCE:
            rows.append([str(rank), _label(name), "0 (the reference)", "0 (the reference)",
                         f"{100 / n:.1f}% (each seat's share)"])
            continue
        rows.append([str(rank), _label(name), _cell(_find(first.findings, GAIN, name, group)),
                     _rating_cell(_find(first.findings, RATING, name, group)),
                     _cell(_find(first.findings, WON, name, group), signed=False)])
    for name in order:
        if strategy_lib.clairvoyant(name):
            rows.append(["—", _label(name), _cell(_find(first.findings, GAIN, name, group)),
                         _rating_cell(_find(first.findings, RATING, name, group)),
                         _cell(_find(first.findings, WON, name, group), signed=False)])
    return ("table", ["rank", "player", GAIN, "rating (log odds; 0: as often ahead as behind)",
                      f"games won (chance {100 / n:.0f}%), over {deals:,} deals × {n} seats"], rows)


def _timing_table(runs: Sequence[Results]) -> tuple:
    """One row per game and entry, each seed's figure side by side (seed 1; seed 2)."""
    measured = [timings_of(r) for r in runs]
    rows = []
    for game in GAMES:
        for name in measured[0].get(game, {}):
            times = [m.get(game, {}).get(name) for m in measured]

            def each(value: Callable[[ladder.Timing], float | None]) -> str:
                return "; ".join(ladder.seconds_text(value(t)) if t is not None else "n/a" for t in times)

            t0 = times[0]
            rows.append([wording.game_name(game), _short(name), f"{t0.games:,}", each(lambda t: t.per_game),
                         each(lambda t: t.per_turn), each(lambda t: t.per_decision)])
    seeds = "; ".join(f"seed {r.config.seed}" for r in runs)
    return ("table", ["game", "player", "games timed", f"CPU per game ({seeds})", f"CPU per turn ({seeds})",
                      f"CPU per searched decision ({seeds})"], rows)


def timings_of(results: Results) -> dict[str, dict[str, ladder.Timing]]:
    """Every game's :func:`timings` of one run."""
    return {g: timings(results.frame, results.provenance.get("measured", {}), g) for g in GAMES}


def _short(name: str) -> str:
    """An entry's name in the timing table: the reference and the ceiling marked in a word."""
    if name == REFERENCE:
        return f"{name} (reference)"
    return f"{name} (the ceiling)" if strategy_lib.clairvoyant(name) else name


def page_blocks(runs: list[Results]) -> list[tuple]:
    first = runs[0]
    blocks: list[tuple] = []
    for game in GAMES:
        group = wording.game_name(game)
        blocks += [
            ("h2", f"{group}: the ladder"),
            ("p", f"Each player in one seat of a {group} table of {seats(game)}, {REFERENCE} in the other seats, on "
                  f"the same {first.config.deals(game):,} deals, each played from every seat; best first (seed "
                  f"{first.config.seed}, 95% intervals resampling deals). The ceiling takes no rank: it sees the "
                  "hidden cards, so it measures what knowing them is worth, not a player."),
            _ladder_table(first, game),
            ("p", f"The figure `{figure_name(game)}` (under Figures) draws each entry's points per round against "
                  f"{REFERENCE} against the CPU time of its seat per turn."),
        ]
    blocks += [
        ("h2", "What each seat costs"),
        ("p", "Measured apart from the games, after them, on this machine: a searching player replays its table's "
              "first deals one game at a time on one thread (`sim.search_effort`, the thread's CPU clock), less the "
              "experts' share; a player that does not search plays a hundred times as many games at a table of it "
              "alone, each seat charged its share. The times depend on the machine and on what else ran on it: "
              "they are no finding, the seeds are not compared on them, and nothing hashed or compared between "
              "runs holds them (they are in `summary.json`'s `provenance.measured`)."),
        _timing_table(runs),
    ]
    return blocks


def edition_note(results: Results, quick: bool) -> str:
    c = results.config
    size = "; ".join(f"{wording.game_name(g)}: {c.deals(g):,} deals of {', '.join(c.players(g))}" for g in GAMES)
    ceiling = f", and {c.ceiling} (the ceiling)" if c.ceiling else ""
    if quick:
        return (f"Smoke edition (`rami report --quick`): {size}{ceiling}, a timing pass of {c.timing_games} game "
                "per searching player. It checks that the page is made, not how strong the players are: the budgets "
                "are far below the default and the intervals are wide. The full edition (`rami report`) is the "
                "reference.")
    return (f"Full edition: {size}{ceiling}, a timing pass of {c.timing_games} games per searching player. Every "
            "figure carries a 95% interval that resamples whole deals (a deal with all its rotations).")


ESTIMAND = ("points per round against the expert: the player's points over its rounds minus the expert's own "
            "over its rounds, in the same seat of the same deals (each a ratio of sums over the deal's rounds and "
            "rotations, paired by deal; in Rami 51, played to 500 points, the two tables may play a different number "
            "of rounds of a deal), signed so that higher is better; the rating is the log odds of the player's share "
            "of finishes ahead of an expert seat (a tie half); a share of games won is a mean over games. The unit "
            "every interval resamples is the deal with all its rotations.")


EXPERIMENT = experiment_from(sys.modules[__name__], parts=parts, page_blocks=page_blocks, claims=claims,
                             edition_note=edition_note, measure=measure, estimand=ESTIMAND, sequential=False,
                             compiles=("searching",))


def run(config: Config, out: Path | None = None, progress=None) -> Results:
    """Play, analyse and (with ``out``) write the datasets and ``summary.json``."""
    return EXPERIMENT.run(config, out, progress)


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(run(Config().replace(**QUICK)).conclusions, indent=2))
