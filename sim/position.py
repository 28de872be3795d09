"""Positions: a round stopped at a decision, its legal choices, and playing on from it.

A :class:`Position` is made from a trace and an event index
(:meth:`Position.from_trace`) or from a scripted deal (:meth:`Position.deal`).
It names the seat that decides and the decision it faces:

``"draw"``
    take the pile's top (``"take 9♠"``) or draw from the stock (``"stock"``);
``"lay"``
    one laying action (``"open 3♠ 4♠ 5♠ + 7♥ 7♦ 7♣"``, ``"meld 9♣ 10♣ J♣"``,
    ``"add 7♥ to 2"``, ``"recover 5♠ from 1, meld ..."``) or ``"stop"``;
``"discard"``
    the card to throw (``"9♠"``);
``"may_i"``
    Rami contrat, after another seat drew from the stock: say "Puis-je ?"
    for the pile's top (``"ask for 7♣ (\"Puis-je ?\")"``) or ``"pass"``;
    the seat that decides is the one asked, not the seat to move;
``"over"``
    the round is over.

:meth:`Position.apply` plays one choice and returns the next position (the
next decision of any seat); :meth:`Position.play_out` lets strategies play
the round to its end; :meth:`Position.observe` is what a seat may see, built
by the very engine function the compiled strategies read.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

import strategies as strategy_lib
from sim import cards as cardlib
from sim import rules as rules_lib
from sim.api import resolve, scripted_deal
from sim.checks import check_whole, is_whole
from sim.engine import play as engine_play
from sim.engine import position as engine_position
from sim.engine import search as engine_search
from sim.engine.bits import POSITION_VALUES, RANK_VALUES
from sim.engine.game_value import futures
from sim.engine.hand import hand_codes, hand_words
from sim.engine.hand_melds import (
    I_END, I_JOKER, I_JPOS, I_KEY, I_KIND, I_POINTS, I_SIZE, I_START, KIND_RUN, KIND_SET, N_INFO,
)
from sim.engine.layout import (
    A_P1,
    A_P2,
    A_P3,
    A_P4,
    A_P5,
    A_TYPE,
    ACT_ADD,
    ACT_MELD,
    ACT_OPEN,
    ACT_RECOVER,
    ACT_STOP,
    N_VIEW,
    PUB_OPENED,
    PUB_PILE,
    PUB_TABLE,
    PUB_TOOK,
)
from sim.engine.meld_search import workspace
from sim.engine.params import kernel_rules
from sim.engine.policies import KIND_PYTHON
from sim.engine.state import (
    G_ACCEPT,
    G_ACCEPT_JOKER,
    G_DETERMINISTIC,
    G_FIRST,
    G_LAST_OPEN,
    G_MELDS,
    G_NEV,
    G_NFLIPS,
    G_OVERFLOW,
    G_PILE,
    G_RECOVERING,
    G_RESTOCKS,
    G_ROUND,
    G_STOCK,
    G_TRACE,
    G_TURN,
    MAX_MELDS,
    N_G,
    S_FIRST_LAY,
    S_NO_OPEN,
    S_OPEN_TURN,
    S_OPENED,
    S_TAKES,
    S_TURNS,
)
from sim.engine.table import table_changed
from sim.observation import Observation
from sim.seat_view import (
    SeatView,
    StartMeld,
    TableMeld,
    TurnStart,
    ViewError,
    format_view,
    from_json,
    parse_view,
    read_move,
    rules_of,
    turn_start,
)
from sim.trace import events_to_dicts, meld_cards

__all__ = ["KernelState", "Position", "RoundOutcome"]

_DECISIONS = {engine_position.PH_DRAW: "draw", engine_position.PH_LAY: "lay", engine_position.PH_DISCARD: "discard",
              engine_position.PH_MAY_I: "may_i", engine_position.PH_END: "over"}
_ENDS = ("", "low", "high", "")
_EVENT_DECISION = {"draw": engine_position.PH_DRAW, "open": engine_position.PH_LAY, "meld": engine_position.PH_LAY,
                   "add": engine_position.PH_LAY, "recover": engine_position.PH_LAY,
                   "discard": engine_position.PH_DISCARD, "may_i": engine_position.PH_MAY_I}



@dataclass(frozen=True)
class RoundOutcome:
    """The end of a round played out from a position.

    ``winner`` the seat that went out (``None`` when blocked, ``blocked``
    then says why), ``points`` the round's points per seat as the game scores
    them, ``events`` the events played from the position (``docs/trace.md``).
    """

    winner: int | None
    blocked: str | None
    rami_sec: bool
    points: tuple[int, ...]
    events: tuple[dict[str, Any], ...]


def _text(code: int) -> str:
    return cardlib.Card(int(code)).text()


class _Watcher(NamedTuple):
    """A round's events seen from one seat: what :func:`sim.rollouts.known_cards` reads of a position, for a
    seat that need not be the one deciding (its own cards are not listed as known)."""

    events: list[dict[str, Any]]
    seat: int


def _turn_moves(events: Sequence[dict[str, Any]], seat: int) -> list[str]:
    """The moves of the turn under way, from its events, as ``seat`` sees them (the notation's ``moves``)."""
    moves = []
    i = 0
    while i < len(events):
        e = events[i]
        t = e["type"]
        if t == "draw":
            if e["source"] == "discard":
                moves.append(f"took {e['card']}")
            else:
                moves.append("drew" + (f" {e['card']}" if e["seat"] == seat else ""))
        elif t == "may_i":
            moves.append(f"{e['seat']} asks {e['card']}")
        elif t == "open":
            moves.append("open " + " + ".join(m["cards"] for m in e["melds"]))
        elif t == "meld":
            moves.append("meld " + e["cards"])
        elif t == "add":
            moves.append(f"add {e['card']} to {e['id']}" + (f" {e['end']}" if e["end"] else ""))
        elif t == "recover":
            # The joker taken back is laid again by the very next event: one choice.
            nxt = events[i + 1]
            head = f"recover {e['card']} from {e['id']}, "
            if nxt["type"] == "meld":
                moves.append(head + "meld " + nxt["cards"])
            else:
                moves.append(head + f"joker to {nxt['id']}" + (f" {nxt['end']}" if nxt["end"] else ""))
            i += 1
        i += 1
    return moves


def _choice_text(position: "Position", move: str, index: int, fail: Any) -> str:
    """The legal choice a laying move of a view names (its cards written as the choices write them)."""
    texts = [t for t, _ in position.choice_codes()]
    if move in texts:
        return move
    legal = ", ".join(texts) or "none"
    raise fail(index, f"not a legal laying here; legal: {legal}")


def _inert(hand: list[int], pool: list[int], k: int, r: rules_lib.Ruleset) -> list[int]:
    """``k`` cards of ``pool`` that make no meld with ``hand`` nor with each other where the pool has them
    (no joker, no card of a rank held, none of a suit held within a run's reach), the rest in code order."""
    held = [cardlib.Card(c) for c in hand if c != int(cardlib.JOKER)]
    chosen: list[int] = []
    reach = r.min_run - 1

    def near(a: cardlib.Card, b: cardlib.Card) -> bool:
        if a.rank == b.rank:
            return True
        if a.suit != b.suit:
            return False
        gap = abs(a.rank - b.rank)
        if r.ace_high and 1 in (a.rank, b.rank):
            gap = min(gap, 14 - max(a.rank, b.rank))
        return gap <= reach

    for c in pool:
        if len(chosen) == k:
            break
        if c == int(cardlib.JOKER):
            continue
        card = cardlib.Card(c)
        if any(near(card, h) for h in held):
            continue
        chosen.append(c)
        held.append(card)
    rest = Counter(pool)
    rest.subtract(chosen)
    return chosen + sorted(rest.elements())[: k - len(chosen)]


def _companions(view: SeatView, r: rules_lib.Ruleset, start: TurnStart, card: int) -> Counter:
    """Unseen cards with which the mover can lay ``card``, the pile's top it took (``must_use``): two more of
    its meld, then, before the mover has opened, sets of high cards until the hand reaches the threshold."""
    seen = Counter(start.hand) + Counter(start.pile) + sum(start.needs, Counter()) + Counter([card])
    for meld in start.table:
        seen.update(int(c) if i != meld.joker else int(cardlib.JOKER) for i, c in enumerate(meld.cards))
    left = Counter(int(c) for c in cardlib.deck(r.decks, r.n_jokers)) - seen
    c = cardlib.Card(card)
    options = []
    if not c.is_joker:
        others = [cardlib.card(c.rank, s) for s in range(4) if s != c.suit and left[int(cardlib.card(c.rank, s))]]
        if len(others) >= 2:
            options.append([int(x) for x in others[:2]])
        for low in range(max(1, c.rank - r.min_run + 1), c.rank + 1):
            run = [int(cardlib.card(p if p <= 13 else 1, c.suit)) for p in range(low, low + r.min_run)
                   if p != c.rank and p <= (14 if r.ace_high else 13)]
            if len(run) == r.min_run - 1 and all(left[x] for x in run):
                options.append(run)
                break
    chosen = Counter(options[0]) if options else Counter()
    if view.mover not in start.opened and r.game == "rami51" and chosen:
        hand = Counter(start.needs[view.mover]) + chosen + Counter([card])
        for rank in (13, 12, 11, 10, 1, 9, 8):
            if rules_lib.best_opening(sorted(hand.elements()), r) >= view.threshold_now(r) \
                    or sum(hand.values()) + 3 > start.sizes[view.mover] + 1:
                break
            trio = [int(cardlib.card(rank, s)) for s in range(4) if left[int(cardlib.card(rank, s))] > chosen[
                int(cardlib.card(rank, s))]][:3]
            if len(trio) == 3:
                chosen.update(trio)
                hand.update(trio)
    return chosen


def _could_open(hand: list[int], r: rules_lib.Ruleset, rnd: int, threshold: int | None) -> bool:
    """Whether ``hand`` could open now by the rules reference (contrat: lay its contract; basic: any meld)."""
    if r.game == "contrat":
        return rules_lib.meets_contract(hand, rules_lib.contract_deal(rnd), r)
    if r.game == "basic" or (r.lay_all_ignores_opening and rules_lib.max_melded_cards(hand, r) >= len(hand) - 1):
        return bool(rules_lib.candidate_melds(hand, r))
    need = threshold if threshold is not None else r.open_threshold
    return rules_lib.best_opening(hand, r) >= max(need, 1)


def _meld_row(meld: StartMeld, r: rules_lib.Ruleset) -> np.ndarray:
    """A table meld as the engine's meld row (``sim.engine.hand_melds``' ``I_*`` columns), valued as the engine values
    melds (``sim.engine.bits``)."""
    row = np.zeros(N_INFO, dtype=np.int32)
    jokers = 1 if meld.joker >= 0 else 0
    positions = meld.positions()
    if meld.kind == "run":
        row[I_KIND], row[I_KEY] = KIND_RUN, meld.cards[0].suit
        row[I_START], row[I_END] = positions[0], positions[-1]
        row[I_JPOS] = positions[meld.joker] if jokers else 0
        row[I_POINTS] = sum(int(POSITION_VALUES[p]) for p in positions)
    else:
        rank = meld.cards[0].rank
        suits = 0
        for i, c in enumerate(meld.cards):
            if i != meld.joker:
                suits |= 1 << c.suit
        row[I_KIND], row[I_KEY] = KIND_SET, rank
        row[I_START], row[I_END] = suits, 0
        row[I_JPOS] = meld.cards[meld.joker].suit if jokers else -1
        row[I_POINTS] = int(RANK_VALUES[rank]) * len(meld.cards)
    row[I_SIZE], row[I_JOKER] = len(meld.cards), jokers
    return row


def _check_built(view: SeatView, built: SeatView) -> None:
    """Refuse a view whose engine position shows the seat something else than the view: the first section that
    differs is named (a pile partly remembered, and a draw whose card was not named, are the view's own)."""
    import dataclasses

    expected = view
    if view.pile_unseen:
        shown = cardlib.parse(built.pile)
        kept = len(cardlib.parse(view.pile))
        built = dataclasses.replace(built, pile=cardlib.format(shown[len(shown) - kept:] if kept else []),
                                    pile_unseen=len(shown) - kept)
    if len(built.moves) == len(view.moves):
        # "drew" without its card: the engine drew one of the seat's cards for it.
        built = dataclasses.replace(built, moves=tuple(
            w if (b.startswith("drew ") and w == "drew") else b for b, w in zip(built.moves, view.moves)))
    for f in dataclasses.fields(SeatView):
        if getattr(built, f.name) != getattr(expected, f.name):
            section = {"hand_sizes": "hands", "pile_unseen": "pile", "restocks": "stock", "asked": "decision",
                       "overrides": "rules"}.get(f.name, f.name)
            raise ViewError(f"{section}: the view cannot happen: played out, its {f.name} is "
                            f"{getattr(built, f.name)!r}, not {getattr(expected, f.name)!r}", section=section)


class KernelState(NamedTuple):
    """What the kernels read of a :class:`Position` (:meth:`Position.kernel_state`).

    ``rules`` is the ruleset as kernel integers, ``round`` the round state
    (:class:`sim.engine.state.RoundState`), ``g`` the round's counters,
    ``turn`` the turn machine's state (``sim.engine.position``'s ``TS_*``
    columns), ``kinds`` and ``params`` the seats' policies.
    """

    rules: Any
    round: Any
    g: np.ndarray
    turn: np.ndarray
    kinds: np.ndarray
    params: np.ndarray


_scratch = threading.local()


def _workspace() -> tuple[np.ndarray, ...]:
    """The meld search's scratch arrays (:func:`sim.engine.meld_search.workspace`), one set per thread.

    A kernel fills them and reads them within one call, as a simulation's
    batch reuses one set for all its games: positions share their thread's
    set rather than each holding its own (some 300 KB, and a walk through a
    game holds hundreds of positions).
    """
    ws = getattr(_scratch, "ws", None)
    if ws is None:
        ws = _scratch.ws = workspace()
    return ws


class Position:
    """A round of a game stopped at a decision (see the module's docstring).

    Positions are values: :meth:`apply` and :meth:`play_out` leave ``self``
    as it was. Make one with :meth:`from_trace` or :meth:`deal`.
    """

    def __init__(self, ruleset: rules_lib.Ruleset, chosen: Sequence[strategy_lib.Strategy], state: Any,
                 g: np.ndarray, policy_rng: np.ndarray, deck_rng: np.ndarray, ts: np.ndarray, ev: np.ndarray,
                 totals: Sequence[int]):
        self.ruleset = ruleset
        self.strategies = tuple(chosen)
        self._kr = kernel_rules(ruleset)
        self._set_strategies(chosen)
        self._seed_game = (0, 0)  # the simulation's seed and game, which seed a searching seat's rollouts
        self._st, self._g, self._policy_rng, self._deck_rng, self._ts, self._ev = (
            state, g, policy_rng, deck_rng, ts, ev)
        self.totals = tuple(int(t) for t in totals)
        # Events that only state what a view said (a position read by from_view), before the turn's moves.
        self._prologue = 0

    # ------------------------------------------------------------ making one

    @classmethod
    def deal(cls, ruleset: rules_lib.Ruleset | str, strategies: Sequence[str | strategy_lib.Strategy],
             hands: Sequence[str], pile: str, stock: str = "", seed: int = 0, round: int = 0,
             game: int = 0) -> "Position":
        """The first decision of a scripted deal (hands by seat, the pile's card, the stock's top cards).

        The cards not named go under the stock, shuffled by ``seed``
        (:func:`sim.api.scripted_deal`); the strategies' streams and later
        reshuffles are those of game ``game`` of the simulation seeded ``seed``.
        """
        r, chosen = resolve(ruleset, strategies)
        order = scripted_deal(r, hands, pile, stock, seed, round)
        position = cls._start(r, chosen, seed, game, round, order, [0] * r.players)
        position._advance(-2)
        return position

    @classmethod
    def game_round(cls, ruleset: rules_lib.Ruleset | str, strategies: Sequence[str | strategy_lib.Strategy],
                   seed: int = 1, game: int = 0, round: int = 0, totals: Sequence[int] | None = None) -> "Position":
        """The first decision of round ``round`` of game ``game`` of the simulation seeded ``seed``.

        The round is dealt as that game deals it (its first player, its
        deck and strategy streams), and ``totals`` are the game's totals
        before it (default none), so that a game can be played round after
        round one decision at a time, a seat at a time by a person: the
        round's first decision, of any seat, is where it stops. The
        position claims no cycle (a seat played by a person never repeats
        itself for sure), as a scripted deal does not.
        """
        r, chosen = resolve(ruleset, strategies)
        check_whole("round", round, 0)
        totals = [0] * r.players if totals is None else [int(t) for t in totals]
        if len(totals) != r.players:
            raise ValueError(f"{len(totals)} totals for {r.players} players")
        position = cls._start(r, chosen, seed, game, int(round), np.zeros(0, dtype=np.int64), totals)
        position._advance(-2)
        return position

    @classmethod
    def _start(cls, r: rules_lib.Ruleset, chosen: Sequence[strategy_lib.Strategy], seed: int, game: int, rnd: int,
               order: np.ndarray, totals: Sequence[int]) -> "Position":
        kr = kernel_rules(r)
        st = engine_play.make_buffers()
        g = np.zeros(N_G, dtype=np.int64)
        g[G_TRACE] = 1
        ev = np.zeros((4 * engine_position.EVENT_ROOM, engine_play.N_EV), dtype=np.int32)
        policy_rng = np.zeros(engine_play.MAX_SEATS, dtype=np.uint64)
        deck_rng = np.zeros(1, dtype=np.uint64)
        engine_play.start_round(kr, game, np.uint64(seed), rnd, st, g, ev, policy_rng, deck_rng, order)
        # A shuffled deal moved the round's deck stream on, and a later reshuffle
        # of the stock draws from it; a scripted deal did not: deal the round
        # shuffled too and keep its stream when it is the same deal.
        shuffled = engine_play.make_buffers()
        rng_shuffled = np.zeros(engine_play.MAX_SEATS, dtype=np.uint64)
        deck_shuffled = np.zeros(1, dtype=np.uint64)
        engine_play.start_round(kr, game, np.uint64(seed), rnd, shuffled, np.zeros(N_G, dtype=np.int64), ev[:0],
                                rng_shuffled, deck_shuffled, np.zeros(0, dtype=np.int64))
        if all(np.array_equal(getattr(shuffled, f), getattr(st, f)) for f in ("h_lo", "h_hi", "h_jk", "h_n",
                                                                                "stock", "pile")):
            deck_rng[:] = deck_shuffled
        position = cls(r, chosen, st, g, policy_rng, deck_rng, engine_position.new_turn_state(), ev, totals)
        position._seed_game = (int(seed), int(game))
        return position

    @classmethod
    def from_trace(cls, events: Sequence[dict[str, Any]], index: int) -> "Position":
        """The decision whose first event is ``events[index]``, replayed by the engine.

        ``index`` is a ``deal`` (the round's first decision), a ``draw``, a
        laying event (``open``, ``meld``, ``add``, ``recover``), a ``discard``,
        a ``may_i`` (the asker's "Puis-je ?"; a seat that passed left no event:
        walk to its decision with :meth:`step`),
        a ``restock`` (the draw it comes with) or a ``blocked`` (the round over) of a trace from
        :func:`sim.play_traced`. Raises ``ValueError`` for other events or when
        the engine does not replay the trace up to that point, or when an
        event is not as docs/trace.md writes it (a trace read from a file).
        """
        try:
            return cls._replayed(events, index)
        except (KeyError, TypeError, IndexError, OverflowError, AttributeError) as exc:
            raise ValueError(f"the trace cannot be replayed: an event is not as docs/trace.md writes it "
                             f"({type(exc).__name__}: {exc})") from None

    @classmethod
    def _replayed(cls, events: Sequence[dict[str, Any]], index: int) -> "Position":
        """:meth:`from_trace`, its events trusted to be well formed."""
        events = list(events)
        if not events or not isinstance(events[0], dict) or events[0].get("type") != "game_start":
            raise ValueError("events must be a whole trace from sim.play_traced, starting with its game_start event")
        head = events[0]
        missing = [k for k in ("ruleset", "strategies", "seed", "game", "deterministic") if k not in head]
        if missing:
            raise ValueError(f"the game_start event lacks {', '.join(missing)}: trace the game again")
        if not is_whole(index, 1, len(events) - 1):
            raise ValueError(f"index must be an event of the trace, 1 .. {len(events) - 1}; got {index!r}")
        index = int(index)
        kind = events[index].get("type")
        allowed = ("deal", "restock", "blocked", *_EVENT_DECISION)
        if kind not in allowed:
            raise ValueError(f"event {index} is a {kind}, not a decision: give a {', '.join(allowed)} event")
        if kind in ("meld", "add") and events[index - 1].get("type") == "recover":
            raise ValueError(f"event {index} lays again the joker that the recovery of event {index - 1} took back: "
                             f"it is part of that decision, not one of its own; give event {index - 1}")
        deal = next(i for i in range(index, -1, -1) if events[i].get("type") in ("deal", "game_start"))
        try:
            r = rules_lib.Ruleset(**head["ruleset"])
            chosen = [strategy_lib.get(s).for_game(r.game) for s in head["strategies"]]
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the trace cannot be replayed: {exc}") from None
        d = events[deal]
        rnd = int(d["round"])
        totals = next((e["totals"] for e in reversed(events[:deal]) if e.get("type") == "round_end"),
                      [0] * r.players)
        try:
            order = scripted_deal(r, d["hands"], d["pile"], d["stock"], 0, rnd)
        except (KeyError, ValueError) as exc:
            raise ValueError(f"the trace cannot be replayed: the deal of event {deal} is not a deal: {exc}") from None
        position = cls._start(r, chosen, int(head["seed"]), int(head["game"]), rnd, order, totals)
        position._g[G_DETERMINISTIC] = 1 if head["deterministic"] else 0
        if kind == "deal":
            target, phase = events[deal:deal + 1], -1
        elif kind == "restock" and r.stock_exhausted == "flip_no_shuffle":
            # the pile is turned over by a draw from the stock
            target, phase = events[deal:index], engine_position.PH_DRAW
        elif kind == "restock":
            target, phase = events[deal:index + 1], engine_position.PH_DRAW
        elif kind == "blocked":
            target, phase = events[deal:index], engine_position.PH_END
        else:
            target, phase = events[deal:index], _EVENT_DECISION[kind]
        # A "Puis-je ?" is one asker's decision among the seats asked in turn after the same draw.
        asker = int(events[index]["seat"]) if kind == "may_i" else -1
        got: list[dict[str, Any]] = []
        converted = 0
        while True:
            position._advance(-2)
            # Each step writes whole events: only its new rows are read into dicts (reading every event again
            # at every step made a replay quadratic in the round's length).
            written = int(position._g[G_NEV])
            got += events_to_dicts(position._ev[converted:written], r.players)
            converted = written
            if got != target[: len(got)]:
                at = next(i for i, (a, b) in enumerate(zip(got, target)) if a != b) if len(got) <= len(target) \
                    else len(target)
                want = target[at] if at < len(target) else "nothing more"
                raise ValueError(f"the trace cannot be replayed: at event {deal + at} the trace has {want}, "
                                 f"the engine plays {got[at]}")
            stage = int(position._ts[engine_position.TS_PHASE])
            if len(got) == len(target) and (phase < 0 or stage == phase) and (asker < 0 or position.seat == asker):
                if position.events != target:  # the events read step by step are the round's events read whole
                    raise ValueError(f"the trace cannot be replayed: its events read again differ from the trace's "
                                     f"before event {index}")
                return position
            if stage == engine_position.PH_END:
                raise ValueError(f"the trace cannot be replayed: the engine ends round {rnd} before event {index}")
            position._play_int(position._decide())

    # -------------------------------------------------------------- reading

    @property
    def seat(self) -> int:
        """The seat that decides: the seat to move, or at a ``"may_i"`` the seat asked."""
        return int(engine_position.deciding_seat(self._ts))

    @property
    def mover(self) -> int:
        """The seat to move (whose turn it is), also while another seat is asked "Puis-je ?"."""
        return int(self._ts[engine_position.TS_SEAT])

    @property
    def decision(self) -> str:
        """``"draw"``, ``"lay"``, ``"discard"``, ``"may_i"`` or ``"over"``."""
        return _DECISIONS[int(self._ts[engine_position.TS_PHASE])]

    @property
    def round(self) -> int:
        return int(self._g[G_ROUND])

    @property
    def turn(self) -> int:
        """Turns completed in the round before this one."""
        return int(self._g[G_TURN])

    @property
    def events(self) -> list[dict[str, Any]]:
        """The round's events up to the position (from its ``deal``), as ``docs/trace.md`` writes them."""
        return events_to_dicts(self._ev[: self._g[G_NEV]], self.ruleset.players)

    @property
    def event_rows(self) -> int:
        """Rows of the round's event record written up to the position: a mark for :meth:`events_after`."""
        return int(self._g[G_NEV])

    def events_after(self, mark: int) -> list[dict[str, Any]]:
        """The round's events written after ``mark``, the :attr:`event_rows` of this position or of one
        that led to it: reading only the new events keeps a walk through a round linear in its length."""
        if not is_whole(mark, 0, int(self._g[G_NEV])):
            raise ValueError(f"mark must be an event_rows of this round, 0 .. {int(self._g[G_NEV])}; got {mark!r}")
        return events_to_dicts(self._ev[int(mark): self._g[G_NEV]], self.ruleset.players)

    def hand(self, seat: int) -> str:
        """The hand of ``seat`` in card notation (hidden from the others: see :meth:`observe`)."""
        st = self._st
        return cardlib.format(hand_codes(st.h_lo[seat], st.h_hi[seat], st.h_jk[seat]))

    def stock(self) -> str:
        """The stock, top card first (hidden from every seat)."""
        st = self._st
        return cardlib.format(int(st.stock[i]) for i in range(int(self._g[G_STOCK]) - 1, -1, -1))

    def kernel_state(self) -> "KernelState":
        """The position's compiled state, for kernels that play on from it (rollouts, a searching
        player). The arrays are the position's own: copy them (or the position, :meth:`copy`)
        before a kernel writes into them."""
        return KernelState(self._kr, self._st, self._g, self._ts, self._kinds, self._params)

    def legal_choices(self) -> list[str]:
        """The legal choices of the deciding seat (:attr:`seat`), in card notation (empty when the round is over)."""
        return [text for text, _ in self.choice_codes()]

    def choice_codes(self) -> list[tuple[str, int]]:
        """``(text, engine choice)`` of each legal choice: the codes the kernels that play on from
        this position (rollouts, a searching player) take, beside their notation."""
        phase = int(self._ts[engine_position.TS_PHASE])
        st, g = self._st, self._g
        if phase == engine_position.PH_DRAW:
            out = [("stock", 0)] if g[G_STOCK] > 0 or g[G_PILE] > 0 else []
            if self._ts[engine_position.TS_TAKE_LEGAL]:
                out.insert(0, (f"take {_text(st.pile[g[G_PILE] - 1])}", 1))
            return out
        if phase == engine_position.PH_LAY:
            return [(self._action_text(i), i) for i in range(int(self._ts[engine_position.TS_NACT]))]
        if phase == engine_position.PH_DISCARD:
            return [(_text(c), int(c)) for c in st.d_legal[: int(self._ts[engine_position.TS_NDISCARD])]]
        if phase == engine_position.PH_MAY_I:
            return [(f'ask for {_text(st.pile[g[G_PILE] - 1])} ("Puis-je ?")', 1), ("pass", 0)]
        return []

    def _meld_text(self, info: np.ndarray) -> str:
        text, _ = meld_cards(int(info[I_KIND]), int(info[I_KEY]),
                             int(info[I_START]), int(info[I_END]),
                             int(info[I_JPOS]), int(info[I_JOKER]))
        return text

    def _action_text(self, i: int) -> str:
        st = self._st
        t = int(st.act[i, A_TYPE])
        if t == ACT_STOP:
            return "stop"
        if t == ACT_OPEN:
            which = int(st.act[i, A_P1])
            melds = [self._meld_text(st.c_info[st.open_sel[which, j]]) for j in range(int(st.open_n[which]))]
            return "open " + " + ".join(melds)
        if t == ACT_MELD:
            return "meld " + self._meld_text(st.c_info[st.act[i, A_P1]])
        if t == ACT_ADD:
            end = _ENDS[int(st.act[i, A_P3]) + 1]
            return f"add {_text(st.act[i, A_P1])} to {int(st.act[i, A_P2])}" + (f" {end}" if end else "")
        if t == ACT_RECOVER:
            head = f"recover {_text(st.act[i, A_P1])} from {int(st.act[i, A_P2])}"
            if st.act[i, A_P3] == 0:
                return head + ", meld " + self._meld_text(st.r_info[i])
            end = _ENDS[int(st.act[i, A_P5]) + 1]
            return head + f", joker to {int(st.act[i, A_P4])}" + (f" {end}" if end else "")
        return f"action {t}"

    def discard_facts(self) -> list[tuple[str, int, bool]]:
        """At a discard: ``(card, penalty, fits)`` of each legal discard, as the strategies weigh them.

        ``fits``: the card is a joker, sits in a meld of the hand, or the
        player may add it to a table meld.
        """
        if self.decision != "discard":
            return []
        st = self._st
        return [(_text(st.d_legal[i]), int(st.d_penalty[i]), bool(st.d_fits[i]))
                for i in range(int(self._ts[engine_position.TS_NDISCARD]))]

    def observe(self, seat: int) -> Observation:
        """What ``seat`` may see now, as the strategies see it (:class:`sim.observation.Observation`): its own
        hand and the public counts, filled by the one engine function that fills them in play."""
        n = self.ruleset.players
        if not is_whole(seat, 0, n - 1):
            raise ValueError(f"seat must be 0 .. {n - 1}, got {seat!r}")
        st = self._st
        view = np.zeros(N_VIEW, dtype=np.int64)
        engine_position.observe(self._kr, st, self._g, int(seat), view)
        return Observation.of(st.h_lo[seat], st.h_hi[seat], view, st.pub)

    def pile(self) -> str:
        """The discard pile in card notation, its top card last (seen by every seat)."""
        st = self._st
        return cardlib.format(int(c) for c in st.pile[: self._g[G_PILE]])

    def table(self) -> tuple[str, ...]:
        """The table's melds in card notation, by their number (a joker written where it stands)."""
        st = self._st
        return tuple(self._meld_text(st.table[m]) for m in range(int(self._g[G_MELDS])))

    def hand_sizes(self) -> tuple[int, ...]:
        """How many cards each seat holds (seen by every seat)."""
        return tuple(int(x) for x in self._st.h_n[:self.ruleset.players])

    # ---------------------------------------------------------- seat views

    def view(self, seat: int | None = None) -> SeatView:
        """What ``seat`` (default: the seat that decides) sees now, as the notation of :mod:`sim.seat_view`.

        Written from the public facts and the seat's own hand only: the
        hands' sizes, the table, the pile, the stock's size, who has opened
        and laid, the cards each seat took from the pile, the cards each
        other seat is publicly known to hold (as the belief rollouts keep
        them, :func:`sim.rollouts.known_cards`), the totals, and the moves
        of the turn under way (the card the mover drew from the stock only
        in the mover's own view). :func:`sim.seat_view.format_view` writes
        it as text.
        """
        n = self.ruleset.players
        seat = self.seat if seat is None else seat
        if not is_whole(seat, 0, n - 1):
            raise ValueError(f"seat must be 0 .. {n - 1}, got {seat!r}")
        seat = int(seat)
        from sim.rollouts import known_cards

        st, g = self._st, self._g
        preset, overrides = rules_of(self.ruleset)
        table = []
        for m in range(int(g[G_MELDS])):
            info = st.table[m]
            text, stands = meld_cards(int(info[I_KIND]), int(info[I_KEY]),
                                      int(info[I_START]), int(info[I_END]),
                                      int(info[I_JPOS]), int(info[I_JOKER]))
            table.append(TableMeld(int(st.owner[m]), text, stands))
        events = self.events
        # The turn under way began after the last discard (or the deal, or what a view stated).
        begun = max([i + 1 for i, e in enumerate(events) if e["type"] in ("discard", "deal")] + [self._prologue])
        mover, turn = self.mover, self.turn
        # The belief rollouts' owner of the cards known held, asked from this seat's side of the table.
        known = known_cards(_Watcher(events, seat))
        laid = tuple(s for s in range(n) if 0 <= st.seats[s, S_FIRST_LAY] and not (
            s == mover and st.seats[s, S_FIRST_LAY] == turn and self.decision != "draw"))
        threshold = None
        if self.ruleset.open_threshold_rises:
            threshold = self.observe(seat).threshold
        return SeatView(
            rules=preset, overrides=overrides, players=n, round=self.round, turn=turn, seat=seat, mover=mover,
            decision=self.decision, asked=self.seat if self.decision == "may_i" else None, hand=self.hand(seat),
            hand_sizes=self.hand_sizes(), table=tuple(table), pile=self.pile(), pile_unseen=0, stock=int(g[G_STOCK]),
            restocks=int(g[G_RESTOCKS]), opened=tuple(s for s in range(n) if st.seats[s, S_OPENED]), laid=laid,
            threshold=threshold,
            took=tuple(cardlib.format(c for c in range(cardlib.N_CODES) for _ in range(int(st.pub[PUB_TOOK + s, c])))
                       for s in range(n)),
            known=tuple("" if s == seat else cardlib.format(c for c in range(cardlib.N_CODES) for _ in range(int(known[s, c])))
                        for s in range(n)),
            totals=self.totals, moves=tuple(_turn_moves(events[begun:], seat)),
        )

    @classmethod
    def from_view(cls, view: SeatView | str | dict[str, Any],
                  strategies: Sequence[str | strategy_lib.Strategy] | None = None) -> "Position":
        """An engine position that ``view`` (a :class:`SeatView`, its text or its JSON form) describes.

        What the seat sees is as the view says; every card it cannot see
        (the other hands beyond the cards they are known to hold, the
        stock, the pile under the cards remembered) is dealt in code order,
        one consistent assignment among many: belief rollouts
        (:func:`sim.rollout`) deal all of those again at every trial. The
        turn under way is played again from its start by the engine, move by
        move, so the position stands at the decision the view names, with
        every fact of the turn (the card taken, a joker still to lay) the
        engine keeps. ``strategies``: one per seat, default ``expert``.

        ``Position.from_view(p.view(s)).view(s) == p.view(s)`` for every
        position ``p`` of the lab and seat ``s``. The position's events begin
        with one ``draw`` from the pile for each card a seat was known to
        hold when the turn began (the facts the view states, which
        :func:`sim.rollouts.known_cards` reads), then the turn's moves.

        Raises
        ------
        ViewError
            The view cannot be read or cannot happen: ``line`` and
            ``column`` locate the fault in its text; a view that is over has
            no decision to stand at.
        """
        text = view if isinstance(view, str) else None
        try:
            if isinstance(view, str):
                view = parse_view(view)
            elif isinstance(view, dict):
                view = from_json(view)
            elif isinstance(view, SeatView):
                text = format_view(view)
                view = parse_view(text)
            else:
                raise TypeError(f"a view is a SeatView, its text or its JSON form, got {type(view).__name__}")
            if view.decision == "over":
                raise ViewError("decision: the round is over: there is no decision to stand at",
                                section="decision")
            r = view.ruleset()
            names = ["expert"] * r.players if strategies is None else list(strategies)
            if len(names) != r.players:
                raise ValueError(f"{len(names)} strategies for the view's {r.players} players")
            _, chosen = resolve(r, names)
            start = turn_start(view)
            position = cls._dealt_at_turn_start(view, r, chosen, start)
            # A table of strategies that never play at random may prove a cycle, as its game loop does (a traced
            # position reads the same flag off its game_start): the rollouts' futures block alike.
            kinds, params = strategy_lib.parameter_arrays(list(chosen), engine_play.MAX_SEATS)
            position._g[G_DETERMINISTIC] = 1 if engine_play.deterministic(position._kr, kinds, params) else 0
            position = position._replay_turn(view)
            built = position.view(view.seat)
            _check_built(view, built)
        except ViewError as exc:
            raise exc.located(text) if text is not None else exc from None
        return position

    @classmethod
    def _dealt_at_turn_start(cls, view: SeatView, r: rules_lib.Ruleset, chosen: Sequence[strategy_lib.Strategy],
                             start: TurnStart) -> "Position":
        """The round when the view's turn began, every unseen card dealt in code order, stopped at the
        turn's first decision."""
        n = r.players
        deck = Counter(int(c) for c in cardlib.deck(r.decks, r.n_jokers))
        # The stock's top cards this turn drew (the mover's, then each "Puis-je ?" card): those the seat saw.
        draws = start.draws if view.moves and read_move(view.moves[0])[0] == "drew" else []
        if draws and draws[0] is None and start.opens:
            # The mover opens after a stock draw the seat did not see: it is dealt a card of its opening's first
            # meld. The engine starts the opening search of a hand that could not open from the card drawn,
            # and that card's meld comes first, as the table shows it.
            first_meld = next(m for m in view.moves if m.startswith("open ")).split(" + ")[0].split()[1:]
            card = next(int(c) for c in cardlib.parse(" ".join(t for t in first_meld if t != "★")))
            if start.needs[view.mover][card] > start.known[view.mover][card]:
                start.needs[view.mover][card] -= 1
                draws = [card, *draws[1:]]
        taken = read_move(view.moves[0])[1][0] if view.moves and read_move(view.moves[0])[0] == "took" else None
        if taken is not None and view.mover != view.seat and r.discard_take == "must_use" and not start.lays:
            # The mover took the pile's top and must lay it in this turn: its unseen cards must let it.
            start.needs[view.mover] += _companions(view, r, start, int(cardlib.parse(taken)[0]))
        placed = Counter(start.hand) + Counter(start.pile)
        for meld in start.table:
            placed.update(int(c) if i != meld.joker else int(cardlib.JOKER) for i, c in enumerate(meld.cards))
        for s in range(n):
            if s != view.seat:
                placed += start.needs[s]
        known_draws = [c for c in draws if c is not None]
        placed.update(known_draws)
        over = placed - deck
        if over:
            code = min(over)
            raise ViewError(f"hands: the view places {placed[code]} of {cardlib.Card(code)}, and the deck holds "
                            f"{deck[code]}", section="hand")
        pool = sorted((deck - placed).elements())
        hands: list[list[int]] = [[] for _ in range(n)]
        for s in range(n):
            if s == view.seat:
                hands[s] = list(start.hand)
                continue
            hands[s] = sorted(start.needs[s].elements())
            missing = start.sizes[s] - len(hands[s])
            if missing < 0:
                raise ViewError(f"hands: seat {s} holds fewer cards than it laid and is known to hold",
                                section="hands")
            # A mover that lays this turn is dealt cards that make no meld with its hand, where the pool
            # allows: the engine lists one opening per hand, and it must list the one the moves play.
            chosen_cards = _inert(hands[s], pool, missing, r) if s == view.mover and start.lays else pool[:missing]
            hands[s] += chosen_cards
            left = Counter(pool)
            left.subtract(chosen_cards)
            pool = sorted(left.elements())
        if len(start.hand) != start.sizes[view.seat]:
            raise ViewError(f"hand: seat {view.seat}'s hand before this turn's moves does not hold its size",
                            section="hand")
        stock_size = view.stock + len(draws)
        need = view.pile_unseen + stock_size - len(known_draws)
        if len(pool) != need:
            raise ViewError(f"stock: the cards do not add up to the deck ({len(pool)} unseen cards for "
                            f"{need} places)", section="stock")
        # The unseen cards the turn drew, dealt first: the mover's card makes no meld with its hand when it lays.
        on_top = []
        for i, c in enumerate(draws):
            if c is None:
                c = _inert(hands[view.mover], pool, 1, r)[0] if i == 0 and start.lays else pool[0]
                pool.remove(c)
            on_top.append(c)
        pile = pool[:view.pile_unseen] + start.pile
        # The stock is drawn from its last slot: the cards drawn this turn lie on top, the first drawn last.
        stock = pool[view.pile_unseen:] + list(reversed(on_top))

        position = cls._start(r, chosen, 0, 0, view.round, np.zeros(0, dtype=np.int64), view.totals)
        st, g = position._st, position._g
        g[G_NEV] = 0  # the deal dealt another round: its events are not this one's
        first = (view.mover - view.turn) % n
        g[G_FIRST], g[G_TURN], g[G_RESTOCKS] = first, view.turn, view.restocks
        g[G_LAST_OPEN] = 0
        if r.open_threshold_rises and not start.opens and view.threshold is not None \
                and view.threshold > r.open_threshold:
            g[G_LAST_OPEN] = view.threshold - 1
        g[G_NFLIPS] = 0
        g[G_DETERMINISTIC] = 0  # a position typed by hand proves no cycle
        st.seats[:, :] = 0
        st.pub[:, :] = 0
        for s in range(n):
            lo, hi, jk = hand_words(hands[s])
            st.h_lo[s], st.h_hi[s], st.h_jk[s], st.h_n[s] = lo, hi, jk, len(hands[s])
            st.seats[s, S_OPEN_TURN] = -1
            st.seats[s, S_FIRST_LAY] = -1
            # Turns the seat has begun: those of the round's turns that were its own.
            st.seats[s, S_TURNS] = sum(1 for t in range(view.turn) if (first + t) % n == s)
            if s in start.opened:
                st.seats[s, S_OPENED] = 1
                st.seats[s, S_OPEN_TURN] = 0
                st.pub[PUB_OPENED, s] = 1
            if s in view.laid:
                st.seats[s, S_FIRST_LAY] = view.turn - 1
            if s == view.mover and s not in start.opened and st.seats[s, S_TURNS] > 0 \
                    and not _could_open(hands[s], r, view.round, view.threshold if not start.opens else None):
                # What the engine remembers of a seat that could not open at its last turn, and which makes
                # its opening search start from the card it draws (which may order that opening's melds).
                st.seats[s, S_NO_OPEN] = 1
            for c, k in start.took[s].items():
                st.pub[PUB_TOOK + s, c] = k
            st.seats[s, S_TAKES] = sum(start.took[s].values())
        if len(start.table) > MAX_MELDS:
            raise ViewError(f"table: {len(start.table)} melds, more than the engine's {MAX_MELDS}", section="table")
        for m, meld in enumerate(start.table):
            st.table[m, :] = _meld_row(meld, r)
            st.owner[m] = meld.owner
            for i, c in enumerate(meld.cards):
                if i != meld.joker:
                    st.pub[PUB_TABLE, int(c)] += 1
            st.pub[PUB_TABLE, int(cardlib.JOKER)] += 1 if meld.joker >= 0 else 0
        g[G_MELDS] = len(start.table)
        g[G_ACCEPT] = g[G_ACCEPT_JOKER] = g[G_RECOVERING] = 0
        table_changed(g, st.table, st.takes, position._kr, 0, -1, -1)
        st.stock[: len(stock)] = stock
        g[G_STOCK] = len(stock)
        st.pile[: len(pile)] = pile
        g[G_PILE] = len(pile)
        for c in pile:
            st.pub[PUB_PILE, c] += 1
        position._ts = engine_position.new_turn_state()
        # The cards known held when the turn began, as the draws from the pile that make a card known.
        rows = [(s, c) for s in range(n) if s != view.seat for c in sorted(start.known[s].elements())]
        position._room()
        while position._ev.shape[0] < len(rows) + 2 * engine_position.EVENT_ROOM:
            position._ev = np.zeros((position._ev.shape[0] * 2, engine_play.N_EV), dtype=np.int32)
        for i, (s, c) in enumerate(rows):
            position._ev[i, :] = 0
            position._ev[i, :5] = (engine_play.EV_DRAW, view.round, s, 1, c)
        g[G_NEV] = len(rows)
        position._prologue = len(rows)
        position._advance(-2)
        return position

    def _replay_turn(self, view: SeatView) -> "Position":
        """Play the view's moves from the turn's first decision, up to the decision the view stands at."""
        position = self
        pending = list(enumerate(view.moves))
        asks = {int(f[0]): i for i, (k, f) in ((i, read_move(m)) for i, m in pending) if k == "asks"}

        def fail(i: int | None, message: str) -> ViewError:
            if i is None:
                return ViewError(f"decision: {message}", section="decision")
            return ViewError(f"moves: {view.moves[i]!r}: {message}", section="moves", part=i)

        def play(i: int | None, choice: str) -> "Position":
            found = dict(position.choice_codes())
            if choice not in found:
                legal = ", ".join(found) or "none"
                raise fail(i, f"not legal here ({position.decision} of seat {position.seat}); legal: {legal}")
            return position.apply(choice)

        while True:
            decision, seat = position.decision, position.seat
            if not pending and decision == view.decision and seat == view.deciding and position.mover == view.mover:
                return position
            if decision == "over":
                raise fail(pending[0][0] if pending else None, "the round ends before the view's decision")
            if decision == "may_i":
                if pending and read_move(pending[0][1])[0] == "asks" and int(read_move(pending[0][1])[1][0]) == seat:
                    i, _ = pending.pop(0)
                    position = play(i, next(t for t, _ in position.choice_codes() if t.startswith("ask ")))
                elif seat in asks and any(j == asks[seat] for j, _ in pending):
                    raise fail(asks[seat], f"seat {seat} is asked before the moves before it are played")
                else:
                    position = play(None, "pass")
                continue
            if not pending:
                if decision == "lay" and view.decision == "discard":
                    position = play(None, "stop")
                    continue
                raise fail(None, f"the moves lead to seat {seat}'s {decision}, not to the view's "
                                 f"{view.decision} of seat {view.deciding}")
            i, move = pending.pop(0)
            kind, f = read_move(move)
            if decision == "draw" and kind == "took":
                position = play(i, f"take {f[0]}")
            elif decision == "draw" and kind == "drew":
                position = play(i, "stock")
            elif decision == "lay" and kind not in ("took", "drew", "asks"):
                position = play(i, _choice_text(position, move, i, fail))
            else:
                raise fail(i, f"the engine stands at seat {seat}'s {decision} here")

    def copy(self) -> "Position":
        """An independent copy."""
        other = Position(self.ruleset, self.strategies, self._st.copy(), self._g.copy(), self._policy_rng.copy(),
                         self._deck_rng.copy(), self._ts.copy(), self._ev.copy(), self.totals)
        other._seed_game = self._seed_game
        other._prologue = self._prologue
        return other

    def apply(self, choice: str) -> "Position":
        """The position after the deciding seat (:attr:`seat`) plays ``choice`` (one of :meth:`legal_choices`).

        The returned position stands at the next decision of any seat.
        """
        found = dict(reversed(self.choice_codes()))
        key = choice.strip() if isinstance(choice, str) else choice
        if isinstance(key, str) and key == "take" and self.decision == "draw":
            key = next((t for t in found if t.startswith("take ")), key)
        if isinstance(key, str) and key == "ask" and self.decision == "may_i":
            key = next((t for t in found if t.startswith("ask ")), key)
        if key not in found:
            legal = ", ".join(found) or "none (the round is over)"
            raise ValueError(f"{choice!r} is not a legal choice here ({self.decision}); legal: {legal}")
        after = self.copy()
        after._play_int(found[key])
        after._advance(-2)
        return after

    def step(self) -> tuple[str, "Position"]:
        """``(choice, next position)``: what the seat's own strategy plays here, and the position after it."""
        if self.decision == "over":
            raise ValueError("the round is over at this position")
        after = self.copy()
        choice = after._decide()
        text = next(t for t, c in after.choice_codes() if c == choice)
        after._play_int(choice)
        after._advance(-2)
        return text, after

    def with_strategies(self, strategies: Sequence[str | strategy_lib.Strategy]) -> "Position":
        """A copy whose seats play ``strategies`` from now on (one per seat)."""
        chosen = [strategy_lib.get(s).for_game(self.ruleset.game) for s in strategies]
        if len(chosen) != self.ruleset.players:
            raise ValueError(f"{len(chosen)} strategies for {self.ruleset.players} players")
        other = self.copy()
        other._set_strategies(chosen)
        # A repeated position proves a cycle only for the strategies that first met it.
        other._g[G_DETERMINISTIC] = 0
        return other

    def play_out(self, strategies: Sequence[str | strategy_lib.Strategy] | None = None) -> RoundOutcome:
        """Let ``strategies`` (default: the position's own) play the round to its end."""
        after = self.with_strategies(strategies) if strategies is not None else self.copy()
        start = int(after._g[G_NEV])
        if after._search.any():
            # A searching seat decides in Python's loop, one decision at a time.
            while after.decision != "over":
                after._play_int(after._decide())
                after._advance(-2)
        else:
            after._advance(-1)
        winner, blocked, rami_sec, points = engine_position.round_result(after._kr, after._st, after._g, after._ev,
                                                                         after._ts)
        n = self.ruleset.players
        played = events_to_dicts(after._ev[start: after._g[G_NEV]], n)
        return RoundOutcome(
            winner=None if winner < 0 else int(winner), blocked=rules_lib.BLOCKED_REASONS[int(blocked)] if int(blocked) else None, rami_sec=bool(rami_sec),
            points=tuple(int(p) for p in points[:n]), events=tuple(played),
        )

    # ------------------------------------------------------------- internals

    def _room(self) -> None:
        if self._ev.shape[0] - int(self._g[G_NEV]) < 2 * engine_position.EVENT_ROOM:
            grown = np.zeros((self._ev.shape[0] * 2, engine_play.N_EV), dtype=np.int32)
            grown[: self._ev.shape[0]] = self._ev
            self._ev = grown

    def _check(self) -> None:
        if self._g[G_OVERFLOW]:
            raise RuntimeError("the position's event record overflowed")
        if any(s.kind == KIND_PYTHON for s in self.strategies):
            from strategies import user

            user.raise_pending()

    def _advance(self, stop_seat: int) -> None:
        while True:
            self._room()
            engine_position.advance(self._kr, self._st, self._g, self._ev, _workspace(), self._kinds, self._params,
                                    self._policy_rng,
                                    self._deck_rng, self._ts, stop_seat)
            self._check()
            if self._ts[engine_position.TS_PHASE] != engine_position.PH_START:  # else it stopped for event room
                return

    def _set_strategies(self, chosen: Sequence[strategy_lib.Strategy]) -> None:
        """Seat ``chosen``: the kernels get each seat's compiled kind, a searching seat's base
        (:func:`sim.engine.search.search_table`), and ``_search`` its trials per choice."""
        self.strategies = tuple(chosen)
        kinds, self._params = strategy_lib.parameter_arrays(list(chosen), engine_play.MAX_SEATS)
        self._kinds = np.zeros_like(kinds)
        self._search = np.zeros_like(kinds)
        engine_search.search_table(kinds, self._params, self._kinds, self._search)
        # A searching seat that values the game reads its base's library of rounds.
        self._library = futures(self._kr, kinds, self._params) if self._search.any() else None

    def _decide(self) -> int:
        choice = engine_position.decide_for_python(self._kr, self._st, self._g, self._kinds, self._params,
                                                   self._policy_rng,
                                                   self._ts)
        self._check()
        seat = self.seat
        if self._search[seat] > 0:
            # The searching seat's choice, as its game loop makes it: from the
            # cards the others are publicly known to hold, seeded by the game
            # and the decision.
            from sim.rollouts import evidence_counts, known_cards

            seed, game = self._seed_game
            choices = np.zeros(self._st.act.shape[0] + cardlib.N_CODES, dtype=np.int64)
            rounds, starts, points_per_game = self._library
            totals = np.zeros(engine_play.MAX_SEATS, dtype=np.int64)
            totals[:len(self.totals)] = self.totals
            choice = engine_search.searched_choice(self._kr, self._st, self._g, self._ts, self._kinds, self._params,
                                                   seat,
                                                   known_cards(self), evidence_counts(self), np.uint64(seed), game,
                                                   self._search[seat], choice, choices,
                                                   totals, rounds[seat], starts[seat], points_per_game[seat],
                                                   np.zeros(engine_search.N_TALLY, dtype=np.int64))
        return int(choice)

    def _play_int(self, choice: int) -> None:
        self._room()
        engine_position.play_choice_for_python(self._kr, self._st, self._g, self._ev, _workspace(), self._kinds,
                                               self._params,
                                               self._policy_rng, int(choice), self._ts)
        self._check()

    @property
    def first(self) -> int:
        """The round's first player."""
        return int(self._g[G_FIRST])
