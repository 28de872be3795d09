"""Study files: a question of your own in a few lines of TOML, answered as an experiment is.

A study declares its arms (strategies per seat, or a focal strategy and a
field), the rules (a preset and knobs changed), the measures it reports
(named in :data:`MEASURES`, or polars expressions from Python), the games,
seeds, design and precision, and optionally a *sweep*: strategy parameters,
rule knobs, table sizes or opponent mixes, each a factor with its levels,
crossed as a grid. It runs on the experiments' machinery: the same results
store (a killed run resumes), the same paired designs and intervals over
games, two seeds, ``summary.json`` and a report page in the report's index.
``docs/studies.md`` documents every key, with a gallery of study files.

What is measured: every measure is the arm's *focal seat*, its first
strategy (``strategy_index`` 0), which under the duplicate design plays every
seat of every deal. A comparison is one arm's measure minus another's on
the same games (paired; unpaired under ``design = "independent"``). A sweep
plays every arm in every cell of the grid on the same game indices; a
cell's *response* is its first comparison (or, without one, its first arm's
level); an *effect* is a response at one level of a factor minus the
response at the factor's first level; with two factors, an *interaction* is
how much an effect changes between the other factor's first level and
another level (the difference of two effects). Effects and interactions are
linear combinations of ratios over games (:func:`experiments.stats.contrast_estimate`),
with intervals that resample whole games in every cell at once.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.figure import Figure

import strategies as strategy_lib
from experiments import compare, configs, metrics, plots, stats, wording
from experiments.arms import Arm
from experiments.experiment import Experiment
from experiments.findings import Finding, Results, rng_for, rounds_of
from experiments.parts import ArmPart, arm_parts
from sim import conditions
from sim import deals as deals_lib
from sim import rules
from sim.checks import is_whole, whole_range

__all__ = [
    "DESIGNS", "KEYS", "MEASURES", "Key", "Measure", "Study", "StudyError", "StudyResults", "experiment_of", "from_folder",
    "read_study",
]

STUDY_FILE = "study.json"
"""The study as run, beside its pages and runs: what the index and ``rami info`` read it back from."""


class StudyError(ValueError):
    """A study that cannot be run: the message names the file, the line and the key."""


@dataclass(frozen=True)
class Measure:
    """A named measure of the focal seat: its words (the findings' metric), its value per row, which way is better.

    ``better`` is ``"lower"``, ``"higher"``, ``""`` (neither) or ``"points"``
    (the game's own way: lower for a penalty, higher in basic rummy);
    ``where`` restricts the rows counted.
    """

    metric: str
    value: pl.Expr
    better: str = ""
    where: pl.Expr | None = None
    about: str = ""


MEASURES: dict[str, Measure] = {
    "points": Measure(metrics.POINTS_PER_ROUND, pl.col("points"), "points",
                      about="the seat's round points (a penalty in Rami 51 and contrat, a gain in basic rummy)"),
    "won": Measure(metrics.GAMES_WON, pl.col("won").cast(pl.Float64), "higher", pl.col("round") == 0,
                   about="games in which the seat has the best total (a shared best counts for each seat sharing it)"),
    "went_out": Measure("share of rounds gone out", pl.col("went_out").cast(pl.Float64), "higher",
                        about="rounds the seat won by going out"),
    "opened": Measure(metrics.ROUNDS_OPENED, pl.col("opened").cast(pl.Float64), "higher",
                      about="rounds in which the seat laid its opening"),
    "open_turn": Measure("own turn of the opening", pl.col("open_turn"), "lower", pl.col("opened"),
                         about="the seat's own turn (1 = its first) in which it opened, over the rounds it opened"),
    "rami_sec": Measure("share of rounds gone out in one go", pl.col("rami_sec").cast(pl.Float64), "higher",
                        about="rounds the seat went out with a rami sec (basic rummy: a rami)"),
    "jokers_held": Measure("jokers held at the round's end", pl.col("jokers_held"), "lower",
                           about="jokers left in the seat's hand when the round ended"),
    "jokers_laid": Measure(metrics.JOKERS_LAID, pl.col("jokers_laid"),
                           about="jokers the seat laid on the table"),
    "discard_takes": Measure("cards taken from the discard per round", pl.col("discard_takes"),
                             about="cards the seat took from the discard pile"),
    "may_i": Measure(metrics.MAY_I_CARDS, pl.col("may_i"),
                     about="Rami contrat: cards the seat took by \"Puis-je ?\""),
    "seat_turns": Measure("own turns per round", pl.col("seat_turns"), about="turns the seat began in the round"),
    "hand_value": Measure("hand value left per round", pl.col("hand_value"), "lower",
                          about="penalty value of the cards left in the seat's hand, before the unopened rule"),
}
"""The measures a study file may name (``measures = ["points", "won"]``)."""

DESIGNS = {
    "duplicate": "every game is played once per rotation of the arm's strategies through the seats, on the same "
                 "deals in every arm: the luck of the cards cancels inside each game",
    "common": "every arm plays the same deals (common random numbers), each strategy in its own seat",
    "independent": "each arm plays deals of its own (another seed): the unpaired design, for comparison",
}
"""How the arms' games are dealt (``design = "duplicate"``)."""

SWEEP_BUILT_INS = {"players": "the table size", "focal_seats": "how many seats play the focal strategy"}
"""Sweep factors with a meaning of their own; any other factor is written into a field as ``{name}``."""

@dataclass(frozen=True)
class Key:
    """One top-level key of a study file, as data: the reader, its refusals and docs/studies.md's table come from it.

    ``kind`` is the value's type (``"text"``, ``"whole number"``,
    ``"number"``, ``"list"`` or ``"table"``); ``low`` and ``high`` bound a
    number (``low`` may name a key read before it; ``above`` leaves ``low``
    itself out); ``choices`` are the values a text takes, or the items a
    list takes (``item`` naming one); ``rule`` is a check of its own with its
    words; ``form`` says the values in words where the kind alone does not. ``default`` is the value when the key is absent, or a function of
    the file's keys and the values read before it, shown as
    ``default_words`` in the docs. ``meaning`` is what the key is, as
    docs/studies.md says it.
    """

    name: str
    kind: str
    meaning: str
    default: Any = None
    default_words: str | None = None
    low: float | str | None = None
    high: float | None = None
    above: bool = False
    why: str = ""
    choices: tuple[str, ...] | None = None
    item: str = ""
    rule: tuple[Callable[[Any], bool], str] | None = None
    form: str = ""

    @property
    def values(self) -> str:
        """The values the key takes, in words: what a refusal of it says, and docs/studies.md's column."""
        if self.form:
            return self.form
        if self.rule is not None:
            return self.rule[1]
        if self.kind == "list" and self.choices is not None:
            return f"a list of {self.item} names"
        if self.choices is not None:
            return f"one of {', '.join(self.choices)}"
        if self.kind in ("whole number", "number") and self.low is not None:
            words = (f"a {self.kind} from {self.low} to {self.high}" if self.high is not None
                     else f"a {self.kind} above {self.low}" if self.above else f"a {self.kind}, at least {self.low}")
            return words + (f" ({self.why})" if self.why else "")
        return f"a {self.kind}"

    @property
    def default_shown(self) -> str:
        """The default as docs/studies.md's table shows it."""
        if self.default_words is not None:
            return self.default_words
        if self.default is None:
            return "none"
        if isinstance(self.default, str):
            return f"`{self.default}`" if self.default else "empty"
        if isinstance(self.default, list):
            return f"`{json.dumps(self.default)}`"
        return str(self.default)


_KINDS: dict[str, type | tuple[type, ...]] = {"text": str, "whole number": int, "number": (int, float), "list": list,
                                              "table": dict}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def _seeds_ok(v: list) -> bool:
    return 1 <= len(v) <= 2 and all(is_whole(s, 0, 2**63 - 1) for s in v) and len(set(v)) == len(v)


KEYS: tuple[Key, ...] = (
    Key("name", "text", "the folder name (letters, digits, `-`, `_`); not an experiment's name", "study",
        "the file's name", rule=(lambda v: bool(_NAME.match(v)),
                                 "letters, digits, - and _, starting with a letter or digit")),
    Key("title", "text", "the question, the page's title", lambda raw, got: f"Study {got['name']}", "`Study NAME`"),
    Key("about", "text", "how it is measured, in words, for the page", ""),
    Key("game", "text", "a preset (`rami51`, `rami51-ducale`, `rami51-classic`, `contrat`, `basic`) or a ruleset file "
        "(docs/rulesets.md)", "rami51", form="a text: a preset's name or a ruleset file's path"),
    Key("players", "whole number", "seats; arms written as lists set it by their length",
        low=rules.MIN_PLAYERS, high=rules.MAX_PLAYERS),
    Key("games", "whole number", "games per arm and seed", 2000, low=2, why="an interval needs two games"),
    Key("quick_games", "whole number", "games per arm and seed with `--quick`", lambda raw, got: min(200, got["games"]),
        "200 (at most `games`)", low=2),
    Key("seeds", "list", "one or two seeds; with two, the page compares what each concludes", [1, 2],
        rule=(_seeds_ok, "one or two different whole numbers from 0 to 2**63 - 1")),
    # A condition names seats ("seat 0 holds two jokers"): by default the arms keep their strategies in their
    # seats (common deals), since rotations would move the focal strategy away from the seat the condition names.
    Key("design", "text", "how the arms' games are dealt (below)",
        lambda raw, got: "common" if raw.get("condition") else "duplicate", "`common` with a condition, else "
        "`duplicate`", choices=tuple(DESIGNS)),
    Key("precision", "number", "add games until every headline interval is narrower than this (in the measure's "
        "unit, shares as fractions)", low=0, above=True),
    Key("max_games", "whole number", "the most games `precision` may play", 200_000, low="games"),
    Key("measures", "list", "named measures (below); the first is the headline's", ["points"],
        choices=tuple(MEASURES), item="measure"),
    Key("compare", "list", "`[[arm, reference], ...]`", None, "every arm against the first",
        rule=(lambda v: all(isinstance(p, list) and len(p) == 2 for p in v), "a list of [arm, reference] pairs")),
    Key("condition", "text", "deal each game's first round until this condition on the hands holds "
        "([`deals.md`](deals.md))", rule=(lambda v: bool(v.strip()), "a condition on the hands dealt, e.g. "
                                          "\"jokers(0) >= 2\" (docs/deals.md)")),
    Key("rounds", "text", "the rounds measured: `first` is the conditioned deal alone",
        lambda raw, got: "first" if got["condition"] else "all", "`first` with a condition, else `all`",
        choices=("all", "first")),
    Key("rules", "table", "rule knobs changed from the game's preset (docs/rulesets.md lists them)", {}, "none"),
    Key("arms", "table", "`name = [\"strategy\", ...]`, one per seat, or `name = {focal = \"...\", field = \"...\", "
        "focal_seats = 1}`", None, "none: at least one is needed"),
    Key("sweep", "table", "`factor = [level, level, ...]`: one or two factors", {}, "none"),
)
"""Every top-level key of a study file, in the order docs/studies.md lists and the reader reads them."""

TOP_KEYS = {k.name: k.meaning for k in KEYS}
"""The top-level keys by name, with their meaning."""


def key_table() -> str:
    """docs/studies.md's table of the keys, made from :data:`KEYS` (a test holds the docs to it)."""
    rows = ["| key | what it is | values | default |", "|---|---|---|---|"]
    for k in KEYS:
        shown = f"`[{k.name}]`" if k.kind == "table" else f"`{k.name}`"
        rows.append(f"| {shown} | {k.meaning} | {k.values} | {k.default_shown} |")
    return "\n".join(rows) + "\n"


def _read_key(key: Key, raw: Mapping[str, Any], got: Mapping[str, Any]) -> tuple[Any, str | None]:
    """The value of ``key`` in ``raw`` (or its default), and None; or what is wrong with it."""
    default = key.default(raw, got) if callable(key.default) else key.default
    value = raw.get(key.name, default)
    if value is None and default is None:
        return None, None
    kind = _KINDS[key.kind]
    wrong = f"{key.name} = {value!r}: {key.values}"
    if not isinstance(value, kind) or (isinstance(value, bool) and key.kind in ("whole number", "number")):
        return None, wrong
    if key.rule is not None and not key.rule[0](value):
        return None, wrong
    if key.low is not None:
        low = got[key.low] if isinstance(key.low, str) else key.low
        if value < low or (key.above and value == low) or (key.high is not None and value > key.high):
            return None, wrong
    if key.choices is not None and key.kind == "list":
        if not value or not all(isinstance(m, str) for m in value):
            return None, wrong
        bad = [m for m in value if m not in key.choices]
        if bad:
            return None, f"unknown {key.item} {bad[0]!r}; the {key.item}s are: {', '.join(key.choices)}"
    elif key.choices is not None and value not in key.choices:
        return None, wrong
    return value, None

ARM_KEYS = {"focal", "field", "focal_seats"}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


# ------------------------------------------------------------------ reading


def _line_of(text: str, table: tuple[str, ...], key: str | None) -> int | None:
    """The line (from 1) of ``key`` in ``[table]`` of a TOML text, else of the nearest table holding it, if found."""
    headers: dict[tuple[str, ...], int] = {}
    keys: dict[tuple[tuple[str, ...], str], int] = {}
    current: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        header = re.match(r"^\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$", stripped)
        if header:
            current = tuple(part.strip().strip('"').strip("'") for part in header.group(1).split("."))
            headers.setdefault(current, number)
            continue
        written = re.match(r"^(?:\"([^\"]+)\"|'([^']+)'|([A-Za-z0-9_-]+))\s*=", stripped)
        if written:
            keys.setdefault((current, next(g for g in written.groups() if g is not None)), number)
    if key is not None:
        if (table, key) in keys:
            return keys[(table, key)]
        if (*table, key) in headers:  # the key written as a table of its own, [table.key]
            return headers[(*table, key)]
    while table:
        if table in headers:
            return headers[table]
        if (table[:-1], table[-1]) in keys:  # an inline table, arms = {...}
            return keys[(table[:-1], table[-1])]
        table = table[:-1]
    return None


@dataclass(frozen=True)
class Study:
    """A study as read from its file (or mapping), every value checked.

    ``arms`` maps an arm's name to its seats (a tuple of strategy names,
    possibly holding ``{factor}`` placeholders) or to ``{"focal", "field",
    "focal_seats"}``; ``compare`` lists ``(arm, reference)`` pairs; ``sweep``
    maps a factor to its levels.
    """

    name: str
    title: str
    game: str
    players: int | None
    arms: dict[str, Any]
    compare: tuple[tuple[str, str], ...]
    measures: tuple[str, ...]
    design: str = "duplicate"
    games: int = 2000
    quick_games: int = 200
    seeds: tuple[int, ...] = (1, 2)
    precision: float | None = None
    max_games: int = 200_000
    rules: dict[str, Any] = field(default_factory=dict)
    sweep: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    condition: str | None = None
    rounds: str = "all"
    about: str = ""
    source: str = "<study>"

    def to_dict(self) -> dict[str, Any]:
        """The study as plain values (``study.json``), which :func:`read_study` reads back."""
        out = {k: v for k, v in dataclasses.asdict(self).items() if k != "source"}
        out["compare"] = [list(p) for p in self.compare]
        out["measures"] = list(self.measures)
        out["seeds"] = list(self.seeds)
        out["sweep"] = {k: list(v) for k, v in self.sweep.items()}
        out["arms"] = {k: list(v) if isinstance(v, tuple) else dict(v) for k, v in self.arms.items()}
        return out

    def row_spec(self) -> str:
        """What decides a game's rows (rules, arms, design, sweep), as canonical JSON: a run's identity."""
        d = self.to_dict()
        keys = ("game", "players", "arms", "design", "rules", "sweep") + (("condition",) if self.condition else ())
        return json.dumps({k: d[k] for k in keys}, sort_keys=True, ensure_ascii=False)

    # ------------------------------------------------------------ the grid

    def cells(self) -> list[dict[str, Any]]:
        """Every cell of the sweep's grid, a factor's level per factor (one empty cell without a sweep)."""
        names = list(self.sweep)
        return [dict(zip(names, levels)) for levels in product(*(self.sweep[n] for n in names))]

    def arms_of(self, cell: Mapping[str, Any]) -> list[Arm]:
        """The arms played in ``cell``, named with the cell's label when there is a sweep."""
        players = cell.get("players", self.players)
        knobs = {k: _fill(v, cell) for k, v in self.rules.items()}
        game = _fill(self.game, cell)
        ruleset = rules.preset(game, **knobs) if game in rules.PRESETS else rules.load(game, **knobs)
        out = []
        for name, seats in self.arms.items():
            if isinstance(seats, tuple):
                strategies = tuple(str(_fill(s, cell)) for s in seats)
            else:
                focal_seats = int(cell.get("focal_seats", seats.get("focal_seats", 1)))
                strategies = ((str(_fill(seats["focal"], cell)),) * focal_seats
                              + (str(_fill(seats["field"], cell)),) * (players - focal_seats))
            out.append(Arm(arm_name(name, cell), ruleset, strategies, duplicate=self.design == "duplicate",
                           condition=None if self.condition is None else str(_fill(self.condition, cell))))
        return out


def cell_label(cell: Mapping[str, Any]) -> str:
    """``"players=3, open_extra=20"``; empty without a sweep."""
    return ", ".join(f"{k}={v}" for k, v in cell.items())


def arm_name(name: str, cell: Mapping[str, Any]) -> str:
    return f"{name} ({cell_label(cell)})" if cell else name


def _fill(value: Any, cell: Mapping[str, Any]) -> Any:
    """``value`` with each ``{factor}`` replaced by the cell's level; a whole ``"{factor}"`` keeps the level's type."""
    if not isinstance(value, str):
        return value
    whole = _PLACEHOLDER.fullmatch(value)
    if whole and whole.group(1) in cell:
        return cell[whole.group(1)]
    return _PLACEHOLDER.sub(lambda m: str(cell[m.group(1)]) if m.group(1) in cell else m.group(0), value)


def read_study(source: str | Path | Mapping[str, Any]) -> Study:
    """A study from a TOML (or ``study.json``) file or a mapping, every key and combination checked.

    Raises
    ------
    StudyError
        An unknown key, a value of the wrong kind, an impossible combination
        (an arm of the wrong size, an unknown strategy, measure, arm or
        knob, a factor used nowhere); the message names the file, the line
        and the key.
    """
    text = ""
    if isinstance(source, Mapping):
        raw, where = dict(source), "<study>"
    else:
        path = Path(source)
        where = str(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise StudyError(f"study file {where!r} does not exist") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise StudyError(f"cannot read study file {where!r}: {exc}") from None
        try:
            raw = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
        except (ValueError, tomllib.TOMLDecodeError) as exc:
            raise StudyError(f"{where}: not valid {'JSON' if path.suffix == '.json' else 'TOML'} ({exc})") from None
        raw.setdefault("name", path.parent.name if path.name == STUDY_FILE else path.stem)

    def fail(message: str, table: tuple[str, ...] = (), key: str | None = None) -> StudyError:
        line = _line_of(text, table, key) if text and not where.endswith(".json") else None
        at = f"{where} line {line}" if line else where
        return StudyError(f"{at}: {message}")

    unknown = sorted(set(raw) - set(TOP_KEYS))
    if unknown:
        key = unknown[0]
        hint = (" (a top-level key written after a [table] belongs to that table: put the top-level keys first)"
                if key in ("compare", "measures") else "")
        raise fail(f"unknown key {key!r}; the keys are: {', '.join(TOP_KEYS)}{hint}", (), key)
    for table in (k.name for k in KEYS if k.kind == "table"):
        inner = raw.get(table)
        if inner is not None and not isinstance(inner, dict):
            raise fail(f"{table} must be a table ([{table}]), got {inner!r}", (), table)
        for key in (inner or {}):
            if key in TOP_KEYS and table != "rules" and not (table == "sweep" and key in SWEEP_BUILT_INS):
                raise fail(f"{key!r} is a top-level key but is written inside [{table}]: put the top-level keys "
                           "before the first [table]", (table,), key)

    got: dict[str, Any] = {}
    for key in KEYS:
        if key.kind == "table":
            continue  # read below: their keys are checked against each other and the rest
        got[key.name], wrong = _read_key(key, raw, got)
        if wrong is not None:
            raise fail(wrong, (), key.name)
    import experiments

    name = got["name"]
    if name in experiments.EXPERIMENTS:
        raise fail(f"name = {name!r} is an experiment's; give the study another name", (), "name")
    game, players, games, seeds = got["game"], got["players"], got["games"], got["seeds"]
    quick_games, how, precision, max_games = got["quick_games"], got["design"], got["precision"], got["max_games"]
    measures, condition, rounds_measured = got["measures"], got["condition"], got["rounds"]
    title, about = got["title"], got["about"]
    fewest, most = rules.MIN_PLAYERS, rules.MAX_PLAYERS

    # Rules: a preset's knobs, each checked by the rules themselves (placeholders are checked per cell).
    knobs = dict(raw.get("rules") or {})
    if "players" in knobs:
        raise fail("players is set by the arms (or the top-level key players), not in [rules]", ("rules",), "players")
    if "game" in knobs:
        raise fail("the game is the top-level key game, not a knob of [rules]", ("rules",), "game")

    sweep_raw = raw.get("sweep") or {}
    sweep: dict[str, tuple[Any, ...]] = {}
    for factor, levels in sweep_raw.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", factor):
            raise fail(f"sweep factor {factor!r}: a name of letters, digits and _", ("sweep",), factor)
        if not isinstance(levels, list) or len(levels) < 2 or len(set(map(str, levels))) != len(levels):
            raise fail(f"sweep factor {factor} = {levels!r}: a list of at least two different levels",
                       ("sweep",), factor)
        sweep[factor] = tuple(levels)
    if len(sweep) > 2:
        raise fail(f"a sweep takes one or two factors, got {len(sweep)} ({', '.join(sweep)}); run one study per "
                   "pair", ("sweep",), None)
    if "players" in sweep and players is not None:
        raise fail("players is both a top-level key and a sweep factor: keep one", ("sweep",), "players")

    arms_raw = raw.get("arms")
    if not arms_raw:
        raise fail("no arms: add an [arms] table, e.g. expert = [\"expert\", \"greedy\", \"greedy\", \"greedy\"]",
                   (), "arms")
    arms: dict[str, Any] = {}
    for arm, seats in arms_raw.items():
        if isinstance(seats, list):
            if not seats or not all(isinstance(s, str) for s in seats):
                raise fail(f"arm {arm!r}: a list of strategy names, one per seat", ("arms",), arm)
            if "players" in sweep or "focal_seats" in sweep:
                raise fail(f"arm {arm!r} lists its seats, so the sweep cannot change players or focal_seats: "
                           "write it as {focal = ..., field = ...}", ("arms",), arm)
            if players is not None and len(seats) != players:
                raise fail(f"arm {arm!r} has {len(seats)} seats but players = {players}", ("arms",), arm)
            arms[arm] = tuple(seats)
        elif isinstance(seats, dict):
            extra = sorted(set(seats) - ARM_KEYS)
            if extra or "focal" not in seats or "field" not in seats:
                raise fail(f"arm {arm!r}: {{focal = \"...\", field = \"...\", focal_seats = 1}}"
                           + (f"; unknown key {extra[0]!r}" if extra else ""), ("arms", arm) if extra else ("arms",),
                           extra[0] if extra else arm)
            if not all(isinstance(seats[k], str) for k in ("focal", "field")):
                raise fail(f"arm {arm!r}: focal and field are strategy names", ("arms",), arm)
            fs = seats.get("focal_seats", 1)
            if not is_whole(fs, 1):
                raise fail(f"arm {arm!r}: focal_seats is a whole number, at least 1", ("arms",), arm)
            if players is None and "players" not in sweep:
                raise fail(f"arm {arm!r} gives a focal strategy and a field: set players (or sweep it)", (), None)
            arms[arm] = dict(seats)
        else:
            raise fail(f"arm {arm!r}: a list of strategies or {{focal, field}}, got {seats!r}", ("arms",), arm)
    sizes = {len(s) for s in arms.values() if isinstance(s, tuple)}
    if len(sizes) > 1:
        raise fail(f"the arms seat different numbers of players ({', '.join(map(str, sorted(sizes)))}); "
                   "sweep players to compare table sizes", (), "arms")
    if players is None and sizes:
        players = sizes.pop()

    pairs = got["compare"]
    if pairs is None:
        names = list(arms)
        pairs = [[a, names[0]] for a in names[1:]]
    for a, b in pairs:
        for arm in (a, b):
            if arm not in arms:
                raise fail(f"compare names arm {arm!r}; the arms are: {', '.join(arms)}", (), "compare")
        if a == b:
            raise fail(f"compare [{a!r}, {b!r}]: an arm against itself", (), "compare")

    # Placeholders: each names a factor, and each factor (but the built-ins) is used somewhere.
    fields = [game, *[v for v in knobs.values() if isinstance(v, str)], *([condition] if condition else [])]
    for seats in arms.values():
        fields += list(seats) if isinstance(seats, tuple) else [seats["focal"], seats["field"]]
    used = {m for f in fields for m in _PLACEHOLDER.findall(f)}
    for name_used in sorted(used - set(sweep)):
        raise fail(f"{{{name_used}}} is written in the study but is no factor of [sweep]", ("sweep",) if sweep else (),
                   None)
    for factor in sweep:
        if factor not in SWEEP_BUILT_INS and factor not in used:
            raise fail(f"sweep factor {factor!r} is used nowhere: write {{{factor}}} in a strategy, a rule or the "
                       f"game, or use a built-in factor ({', '.join(SWEEP_BUILT_INS)})", ("sweep",), factor)
        if factor == "players" and not all(is_whole(v, fewest, most) for v in sweep[factor]):
            raise fail(f"sweep factor players: each {whole_range(fewest, most)}", ("sweep",), factor)
        if factor == "focal_seats" and not all(is_whole(v, 1) for v in sweep[factor]):
            raise fail("sweep factor focal_seats: whole numbers, at least 1", ("sweep",), factor)

    study = Study(name=name, title=title, game=game, players=players, arms=arms,
                  compare=tuple((a, b) for a, b in pairs), measures=tuple(measures), design=how, games=games,
                  quick_games=quick_games, seeds=tuple(seeds), precision=None if precision is None else float(precision),
                  max_games=max_games, rules=knobs, sweep=sweep, condition=condition, rounds=rounds_measured,
                  about=about, source=where)
    # Every cell is made now, so a bad knob, strategy or table size is refused before anything is played.
    for cell in study.cells():
        try:
            made = study.arms_of(cell)
        except (ValueError, rules.RulesetError) as exc:
            raise fail(f"{cell_label(cell) + ': ' if cell else ''}{exc}", ("rules",) if knobs else (), None) from None
        for written, arm in zip(study.arms, made):
            fs = cell.get("focal_seats")
            if fs is not None and fs >= len(arm.strategies):
                raise fail(f"focal_seats = {fs} leaves no seat to the field at {len(arm.strategies)} players",
                           ("sweep",), "focal_seats")
            for s in arm.strategies:
                try:
                    strategy_lib.get(s)
                except (ValueError, TypeError) as exc:
                    raise fail(f"arm {arm.name!r}: {exc}", ("arms",), written) from None
            try:
                rules.as_ruleset(arm.ruleset).replace(players=len(arm.strategies))
            except (ValueError, rules.RulesetError) as exc:
                raise fail(f"arm {arm.name!r}: {exc}", (), "players") from None
        if condition is not None:
            # Read and checked against the table, and its pilot dealt: a condition too rare to sample is
            # refused with its measured rate, before anything is played.
            first = made[0]
            table = rules.as_ruleset(first.ruleset).replace(players=len(first.strategies))
            try:
                parsed = conditions.Condition(first.condition)
                parsed.check(table)
                deals_lib.pilot_rate(table, parsed, study.seeds[0])
            except ValueError as exc:
                raise fail(f"{cell_label(cell) + ': ' if cell else ''}{exc}", (), "condition") from None
    return study


# ------------------------------------------------------------------ running


@dataclass(frozen=True)
class StudyConfig(configs.Config):
    """A study run's config: the experiments' keys and ``spec``, what decides the rows (:meth:`Study.row_spec`)."""

    spec: str = "{}"


def _seed_of(seed: int, arm_index: int) -> int:
    """The seed of arm ``arm_index`` under the independent design: deals of its own, reproducible."""
    return int(np.random.SeedSequence([seed, 7, arm_index]).generate_state(1, np.uint64)[0] >> 1)


def _parts(study: Study, config: configs.Config) -> list[ArmPart]:
    arms = [a for cell in study.cells() for a in study.arms_of(cell)]
    if study.design == "independent":
        return [p for k, a in enumerate(arms) for p in arm_parts([a], _seed_of(config.seed, k))]
    return arm_parts(arms, config.seed)


def _measures(study: Study, extra: Mapping[str, Any] | None) -> dict[str, compare.Metric]:
    """The study's measures as metrics (the game's way for points), then the expressions given from Python."""
    better_points = rules.better_points(rules.as_ruleset(study.arms_of(study.cells()[0])[0].ruleset).game)
    out = {}
    for name in study.measures:
        m = MEASURES[name]
        out[m.metric] = compare.Metric(m.value, better_points if m.better == "points" else m.better, where=m.where)
    for name, value in (extra or {}).items():
        out[name] = value if isinstance(value, compare.Metric) else compare.Metric(value)
    return out


def _arrays(table: pl.DataFrame, arm: str, games: int) -> tuple[np.ndarray, np.ndarray]:
    """Totals and counts of ``arm`` for games ``0 .. games - 1`` (zeros where it has no row)."""
    rows = table.filter(pl.col("arm") == arm)
    t = np.zeros(games)
    c = np.zeros(games)
    g = rows["game"].to_numpy()
    keep = g < games
    t[g[keep]] = rows["total"].to_numpy()[keep]
    c[g[keep]] = rows["count"].to_numpy()[keep]
    return t, c


def _response(study: Study, cell: Mapping[str, Any]) -> tuple[list[str], list[float], str]:
    """A cell's response as arms and weights (first comparison, or first arm's level) and its words."""
    if study.compare:
        a, b = study.compare[0]
        return [arm_name(a, cell), arm_name(b, cell)], [1.0, -1.0], f"{a} minus {b}"
    first = next(iter(study.arms))
    return [arm_name(first, cell)], [1.0], first


def _findings(study: Study, extra: Mapping[str, Any] | None, frame: pl.DataFrame, config: configs.Config) -> list[Finding]:
    measures = _measures(study, extra)
    cells = study.cells()
    games = int(frame["game"].max()) + 1
    findings: list[Finding] = _acceptance(study, config, games, frame)
    if study.rounds == "first":
        frame = frame.filter(pl.col("round") == 0)
    comparisons = [compare.Comparison(arm_name(a, cell), arm_name(b, cell), cell_label(cell))
                   for cell in cells for a, b in study.compare]
    if study.design != "independent" and comparisons:
        for k, f in enumerate(compare.focal_findings(frame, config, comparisons, measures, 0)):
            headline = len(f.arms) == 2 and f.metric == next(iter(measures)) and not study.sweep
            findings.append(dataclasses.replace(f, headline=headline))
    seat = pl.col("strategy_index") == 0
    for mi, (metric, m) in enumerate(measures.items()):
        table = metrics.per_game(frame, m.value, seat if m.where is None else seat & m.where)
        if study.design == "independent" or not comparisons:
            levels = [(arm_name(a, cell), cell_label(cell)) for cell in cells for a in study.arms]
            for k, (arm, group) in enumerate(levels):
                t, c = _arrays(table, arm, games)
                est = stats.ratio_estimate(t, c, rng_for(config, 1000 * mi + k), config.resamples)
                findings.append(Finding(metric, (arm,), est, games, rounds_of(frame.filter(pl.col("arm") == arm)),
                                        group, headline=not comparisons and mi == 0 and not study.sweep,
                                        better=m.better))
            for k, c_ in enumerate(comparisons):
                ta, ca = _arrays(table, c_.arm, games)
                tb, cb = _arrays(table, c_.reference, games)
                est = stats.unpaired_difference(ta, ca, tb, cb, rng_for(config, 1000 * mi + 500 + k),
                                                config.resamples)
                both = frame.filter(pl.col("arm").is_in([c_.arm, c_.reference]))
                findings.append(Finding(metric, (c_.arm, c_.reference), est, games, rounds_of(both), c_.group,
                                        headline=mi == 0 and not study.sweep, better=m.better))
        findings += _sweep_findings(study, table, frame, config, metric, m.better, mi, games)
    return findings


ACCEPTED = "share of deals the condition accepts"
"""The finding of a conditioned study: accepted deals over deals dealt, per game resampled."""
REST_ACCEPTED = "share of deals the condition's other terms accept"
"""With ``holds()`` terms dealt exactly: the share of those deals the other terms accept (measured)."""


def _acceptance(study: Study, config: configs.Config, games: int, frame: pl.DataFrame) -> list[Finding]:
    """Per cell, the share of deals the condition accepts over the games played (none without a condition).

    The accepted deals are dealt again from the same streams (:func:`sim.deals.sample`): a game's count is
    its deals up to the accepted one, so the share is games over their sum, with games resampled. When
    ``holds()`` terms are dealt exactly (docs/deals.md), that measured share is the other terms' (reported
    too, as :data:`REST_ACCEPTED`), and the condition's is it times the held terms' exact chance.
    """
    if study.condition is None:
        return []
    out = []
    for k, cell in enumerate(study.cells()):
        arm = study.arms_of(cell)[0]
        table = rules.as_ruleset(arm.ruleset).replace(players=len(arm.strategies))
        kept = deals_lib.sample(table, arm.condition, games, seed=config.seed, pilot=0)
        dealt = kept.deals.attempts.astype(np.float64) + 1.0
        est = stats.ratio_estimate(np.ones(games), dealt, rng_for(config, 900 + k), config.resamples,
                                   unit="game")
        rounds = rounds_of(frame.filter(pl.col("arm") == arm.name))
        if kept.held_text is not None:
            out.append(Finding(REST_ACCEPTED, (arm.condition,), est, games, rounds, cell_label(cell)))
            # An exact factor: every bound of the interval scales with it.
            p = kept.held
            est = dataclasses.replace(est, estimate=est.estimate * p, low=est.low * p, high=est.high * p,
                                      normal_low=est.normal_low * p, normal_high=est.normal_high * p)
        out.append(Finding(ACCEPTED, (arm.condition,), est, games, rounds, cell_label(cell)))
    return out


def _sweep_findings(study: Study, table: pl.DataFrame, frame: pl.DataFrame, config: configs.Config, metric: str,
                    better: str, mi: int, games: int) -> list[Finding]:
    """Each factor's effects (at every level of the other factor) and, with two factors, their interactions."""
    if not study.sweep:
        return []
    factors = list(study.sweep)
    out = []
    salt = 1000 * mi + 700

    def contrast(terms: list[tuple[Mapping[str, Any], float]]) -> tuple[stats.Estimate, list[str]]:
        nonlocal salt
        arms, weights = [], []
        for cell, sign in terms:
            names, w, _ = _response(study, cell)
            arms += names
            weights += [sign * x for x in w]
        totals, counts = zip(*(_arrays(table, a, games) for a in arms))
        salt += 1
        est = stats.contrast_estimate(np.stack(totals), np.stack(counts), weights, rng_for(config, salt),
                                      config.resamples)
        return est, arms

    def rounds(arms: list[str]) -> int:
        return rounds_of(frame.filter(pl.col("arm").is_in(arms)))

    for f_index, factor in enumerate(factors):
        others = [o for o in factors if o != factor]
        contexts = [{}] if not others else [{others[0]: level} for level in study.sweep[others[0]]]
        base_level = study.sweep[factor][0]
        for context in contexts:
            for level in study.sweep[factor][1:]:
                high = _cell(study, {**context, factor: level})
                low = _cell(study, {**context, factor: base_level})
                est, arms = contrast([(high, 1.0), (low, -1.0)])
                at = f" at {cell_label(context)}" if context else ""
                out.append(Finding(metric, (cell_label(high), cell_label(low)), est, games, rounds(arms),
                                   f"effect of {factor}: {level} against {base_level}{at}",
                                   headline=mi == 0 and not others, better=better))
    if len(factors) == 2:
        a, b = factors
        a0, b0 = study.sweep[a][0], study.sweep[b][0]
        for ai in study.sweep[a][1:]:
            for bj in study.sweep[b][1:]:
                terms = [(_cell(study, {a: ai, b: bj}), 1.0), (_cell(study, {a: a0, b: bj}), -1.0),
                         (_cell(study, {a: ai, b: b0}), -1.0), (_cell(study, {a: a0, b: b0}), 1.0)]
                est, arms = contrast(terms)
                out.append(Finding(metric, (f"effect of {a} at {b}={bj}", f"effect of {a} at {b}={b0}"), est, games,
                                   rounds(arms), f"interaction: {a} {ai} against {a0}, {b} {bj} against {b0}",
                                   headline=mi == 0, better=""))
    return out


def _cell(study: Study, levels: Mapping[str, Any]) -> dict[str, Any]:
    """The cell with these levels, its factors in the sweep's order (the order arm names are written in)."""
    return {k: levels[k] for k in study.sweep}


# ---------------------------------------------------------------- wording


def _better_word(f: Finding) -> str:
    verdict = wording.verdict(f)
    if verdict == "none":
        return "no measurable difference at this size"
    if not f.better:
        return f"{'higher' if verdict == 'higher' else 'lower'}, the interval excludes zero"
    good = verdict == f.better
    return f"{f.arms[0]} is {'better' if good else 'worse'} (the interval excludes zero)"


def _conclusions(study: Study, findings: list[Finding]) -> list[str]:
    lines = []
    first_metric = next((f.metric for f in findings if f.metric not in (ACCEPTED, REST_ACCEPTED)), "")
    for f in findings:
        if f.metric != first_metric or len(f.arms) != 2:
            continue
        value = f"{wording.fmt(f.metric, f.estimate.estimate, True)} (95% interval {wording.interval_text(f, True)})"
        if f.group.startswith("interaction"):
            what = f.group.removeprefix("interaction: ")
            if wording.verdict(f) == "none":
                lines.append(f"Interaction ({what}): the effect does not measurably depend on the other factor, "
                             f"{value}.")
            else:
                lines.append(f"Interaction ({what}): the effect changes by {value}: it depends on the other factor.")
        elif f.group.startswith("effect of"):
            lines.append(f"{f.group[0].upper()}{f.group[1:]}: {f.metric} ({_response(study, {})[2]}) changes by "
                         f"{value}; {_effect_word(f)}.")
        else:
            where = f" ({f.group})" if f.group else ""
            lines.append(f"{f.arms[0]} against {f.arms[1]}{where}: {f.metric} {value}; {_better_word(f)}.")
    if not lines:
        for f in findings:
            if f.metric == first_metric and len(f.arms) == 1:
                lines.append(f"{f.arms[0]}: {f.metric} {wording.fmt(f.metric, f.estimate.estimate)} "
                             f"(95% interval {wording.interval_text(f)}).")
    for f in findings:
        if f.metric == ACCEPTED:
            where = f" ({f.group})" if f.group else ""
            rest = next((g for g in findings if g.metric == REST_ACCEPTED and g.arms == f.arms and g.group == f.group),
                        None)
            # The whole rate is the held terms' exact chance times the measured share: their ratio is the chance.
            held = "" if rest is None else (
                f": its holds() terms, dealt exactly, have the exact chance "
                f"{wording.fmt(f.metric, f.estimate.estimate / rest.estimate.estimate)}, times the share "
                f"{wording.fmt(rest.metric, rest.estimate.estimate)} (95% interval {wording.interval_text(rest)}) of "
                f"those deals its other terms accept")
            lines.append(f"The condition `{f.arms[0]}`{where} accepts {wording.fmt(f.metric, f.estimate.estimate)} of "
                         f"the deals dealt (95% interval {wording.interval_text(f)}){held}; every arm plays the same "
                         f"accepted deals{', and the measures count that first round alone' if study.rounds == 'first' else ''}.")
    e = findings[0].estimate if findings else None
    if e is not None:
        lines.append(f"Every interval is 95% over {e.clusters:,} games ({DESIGNS[study.design].split(':')[0]}).")
    return lines


def _effect_word(f: Finding) -> str:
    return "no measurable effect at this size" if wording.verdict(f) == "none" else "the interval excludes zero"


def _figures(study: Study, frame: pl.DataFrame, findings: list[Finding]) -> dict[str, Figure]:
    out: dict[str, Figure] = {}
    first_metric = next((f.metric for f in findings if f.metric not in (ACCEPTED, REST_ACCEPTED)),
                        metrics.POINTS_PER_ROUND)
    percent = wording.is_share(first_metric)
    pairs = [f for f in findings if f.metric == first_metric and len(f.arms) == 2 and not f.group.startswith(
        ("effect of", "interaction"))]
    if pairs:
        fig, _ = plots.interval_plot([f"{f.arms[0]} − {f.arms[1]}" for f in pairs], [f.estimate for f in pairs],
                                     f"{first_metric}, difference", title=study.title, percent=percent)
        out["comparisons"] = fig
    elif not study.sweep:
        levels = [f for f in findings if f.metric == first_metric and len(f.arms) == 1]
        fig, _ = plots.interval_plot([f.arms[0] for f in levels], [f.estimate for f in levels], first_metric,
                                     title=study.title, reference=None, percent=percent)
        out["levels"] = fig
    if study.sweep:
        response = _response(study, {})[2]
        estimates = {}
        for cell in study.cells():
            names, _, _ = _response(study, cell)
            estimates[tuple(cell.values())] = _cell_estimate(findings, first_metric, names)
        factors = list(study.sweep)
        if len(factors) == 1:
            f = factors[0]
            fig, _ = plots.effect_curve([str(v) for v in study.sweep[f]],
                                        [estimates[(v,)] for v in study.sweep[f]], f,
                                        f"{first_metric}: {response}", title=study.title, percent=percent,
                                        reference=0.0 if study.compare else None)
            out["sweep"] = fig
        else:
            a, b = factors
            grid = [[estimates[(va, vb)] for vb in study.sweep[b]] for va in study.sweep[a]]
            fig, _ = plots.heat_map([str(v) for v in study.sweep[a]], [str(v) for v in study.sweep[b]], grid, a, b,
                                    f"{first_metric}: {response}", title=study.title, percent=percent,
                                    signed=bool(study.compare))
            out["sweep"] = fig
    return out


def _cell_estimate(findings: list[Finding], metric: str, names: list[str]) -> stats.Estimate:
    """A cell's response among the findings: the comparison of its two arms, or its arm's level."""
    want = tuple(names)
    return next(f.estimate for f in findings if f.metric == metric and f.arms == want)


def _page_blocks(study: Study) -> Callable[[list[Results]], list[tuple]]:
    def blocks(runs: list[Results]) -> list[tuple]:
        out: list[tuple] = [("h2", "The study"),
                            ("p", f"{wording.game_name(study.game)}; design: {study.design} ({DESIGNS[study.design]})."
                                  " Every measure is the arm's focal seat (its first strategy)."),
                            ("table", ["arm", "seats (rotation 0)"],
                             [[name, ", ".join(s) if isinstance(s, tuple) else
                               f"{s.get('focal_seats', 1)} × {s['focal']}, the others {s['field']}"]
                              for name, s in study.arms.items()])]
        if study.sweep:
            out.append(("table", ["factor", "levels"], [[k, ", ".join(map(str, v))] for k, v in study.sweep.items()]))
        if study.condition is not None:
            held = conditions.Condition(study.condition).held_terms if "{" not in study.condition else []
            out.append(("p", f"Conditioned deals: each game's first round is dealt from its deck stream until "
                             f"`{study.condition}` holds (docs/deals.md), the same accepted deals for every arm"
                             + (f" ({' and '.join(held)} dealt exactly, the rest of the deck shuffled)" if held else "")
                             + "; "
                             + ("the measures count that round alone." if study.rounds == "first" else
                                "the measures count every round of the game.")))
        return out

    return blocks


def experiment_of(study: Study, measures: Mapping[str, Any] | None = None) -> Experiment:
    """The study as an :class:`~experiments.experiment.Experiment`: what the runner, the report and ``rami info`` use.

    ``measures`` adds named polars expressions (or
    :class:`experiments.compare.Metric`) to the study's named measures.
    """
    config_type = dataclasses.make_dataclass(
        "StudyConfig", [("games", int, field(default=study.games)), ("spec", str, field(default=study.row_spec()))],
        bases=(StudyConfig,), frozen=True)
    config_type.__module__ = __name__
    extra = dict(measures or {})
    text = study.about or (f"A study of {wording.game_name(study.game)}, from its study file ({study.source}).")
    return Experiment(
        name=study.name, title=study.title, config_type=config_type, quick={"games": study.quick_games},
        parts=lambda config: _parts(study, config),
        analyse=lambda frame, config: _findings(study, extra, frame, config),
        conclusions=lambda findings, config: _conclusions(study, findings),
        figures=lambda frame, findings, config: _figures(study, frame, findings),
        about=f"{study.title}\n\n{text} {__doc__.split(chr(10) + chr(10))[1]}",
        page_blocks=_page_blocks(study),
        notes=tuple(f"{m}: {MEASURES[m].about}" for m in study.measures),
        command=lambda config: f"rami study {study.name}/{STUDY_FILE}",
    )


def from_folder(folder: Path | str) -> Experiment:
    """The experiment of a study's folder (its ``study.json``), to read a run back or list it in the index."""
    return experiment_of(read_study(Path(folder) / STUDY_FILE))


@dataclass
class StudyResults:
    """What :func:`experiments.report.run_study` returns: the study, one run per seed, and the page (when written)."""

    study: Study
    runs: list[Results]
    page: Path | None = None

    @property
    def findings(self) -> list[Finding]:
        """The first seed's findings."""
        return self.runs[0].findings

    @property
    def conclusions(self) -> list[str]:
        return self.runs[0].conclusions
