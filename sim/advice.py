"""Advice: what a strategy would play at a position of a traced game, and why.

:func:`advise` rebuilds the position at the start of one turn of a trace
(``docs/trace.md``) with the compiled engine, checks that the engine replays
the trace exactly up to it, lets a strategy play that turn on a copy, and
explains the choice: the melds the hand holds, the opening (or contract), the
draw, and how every card the strategy could throw was weighed.

Glossary: a *position* is the state at the start of a turn (before the draw);
turn ``k`` of a round is the one that follows ``k`` discards; the *moves* are
the events the advised turn records, as :func:`sim.play_traced` writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import strategies as strategy_lib
from sim import cards as cardlib
from sim import rules
from sim.engine import hand_melds as engine_hand_melds
from sim.engine.hand import hand_words
from sim.engine.layout import V_ACCEPT, V_ACCEPT_JOKER, V_NEXT
from sim.engine.policies import (
    KIND_HEURISTIC, KIND_PYTHON, KIND_RANDOM, discard_score, feeds, near_score,
)
from sim.checks import check_whole, is_whole, whole_range
from sim.event_words import drew, event_text, threw, took
from sim.modes import BELIEF, CLAIRVOYANT, MODES
from sim.position import Position
from sim.rollouts import Rollout
from sim.rollouts import rollout as rollout_position
from sim.seat_view import SeatView, ViewError, format_view, from_json, parse_view

__all__ = ["Advice", "DiscardOption", "DrawReason", "MeldOption", "PositionAdvice", "advise", "describe",
           "position_of", "rollout"]

VIEW_TRIALS = 1000
"""Trials per choice when a typed position is advised and no number is given."""

_KINDS = {KIND_HEURISTIC: "heuristic", KIND_RANDOM: "random"}
_NOT_IN_A_TURN = ("game_start", "round_end", "game_end", "blocked")
_MELDS_SHOWN = 8


@dataclass(frozen=True)
class MeldOption:
    """A meld the hand can lay: its cards (``★`` at a joker's place), ``"run"`` or ``"set"``, its opening value."""

    cards: str
    kind: str
    points: int


@dataclass(frozen=True)
class DrawReason:
    """The draw of the advised turn.

    ``source`` is ``"stock"``, ``"discard"`` (the pile's top) or ``None`` when
    the turn has no draw (the first player's extra card); ``card`` the card
    drawn. ``top`` is the pile's top when the draw was decided (``None`` for
    an empty pile), ``may_take`` whether the rules let the player take it
    (``discard_take``; under ``must_use`` only to lay it this turn), and the
    three facts the strategy weighs about it: ``completes`` (it sits in a
    meld of the hand with it), ``fits_table`` (the player may add it to a
    table meld) and ``near`` (its near-meld score,
    :func:`sim.engine.policies.near_score`).
    """

    source: str | None
    card: str | None
    top: str | None
    may_take: bool
    completes: bool
    fits_table: bool
    near: float


@dataclass(frozen=True)
class DiscardOption:
    """One card the strategy could have thrown, weighed as ``choose_discard`` weighs it.

    ``in_meld``: it sits in a meld of the hand (a joker always counts);
    ``fits_table``: the player may add it to a table meld; ``near`` and
    ``feeds`` are :func:`sim.engine.policies.near_score` and
    :func:`sim.engine.policies.feeds`; ``score`` is the strategy's score (the
    highest is thrown), ``None`` for a strategy that throws at random.
    """

    card: str
    penalty: int
    in_meld: bool
    fits_table: bool
    near: float
    feeds: float
    score: float | None
    chosen: bool

    @property
    def fits(self) -> str:
        """What keeps the card: ``"a meld of the hand"``, ``"the table"`` or ``"nothing"``."""
        if self.in_meld:
            return "a meld of the hand"
        return "the table" if self.fits_table else "nothing"


@dataclass(frozen=True)
class Advice:
    """What ``strategy`` plays at the start of one turn of a trace, and why.

    Attributes
    ----------
    seat, round, turn : int
        The seat to move, the round, and the turn (turns completed in the
        round before this one).
    index, start : int
        The event asked about, and the index in the trace of the turn's first event.
    strategy, kind : str
        The strategy advised, and its kind: ``"heuristic"`` (its discard
        scores are shown), ``"random"`` or ``"python"`` (a user policy).
    hand : str
        The seat's hand when the turn begins, in card notation.
    opened : bool
        The seat had opened (or laid its contract) when the turn began.
    moves : tuple of dict
        The events of the advised turn (``docs/trace.md``).
    played : tuple of dict
        The events of the same turn in the trace.
    outcome : str
        ``"next"``, ``"out"`` or ``"blocked: <reason>"``: how the advised turn ended.
    hand_after_draw : str
        The hand once the card is drawn: the hand the melds below are of.
    melds : tuple of MeldOption
        The melds that hand can lay (the rules reference's candidates), richest first.
    opening, threshold : int or None
        The best opening value of that hand and the points needed (not in contrat).
    contract : tuple of (int, int) or None
        Contrat: the deal's contract as ``(sets, runs)``; ``contract_ready``
        says whether the hand can lay it (:func:`sim.rules.meets_contract`).
    draw : DrawReason
    discards : tuple of DiscardOption
        Every card the strategy could have thrown, in the engine's order;
        empty when the turn ended without a discard.
    tables : tuple of str
        The table's melds once the advised turn is over, by meld id.
    discard_take : str
        The ruleset's ``discard_take`` knob (when the pile's top may be taken).
    rollouts : tuple of Rollout
        With ``rollouts=N``: every legal discard of the advised turn rolled
        out ``N`` times, in belief and in clairvoyant mode (:func:`sim.rollout`).
    position : str
        The advised position as the seat saw it, in the seat view notation
        (``docs/positions.md``): text to copy out and study with
        ``rami advise --position``.
    """

    seat: int
    round: int
    turn: int
    index: int
    start: int
    strategy: str
    kind: str
    hand: str
    opened: bool
    moves: tuple[dict[str, Any], ...]
    played: tuple[dict[str, Any], ...]
    outcome: str
    hand_after_draw: str
    melds: tuple[MeldOption, ...]
    opening: int | None
    threshold: int | None
    contract: tuple[int, int] | None
    contract_ready: bool | None
    draw: DrawReason
    discards: tuple[DiscardOption, ...]
    tables: tuple[str, ...] = ()
    discard_take: str = "must_use"
    rollouts: tuple[Rollout, ...] = ()
    position: str = ""

    @property
    def discarded(self) -> DiscardOption | None:
        """The option thrown, or ``None`` when the turn ended without a discard."""
        return next((d for d in self.discards if d.chosen), None)

    def __str__(self) -> str:
        lines = [f"Seat {self.seat}, round {self.round}, turn {self.turn} ({self.strategy}): hand {self.hand}"]
        chosen = self.discarded
        for m in self.moves:
            if _is_discard(m, self.seat) and chosen is not None:
                lines.append(f"  {threw(None, chosen.card)} ({_weighing_text(chosen, self._highest(), self.kind)})")
            else:
                lines.append("  " + event_text(m, self.seat, self.tables))
        if self.outcome.startswith("blocked"):
            lines.append(f"  the round stops ({self.outcome})")
        if self.moves != self.played:
            shown = " / ".join(event_text(m, self.seat) for m in self.played) or "nothing"
            lines.append(f"  (in the game: {shown})")
        lines.append("Why:")
        lines.append("  " + self._draw_text())
        lines.append("  " + self._melds_text())
        lines.append("  " + self._opening_text())
        if self.discards:
            how = {"heuristic": "the highest score is thrown", "random": "this strategy throws at random"}
            lines.append(f"  discard weighing ({how.get(self.kind, 'a Python policy chooses')}):")
            for d in self.discards:
                score = f"score {d.score:8.1f}" if d.score is not None else ""
                mark = "  <- thrown" if d.chosen else ""
                lines.append(f"    {d.card:>3}  penalty {d.penalty:>2}  fits {d.fits:<18}  near {d.near:4.1f}"
                             f"  feeds {d.feeds:3.1f}  {score}{mark}".rstrip())
        lines.extend(str(r) for r in self.rollouts)
        if self.position:
            lines.append("The position as the seat saw it (docs/positions.md; rami advise --position reads it):")
            lines.extend("  " + line for line in self.position.splitlines())
        return "\n".join(lines)

    def _highest(self) -> bool:
        chosen = self.discarded
        scores = [d.score for d in self.discards if d.score is not None]
        return chosen is not None and chosen.score is not None and chosen.score == max(scores)

    def _draw_text(self) -> str:
        d = self.draw
        if d.source is None:
            if self.outcome.startswith("blocked"):
                return f"no draw: the round stops first ({self.outcome})"
            return "no draw: the round's first player starts by discarding"
        facts = ", ".join([
            "completes a meld of the hand" if d.completes else "completes no meld of the hand",
            "fits the table" if d.fits_table else "fits no table meld",
            f"near {d.near:.1f}",
        ])
        if d.source == "discard":
            return f"draw: {took(None, d.card)}, which {facts}"
        if d.top is None:
            return f"draw: {drew(None, d.card)} (the pile is empty)"
        text = f"draw: leaves the pile's top {d.top} ({facts}) and {drew(None, d.card)}"
        if not d.may_take:
            text += f"; the rules forbid taking the top here (discard_take = {self.discard_take})"
        return text

    def _melds_text(self) -> str:
        whose = "the hand after the draw" if self.draw.source else "the hand"
        if not self.melds:
            return f"melds of {whose} ({self.hand_after_draw}): none"
        shown = "; ".join(f"{m.cards} ({m.kind}, {m.points})" for m in self.melds[:_MELDS_SHOWN])
        more = f"; ... {len(self.melds)} in all" if len(self.melds) > _MELDS_SHOWN else ""
        return f"melds of {whose}: {shown}{more}"

    def _opening_text(self) -> str:
        if self.contract is not None:
            sets, runs = self.contract
            what = " + ".join(p for p in (_plural(sets, "set"), _plural(runs, "run")) if p)
            if self.opened:
                return f"contract ({what}) laid already"
            verdict = "the hand can lay it" if self.contract_ready else "the hand cannot lay it yet"
            return f"contract of deal {rules.contract_deal(self.round)}: {what}; {verdict}"
        if self.opened:
            return f"opened already (best opening of the hand {self.opening})"
        if not self.threshold:
            return f"best opening {self.opening} (no opening threshold)"
        verdict = "can open" if self.opening >= self.threshold else "cannot open yet"
        sign = ">=" if self.opening >= self.threshold else "<"
        return f"best opening {self.opening} {sign} threshold {self.threshold}: {verdict}"


def _plural(n: int, word: str) -> str:
    return "" if n == 0 else f"{n} {word}{'s' if n > 1 else ''}"


def _is_discard(event: dict[str, Any], seat: int) -> bool:
    return event["type"] == "discard" and event["seat"] == seat


def _weighing_text(d: DiscardOption, highest: bool, kind: str) -> str:
    text = f"penalty {d.penalty}, fits {d.fits}, near {d.near:.1f}, feeds {d.feeds:.1f}"
    if d.score is None:
        return text + (" — a random choice" if kind == "random" else " — the policy's choice")
    return text + f", score {d.score:.1f}" + (" — the highest" if highest else "")


def describe(event: dict[str, Any]) -> str:
    """One trace event in words, e.g. ``"seat 2 draws 9♣ from the stock"`` (:func:`sim.event_words.event_text`)."""
    return event_text(event)


# ---------------------------------------------------------------- the position


def _locate(events: Sequence[dict[str, Any]], index: int) -> tuple[int, int, int]:
    """``(deal index, turn, start)`` of the turn that contains event ``index``."""
    check_whole("index", index)
    if not 0 <= index < len(events):
        raise ValueError(f"index {index} is outside the trace (events 0 .. {len(events) - 1})")
    index = int(index)
    kind = events[index].get("type")
    if kind in _NOT_IN_A_TURN:
        raise ValueError(f"event {index} ({kind}) is outside any turn: give the index of an event inside a round")
    deal = next((i for i in range(index, -1, -1) if events[i].get("type") == "deal"), None)
    if deal is None:
        raise ValueError(f"event {index} ({kind}) is outside any round: no deal comes before it")
    discards = [i for i in range(deal + 1, index) if events[i].get("type") == "discard"]
    if kind == "out" and discards and discards[-1] == index - 1:
        discards.pop()  # going out by a discard ends the very turn of that discard
    start = discards[-1] + 1 if discards else deal + 1
    return deal, len(discards), start


def _turn_end(events: Sequence[dict[str, Any]], start: int) -> int:
    """Index just past the events of the turn beginning at ``start``."""
    i = start
    while i < len(events):
        t = events[i]["type"]
        if t in ("round_end", "blocked", "deal", "game_end"):
            return i
        if t == "out":
            return i + 1
        if t == "discard":
            return i + 2 if i + 1 < len(events) and events[i + 1]["type"] == "out" else i + 1
        i += 1
    return i


def _header(events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    if not events or not isinstance(events[0], dict) or events[0].get("type") != "game_start":
        raise ValueError("events must be a whole trace from sim.play_traced, starting with its game_start event")
    head = events[0]
    missing = [k for k in ("ruleset", "strategies", "seed", "game", "deterministic") if k not in head]
    if missing:
        raise ValueError(f"the game_start event lacks {', '.join(missing)}: the trace cannot be replayed "
                         "(trace it again with sim.play_traced)")
    return head


# ------------------------------------------------------------------ the reasons


def _draw_reason(before: Position, moves: list[dict[str, Any]], seat: int, r: rules.Ruleset) -> DrawReason:
    """The draw, whether the pile's top could be taken, and the three facts of ``choose_take`` about it."""
    draw = next((m for m in moves if m["type"] == "draw" and m["seat"] == seat), None)
    source = None if draw is None else draw["source"]
    card = None if draw is None else draw["card"]
    seen = before.observe(seat)
    pile = cardlib.parse(before.pile())
    if not pile:
        return DrawReason(source, card, None, False, False, False, 0.0)
    top = int(pile[-1])
    lo, hi, jk = hand_words([int(c) for c in seen.hand])
    view = seen.view
    if top == int(cardlib.JOKER):
        completes = bool(engine_hand_melds.joker_in_meld(lo, r.min_run, r.ace_high))
        on_table = view[V_ACCEPT_JOKER] == 1
    else:
        completes = bool(engine_hand_melds.card_in_meld(lo, jk, top, r.min_run, r.ace_high))
        on_table = (int(view[V_ACCEPT]) >> top) & 1 == 1
    can_add = seen.opened or r.add_before_opening
    near = float(near_score(top, lo, hi, seen.pub, view))
    may_take = draw is not None and any(c.startswith("take ") for c in before.legal_choices())
    return DrawReason(source, card, cardlib.Card(top).text(), may_take, completes, bool(can_add and on_table), near)


def _discard_options(at: Position, seat: int, thrown: str, strategy: strategy_lib.Strategy,
                     r: rules.Ruleset) -> tuple[DiscardOption, ...]:
    """Every legal discard at the discard decision ``at``, weighed as ``choose_discard`` does."""
    seen = at.observe(seat)
    hand = [int(c) for c in seen.hand]
    lo_w, hi_w, _ = hand_words(hand)
    pub, view = seen.pub, seen.view
    table_mask, joker_fits = int(view[V_ACCEPT]), view[V_ACCEPT_JOKER] == 1
    can_add = seen.opened or r.add_before_opening
    in_melds = set()
    for codes in rules.candidate_melds(hand, r):
        in_melds.update(codes)
    vector = strategy.vector()
    nxt = int(view[V_NEXT])
    options = []
    for text, penalty, fits in at.discard_facts():
        code = int(cardlib.parse(text)[0])
        is_joker = code == int(cardlib.JOKER)
        on_table = bool(joker_fits) if is_joker else bool(table_mask >> code & 1)
        fits_table = bool(can_add and on_table)
        # The engine's fact folds "in a meld of the hand" and "fits the table" together.
        sits = is_joker or (fits and (not fits_table or code in in_melds))
        near = float(near_score(code, lo_w, hi_w, pub, view))
        fed = float(feeds(code, nxt, pub, view, np.uint64(table_mask), bool(joker_fits)))
        score = None
        if strategy.kind == KIND_HEURISTIC:
            # The policy's own score, the one choose_discard ranks by.
            score = float(discard_score(vector, code, float(penalty), bool(fits), lo_w, hi_w, pub, view,
                                        np.uint64(table_mask), bool(joker_fits)))
        options.append(DiscardOption(text, penalty, sits, fits_table, near, fed, score, text == thrown))
    return tuple(options)


# -------------------------------------------------------------------- advise


def _is_view(source: Any) -> bool:
    return isinstance(source, (str, SeatView, dict))


def position_of(source: Position | SeatView | str | dict[str, Any], mode: str = BELIEF,
                strategies: Sequence[str | strategy_lib.Strategy] | None = None) -> Position:
    """``source`` as a position: a :class:`Position` as it is, or one typed in the seat view notation (its
    text, a :class:`SeatView` or its JSON form) built by :meth:`Position.from_view` with ``strategies``
    (default ``expert`` at every seat, the playouts of the lab's strongest player, ``search``).

    Raises ``ValueError`` for ``mode="clairvoyant"`` with a typed position (it knows no hidden card: the
    cards :meth:`Position.from_view` deals are one guess among many) and :class:`ViewError` (line and
    column) for a view that cannot happen.
    """
    if isinstance(source, Position):
        return source if strategies is None else source.with_strategies(strategies)
    if not _is_view(source):
        raise TypeError(f"position must be a sim.Position (e.g. sim.Position.from_trace(events, index)) or a "
                        f"position typed in the seat view notation, got {type(source).__name__} {source!r:.60}")
    if mode == CLAIRVOYANT:
        raise ValueError("mode clairvoyant: a typed position knows no hidden card; only belief rollouts read it")
    return Position.from_view(source, strategies=strategies)


def rollout(position: Position | SeatView | str | dict[str, Any], choices: Sequence[str] | None = None,
            n: int = 1000, mode: str = BELIEF, strategies: Sequence[str | strategy_lib.Strategy] | None = None,
            **options: Any) -> Rollout:
    """:func:`sim.rollouts.rollout` of a position or of a position typed in the seat view notation (see
    :func:`position_of`: belief mode only, and the playouts of ``strategies``, default ``expert`` at every
    seat); the other arguments are :func:`sim.rollouts.rollout`'s."""
    if _is_view(position):
        return rollout_position(position_of(position, mode, strategies), choices, n, mode, **options)
    return rollout_position(position, choices, n, mode, strategies, **options)


@dataclass(frozen=True)
class PositionAdvice:
    """Every legal choice of a typed position ranked by belief rollouts.

    ``view`` is the position as the seat sees it (:class:`SeatView`),
    ``position`` its text in the notation, ``strategies`` who plays the
    rollouts' futures at each seat, ``rollout`` the ranking: every legal
    choice, best first, with its mean round points, going-out rate and
    difference from the best, each with its 95% interval.
    """

    view: SeatView
    position: str
    strategies: tuple[str, ...]
    rollout: Rollout

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values: the position's text, the view's fields, the playouts' strategies, the ranking."""
        from sim.seat_view import to_json

        return {"position": self.position, "view": to_json(self.view), "strategies": list(self.strategies),
                "rollout": self.rollout.to_dict()}

    def __str__(self) -> str:
        v = self.view
        asked = f", asked \"Puis-je ?\" by seat {v.mover}'s draw" if v.decision == "may_i" else ""
        head = (f"Seat {v.deciding}, round {v.round}, turn {v.turn}: {v.decision}{asked}; hand {v.hand or 'none'}; "
                f"every legal choice ranked by belief rollouts, {', '.join(sorted(set(self.strategies)))} playing "
                "the futures")
        return "\n".join([head, str(self.rollout)])


def _advise_view(source: SeatView | str | dict[str, Any], strategy: str | strategy_lib.Strategy,
                 rollouts: int | None, rollout_seed: int, mode: str, width: float | None) -> PositionAdvice:
    trials = VIEW_TRIALS if rollouts is None else rollouts
    if not is_whole(trials, 1):
        raise ValueError(f"rollouts must be {whole_range(1)} for a typed position, got {rollouts!r}")
    text = source if isinstance(source, str) else None
    try:
        view = from_json(source) if isinstance(source, dict) else parse_view(text if text is not None
                                                                             else format_view(source))
        if view.decision != "over" and view.seat != view.deciding:
            raise ViewError(f"seat: the view is seat {view.seat}'s, but seat {view.deciding} decides: a position "
                            "is advised from the deciding seat's view", section="seat")
    except ViewError as exc:
        raise exc.located(text) if text is not None else exc from None
    position = position_of(view, mode, [strategy] * view.players)
    result = rollout_position(position, n=int(trials), mode=BELIEF, seed=rollout_seed, width=width)
    return PositionAdvice(view=view, position=format_view(view), strategies=tuple(s.name for s in position.strategies),
                          rollout=result)


def advise(source: Sequence[dict[str, Any]] | SeatView | str | dict[str, Any], index: int | None = None,
           strategy: str | strategy_lib.Strategy = "expert", rollouts: int | None = None, rollout_seed: int = 0,
           mode: str = BELIEF, width: float | None = None) -> Advice | PositionAdvice:
    """What ``strategy`` plays at the start of the turn containing event ``index`` of a trace, and why; or, for
    a position typed in the seat view notation, every legal choice ranked by belief rollouts.

    Parameters
    ----------
    source : sequence of dict, or a typed position
        A whole trace from :func:`sim.play_traced` (its ``game_start`` names
        the ruleset, the strategies per seat, the seed and the game); or a
        position as one seat saw it (``docs/positions.md``): its text, a
        :class:`SeatView` or its JSON form.
    index : int
        With a trace: an event inside a round: the ``deal`` (the round's first turn) or any
        event of a turn (a draw, a laying, a ``may_i``, a discard, ...). The
        position advised is the start of that turn, before its draw. With a
        typed position: none.
    strategy : str or Strategy
        With a trace: the strategy the seat to move plays in the advised
        turn: a name, ``"name:param=value,..."`` or a
        :class:`strategies.Strategy`. The other seats keep theirs (a
        ``may_i`` of theirs may be part of the turn). With a typed position:
        the strategy every seat plays in the rollouts' futures (default
        ``expert``, the playouts of the lab's strongest player, ``search``).
    rollouts : int, optional
        With a trace: when above 0, roll every legal discard of the advised
        turn out this many times, in belief and in clairvoyant mode, seeded
        ``rollout_seed`` (the seat plays ``strategy`` for the rest of the
        round, the others theirs). With a typed position: the trials per
        choice (default :data:`VIEW_TRIALS`; the most, with ``width``).
    mode : {"belief"}
        A typed position is rolled out in belief mode only: ``"clairvoyant"`` is refused.
    width : float, optional
        With a typed position: stop once every difference's interval is narrower than this many points.

    Returns
    -------
    Advice or PositionAdvice
        The advised moves and their reasons, or the ranked choices of the
        typed position; ``str(advice)`` prints them.

    Raises
    ------
    ValueError
        ``index`` is not inside a turn of the trace, or the engine does not
        replay the trace exactly up to the position (another engine version,
        an edited trace); a typed position asked in clairvoyant mode or with
        an index; :class:`sim.seat_view.ViewError` (with its line and column)
        for a typed position that cannot happen.
    """
    if _is_view(source):
        if index is not None:
            raise ValueError("a typed position is one decision: give no index")
        return _advise_view(source, strategy, rollouts, rollout_seed, mode, width)
    if mode != BELIEF or width is not None:
        raise ValueError("mode and width are for a typed position; a trace's turn is rolled out with rollouts=N")
    if index is None:
        raise ValueError("index must name an event of the trace (a deal or an event of a turn)")
    events = source
    rollouts = 0 if rollouts is None else rollouts
    check_whole("rollouts", rollouts, 0)
    events = list(events)
    head = _header(events)
    deal, turns, start = _locate(events, index)
    try:
        r = rules.Ruleset(**head["ruleset"])
    except (TypeError, rules.RulesetError) as exc:
        raise ValueError(f"the trace cannot be replayed: its ruleset is not valid: {exc}") from None
    advised = strategy_lib.get(strategy).for_game(r.game)
    first = start if turns > 0 or events[start]["type"] == "blocked" else deal
    if events[first]["type"] not in ("deal", "restock", "blocked", "draw", "open", "meld", "add", "recover",
                                     "discard"):
        raise ValueError(f"the trace cannot be replayed: turn {turns} of round {events[deal]['round']} "
                         f"starts with a {events[first]['type']}")
    before = Position.from_trace(events, first)
    seat = before.seat if before.decision != "over" else _mover(events, start)
    rnd = int(events[deal]["round"])
    own = strategy_lib.get(head["strategies"][seat]).for_game(r.game)
    position = before
    if advised.kind != own.kind or not np.array_equal(advised.vector(), own.vector()):
        position = before.with_strategies([advised if s == seat else st for s, st in enumerate(before.strategies)])
    # The advised turn: the seat's decisions until the next seat's turn or the round's end (the other seats
    # answer "Puis-je ?" during it with their own strategies).
    at_discard = None
    thrown = None
    turn = before.turn
    while position.decision != "over" and position.mover == seat and position.turn == turn:
        at = position
        choice, position = position.step()
        if at.decision == "discard":
            at_discard, thrown = at, choice
    if advised.kind == KIND_PYTHON:
        from strategies import user

        user.raise_pending()  # a Python policy's error during the advised turn
    played_now = position.events[start - deal:]
    moves = played_now[:_turn_end(played_now, 0)]
    if any(m["type"] == "out" for m in moves):
        outcome = "out"
    elif position.decision == "over" and position.turn == turn:
        outcome = "blocked: " + str(position.play_out().blocked)
    else:
        outcome = "next"

    seen = before.observe(seat)
    hand = [int(c) for c in seen.hand]
    draw = _draw_reason(before, moves, seat, r)
    after_draw = sorted(hand + ([int(cardlib.parse(draw.card)[0])] if draw.card else []))
    found = rules.candidate_melds(after_draw, r)
    melds = tuple(sorted((MeldOption(m.text(), m.kind, m.points) for m in found.values()),
                         key=lambda m: (-m.points, m.cards)))
    opened = seen.opened
    contract = contract_ready = opening = threshold = None
    if r.game == "contrat":
        contract = r.contract(rules.contract_deal(rnd))
        contract_ready = rules.meets_contract(after_draw, rules.contract_deal(rnd), r)
    else:
        opening = rules.best_opening(after_draw, r)
        threshold = seen.threshold

    discards: tuple[DiscardOption, ...] = ()
    rolled: tuple[Rollout, ...] = ()
    if at_discard is not None and thrown is not None:
        discards = _discard_options(at_discard, seat, thrown, advised, r)
        if rollouts:
            rolled = tuple(rollout_position(at_discard, n=rollouts, mode=mode, seed=rollout_seed)
                           for mode in MODES)

    return Advice(
        seat=seat, round=rnd, turn=turn, index=int(index), start=start,
        strategy=advised.name, kind=_KINDS.get(advised.kind, "python"), hand=cardlib.format(hand), opened=opened,
        moves=tuple(moves),
        played=tuple(events[start:_turn_end(events, start)]), outcome=outcome,
        hand_after_draw=cardlib.format(after_draw), melds=melds, opening=opening, threshold=threshold,
        contract=contract, contract_ready=contract_ready, draw=draw, discards=discards,
        tables=position.table(), discard_take=r.discard_take, rollouts=rolled,
        position=format_view(before.view(seat)) if before.decision != "over" else "",
    )


def _mover(events: Sequence[dict[str, Any]], start: int) -> int:
    """The seat whose turn begins at ``start`` (a turn blocked before it moved: the next seat in order)."""
    head = events[0]
    players = int(head["players"])
    deal = max(i for i in range(start + 1) if events[i].get("type") == "deal")
    discards = sum(1 for e in events[deal:start] if e.get("type") == "discard")
    return (int(events[deal]["first"]) + discards) % players
