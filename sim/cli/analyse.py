"""``rami analyse``: every decision of a traced game valued by rollouts, its loss, and the blunders marked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from sim.cli.cluster import on_cluster
from sim.cli.common import (
    BadValue,
    Number,
    PathArg,
    ascii_option,
    emit,
    emit_json,
    json_option,
    main,
    table_from,
    traced_game_options,
)
from sim.checks import ROLLOUT_SEED_MAX, is_whole
from sim.modes import BELIEF, MODES

# The analysis defaults, written here too so that `rami analyse --help` and the checks do not load the engine; a
# test holds them equal to sim.analysis's.
DEFAULT_TRIALS = 500
DEFAULT_WIDTH = 2.0
MARK_NAMES = ("doubtful", "bad", "very bad")
DEFAULT_MARKS = {"doubtful": 2.0, "bad": 5.0, "very bad": 10.0}


def parse_seats(text: str | None) -> list[int] | None:
    """``--seats 0,2`` as a list of seat numbers (``None``: every seat); the range is checked against the game."""
    if text is None:
        return None
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise BadValue(f"--seats {text!r}: give seat numbers separated by commas, e.g. --seats 0 or --seats 0,2")
    seats = []
    for t in items:
        if not t.isdigit():
            raise BadValue(f"--seats {text!r}: {t!r} is not a seat number (seats are numbered from 0)")
        seats.append(int(t))
    return seats


def parse_thresholds(items: tuple[str, ...]) -> dict[str, float]:
    """``--mark bad=6`` (repeatable) as a dict of mark to points; ``very_bad`` may stand for ``very bad``."""
    out: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip().replace("_", " ")
        if not sep or name not in MARK_NAMES:
            raise BadValue(f"--mark {item!r}: give MARK=POINTS with MARK one of doubtful, bad, very_bad")
        try:
            out[name] = float(value)
        except ValueError:
            raise BadValue(f"--mark {item!r}: {value!r} is not a number of points") from None
    return out


def read_trace(path: Path) -> list[dict[str, Any]]:
    """A trace file: the JSON list of events that ``rami advise --json`` (without ``--event``) prints, each
    event with or without its ``index``. Refuses an empty, unreadable or malformed file as a bad value."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeError) as exc:
        raise BadValue(f"--trace {str(path)!r}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    if not text.strip():
        raise BadValue(f"--trace {str(path)!r}: the file is empty; write one with "
                       "`rami advise ... --json > game.json`")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadValue(f"--trace {str(path)!r}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, list) or not data or not all(isinstance(e, dict) for e in data):
        raise BadValue(f"--trace {str(path)!r}: not a trace: a JSON list of events (docs/trace.md) is expected")
    events = []
    for i, e in enumerate(data):
        if "index" in e:
            if e["index"] != i:
                raise BadValue(f"--trace {str(path)!r}: event {i} is numbered {e['index']!r}: the events are "
                               "out of order or some are missing")
            e = {k: v for k, v in e.items() if k != "index"}
        events.append(e)
    if events[0].get("type") != "game_start":
        raise BadValue(f"--trace {str(path)!r}: not a whole trace: its first event is not the game_start")
    return events


def check_page_path(path: Path) -> None:
    """``--html FILE`` before anything is played: a file name whose folder exists and may be written (exit 1
    otherwise, as an output folder that cannot be used); an existing page is replaced."""
    import os

    if not path.name.strip():
        raise BadValue("--html is empty: give a file name, e.g. --html game.html")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise click.ClickException(f"--html {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise click.ClickException(f"--html {path}: cannot write in {folder} (no permission)")


def check_analyse(ruleset: str, overrides: tuple[str, ...], seat_names: str | None, seat_text: str | None,
                  marks: tuple[str, ...], trace_file: Path | None, given: list[str]) -> tuple:
    """Every check of ``rami analyse`` made before a game is traced or a rollout played: the table (or the trace
    file, and no game option beside it: ``given`` lists those typed), the seats against it, the marks.
    Returns the trace read (``None`` when the game is to be traced), the ruleset and strategies (``None`` with a
    trace file), the seats (``None``: every one) and the marks' thresholds given."""
    seats = parse_seats(seat_text)
    thresholds = parse_thresholds(marks)
    events = r = names = None
    if trace_file is not None:
        if given:
            raise BadValue(f"--trace names its game: {', '.join(given)} cannot go with it")
        events = read_trace(trace_file)
        players = events[0].get("players")
        if not is_whole(players, 1):
            raise BadValue(f"--trace {str(trace_file)!r}: its game_start event does not say how many players")
    else:
        r, names = table_from(ruleset, overrides, seat_names)
        players = r.players
    if seats is not None:
        out = [s for s in seats if s >= players]
        if out:
            raise BadValue(f"--seats {seat_text!r}: seat {out[0]} is out of range: the game has seats 0 to "
                           f"{players - 1}")
    checked = {**DEFAULT_MARKS, **thresholds}
    if any(not 0 < v < float("inf") for v in checked.values()) or [checked[m] for m in MARK_NAMES] != sorted(
            checked.values()):
        raise BadValue(f"--mark: the points must be positive and grow with the mark (doubtful <= bad <= very_bad), "
                       f"got {', '.join(f'{k} {v:g}' for k, v in checked.items())}")
    return events, r, names, seats, thresholds


@main.command("analyse")
@traced_game_options
@click.option("--trace", "trace_file", type=PathArg(dir_okay=False, path_type=Path), default=None,
              help="Analyse the game of this trace file (the JSON `rami advise --json` prints without --event) "
                   "instead of tracing one; --rules, --set, --strategies, --seed and --game are then refused.")
@click.option("--seats", "seat_text", default=None, metavar="SEAT,SEAT,...", show_default="every seat",
              help="The seats whose decisions are analysed, numbered from 0.")
@click.option("--trials", type=click.IntRange(min=1), default=DEFAULT_TRIALS, show_default=True,
              help="The most trials each choice of a decision is rolled out.")
@click.option("--width", type=Number(min=0, min_open=True), default=DEFAULT_WIDTH, show_default=True,
              help="Stop a decision's rollout once every difference's 95% interval is narrower than this many "
                   "points (clear decisions stop after a batch or two).")
@click.option("--mode", type=click.Choice(list(MODES)), default=BELIEF, show_default=True,
              help="belief: re-deal what the seat could not see; clairvoyant: keep the true hidden cards.")
@click.option("--rollout-seed", type=click.IntRange(min=0, max=ROLLOUT_SEED_MAX), default=0, show_default=True,
              help="Seed of the rollouts' re-deals and futures.")
@click.option("--mark", "marks", multiple=True, metavar="MARK=POINTS",
              help="The loss (round points) that earns a mark, e.g. --mark bad=6 (repeatable; marks: doubtful 2, "
                   "bad 5, very_bad 10 by default).")
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True,
              help="Threads playing trials side by side (the figures do not depend on it).")
@click.option("--max-rounds", type=click.IntRange(min=1), default=None,
              help="Trace at most this many rounds (not with --trace).")
@click.option("--html", "html_path", type=PathArg(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Also write the game page: one self-contained HTML file with the cards, turn by turn, and every "
                   "analysed decision's choices, marks and the timeline of losses (docs/game_page.md).")
@ascii_option
@json_option
@click.pass_context
@on_cluster
def analyse_command(ctx, ruleset, overrides, seat_names, seed, game, trace_file, seat_text, trials, width, mode,
                    rollout_seed, marks, workers, max_rounds, html_path, use_ascii, as_json) -> None:
    """Trace one game (or read --trace) and value every decision of --seats by rollouts: the choice played,
    the best one, the points the played one gave up with a 95% interval, and a mark when the interval
    excludes zero; then the error rate (mean loss per decision) per seat and kind of decision.

    Example: rami analyse --strategies expert,greedy,cautious,expert --seed 3 --seats 1
    """
    given = [f"--{name}" for name, key in (("rules", "ruleset"), ("set", "overrides"), ("strategies", "seat_names"),
                                           ("seed", "seed"), ("game", "game"), ("max-rounds", "max_rounds"))
             if ctx.get_parameter_source(key) == click.core.ParameterSource.COMMANDLINE]
    events, r, names, seats, thresholds = check_analyse(ruleset, overrides, seat_names, seat_text, marks, trace_file,
                                                        given)
    if html_path is not None:
        check_page_path(html_path)
    from sim.analysis.analyse import analyse

    if trace_file is None:
        import sim

        extra = {} if max_rounds is None else {"max_rounds": max_rounds}
        events = sim.play_traced(r, names, seed=seed, game=game, **extra)
    try:
        result = analyse(events, seats=seats, trials=trials, mode=mode, seed=rollout_seed, thresholds=thresholds,
                         workers=workers, width=width)
    except ValueError as exc:
        raise BadValue(f"--trace {str(trace_file)!r}: {exc}" if trace_file is not None else str(exc)) from None
    if html_path is not None:
        from sim.analysis import write_html

        write_html(result, html_path)
    if as_json:
        emit_json(result.to_dict(), use_ascii)
        return
    emit(str(result), use_ascii)
    if html_path is not None:
        emit(f"game page: {html_path.resolve()}", use_ascii)
