"""Analysing a traced game: every decision of the chosen seats valued by rollouts, its loss and its mark.

:func:`analyse` walks a trace (``docs/trace.md``) round by round. Each round
is replayed once: the position of its deal (:meth:`sim.Position.from_trace`)
and then, decision after decision, the position the trace's choice leads to,
so that a game of a few hundred decisions is replayed in one pass rather
than once per decision. At every decision of an analysed seat with more
than one legal choice, :func:`sim.rollout` plays every legal choice out on
common futures with its sequential stop (``width``), so that a clear
decision costs a few batches of trials and a close one the most
(``trials``); the played choice's loss is its paired difference from the
best one, signed so that a positive loss cost points whichever way the
game's points go, and it is marked by :func:`sim.analysis.decisions.mark`.

The played choice. The trace records events, not choices: :func:`played_choice`
writes the choice a decision's next events are, in the notation of
:meth:`sim.Position.legal_choices` (a draw: ``take 9♠`` or ``stock``, also
when basic rummy's draw from the stock turns the pile over and the round
stops at that turning, a ``restock`` then a ``blocked`` ``cycle``; a
laying: the ``open``, ``meld``, ``add`` or ``recover`` event, a recovery with
the laying that follows it; ``stop`` when the next event is the discard; a
discard: its card; a "Puis-je ?": ``ask for 7♣ ("Puis-je ?")`` when the next
event is the asker's ``may_i``, else ``pass``), and the walk checks that
playing it reproduces the trace's events exactly, raising ``ValueError``
otherwise.

Where a decision stands. ``Decision.event`` is the trace index of its
first event: ``Position.from_trace(events, event)`` stands at the same
decision, with one exception: a laying phase ended by ``stop`` records no
event of its own, so its ``event`` is the index of the discard that follows
(``from_trace`` stands at that discard; the two are told apart by ``kind``).
A draw whose turn began with a restock of the stock starts at the
``restock`` event.

"Puis-je ?" (Rami contrat). After each draw from the stock the other seats
are asked in turn (the position machine stops at each asker's answer), so
the decisions of an analysed seat include its answers during the others'
turns (``kind`` ``"may_i"``, ``seat`` the asker, ``turn`` the drawer's
turn). An answer that asked starts at its ``may_i`` event, where
``from_trace`` stands at it; a ``pass`` writes no event, so, as a ``stop``,
its ``event`` is the index of the event that follows it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sim import ahead, distributed
from sim import rules as rules_lib
from sim.analysis.decisions import KINDS, MARK_THRESHOLDS, MARKS, Analysis, Candidate, Decision, mark
from sim.checks import ROLLOUT_SEED_MAX, check_seed, check_whole, is_whole
from sim.modes import BELIEF, MODES
from sim.position import Position
from sim.rollouts import Rollout, rollout
from sim.seat_view import format_view

__all__ = ["DEFAULT_BATCH", "DEFAULT_TRIALS", "DEFAULT_WIDTH", "KINDS", "Step", "analyse", "analyse_step",
           "analyse_steps", "check_budget", "decision_of", "played_choice", "walk"]


# The default budget: at most DEFAULT_TRIALS trials per choice, looked at every DEFAULT_BATCH trials and
# stopped once every difference's interval is narrower than DEFAULT_WIDTH round points. Two points is the
# smallest loss that earns a mark, so a narrower interval would buy precision no mark reads; 500 trials
# keep a whole seat of a Rami 51 game under a minute on two cores (benchmarks/bench_analyse.py).
DEFAULT_TRIALS = 500
DEFAULT_BATCH = 50
DEFAULT_WIDTH = 2.0

_LAYINGS = ("open", "meld", "add", "recover")


@dataclass(frozen=True)
class Step:
    """One decision of a trace as :func:`walk` meets it.

    ``event``: where it stands (see the module's docstring); ``position``:
    the position at the decision; ``played``: the choice the trace played,
    in the notation of :meth:`sim.Position.legal_choices`. ``listed`` is
    false for a legal laying of a game record that the engine does not list
    among its choices (:func:`sim.review`): the engine's choices are valued,
    the one played is not. ``choices``: the choices to value when not every
    one the engine lists is legal (default: all of them).
    """

    event: int
    position: Position
    played: str
    listed: bool = True
    choices: tuple[str, ...] | None = None


def _end_text(end: Any) -> str:
    return f" {end}" if end else ""


def played_choice(events: Sequence[Mapping[str, Any]], at: int, decision: str, seat: int | None = None) -> str:
    """The choice the trace played at a ``decision`` (``"draw"``, ``"lay"``, ``"discard"``, ``"may_i"``) whose
    next event is ``events[at]``, written as :meth:`sim.Position.legal_choices` writes it; ``seat``, the asker,
    for a ``"may_i"`` (it asked when the next event is its ``may_i``, else it passed).

    Raises ``ValueError`` when the events there are not such a choice, or are not events as docs/trace.md
    writes them (a trace from a file may lack a key or hold a value of another kind).
    """
    try:
        return _played_choice(events, at, decision, seat)
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"event {at} is not an event of docs/trace.md: {type(exc).__name__} {exc}") from None


def _played_choice(events: Sequence[Mapping[str, Any]], at: int, decision: str, seat: int | None) -> str:
    if not 0 <= at < len(events):
        raise ValueError(f"the trace ends before the {decision} at event {at}")
    e = events[at]
    t = e.get("type")
    if decision == "may_i":
        if seat is None:
            raise ValueError("a \"Puis-je ?\" decision's played choice needs its asker's seat")
        return f'ask for {e["card"]} ("Puis-je ?")' if t == "may_i" and e.get("seat") == seat else "pass"
    if decision == "draw":
        if t == "restock" and at + 1 < len(events):  # a pile turned over by the draw from the stock comes first
            e, t = events[at + 1], events[at + 1].get("type")
            if t == "blocked":
                # Basic rummy: turning the pile over brought deterministic players back to a position of an
                # earlier turning (a cycle), so the round stops there: the draw from the stock turned it over.
                return "stock"
        if t == "draw":
            return f"take {e['card']}" if e["source"] == "discard" else "stock"
    elif decision == "lay":
        if t == "open":
            return "open " + " + ".join(m["cards"] for m in e["melds"])
        if t == "meld":
            return f"meld {e['cards']}"
        if t == "add":
            return f"add {e['card']} to {e['id']}{_end_text(e.get('end'))}"
        if t == "recover":
            head = f"recover {e['card']} from {e['id']}"
            after = events[at + 1] if at + 1 < len(events) else {}
            if after.get("type") == "meld":
                return f"{head}, meld {after['cards']}"
            if after.get("type") == "add":
                return f"{head}, joker to {after['id']}{_end_text(after.get('end'))}"
            raise ValueError(f"the recovery at event {at} is not followed by the laying of its joker")
        if t in ("discard", "out"):
            return "stop"
    elif decision == "discard":
        if t == "discard":
            return str(e["card"])
    raise ValueError(f"event {at} ({t}) is not the choice of a {decision} decision")


def walk(events: Sequence[Mapping[str, Any]]) -> Iterator[Step]:
    """Every decision of a whole trace, in order, with the choice played there (see the module's docstring).

    Each round is replayed once by the engine; the choice found at each
    decision is checked to reproduce the trace's events. Raises
    ``ValueError`` for a trace that does not replay.
    """
    events = list(events)
    deals = [i for i, e in enumerate(events) if isinstance(e, dict) and e.get("type") == "deal"]
    for deal in deals:
        position = Position.from_trace(events, deal)
        last = position.events[-1]
        at = deal + len(position.events)  # the trace index of the next event the round writes
        while position.decision != "over":
            played = played_choice(events, at, position.decision, position.seat)
            legal = position.legal_choices()
            if played not in legal:
                raise ValueError(f"the trace cannot be replayed: at event {at} it plays {played!r}, not a legal "
                                 f"{position.decision} (legal: {', '.join(legal)})")
            # The seat's own strategy replays the trace as Position.from_trace does (its random streams move as
            # they did in the game); a trace whose choice is not the strategy's is played by apply.
            chosen, after = position.step()
            if chosen != played:
                after = position.apply(played)
            new = after.events_after(position.event_rows)
            if new != events[at:at + len(new)]:
                raise ValueError(f"the trace cannot be replayed: {played!r} at event {at} does not lead to the "
                                 f"trace's next events")
            # A draw whose turn began by restocking starts at the restock (Position.from_trace stands there).
            first = at - 1 if position.decision == "draw" and last["type"] == "restock" else at
            yield Step(first, position, played)
            if new:
                last = new[-1]
            at += len(new)
            position = after


def _check_thresholds(thresholds: Mapping[str, float] | None) -> dict[str, float]:
    if thresholds is None:
        return dict(MARK_THRESHOLDS)
    if not isinstance(thresholds, Mapping):
        raise ValueError(f"thresholds must be a dict of {', '.join(MARKS)} to points, got {thresholds!r}")
    unknown = [k for k in thresholds if k not in MARKS]
    if unknown:
        raise ValueError(f"unknown mark {unknown[0]!r} in thresholds; the marks are: {', '.join(MARKS)}")
    out = {**MARK_THRESHOLDS, **thresholds}
    for k, v in out.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise ValueError(f"thresholds[{k!r}] must be a positive number of points, got {v!r}")
    values = [float(out[k]) for k in MARKS]
    if values != sorted(values):
        raise ValueError(f"thresholds must grow with the mark ({', '.join(MARKS)}), got {out}")
    return {k: float(out[k]) for k in MARKS}


def _check_seats(seats: Sequence[int] | int | None, players: int) -> tuple[int, ...]:
    if seats is None:
        return tuple(range(players))
    if is_whole(seats):
        seats = [seats]
    if isinstance(seats, str) or not isinstance(seats, Sequence) or not seats:
        raise ValueError(f"seats must be a list of seats 0 .. {players - 1}, got {seats!r}")
    for s in seats:
        if not is_whole(s):
            raise ValueError(f"seats must be whole numbers, got {s!r}")
        if not 0 <= s < players:
            raise ValueError(f"seat {s} is out of range: the game has seats 0 .. {players - 1}")
    return tuple(sorted({int(s) for s in seats}))


def check_budget(thresholds: Mapping[str, float] | None, trials: int, workers: int, batch: int, seed: int, mode: str,
                 width: float | None) -> tuple[dict[str, float], int, int, int, int]:
    """The checks of an analysis's budget and marks (:func:`analyse`'s arguments): ``(marks, trials, workers,
    batch, seed)``, or ``ValueError`` naming the argument."""
    trials = check_whole("trials", trials, 1)
    workers = check_whole("workers", workers, 1)
    batch = check_whole("batch", batch, 1)
    seed = check_seed(seed, ROLLOUT_SEED_MAX)
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if width is not None and (isinstance(width, bool) or not isinstance(width, (int, float)) or not width > 0):
        raise ValueError(f"width must be a positive number of points or None, got {width!r}")
    return _check_thresholds(thresholds), trials, workers, batch, seed


def analyse_step(step: Step, trials: int = DEFAULT_TRIALS, mode: str = BELIEF, seed: int = 0,
                 thresholds: Mapping[str, float] | None = None, workers: int = 2, width: float | None = DEFAULT_WIDTH,
                 batch: int = DEFAULT_BATCH) -> Decision:
    """One decision of :func:`walk` valued as :func:`analyse` values it (the arguments are :func:`analyse`'s).

    A decision with a single legal choice is not rolled out: loss 0, no
    mark, its lone candidate ``trials`` 0 and ``points`` NaN. A step whose
    played choice is not ``listed`` gives a decision whose played candidate
    is not valued (see :func:`decision_of`).
    """
    p = step.position
    legal = list(step.choices) if step.choices is not None else p.legal_choices()
    if len(legal) < 2:
        nan = float("nan")
        only = Candidate(step.played if step.listed else legal[0], 0, nan, (nan, nan), 0.0, (0.0, 0.0), True,
                         step.listed)
        if step.listed:
            return Decision(step.event, p.round, p.turn, p.seat, p.decision, step.played, step.played, 0.0,
                            (0.0, 0.0), None, (only,), format_view(p.view()))
        return Decision(step.event, p.round, p.turn, p.seat, p.decision, step.played, only.choice, nan, (nan, nan),
                        None, (only, _unvalued(step.played)), format_view(p.view()), listed=False)
    marks = _check_thresholds(thresholds)
    result = rollout(p, choices=legal if step.choices is not None else None, n=trials, mode=mode, seed=seed,
                     width=width, batch=batch, workers=workers)
    return decision_of(step.event, p, step.played, result, marks, listed=step.listed)


def _unvalued(choice: str) -> Candidate:
    """The candidate of a played choice no rollout valued: no trials, its points and loss NaN."""
    nan = float("nan")
    return Candidate(choice, 0, nan, (nan, nan), nan, (nan, nan), False, True)


def decision_of(event: int, position: Position, played: str, result: Rollout,
                thresholds: Mapping[str, float] | None = None, listed: bool = True) -> Decision:
    """The decision at ``position`` (trace index ``event``) where ``played`` was chosen, valued by ``result``
    (a rollout of some of its choices, ``played`` among them): the one place a rollout becomes a decision's
    candidates, losses and mark, for :func:`analyse` and for the worked examples of the fork experiments.

    With ``listed`` false, ``played`` is a legal laying the engine does not list (a game record's, checked by
    the rules reference), so no rollout played it: it is the last candidate, with no trials and NaN points and
    loss, and the decision's loss is NaN and unmarked (:attr:`Decision.listed`)."""
    marks = _check_thresholds(thresholds)
    # A rollout's difference is "points - points of the best"; a loss is what the choice gave up, so it is that
    # difference when fewer points are better and its opposite when more are.
    sign = 1.0 if result.lower_is_better else -1.0
    candidates = []
    for c in result.choices:
        lo, hi = (sign * c.diff_ci[0], sign * c.diff_ci[1])
        loss_ci = (min(lo, hi) + 0.0, max(lo, hi) + 0.0)
        candidates.append(Candidate(c.choice, c.trials, c.points, c.points_ci, sign * c.diff + 0.0, loss_ci, c.best,
                                    c.choice == played))
    best = next(c for c in candidates if c.best)
    if not listed:
        if any(c.played for c in candidates):
            raise ValueError(f"the played choice {played!r} is among the rollout's choices: it is listed")
        nan = float("nan")
        return Decision(event, position.round, position.turn, position.seat, position.decision, played, best.choice,
                        nan, (nan, nan), None, (*candidates, _unvalued(played)), format_view(position.view()),
                        listed=False)
    chosen = next((c for c in candidates if c.played), None)
    if chosen is None:
        raise ValueError(f"the played choice {played!r} is not among the rollout's choices")
    return Decision(event, position.round, position.turn, position.seat, position.decision, played, best.choice,
                    chosen.loss, chosen.loss_ci, mark(chosen.loss, chosen.loss_ci, marks), tuple(candidates),
                    format_view(position.view()))


def analyse_steps(events: Sequence[Mapping[str, Any]], indices: Sequence[int], trials: int, mode: str, seed: int,
                  thresholds: Mapping[str, float], workers: int, width: float | None, batch: int) -> list[Decision]:
    """The decisions of :func:`walk` at positions ``indices`` (counted from 0 over every step of the trace),
    valued as :func:`analyse` values them: a share of an analysis played on a Dask worker."""
    todo = set(indices)
    decisions = []
    for k, step in enumerate(walk(events)):
        if k in todo:
            decisions.append(analyse_step(step, trials, mode, seed, thresholds, workers, width, batch))
            if len(decisions) == len(todo):
                break
    return decisions


@distributed.on_cluster
def analyse(
    events: Sequence[Mapping[str, Any]],
    seats: Sequence[int] | int | None = None,
    trials: int = DEFAULT_TRIALS,
    mode: str = BELIEF,
    seed: int = 0,
    thresholds: Mapping[str, float] | None = None,
    workers: int = 2,
    width: float | None = DEFAULT_WIDTH,
    batch: int = DEFAULT_BATCH,
    scheduler: Any = None,
) -> Analysis:
    """Every decision of ``seats`` in a traced game, valued by rollouts (see the module's docstring).

    Parameters
    ----------
    events : sequence of dict
        A whole trace from :func:`sim.play_traced` (``docs/trace.md``).
    seats : int or sequence of int, optional
        The seats analysed (default: every seat).
    trials : int
        The most trials a choice is played (:func:`sim.rollout`'s ``n``).
    mode : {"belief", "clairvoyant"}
        ``belief`` re-deals what the seat could not see (what it should have
        played knowing what it knew); ``clairvoyant`` keeps the true cards.
    seed : int
        The rollouts' seed; every decision's rollout uses it, so
        ``sim.rollout(Position.from_trace(events, d.event), seed=seed, ...)``
        gives a decision's figures again (a ``stop`` excepted: its position is
        the one before the discard at ``d.event``).
    thresholds : dict, optional
        Points that earn each mark (default :data:`MARK_THRESHOLDS`); a partial
        dict changes only the marks it names.
    workers : int
        Threads playing trials side by side; the figures do not depend on it.
    width : float or None
        The sequential stop: a decision's rollout stops once every difference's
        interval is narrower than this many points (``None``: exactly ``trials``).
    batch : int
        Trials per look of the sequential stop.
    scheduler : str or distributed.Client, optional
        Value the decisions on this Dask cluster (:mod:`sim.distributed`),
        a share of them per task: the same analysis as a local run.

    Returns
    -------
    Analysis
        Decisions in the order of the game; one with a single legal choice
        has loss 0, no mark, and its lone candidate ``trials`` 0 and ``points`` NaN.
    """
    events = list(events)
    if not events or not isinstance(events[0], dict) or events[0].get("type") != "game_start":
        raise ValueError("events must be a whole trace from sim.play_traced, starting with its game_start event")
    head = events[0]
    try:
        ruleset = rules_lib.Ruleset(**head["ruleset"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"the trace's game_start event holds no valid ruleset: {exc}") from None
    chosen = _check_seats(seats, ruleset.players)
    marks, trials, workers, batch, seed = check_budget(thresholds, trials, workers, batch, seed, mode, width)
    cluster = distributed.current()
    if cluster is None:
        decisions = []
        for step in walk(events):
            if step.position.seat in chosen:
                decisions.append(analyse_step(step, trials, mode, seed, marks, workers, width, batch))
    else:
        # Each worker walks the game itself (a fraction of a second) and values its share of the decisions: a
        # position is megabytes, the trace tens of kilobytes. A decision's figures depend on its position and
        # the seed alone, so any split gives the same analysis.
        wanted = [k for k, step in enumerate(walk(events)) if step.position.seat in chosen]
        share = max(1, math.ceil(len(wanted) / (4 * cluster.threads())))
        pieces = [(events, tuple(wanted[i:i + share]), trials, mode, seed, marks, workers, width, batch)
                  for i in range(0, len(wanted), share)]
        parts = distributed.run_pieces(analyse_steps, pieces,
                                       warm=ahead.warm_up("positions"))
        decisions = [d for part in parts for d in part]
    lower = rules_lib.better_points(ruleset.game) == "lower"
    return Analysis(events=tuple(events), seats=chosen, mode=mode, trials=trials, seed=seed, thresholds=marks,
                    lower_is_better=lower, decisions=tuple(decisions))
