"""Reviewing a game record: every decision of the record's seat valued from its view, as :func:`sim.analyse` values
a traced game's.

A record (:mod:`sim.game_record`) holds what one seat saw. At each point
where that seat may decide, the record gives its view; the engine stands
there (:meth:`sim.Position.from_view`, every unseen card dealt one way
among many) and settles which decision it is: a turn's draw, each laying
and the ``stop`` that ends the laying before a throw (when the seat could
lay anything), the throw, and its answers to "Puis-je ?". Each decision
is then valued by :func:`sim.analysis.analyse.analyse_step`, the very step
of :func:`sim.analyse`, in belief mode: the review of a record written from
a lab game gives the values :func:`sim.analyse` gives that seat of the full
trace in belief mode with the same seed, since the belief rollouts read
only what the seat saw. A decision's ``event`` is the record's line that
answers it (a pass: the line after it).

A legal laying is never refused. The engine lists a few openings of a hand
and one order of their melds: an opening written in another order is the
listed one, and any other laying the record checked legal is a decision
whose played choice is shown unvalued beside the engine's valued choices
(:attr:`sim.analysis.decisions.Decision.listed`). The decisions after it in
the same turn stand where the record says it left the round, its melds on
the table (:func:`_folded`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace

from sim import cards as cardlib
from sim import rules as rules_lib
from sim.analysis.analyse import DEFAULT_BATCH, DEFAULT_TRIALS, DEFAULT_WIDTH, Step, analyse_step, check_budget
from sim.analysis.decisions import Analysis
from sim.engine.state import G_TURN, S_FIRST_LAY, S_TURNS
from sim.game_record import GameRecord, RecordError, SeatPoint, parse_record, seat_decisions, with_decision
from sim.modes import BELIEF
from sim.position import Position
from sim.seat_view import SeatView, ViewError, default_laid, read_move, turn_start

__all__ = ["record_steps", "review"]


def _same_laying(played: str, legal: Sequence[str]) -> str | None:
    """The engine's choice that lays the very melds of ``played``, an opening written in another order (the
    engine lists one order of an opening's melds), or ``None``."""
    if not played.startswith("open "):
        return None
    melds = sorted(played[len("open "):].split(" + "))
    return next((c for c in legal if c.startswith("open ") and sorted(c[len("open "):].split(" + ")) == melds),
                None)


def _folded(view: SeatView, upto: int) -> tuple[SeatView, str | None]:
    """``view`` with the turn's moves up to ``upto`` (a laying the engine does not list as written, and every
    move before it) taken as done before the turn: the table, the hands, the pile and the stock as the record
    says, the later moves played again from there. Returns the view and the card taken from the pile that the
    folded moves laid (``None`` if none), which the rules still forbid to throw in this turn.

    The engine plays a turn again from its start, move by move, and it cannot play a laying it does not list;
    standing after it, the laid melds lie on the table at the turn's start. The turn still begins with its draw:
    the card drawn from the stock, or a draw whose card is not named when that card went to the table, and the
    card taken from the pile while it is still held (under ``must_use`` it must still be laid).
    """
    moves = view.moves
    later = moves[upto + 1:]
    # The seat's hand just after the folded moves: the later moves given back.
    held = Counter(turn_start(replace(view, moves=later)).hand)
    head: list[str] = []
    dropped = None
    if moves and read_move(moves[0])[0] in ("took", "drew"):
        kind, fields = read_move(moves[0])
        code = None if fields[0] is None else int(cardlib.parse(fields[0])[0])
        if kind == "drew":
            head = [moves[0] if code is not None and held[code] else "drew"]
        elif code is not None and held[code] > Counter(turn_start(view).hand)[code]:
            head = [moves[0]]  # the card taken is still held: it is the turn's take still
        else:
            head, dropped = ["drew"], fields[0]
    new_moves = tuple(head) + later
    r = view.ruleset()
    laid = view.laid if r.add_before_opening else default_laid(view.opened, view.mover, new_moves)
    return replace(view, moves=new_moves, laid=laid), dropped


def _position(view: SeatView, decision: str, strategies: Sequence[str] | None, first_lay_now: bool) -> Position:
    """The engine at ``view``'s ``decision``; ``first_lay_now``: ``view`` is folded (:func:`_folded`) and the
    folded moves were the seat's first laying of the round."""
    view = with_decision(view, decision)
    n = view.players
    # A folded opening of the round's first turn lies on the table as if laid before it, which the seat view
    # notation refuses (no seat lays before turn 0): the engine stands there one round of turns later, then
    # takes those turns back (the turn counter, and the turns each seat has begun, which the re-deals read).
    early = first_lay_now and view.turn == 0 and not view.ruleset().add_before_opening
    if early:
        draws = bool(view.moves) and read_move(view.moves[0])[0] in ("took", "drew")
        view = replace(view, turn=n, moves=view.moves if draws else ("drew", *view.moves))
    position = Position.from_view(view, strategies=strategies)
    state = position.kernel_state()
    if early:
        state.g[G_TURN] = 0
        state.round.seats[:n, S_TURNS] -= 1
    if first_lay_now:
        # The folded melds were the seat's first laying of the round, in this very turn: going out in it is a
        # rami sec (basic rummy's rami, which doubles the winner's gain), as the engine reads it at the round's end.
        state.round.seats[view.mover, S_FIRST_LAY] = 0 if early else view.turn
    return position


def record_steps(record: GameRecord, strategies: Sequence[str] | None = None) -> Iterator[Step]:
    """Every decision of the record's seat as a :class:`~sim.analysis.analyse.Step` (``event``: the record's
    line), its position built from the seat's view with ``strategies`` (default ``expert`` at every seat).

    A laying the record checked legal but the engine does not list among the seat's choices (it lists a few
    openings of a hand: the best, the one laying the most, the one keeping the jokers) is a step whose
    ``listed`` is false: the engine's own choices there are valued, the laying played is not. An opening whose
    melds are a listed one's written in another order is that choice. Either way the decisions after it in the
    same turn stand where the record says the laying left the round (:func:`_folded`).

    Raises :class:`RecordError` at the line whose move the engine refuses.
    """
    fold: tuple[int, int, int] | None = None  # (round, turn, move) of the last laying the engine cannot replay
    for point in seat_decisions(record):
        view = point.view
        dropped = None
        first_lay_now = False
        if fold is not None and fold[:2] == (view.round, view.turn) and view.mover == record.seat:
            first_lay_now = record.seat not in view.laid
            view, dropped = _folded(view, fold[2])
        try:
            if point.played is not None:
                position = _position(view, point.view.decision, strategies, first_lay_now)
                legal = position.legal_choices()
                played, listed = point.played, point.played in legal
                if not listed and point.view.decision == "lay":
                    same = _same_laying(played, legal)
                    played, listed = (same, True) if same is not None else (played, False)
                    fold = (view.round, view.turn, len(point.view.moves))
                elif not listed:
                    raise RecordError(f"the engine does not list {point.played!r} among the seat's choices here "
                                      f"({', '.join(legal)}), so the review cannot value it",
                                      point.entry.line, point.entry.column)
                yield Step(point.entry.line, position, played, listed)
                continue
            # A throw: the laying phase ends by "stop" when the seat could lay anything, then the discard.
            try:
                stop = _position(view, "lay", strategies, first_lay_now)
            except ViewError:
                stop = None
            if stop is not None:
                yield Step(point.entry.line, stop, "stop")
            discard = _position(view, "discard", strategies, first_lay_now)
            # The card taken from the pile (or its twin) is never thrown in the turn it was taken (docs/rules.md
            # item 11); a folded take is no longer the engine's to remember.
            choices = None if dropped is None else tuple(c for c in discard.legal_choices()
                                                         if c != cardlib.Card(int(cardlib.parse(dropped)[0])).text())
            yield Step(point.entry.line, discard, point.card or "", choices=choices)
        except ViewError as exc:
            raise RecordError(f"the move cannot be played from the seat's view here: {exc.reason}",
                              point.entry.line, point.entry.column) from None


def review(
    record: str | GameRecord,
    trials: int = DEFAULT_TRIALS,
    seed: int = 0,
    thresholds: Mapping[str, float] | None = None,
    workers: int = 2,
    width: float | None = DEFAULT_WIDTH,
    batch: int = DEFAULT_BATCH,
    strategies: Sequence[str] | None = None,
) -> Analysis:
    """Every decision of a record's seat valued by belief rollouts from its view (see the module's docstring).

    Parameters
    ----------
    record : str or GameRecord
        A record's text (``docs/real_game.md``) or one read by :func:`sim.game_record.parse_record`.
    trials, seed, thresholds, workers, width, batch
        As for :func:`sim.analyse`.
    strategies : sequence of str, optional
        Who plays the rollouts' futures at each seat (default ``expert``).

    Returns
    -------
    Analysis
        Mode ``"belief"``, the one seat of the record, no trace (``events`` empty); each decision's ``event``
        is the record's line.

    Raises
    ------
    RecordError
        The record cannot be read or cannot happen (its line and column).
    """
    if isinstance(record, str):
        record = parse_record(record)
    if not isinstance(record, GameRecord):
        raise TypeError(f"record must be a record's text or a GameRecord, got {type(record).__name__}")
    marks, trials, workers, batch, seed = check_budget(thresholds, trials, workers, batch, seed, BELIEF, width)
    decisions = [analyse_step(step, trials, BELIEF, seed, marks, workers, width, batch)
                 for step in record_steps(record, strategies)]
    lower = rules_lib.better_points(record.ruleset.game) == "lower"
    return Analysis(events=(), seats=(record.seat,), mode=BELIEF, trials=trials, seed=seed, thresholds=marks,
                    lower_is_better=lower, decisions=tuple(decisions))
