"""The strength ladder: how strong is each player, measured against one reference on the same deals?

Design: one player against the field, as computer-chess rating lists and
the one-against-three arenas of mahjong programs rate their engines. Every
player sits at one seat of a table whose other seats all play the
reference (``expert`` by default), and the same deals are played with
every player: the same seed and game indices, each deal played once for
each rotation of the table through the seats (rotation ``k``: the player in
seat ``k``), so the player holds every seat's cards of every deal. The
reference alone (every seat the reference) plays the same deals too. A
deal with all its rotations is the unit every interval resamples.

For each player, with 95% intervals from a percentile bootstrap over deals
(:mod:`sim.intervals`, through :mod:`experiments.stats`):

* **points per round against the reference**: the player's points per
  round minus the reference's own points per round in the same seat of the
  same deals (each a ratio of sums over the deal's rounds and rotations),
  signed so that higher is better whatever the game (points are a penalty
  in Rami 51 and Rami contrat, a gain in basic rummy). The reference's own
  figure is 0 by construction;
* **a rating**: a Bradley–Terry model (Plackett–Luce on pairs, fitted with
  ``choix`` as the tournaments fit theirs) over the finishing comparisons
  of every game played: the player's final total against each reference
  seat's, a tie counting half to each. All players are fitted jointly with
  the reference as one more item, anchored at 0. A rating ``x`` means odds
  of ``e**x`` to 1 that the player finishes a game ahead of a given
  reference seat at its table (``0``: as often ahead as behind, as the
  reference itself; ``+1``: 2.7 to 1). Every player is compared with the
  reference only, so the fit is the log odds of the player's share of
  comparisons won, and the interval is that share's bootstrap over deals,
  taken to the log odds;
* **share of games won** (a ``k``-way tie counts ``1/k``; ``1/players`` by
  chance);
* **CPU time** of the player's seat, per game and per turn of the seat
  (and per searched decision for a searching player), measured apart from
  the games, on this machine, in a timing pass (:func:`measure_cpu` says
  how): it is no result, it never enters what two runs compare.

The ceiling (``ceiling``, :func:`strategies.clairvoyant`) is the search
with rollouts that see every hidden card: not a player but what knowing the
hidden cards is worth. The ladder alone seats it, labels it as the ceiling
and ranks it with no real player.

``rami ladder`` runs one from the shell.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.figure import Figure

import sim
import strategies as strategy_lib
from experiments import metrics, plots, stats
from experiments.arms import rotated_seats, rotation_columns
from experiments.stats import Estimate
from experiments.tournament import dataset_rows, identity, play_table
from sim import distributed, rules, store
from sim.checks import check_whole

__all__ = ["DEFAULT_PLAYERS", "REFERENCE", "SETTINGS_FILE", "UNIT", "Clocked", "LadderResult", "Rung", "Timing",
           "charge", "check", "clock", "finishes", "focal_points", "ladder", "measure_cpu", "play", "rating_fit",
           "seconds_text", "standings", "stored_rows"]

DEFAULT_PLAYERS: tuple[str, ...] = (
    "random", "greedy", "cautious", "expert",
    "search:trials=8", "search:trials=32,width=2,prune=0,turn=0", "search:trials=256", "search",
    "ceiling",
)
"""The players of ``rami ladder`` without a list: the presets, the search at three budgets and the search its default
replaced (``search:trials=32,width=2,prune=0,turn=0``), and the ceiling."""
REFERENCE = "expert"
"""The reference every player is measured against (the other seats of its table)."""
UNIT = "deal"
"""The resampling unit: a deal (a game index) with all its rotations."""
SETTINGS_FILE = "ladder.json"
"""The settings of a ladder written to its folder: a later run with the same ones resumes it."""
CEILING_WORDS = "sees the hidden cards: the ceiling, what knowing them is worth, no player (it takes no rank)"
"""How the ladder labels a clairvoyant entry wherever it is shown."""
HEURISTIC_TIMING_GAMES = 100
"""Games of the timing pass per timing game asked for, for a player that does not search: such a game costs
well under a millisecond, so it takes many for the clock to measure them."""


# ------------------------------------------------------------------ metrics
def focal_points(frame: pl.DataFrame) -> pl.DataFrame:
    """Per table (``arm``) and deal: the sum of the focal seat's points over its rounds and rotations, and how
    many rounds that is (``total``, ``count``; :func:`experiments.metrics.per_game`'s columns)."""
    return metrics.per_game(frame, pl.col("points"), where=pl.col("strategy_index") == 0, by=("arm",))


def finishes(frame: pl.DataFrame, better: str) -> pl.DataFrame:
    """Per table (``arm``) and deal: how the focal seat finished against every other seat of its games.

    Each rotation of a deal compares the focal seat's final total with
    each other seat's: 1 when it finished ahead (a lower total in Rami 51
    and contrat, a higher one in basic rummy), 0.5 for a tie, 0 behind.

    Returns
    -------
    polars.DataFrame
        Columns ``arm``, ``game``, ``total`` (comparisons won, ties counting
        half; float64) and ``count`` (comparisons made), sorted by arm and game.
    """
    finals = (frame.group_by("arm", "game", "rotation", "seat")
              .agg(pl.col("total").sort_by("round").last(), pl.col("strategy_index").first()))
    focal = finals.filter(pl.col("strategy_index") == 0).select("arm", "game", "rotation",
                                                                pl.col("total").alias("mine"))
    others = finals.filter(pl.col("strategy_index") != 0).join(focal, on=["arm", "game", "rotation"])
    ahead = (pl.col("mine") < pl.col("total")) if better == "lower" else (pl.col("mine") > pl.col("total"))
    score = pl.when(pl.col("mine") == pl.col("total")).then(0.5).otherwise(ahead.cast(pl.Float64))
    return (others.group_by("arm", "game").agg(score.sum().alias("total"), pl.len().alias("count"))
            .sort("arm", "game"))


# ------------------------------------------------------------------ interval estimates
def rating_fit(ahead: np.ndarray, behind: np.ndarray) -> np.ndarray:
    """The joint Bradley–Terry fit (``choix``) of players compared with one reference, anchored at it.

    Parameters
    ----------
    ahead, behind : array of float, shape (players,)
        Comparisons each player won and lost against the reference's seats
        (a tie counted half in each).

    Returns
    -------
    array of float, shape (players,)
        Log-strengths minus the reference's: ``e**x`` is the odds of
        finishing ahead. A light regularisation keeps a player that won (or
        lost) every comparison finite.
    """
    import choix

    n = len(ahead)
    wins = np.zeros((n + 1, n + 1))
    wins[1:, 0] = ahead  # item 0 is the reference; wins[i, j]: times i finished ahead of j
    wins[0, 1:] = behind
    params = choix.ilsr_pairwise_dense(wins, alpha=1e-4, max_iter=500, tol=1e-10)
    return params[1:] - params[0]


def _log_odds(share: float) -> float:
    if share <= 0.0:
        return -math.inf
    if share >= 1.0:
        return math.inf
    return math.log(share / (1.0 - share))


# ------------------------------------------------------------------ results
@dataclass(frozen=True)
class Rung:
    """One player's place on the ladder.

    Attributes
    ----------
    name : str
    gain : Estimate
        Points per round against the reference in the same seat of the
        same deals, higher better (unit: the deal).
    rating, rating_low, rating_high : float
        Bradley–Terry log-odds of finishing ahead of a reference seat, and
        its 95% bootstrap interval over deals (infinite when the player
        finished ahead of, or behind, every reference seat of a resample).
    ahead : Estimate
        Share of finishing comparisons with the reference's seats won (a tie half).
    wins : Estimate
        Share of games won (``1/players`` by chance).
    reference : bool
        This is the reference itself (its gain and rating are 0).
    ceiling : bool
        A clairvoyant entry: what knowing the hidden cards is worth, no player.
    unbounded : str
        ``"above"`` or ``"below"`` when the player finished ahead of (behind)
        every reference seat in every game: its rating has no finite
        value, the one shown is set by the fit's regularisation.
    """

    name: str
    gain: Estimate
    rating: float
    rating_low: float
    rating_high: float
    ahead: Estimate
    wins: Estimate
    reference: bool = False
    ceiling: bool = False
    unbounded: str = ""


@dataclass(frozen=True)
class Timing:
    """What one player's seat costs on this machine (:func:`measure_cpu`); never a result.

    Attributes
    ----------
    name : str
    games : int
        Games timed.
    cpu_seconds : float
        CPU seconds of the player's seat over those games.
    turns : int
        Turns the seat began in them.
    decisions : int or None
        Searched decisions (two legal choices or more) of a searching seat;
        None for a player that does not search.
    how : str
        How it was measured.
    """

    name: str
    games: int
    cpu_seconds: float
    turns: int
    decisions: int | None
    how: str

    @property
    def per_game(self) -> float:
        return self.cpu_seconds / max(self.games, 1)

    @property
    def per_turn(self) -> float:
        return self.cpu_seconds / max(self.turns, 1)

    @property
    def per_decision(self) -> float | None:
        return None if not self.decisions else self.cpu_seconds / self.decisions

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "games": self.games, "cpu_seconds": self.cpu_seconds, "turns": self.turns,
                "decisions": self.decisions, "seconds_per_game": self.per_game, "seconds_per_turn": self.per_turn,
                "seconds_per_decision": self.per_decision, "how": self.how}


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


@dataclass
class LadderResult:
    """What :func:`ladder` returns.

    ``rungs`` are sorted by points per round against the reference, best
    first, the ceiling included but flagged; ``timing`` holds the CPU
    measures by name (empty without a timing pass): they depend on the
    machine, so :meth:`table` leaves them out and :meth:`timing_table` has them.
    """

    ruleset: rules.Ruleset
    names: list[str]
    reference: str
    games: int
    seed: int
    better: str
    rungs: list[Rung]
    frame: pl.DataFrame = field(repr=False)
    timing: dict[str, Timing] = field(default_factory=dict)
    wall_seconds: float = 0.0
    command: str = ""

    def rung(self, name: str) -> Rung:
        for r in self.rungs:
            if r.name == name:
                return r
        raise ValueError(f"no player {name!r} on this ladder; it has: {', '.join(r.name for r in self.rungs)}")

    @property
    def players(self) -> list[Rung]:
        """The rungs of real players (the ceiling left out), best first."""
        return [r for r in self.rungs if not r.ceiling]

    def table(self) -> pl.DataFrame:
        """The ladder as a frame, one row per entry, best first: every figure that two runs of the same
        settings give alike (no CPU time)."""
        rank = {r.name: k + 1 for k, r in enumerate(self.players)}
        return pl.DataFrame([
            {"rank": rank.get(r.name), "player": r.name, "role": _role(r),
             "gain": r.gain.estimate, "gain_low": r.gain.low, "gain_high": r.gain.high,
             "rating": r.rating, "rating_low": r.rating_low, "rating_high": r.rating_high,
             "ahead": r.ahead.estimate, "ahead_low": r.ahead.low, "ahead_high": r.ahead.high,
             "win_rate": r.wins.estimate, "win_low": r.wins.low, "win_high": r.wins.high, "deals": r.gain.clusters}
            for r in self.rungs
        ], schema_overrides={"rank": pl.Int64})

    def timing_table(self) -> pl.DataFrame:
        """The CPU measures, one row per entry timed (this machine's, not a result)."""
        rows = [self.timing[r.name].to_dict() for r in self.rungs if r.name in self.timing]
        return pl.DataFrame(rows, schema={"name": pl.String, "games": pl.Int64, "cpu_seconds": pl.Float64,
                                          "turns": pl.Int64, "decisions": pl.Int64, "seconds_per_game": pl.Float64,
                                          "seconds_per_turn": pl.Float64, "seconds_per_decision": pl.Float64,
                                          "how": pl.String})

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON: the settings, ``standings`` (identical across runs of the same settings)
        and ``measured`` (the CPU times of this machine). Infinite ratings are null, with ``unbounded``."""

        def est(e: Estimate) -> dict[str, Any]:
            return {"estimate": e.estimate, "low": e.low, "high": e.high, "deals": e.clusters}

        standings = []
        for row, r in zip(self.table().to_dicts(), self.rungs):
            standings.append({"rank": row["rank"], "player": r.name, "role": row["role"],
                              "gain": est(r.gain), "rating": {"estimate": _finite(r.rating),
                                                              "low": _finite(r.rating_low),
                                                              "high": _finite(r.rating_high),
                                                              "unbounded": r.unbounded or None},
                              "ahead": est(r.ahead), "wins": est(r.wins)})
        return {"ruleset": self.ruleset.to_dict(), "reference": self.reference, "players": self.names,
                "games": self.games, "seed": self.seed, "better": self.better,
                "interval": f"95% percentile bootstrap; the {UNIT} (with all its rotations) is the resampling unit",
                "gain": f"points per round minus the reference's in the same seat of the same deals, higher is "
                        f"better (points: {'fewer' if self.better == 'lower' else 'more'} is better)",
                "rating": "Bradley–Terry log odds of finishing ahead of a reference seat (reference 0)",
                "standings": standings,
                "measured": {"note": "CPU time on this machine: not a result, differs between runs",
                             "timing": [t.to_dict() for t in (self.timing[r.name] for r in self.rungs
                                                             if r.name in self.timing)]}}

    def __str__(self) -> str:
        r = self.ruleset
        lines = [f"Strength ladder, {r.game} ({r.players} players): each player in one seat against "
                 f"{r.players - 1} × {self.reference} on the same {self.games:,} deals, every seat in turn "
                 f"(seed {self.seed}); 95% intervals resample deals",
                 f"{'':3} {'player':30} {'points/round vs ' + self.reference + ' (95%)':30} "
                 f"{'rating (95%)':26} {'games won (95%)':22} CPU/turn"]
        rank = 0
        for x in self.rungs:
            rank += 0 if x.ceiling else 1
            mark = "-" if x.ceiling else str(rank)
            name = _label(x)
            t = self.timing.get(x.name)
            lines.append(f"{mark:3} {name:30} {_signed(x.gain):30} {_rating_text(x):26} "
                         f"{_percent(x.wins):22} {seconds_text(t.per_turn) if t else 'n/a'}")
        lines.append(f"points per round against {self.reference}: its points per round minus {self.reference}'s in "
                     "the same seat of the same deals, higher is better; rating: log odds of finishing ahead of "
                     f"each {self.reference} seat at its table (x: odds e^x to 1; {self.reference} is 0)")
        if any(x.ceiling for x in self.rungs):
            lines += [f"{x.name}: {CEILING_WORDS}" for x in self.rungs if x.ceiling]
        lines += [f"{x.name}: {_unbounded_words(x)}" for x in self.rungs if x.unbounded]
        if self.timing:
            lines.append("CPU/turn: CPU time of the seat per turn it began, measured apart on this machine "
                         "(not a result)")
        return "\n".join(lines)

    def figure(self) -> Figure:
        """Strength (points per round against the reference, 95% interval bars) against CPU per turn of the
        seat (log axis); without a timing pass, the strengths alone."""
        return strength_figure(self)

    def write(self, folder: Path | str) -> Path:
        """Save the ladder in ``folder``: ``ladder.csv`` (:meth:`table`), ``timing.csv``, ``result.json``
        (:meth:`to_dict`) and the report page (``index.html``, ``index.md``, the figure); returns the page."""
        from experiments import report

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.table().write_csv(folder / "ladder.csv")
        self.timing_table().write_csv(folder / "timing.csv")
        (folder / "result.json").write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n",
                                            encoding="utf-8")
        return report.write_document(folder, self.title(), self.page_blocks(), {"strength": self.figure()})

    def title(self) -> str:
        return f"Strength ladder: {self.ruleset.game}, against {self.reference}"

    def page_blocks(self) -> list[tuple]:
        """The blocks of the ladder's report page (:func:`experiments.report.write_document`)."""
        from sim import rules as rules_lib

        r = self.ruleset
        rows = []
        rank = 0
        for x in self.rungs:
            rank += 0 if x.ceiling else 1
            t = self.timing.get(x.name)
            rows.append(["—" if x.ceiling else str(rank),
                         _label(x) + (": sees the hidden cards" if x.ceiling else ""),
                         _signed(x.gain), _rating_text(x), _percent(x.wins),
                         seconds_text(t.per_turn) if t else "n/a",
                         seconds_text(t.per_decision) if t and t.per_decision else "n/a"])
        notes = [f"{x.name}: {_unbounded_words(x)}." for x in self.rungs if x.unbounded]
        blocks = [
            ("h1", self.title()),
            ("p", f"Each player sits at one seat of a {r.game} table of {r.players}, the other {r.players - 1} seats "
                  f"playing {self.reference}, on the same {self.games:,} deals (seed {self.seed}), each deal played "
                  "once for every seat the player can hold; the reference alone plays the same deals too. Every "
                  "interval is a 95% percentile bootstrap that resamples whole deals with all their rotations."),
            ("h2", "The ladder"),
            ("table", ["rank", "player", f"points per round against {self.reference} (higher is better)",
                       "rating: log odds of finishing ahead", f"games won (chance {100 / r.players:.0f}%)",
                       "CPU per turn", "CPU per searched decision"], rows),
            ("p", f"Points per round against {self.reference}: the player's points per round minus "
                  f"{self.reference}'s own in the same seat of the same deals, signed so that higher is better "
                  f"(points are {'a penalty' if self.better == 'lower' else 'a gain'} in {r.game}). Rating: a "
                  "Bradley–Terry fit over every game's finishing comparisons of the player with each reference "
                  f"seat (a tie counts half), {self.reference} anchored at 0; a rating x means odds e^x to 1 of "
                  f"finishing ahead of each {self.reference} seat at the player's table. "
                  + " ".join(notes)),
            ("fig", "strength", f"Strength against CPU per turn of the seat, {r.game}"),
            ("p", f"The ceiling {CEILING_WORDS}; the figure draws it apart (hollow). CPU times are this "
                  "machine's, measured apart from the games (one game at a time on one thread): they are no "
                  "result, and another machine or a busier one gives others."),
            ("h2", "How it was measured"),
            ("p", " ".join((__doc__ or "").split("\n\n")[1].split())),
            ("h2", "Provenance"),
            ("ul", [f"{self.games:,} deals, {len(self.names)} players, {self.wall_seconds:.1f} s wall time",
                    f"rules version {rules_lib.RULES_VERSION}; package {sim.__version__}"]),
        ]
        if self.command:
            blocks += [("h2", "Reproduce"), ("pre", self.command)]
        return blocks


def _label(r: Rung) -> str:
    """The entry's name as the ladder shows it: the reference and the ceiling say so."""
    if r.reference:
        return f"{r.name} (reference)"
    if r.ceiling:
        return r.name if r.name.startswith("ceiling") else f"{r.name} (ceiling)"
    return r.name


def _role(r: Rung) -> str:
    return "reference" if r.reference else "ceiling" if r.ceiling else "player"


def _signed(e: Estimate) -> str:
    return f"{e.estimate:+.2f} ({e.low:+.2f} to {e.high:+.2f})"


def _percent(e: Estimate) -> str:
    return f"{100 * e.estimate:.1f}% ({100 * e.low:.1f} to {100 * e.high:.1f})"


def _rating_text(r: Rung) -> str:
    if r.reference:
        return "0 (the reference)"
    return f"{r.rating:+.2f} ({r.rating_low:+.2f} to {r.rating_high:+.2f})"


def _unbounded_words(r: Rung) -> str:
    where = "ahead of" if r.unbounded == "above" else "behind"
    return (f"finished {where} every reference seat in every game, so its rating has no finite value; the one "
            "shown is set by the fit's light regularisation")


def seconds_text(s: float | None) -> str:
    """A duration in seconds as the ladder writes it: three significant digits in s, ms, µs or ns ("n/a" if
    unknown)."""
    if s is None or not math.isfinite(s):
        return "n/a"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


# ------------------------------------------------------------------ plots
def strength_figure(result: LadderResult) -> Figure:
    """The ladder's figure: strength against CPU per turn (log axis), or the strengths alone if untimed."""
    labels = [_label(x) for x in result.rungs]
    gains = [x.gain for x in result.rungs]
    ylabel = (f"points per round against {result.reference}, same seat and deals\n"
              f"(higher is better; {result.ruleset.game})")
    if not result.timing:
        fig, _ = plots.interval_plot(labels, gains, ylabel.replace("\n", " "),
                                     title=f"Strength ladder, {result.ruleset.game}")
        return fig
    costs = [result.timing[x.name].per_turn if x.name in result.timing else math.nan for x in result.rungs]
    fig, _ = plots.strength_cost_plot(labels, gains, costs, ylabel,
                                      "CPU seconds per turn of the seat (log scale; this machine, not a result)",
                                      apart=[x.ceiling for x in result.rungs],
                                      title=f"Strength against cost, {result.ruleset.game} "
                                            f"({result.ruleset.players - 1} × {result.reference} opponents)")
    return fig


# ------------------------------------------------------------------ playing
def _players(players: Sequence[str | strategy_lib.Strategy]) -> list[strategy_lib.Strategy]:
    """The players, each known and listed once (a name is how the results tell them apart)."""
    if isinstance(players, str):  # would be read letter by letter
        raise TypeError(f"players must be a list, e.g. {[p.strip() for p in players.split(',')]!r}, not a string")
    chosen = [strategy_lib.get(p) for p in players]
    names = [s.name for s in chosen]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"player {twice[0]!r} is listed twice; list each player once")
    if len(chosen) < 2:
        raise ValueError(f"a ladder needs at least 2 players, got {len(chosen)}")
    return chosen


def _plan(players, ruleset, games, reference, resamples, timing_games):
    chosen = _players(players)
    ref = strategy_lib.get(reference)
    if strategy_lib.clairvoyant(ref):
        raise ValueError(f"reference {ref.name!r} sees the hidden cards: the reference must be a real player")
    same = [s for s in chosen if s.name == ref.name]
    r = rules.as_ruleset(ruleset)
    if same and identity(same[0], r.game) != identity(ref, r.game):
        raise ValueError(f"player {ref.name!r} is not the reference of that name (other parameters): rename one")
    for key, value, least in (("games", games, 2), ("resamples", resamples, 50), ("timing_games", timing_games, 0)):
        check_whole(key, value, least)
    return chosen, ref, r


def check(players: Sequence[str | strategy_lib.Strategy], ruleset: rules.Ruleset | str = "rami51",
          games: int = 100, reference: str | strategy_lib.Strategy = REFERENCE, resamples: int = 300,
          timing_games: int = 2) -> None:
    """Refuse what :func:`ladder` would refuse about its inputs (``ValueError`` or ``TypeError``), playing nothing."""
    _plan(players, ruleset, games, reference, resamples, timing_games)


def _settings(chosen, ref, r) -> dict[str, Any]:
    """What a ladder's games depend on (the number of games aside: a larger ladder grows a smaller one)."""
    return {"format": 1, "ruleset": r.to_dict(), "reference": {"name": ref.name, "identity": list(identity(ref, r.game))},
            "players": [{"name": s.name, "identity": list(identity(s, r.game))} for s in chosen]}


def _rotations(df: pl.DataFrame, n: int, label: str, only: int | None = None) -> pl.DataFrame:
    """The reference table's games, labelled once per rotation: in rotation ``k`` its focal seat is seat ``k``,
    as a player's is. Every seat plays the reference, so every rotation would deal the very same game.
    ``only``: the rows of one rotation's own games, labelled as that rotation (a player's table)."""
    df = df.with_columns(pl.col(pl.Categorical).cast(pl.String), pl.col(pl.Enum).cast(pl.String))
    return pl.concat([df.with_columns(*rotation_columns(k, n, label))
                      for k in (range(n) if only is None else [only])])


def _play_reference(r, ref, seed, games, workers, tick, folder: Path | None) -> pl.DataFrame:
    seated = [ref] * r.players
    if folder is None:
        df = sim.simulate(r, seated, n_games=games, seed=seed, workers=workers, progress=tick)
    else:
        sim.simulate(r, seated, n_games=games, seed=seed, workers=workers, progress=tick, out=folder)
        df = dataset_rows(folder).filter(pl.col("game") < games)
    return _rotations(df, r.players, ref.name)


@distributed.on_cluster
def ladder(
    players: Sequence[str | strategy_lib.Strategy] = DEFAULT_PLAYERS,
    ruleset: rules.Ruleset | str = "rami51",
    games: int = 100,
    seed: int = 1,
    workers: int | None = None,
    out: Path | str | None = None,
    reference: str | strategy_lib.Strategy = REFERENCE,
    resamples: int = 300,
    timing_games: int = 2,
    progress: Callable[[int, int], None] | None = None,
    scheduler: Any = None,
) -> LadderResult:
    """Rate ``players`` against ``reference`` on the same deals (see the module's docstring).

    Parameters
    ----------
    players : sequence of str or Strategy
        At least two, each once: presets, ``"name:param=value"`` strings,
        tuned names, strategy files, Strategy objects; ``ceiling`` (or any
        clairvoyant strategy) is seated and labelled as the ceiling.
    ruleset : Ruleset or str
        A ruleset, preset name or TOML file; its ``players`` is the table size.
    games : int
        Deals (game indices 0 .. games - 1), each played once per rotation
        at every player's table.
    seed : int
        Simulation seed; it also seeds the bootstraps.
    workers : int, optional
        Engine threads (results do not depend on it).
    out : path, optional
        A folder for the games: the reference's table (``out/reference``)
        and each player's rotations (``out/player-I/rotation-K``) as results
        datasets (:mod:`sim.store`), the settings in ``out/ladder.json``. A
        folder holding a ladder of the same players, reference and rules
        resumes it: games on disk are not played again (a larger ``games``
        plays only the new deals). Any other non-empty folder is refused.
    reference : str or Strategy
        The strategy of every other seat; not a clairvoyant one.
    resamples : int
        Bootstrap resamples per interval (at least 50).
    timing_games : int
        Games per searching player of the CPU timing pass (:func:`measure_cpu`); 0 skips it.
    progress : callable, optional
        ``progress(done, total)`` in engine games.
    scheduler : str or distributed.Client, optional
        Play on this Dask cluster (:mod:`sim.distributed`, docs/cluster.md),
        connected once for the whole job: the same results as a local run.

    Returns
    -------
    LadderResult
    """
    start = time.perf_counter()
    chosen, ref, r = _plan(players, ruleset, games, reference, resamples, timing_games)
    frame = _play(chosen, ref, r, games, seed, workers, out, progress)
    result = _result(frame, chosen, ref, r, games, seed, resamples)
    if timing_games:
        # A searching player's timed games are deals of the ladder: their turns are read off its rows.
        result.timing = measure_cpu(r, chosen, ref, frame, seed, min(timing_games, games))
    result.wall_seconds = time.perf_counter() - start
    return result


@distributed.on_cluster
def play(
    players: Sequence[str | strategy_lib.Strategy] = DEFAULT_PLAYERS,
    ruleset: rules.Ruleset | str = "rami51",
    games: int = 100,
    seed: int = 1,
    workers: int | None = None,
    out: Path | str | None = None,
    reference: str | strategy_lib.Strategy = REFERENCE,
    progress: Callable[[int, int], None] | None = None,
    scheduler: Any = None,
) -> pl.DataFrame:
    """The games of :func:`ladder` without their analysis: every table's rows (``out`` written and resumed alike).

    For a caller that analyses the rows itself (an experiment of the report
    playing several ladders, :func:`standings` then reading them).
    ``scheduler`` plays them on a Dask cluster, as :func:`ladder` does.

    Returns
    -------
    polars.DataFrame
        :data:`sim.RESULT_COLUMNS` plus ``arm`` (the player's name; the
        reference's for its own table), ``rotation`` and ``strategy_index``
        (0 for the player's seat, whatever the rotation).
    """
    chosen, ref, r = _plan(players, ruleset, games, reference, 50, 0)
    return _play(chosen, ref, r, games, seed, workers, out, progress)


def _play(chosen, ref, r: rules.Ruleset, games: int, seed: int, workers: int | None, out: Path | str | None,
          progress: Callable[[int, int], None] | None) -> pl.DataFrame:
    folder = None if out is None else Path(out)
    if folder is not None:
        store.claim_folder(folder, SETTINGS_FILE, {"settings": _settings(chosen, ref, r)}, "a ladder")
    others = [s for s in chosen if s.name != ref.name]
    n = r.players
    total = games * (1 + n * len(others))
    done = 0

    def tick(k: int) -> None:
        nonlocal done
        done += k
        if progress:
            progress(done, total)

    frames = [_play_reference(r, ref, seed, games, workers, tick, None if folder is None else folder / "reference")]
    for i, s in enumerate(chosen):
        if s.name == ref.name:
            continue
        seated = [s] + [ref] * (n - 1)
        if folder is None:
            frames.append(play_table(r, seated, seed, 0, games, workers, tick, label=s.name, allow_clairvoyant=True))
        else:
            frames.append(_play_stored(r, seated, seed, games, workers, tick, folder / _player_folder(i)))
    return pl.concat(frames, how="vertical_relaxed")


def _play_stored(r: rules.Ruleset, seated: list[strategy_lib.Strategy], seed: int, games: int,
                 workers: int | None, tick: Callable[[int], None], folder: Path) -> pl.DataFrame:
    """A player's table (seat 0 of ``seated``) in every rotation, each a results dataset ``folder/rotation-K``
    (games on disk not played again), read back as :func:`experiments.tournament.play_table` gives them."""
    s, n = seated[0], len(seated)
    frames = []
    for k in range(n):
        order = rotated_seats(seated, k)
        # The permission to seat the ceiling is given where it sits, and only there. The batches are the
        # store's: for a searching seat, small enough that a ladder's few deals keep every core busy.
        sim.simulate(r, order, n_games=games, seed=seed, workers=workers, progress=tick,
                     out=folder / f"rotation-{k}", allow_clairvoyant=strategy_lib.clairvoyant(s))
        frames.append(_rotations(dataset_rows(folder / f"rotation-{k}").filter(pl.col("game") < games), n, s.name,
                                 only=k))
    return pl.concat(frames)


def _player_folder(i: int) -> str:
    """The folder of the ``i``-th player of the list (from 0) under a ladder's folder."""
    return f"player-{i + 1}"


def stored_rows(folder: Path | str, games: int | None = None) -> pl.DataFrame:
    """The rows a ladder wrote to ``folder`` (its ``out``), read back without playing: the frame :func:`play`
    returns, over deals ``0 .. games - 1`` (every deal on disk without ``games``).

    A folder that holds no ladder raises ``ValueError``; a dataset missing
    from it (a ladder stopped before it began that table) raises it too.
    """
    folder = Path(folder)
    try:
        settings = json.loads((folder / SETTINGS_FILE).read_text("utf-8"))["settings"]
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"{folder}: no readable {SETTINGS_FILE}, so no ladder's folder ({exc})") from None
    n = int(settings["ruleset"]["players"])
    ref = settings["reference"]["name"]
    # The same columns and order as the tables play_table returns (its rows of every rotation).
    frames = [_rotations(dataset_rows(folder / "reference"), n, ref)]
    for i, player in enumerate(settings["players"]):
        if player["name"] == ref:
            continue
        frames += [_rotations(dataset_rows(folder / _player_folder(i) / f"rotation-{k}"), n, player["name"], only=k)
                   for k in range(n)]
    frame = pl.concat(frames, how="vertical_relaxed")
    return frame if games is None else frame.filter(pl.col("game") < games)


def standings(
    frame: pl.DataFrame,
    players: Sequence[str | strategy_lib.Strategy],
    ruleset: rules.Ruleset | str,
    seed: int,
    reference: str | strategy_lib.Strategy = REFERENCE,
    resamples: int = 300,
) -> LadderResult:
    """The ladder of rows :func:`play` (or :func:`stored_rows`) gave for ``players``: every player's place with
    its intervals, as :func:`ladder` returns it (no timing pass). ``seed`` seeds the bootstraps as
    :func:`ladder`'s does; the deals are the frame's."""
    games = int(frame["game"].max()) + 1 if frame.height else 0
    chosen, ref, r = _plan(players, ruleset, max(games, 2), reference, resamples, 0)
    return _result(frame, chosen, ref, r, games, seed, resamples)


def _result(frame: pl.DataFrame, chosen, ref, r: rules.Ruleset, games: int, seed: int,
            resamples: int) -> LadderResult:
    """The ladder of the rows of every table (``arm``: the player's name, the reference's for its own table)."""
    better = rules.better_points(r.game)
    rng = np.random.default_rng([seed, 23])
    points = focal_points(frame)
    won = metrics.win_shares(frame, key="strategy_index").filter(pl.col("strategy_index") == 0)
    compared = finishes(frame, better)
    entries = [ref] + [s for s in chosen if s.name != ref.name]
    ahead, behind = [], []
    for s in entries[1:]:
        t, c = metrics.cluster_arrays(compared, arm=s.name)
        ahead.append(t.sum())
        behind.append(c.sum() - t.sum())
    fitted = rating_fit(np.array(ahead), np.array(behind)) if len(entries) > 1 else np.zeros(0)
    ratings = {s.name: float(x) for s, x in zip(entries[1:], fitted)}
    rungs = []
    for s in entries:
        mine = s.name
        ta, ca, tb, cb = metrics.paired_arrays(points, {"arm": mine}, {"arm": ref.name})
        # Higher is better on the ladder: the reference minus the player where points are a penalty.
        gain = (stats.paired_difference(tb, cb, ta, ca, rng, resamples, unit=UNIT) if better == "lower"
                else stats.paired_difference(ta, ca, tb, cb, rng, resamples, unit=UNIT))
        t, c = metrics.cluster_arrays(compared, arm=mine)
        share = stats.ratio_estimate(t, c, rng, resamples, unit=UNIT)
        t, c = metrics.cluster_arrays(won, arm=mine)
        wins = stats.ratio_estimate(t, c, rng, resamples, unit=UNIT)
        is_ref = mine == ref.name
        unbounded = "" if is_ref else "above" if share.estimate >= 1.0 else "below" if share.estimate <= 0.0 else ""
        rating = 0.0 if is_ref else ratings[mine]
        low, high = (0.0, 0.0) if is_ref else (_log_odds(share.low), _log_odds(share.high))
        rungs.append(Rung(mine, gain, rating, low, high, share, wins, reference=is_ref,
                          ceiling=strategy_lib.clairvoyant(s), unbounded=unbounded))
    order = {s.name: i for i, s in enumerate(chosen)}
    rungs.sort(key=lambda x: (-x.gain.estimate, order.get(x.name, -1)))
    return LadderResult(r, [s.name for s in chosen], ref.name, games, seed, better, rungs, frame)


# ------------------------------------------------------------------ cost
def measure_cpu(ruleset: rules.Ruleset, chosen: Sequence[strategy_lib.Strategy], ref: strategy_lib.Strategy,
                frame: pl.DataFrame, seed: int, timing_games: int = 2) -> dict[str, Timing]:
    """The CPU time of each player's seat on this machine, measured apart from the ladder's games.

    A searching player (the search, the ceiling) plays the first
    ``timing_games`` deals of its table (rotation 0: it sits in seat 0)
    again through :func:`sim.search_effort`, one game at a time on the
    calling thread, which times each game with the thread's CPU clock and
    counts the searched decisions; the reference seats' share (their cost per
    turn, measured as below, times their turns) is taken off. A player
    that does not search costs well under a millisecond a game, too little
    for the clock to see at one seat: a table of it at every seat plays
    ``timing_games × HEURISTIC_TIMING_GAMES`` games on the calling thread
    (``sim.simulate`` with one worker, after one game that loads the
    compiled engine), timed with the thread's CPU clock, and each seat is
    charged its share. The turns of a seat are the ``seat_turns`` of its
    rows. These are this machine's times under its load: no result.

    It is :func:`clock` (what the clock reads) then :func:`charge` (each
    seat's share, from the turns of the ladder's rows ``frame``).

    Returns
    -------
    dict of str to Timing
        One entry per player and for the reference.
    """
    return charge(clock(ruleset, chosen, ref, seed, timing_games), frame, ruleset.players)


@dataclass(frozen=True)
class Clocked:
    """What the timing pass read off the clock for one entry (:func:`clock`), before each seat's share.

    Attributes
    ----------
    name : str
    reference : bool
        The ladder's reference.
    searching : bool
        A searching entry: ``cpu_seconds`` is its table's (its seat and the
        reference seats) over the first ``games`` deals of rotation 0; else a
        table of it at every seat.
    games : int
        Games timed.
    cpu_seconds : float
        Thread CPU seconds of those games.
    turns : int
        Turns begun by every seat of those games; 0 for a searching entry,
        whose turns are the ladder's rows' (the timed games are its deals).
    decisions : int
        Searched decisions of those games (0 for an entry that does not search).
    """

    name: str
    reference: bool
    searching: bool
    games: int
    cpu_seconds: float
    turns: int
    decisions: int

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Clocked:
        return cls(str(d["name"]), bool(d["reference"]), bool(d["searching"]), int(d["games"]),
                   float(d["cpu_seconds"]), int(d["turns"]), int(d["decisions"]))


def clock(ruleset: rules.Ruleset | str, chosen: Sequence[str | strategy_lib.Strategy],
          ref: str | strategy_lib.Strategy = REFERENCE, seed: int = 1, timing_games: int = 2) -> list[Clocked]:
    """The timing pass of :func:`measure_cpu` without the ladder's rows: what the clock reads for the reference
    (first) and each player, as plain values (an experiment keeps them beside its results, never among them).

    A searching entry's share of its table needs the turns of the timed
    deals, which :func:`charge` reads off the ladder's rows.
    """
    r = rules.as_ruleset(ruleset)
    ref = strategy_lib.get(ref)
    n = r.players
    entries = [ref] + [s for s in (strategy_lib.get(p) for p in chosen) if s.name != ref.name]
    out = []
    for s in entries:
        if s.base is not None:  # only a searching strategy has a base (its playouts' strategy)
            # The permission to seat the ceiling is given where it sits, and only there.
            allowed = {"allow_clairvoyant": True} if strategy_lib.clairvoyant(s) else {}
            seated = [s] + [ref] * (n - 1)
            table = sim.search_effort(r, seated, timing_games, seed=seed, **allowed)
            out.append(Clocked(s.name, s is ref, True, timing_games, float(table["cpu_seconds"].sum()), 0,
                               int(table["decisions"].sum())))
        else:
            many = timing_games * HEURISTIC_TIMING_GAMES
            sim.simulate(r, [s] * n, n_games=1, seed=seed, workers=1)
            begin = time.thread_time()
            df = sim.simulate(r, [s] * n, n_games=many, seed=seed, workers=1)
            out.append(Clocked(s.name, s is ref, False, many, time.thread_time() - begin,
                               int(df["seat_turns"].sum()), 0))
    return out


def charge(clocked: Sequence[Clocked], frame: pl.DataFrame, players: int) -> dict[str, Timing]:
    """Each entry's seat's share of what :func:`clock` read: the :class:`Timing` of every entry by name.

    ``frame`` holds the ladder's rows (``arm`` the player's name); a
    searching entry's timed deals are its table's first ones in rotation 0,
    so its seat's turns and the reference seats' are counted there, and the
    reference seats' share (the reference's cost per turn times their
    turns) is taken off its table's time. ``players`` is the table's size.
    """
    ref = next(c for c in clocked if c.reference)

    def turns(c: Clocked) -> tuple[int, int]:
        """(the entry's seat's turns, the other seats' turns) in its timed deals."""
        rows = frame.filter((pl.col("arm") == c.name) & (pl.col("rotation") == 0) & (pl.col("game") < c.games))
        return (int(rows.filter(pl.col("strategy_index") == 0)["seat_turns"].sum()),
                int(rows.filter(pl.col("strategy_index") != 0)["seat_turns"].sum()))

    alone = "thread CPU of a table of it at every seat, one worker (each seat its share)"
    out: dict[str, Timing] = {}
    if ref.searching:
        mine, rest = turns(ref)
        ref_turn = ref.cpu_seconds / max(mine + rest, 1)
        out[ref.name] = Timing(ref.name, ref.games, ref_turn * mine, mine, ref.decisions // players,
                               "sim.search_effort on a table of the reference at every seat (each seat its share)")
    else:
        ref_turn = ref.cpu_seconds / max(ref.turns, 1)
        out[ref.name] = Timing(ref.name, ref.games, ref.cpu_seconds / players, ref.turns // players, None, alone)
    for c in clocked:
        if c.reference:
            continue
        if c.searching:
            mine, rest = turns(c)
            out[c.name] = Timing(c.name, c.games, max(c.cpu_seconds - ref_turn * rest, 0.0), mine,
                                 None if ref.searching else c.decisions,
                                 f"sim.search_effort on its table, less the {ref.name} seats' share")
        else:
            out[c.name] = Timing(c.name, c.games, c.cpu_seconds / players, c.turns // players, None, alone)
    return out
