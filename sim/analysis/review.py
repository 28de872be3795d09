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
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from sim import rules as rules_lib
from sim.analysis.analyse import DEFAULT_BATCH, DEFAULT_TRIALS, DEFAULT_WIDTH, Step, analyse_step, check_budget
from sim.analysis.decisions import Analysis
from sim.game_record import GameRecord, RecordError, SeatPoint, parse_record, seat_decisions, with_decision
from sim.position import Position
from sim.seat_view import ViewError

__all__ = ["record_steps", "review"]


def _position(point: SeatPoint, decision: str, strategies: Sequence[str] | None) -> Position:
    return Position.from_view(with_decision(point.view, decision), strategies=strategies)


def record_steps(record: GameRecord, strategies: Sequence[str] | None = None) -> Iterator[Step]:
    """Every decision of the record's seat as a :class:`~sim.analysis.analyse.Step` (``event``: the record's
    line), its position built from the seat's view with ``strategies`` (default ``expert`` at every seat).

    Raises :class:`RecordError` at the line whose move the engine refuses.
    """
    for point in seat_decisions(record):
        guess = point.view.decision
        try:
            if point.played is not None:
                position = _position(point, guess, strategies)
                legal = position.legal_choices()
                if point.played not in legal:
                    # The engine lists a few openings of a hand (the best, the one laying the most, the one
                    # without a joker): an opening a person chose otherwise has no rollout to value it.
                    raise RecordError(f"the engine does not list {point.played!r} among the seat's choices here "
                                      f"({', '.join(legal)}), so the review cannot value it",
                                      point.entry.line, point.entry.column)
                yield Step(point.entry.line, position, point.played)
                continue
            # A throw: the laying phase ends by "stop" when the seat could lay anything, then the discard.
            try:
                stop = _position(point, "lay", strategies)
            except ViewError:
                stop = None
            if stop is not None:
                yield Step(point.entry.line, stop, "stop")
            yield Step(point.entry.line, _position(point, "discard", strategies), point.card or "")
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
    marks, trials, workers, batch, seed = check_budget(thresholds, trials, workers, batch, seed, "belief", width)
    decisions = [analyse_step(step, trials, "belief", seed, marks, workers, width, batch)
                 for step in record_steps(record, strategies)]
    lower = rules_lib.better_points(record.ruleset.game) == "lower"
    return Analysis(events=(), seats=(record.seat,), mode="belief", trials=trials, seed=seed, thresholds=marks,
                    lower_is_better=lower, decisions=tuple(decisions))
