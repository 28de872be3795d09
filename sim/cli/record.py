"""``rami record`` and ``rami review``: a game written down from one seat's view, and every decision of that seat
valued from it."""

from __future__ import annotations

from pathlib import Path

import click

from sim.cli.analyse import check_analyse, check_page_path, parse_thresholds
from sim.cli.common import (
    BadValue,
    Number,
    PathArg,
    ascii_option,
    emit,
    emit_json,
    json_option,
    main,
    traced_game_options,
)
from sim.checks import ROLLOUT_SEED_MAX
from sim.modes import BELIEF

_GAME_OPTIONS = (("rules", "ruleset"), ("set", "overrides"), ("strategies", "seat_names"), ("seed", "seed"),
                 ("game", "game"), ("max-rounds", "max_rounds"))


@main.command("record")
@traced_game_options
@click.option("--trace", "trace_file", type=PathArg(dir_okay=False, path_type=Path), default=None,
              help="Write the record of the game of this trace file (the JSON `rami advise --json` prints without "
                   "--event) instead of tracing one; the game options are then refused.")
@click.option("--seat", type=click.IntRange(min=0), required=True, help="The seat whose record is written.")
@click.option("--max-rounds", type=click.IntRange(min=1), default=None,
              help="Trace at most this many rounds (not with --trace).")
@ascii_option
@click.pass_context
def record_command(ctx, ruleset, overrides, seat_names, seed, game, trace_file, seat, max_rounds, use_ascii) -> None:
    """Trace one game (or read --trace) and print the record of --seat: what that seat saw, one line per event,
    in the grammar a person writes after a real game (docs/real_game.md).

    Example: rami record --strategies expert,expert,expert --seed 3 --seat 1 > game.txt
    """
    given = [f"--{name}" for name, key in _GAME_OPTIONS
             if ctx.get_parameter_source(key) == click.core.ParameterSource.COMMANDLINE]
    try:
        events, r, names, _, _ = check_analyse(ruleset, overrides, seat_names, str(seat), (), trace_file, given)
    except BadValue as exc:
        raise BadValue(exc.format_message().replace(f"--seats '{seat}'", f"--seat {seat}")) from None
    from sim.game_record import write_record

    if events is None:
        import sim

        extra = {} if max_rounds is None else {"max_rounds": max_rounds}
        events = sim.play_traced(r, names, seed=seed, game=game, **extra)
    try:
        text = write_record(events, seat)
    except (KeyError, TypeError, ValueError) as exc:
        raise BadValue(f"--trace {str(trace_file)!r}: not a trace of the lab: {exc}") from None
    emit(text.rstrip("\n"), use_ascii)


@main.command("review")
@click.argument("record_path", metavar="RECORD", type=PathArg(dir_okay=False, path_type=Path))
@click.option("--trials", type=click.IntRange(min=1), default=500, show_default=True,
              help="The most trials each choice of a decision is rolled out.")
@click.option("--width", type=Number(min=0, min_open=True), default=2.0, show_default=True,
              help="Stop a decision's rollout once every difference's 95% interval is narrower than this many "
                   "points.")
@click.option("--rollout-seed", type=click.IntRange(min=0, max=ROLLOUT_SEED_MAX), default=0, show_default=True,
              help="Seed of the rollouts' re-deals and futures.")
@click.option("--mark", "marks", multiple=True, metavar="MARK=POINTS",
              help="The loss (round points) that earns a mark, e.g. --mark bad=6 (repeatable).")
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True,
              help="Threads playing trials side by side (the figures do not depend on it).")
@click.option("--html", "html_path", type=PathArg(dir_okay=False, path_type=Path), default=None, metavar="PAGE",
              help="Also write the review's game page: one self-contained HTML file with what the seat saw, line "
                   "by line (its own hand, the public moves, the other hands by their sizes), every reviewed "
                   "decision's choices and marks, and the timeline of losses (docs/real_game.md).")
@ascii_option
@json_option
def review_command(record_path, trials, width, rollout_seed, marks, workers, html_path, use_ascii,
                   as_json) -> None:
    """Value every decision of a game record's seat (docs/real_game.md) by belief rollouts from what it saw: the
    choice played, the best one, the points given up with a 95% interval, marks and error rates, as `rami
    analyse` gives them.

    Example: rami review game.txt --html game.html
    """
    thresholds = parse_thresholds(marks)
    from sim.analysis.analyse import check_budget
    from sim.analysis.review import review
    from sim.game_record import RecordError, parse_record

    try:
        check_budget(thresholds, trials, workers, 1, rollout_seed, BELIEF, width)
    except ValueError as exc:
        raise BadValue(f"--mark: {exc}") from None
    if html_path is not None:
        check_page_path(html_path)
    try:
        text = record_path.read_text(encoding="utf-8")
    except (OSError, UnicodeError) as exc:
        raise BadValue(f"RECORD {str(record_path)!r}: cannot read it ({getattr(exc, 'strerror', None) or exc})") \
            from None

    try:
        record = parse_record(text)
    except RecordError as exc:
        raise BadValue(f"{record_path}: {exc}") from None
    try:
        result = review(record, trials=trials, seed=rollout_seed, thresholds=thresholds, workers=workers,
                        width=width)
    except RecordError as exc:
        raise BadValue(f"{record_path}: {exc}") from None
    if html_path is not None:
        from sim.analysis.page import write_review_html

        write_review_html(record, result, html_path)
    if as_json:
        emit_json(result.to_dict(), use_ascii)
        return
    emit(str(result), use_ascii)
    if html_path is not None:
        emit(f"game page: {html_path.resolve()}", use_ascii)
