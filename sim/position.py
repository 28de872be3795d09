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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

import strategies as strategy_lib
from sim import cards as cardlib
from sim import rules as rules_lib
from sim.api import resolve, scripted_deal
from sim.engine import melds as M
from sim.engine import play as E
from sim.engine import position as K
from sim.engine import search as S
from sim.engine.hand import hand_codes
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
    PUB_TOOK,
)
from sim.engine.params import kernel_rules
from sim.engine.policies import KIND_PYTHON
from sim.engine.state import (
    G_DETERMINISTIC,
    G_FIRST,
    G_MELDS,
    G_NEV,
    G_OVERFLOW,
    G_PILE,
    G_ROUND,
    G_STOCK,
    G_TRACE,
    G_TURN,
    N_G,
    S_OPENED,
)
from sim.trace import events_to_dicts, meld_cards

__all__ = ["KernelState", "Observation", "Position", "RoundOutcome"]

_DECISIONS = {K.PH_DRAW: "draw", K.PH_LAY: "lay", K.PH_DISCARD: "discard", K.PH_MAY_I: "may_i", K.PH_END: "over"}
_ENDS = ("", "low", "high", "")
_EVENT_DECISION = {"draw": K.PH_DRAW, "open": K.PH_LAY, "meld": K.PH_LAY, "add": K.PH_LAY, "recover": K.PH_LAY,
                   "discard": K.PH_DISCARD, "may_i": K.PH_MAY_I}



@dataclass(frozen=True)
class Observation:
    """What one seat may see: its own hand and the public facts, never another hand nor the stock.

    ``view`` and ``pub`` are the very arrays the compiled strategies read
    (:mod:`sim.engine.layout`): ``view`` ``int64 (N_VIEW,)``, ``pub``
    ``int64 (N_PUB, 53)``.
    """

    seat: int
    hand: str
    hand_sizes: tuple[int, ...]
    pile: str
    table: tuple[str, ...]
    took: tuple[str, ...]
    opened: tuple[bool, ...]
    stock_size: int
    view: np.ndarray
    pub: np.ndarray


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
        self._ws = M.workspace()

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
    def _start(cls, r: rules_lib.Ruleset, chosen: Sequence[strategy_lib.Strategy], seed: int, game: int, rnd: int,
               order: np.ndarray, totals: Sequence[int]) -> "Position":
        kr = kernel_rules(r)
        st = E.make_buffers()
        g = np.zeros(N_G, dtype=np.int64)
        g[G_TRACE] = 1
        ev = np.zeros((4 * K.EVENT_ROOM, E.N_EV), dtype=np.int32)
        policy_rng = np.zeros(E.MAX_SEATS, dtype=np.uint64)
        deck_rng = np.zeros(1, dtype=np.uint64)
        E.start_round(kr, game, np.uint64(seed), rnd, st, g, ev, policy_rng, deck_rng, order)
        # A shuffled deal moved the round's deck stream on, and a later reshuffle
        # of the stock draws from it; a scripted deal did not: deal the round
        # shuffled too and keep its stream when it is the same deal.
        shuffled = E.make_buffers()
        rng_shuffled = np.zeros(E.MAX_SEATS, dtype=np.uint64)
        deck_shuffled = np.zeros(1, dtype=np.uint64)
        E.start_round(kr, game, np.uint64(seed), rnd, shuffled, np.zeros(N_G, dtype=np.int64), ev[:0],
                      rng_shuffled, deck_shuffled, np.zeros(0, dtype=np.int64))
        if all(np.array_equal(getattr(shuffled, f), getattr(st, f)) for f in ("h_lo", "h_hi", "h_jk", "h_n",
                                                                                "stock", "pile")):
            deck_rng[:] = deck_shuffled
        position = cls(r, chosen, st, g, policy_rng, deck_rng, K.new_turn_state(), ev, totals)
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
        the engine does not replay the trace up to that point.
        """
        events = list(events)
        if not events or not isinstance(events[0], dict) or events[0].get("type") != "game_start":
            raise ValueError("events must be a whole trace from sim.play_traced, starting with its game_start event")
        head = events[0]
        missing = [k for k in ("ruleset", "strategies", "seed", "game", "deterministic") if k not in head]
        if missing:
            raise ValueError(f"the game_start event lacks {', '.join(missing)}: trace the game again")
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 < index < len(events):
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
            target, phase = events[deal:index], K.PH_DRAW  # the pile is turned over by a draw from the stock
        elif kind == "restock":
            target, phase = events[deal:index + 1], K.PH_DRAW
        elif kind == "blocked":
            target, phase = events[deal:index], K.PH_END
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
            stage = int(position._ts[K.TS_PHASE])
            if len(got) == len(target) and (phase < 0 or stage == phase) and (asker < 0 or position.seat == asker):
                if position.events != target:  # the events read step by step are the round's events read whole
                    raise ValueError(f"the trace cannot be replayed: its events read again differ from the trace's "
                                     f"before event {index}")
                return position
            if stage == K.PH_END:
                raise ValueError(f"the trace cannot be replayed: the engine ends round {rnd} before event {index}")
            position._play_int(position._decide())

    # -------------------------------------------------------------- reading

    @property
    def seat(self) -> int:
        """The seat that decides: the seat to move, or at a ``"may_i"`` the seat asked."""
        return int(K.deciding_seat(self._ts))

    @property
    def mover(self) -> int:
        """The seat to move (whose turn it is), also while another seat is asked "Puis-je ?"."""
        return int(self._ts[K.TS_SEAT])

    @property
    def decision(self) -> str:
        """``"draw"``, ``"lay"``, ``"discard"``, ``"may_i"`` or ``"over"``."""
        return _DECISIONS[int(self._ts[K.TS_PHASE])]

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
        if isinstance(mark, bool) or not isinstance(mark, (int, np.integer)) or not 0 <= mark <= self._g[G_NEV]:
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
        phase = int(self._ts[K.TS_PHASE])
        st, g = self._st, self._g
        if phase == K.PH_DRAW:
            out = [("stock", 0)] if g[G_STOCK] > 0 or g[G_PILE] > 0 else []
            if self._ts[K.TS_TAKE_LEGAL]:
                out.insert(0, (f"take {_text(st.pile[g[G_PILE] - 1])}", 1))
            return out
        if phase == K.PH_LAY:
            return [(self._action_text(i), i) for i in range(int(self._ts[K.TS_NACT]))]
        if phase == K.PH_DISCARD:
            return [(_text(c), int(c)) for c in st.d_legal[: int(self._ts[K.TS_NDISCARD])]]
        if phase == K.PH_MAY_I:
            return [(f'ask for {_text(st.pile[g[G_PILE] - 1])} ("Puis-je ?")', 1), ("pass", 0)]
        return []

    def _meld_text(self, info: np.ndarray) -> str:
        text, _ = meld_cards(int(info[M.I_KIND]), int(info[M.I_KEY]), int(info[M.I_START]), int(info[M.I_END]),
                             int(info[M.I_JPOS]), int(info[M.I_JOKER]))
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
                for i in range(int(self._ts[K.TS_NDISCARD]))]

    def observe(self, seat: int) -> Observation:
        """What ``seat`` may see now (see :class:`Observation`)."""
        n = self.ruleset.players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0 .. {n - 1}, got {seat!r}")
        st, g = self._st, self._g
        view = np.zeros(N_VIEW, dtype=np.int64)
        K.observe(self._kr, st, g, int(seat), view)
        pub = st.pub.copy()
        took = tuple(cardlib.format([c for c in range(53) for _ in range(int(pub[PUB_TOOK + s, c]))])
                     for s in range(n))
        return Observation(
            seat=int(seat), hand=self.hand(seat), hand_sizes=tuple(int(x) for x in st.h_n[:n]),
            pile=cardlib.format(int(c) for c in st.pile[: g[G_PILE]]),
            table=tuple(self._meld_text(st.table[m]) for m in range(int(g[G_MELDS]))), took=took,
            opened=tuple(bool(x) for x in st.seats[:n, S_OPENED]), stock_size=int(g[G_STOCK]), view=view, pub=pub,
        )

    # -------------------------------------------------------------- playing

    def copy(self) -> "Position":
        """An independent copy."""
        other = Position(self.ruleset, self.strategies, self._st.copy(), self._g.copy(), self._policy_rng.copy(),
                         self._deck_rng.copy(), self._ts.copy(), self._ev.copy(), self.totals)
        other._seed_game = self._seed_game
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
        winner, blocked, rami_sec, points = K.round_result(after._kr, after._st, after._g, after._ev, after._ts)
        n = self.ruleset.players
        played = events_to_dicts(after._ev[start: after._g[G_NEV]], n)
        return RoundOutcome(
            winner=None if winner < 0 else int(winner), blocked=rules_lib.BLOCKED_REASONS[int(blocked)] if int(blocked) else None, rami_sec=bool(rami_sec),
            points=tuple(int(p) for p in points[:n]), events=tuple(played),
        )

    # ------------------------------------------------------------- internals

    def _room(self) -> None:
        if self._ev.shape[0] - int(self._g[G_NEV]) < 2 * K.EVENT_ROOM:
            grown = np.zeros((self._ev.shape[0] * 2, E.N_EV), dtype=np.int32)
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
            K.advance(self._kr, self._st, self._g, self._ev, self._ws, self._kinds, self._params, self._policy_rng,
                      self._deck_rng, self._ts, stop_seat)
            self._check()
            if self._ts[K.TS_PHASE] != K.PH_START:  # else it stopped for event room
                return

    def _set_strategies(self, chosen: Sequence[strategy_lib.Strategy]) -> None:
        """Seat ``chosen``: the kernels get each seat's compiled kind, a searching seat's base
        (:func:`sim.engine.search.search_table`), and ``_search`` its trials per choice."""
        self.strategies = tuple(chosen)
        kinds, self._params = strategy_lib.parameter_arrays(list(chosen), E.MAX_SEATS)
        self._kinds = np.zeros_like(kinds)
        self._search = np.zeros_like(kinds)
        S.search_table(kinds, self._params, self._kinds, self._search)
        # A searching seat that values the game reads its base's library of rounds.
        self._library = E.futures(self._kr, kinds, self._params) if self._search.any() else None

    def _decide(self) -> int:
        choice = K.decide_for_python(self._kr, self._st, self._g, self._kinds, self._params, self._policy_rng,
                                     self._ts)
        self._check()
        seat = self.seat
        if self._search[seat] > 0:
            # The searching seat's choice, as its game loop makes it: from the
            # cards the others are publicly known to hold, seeded by the game
            # and the decision.
            from sim.rollouts import evidence_counts, known_cards

            seed, game = self._seed_game
            choices = np.zeros(self._st.act.shape[0] + 54, dtype=np.int64)
            rounds, starts, points_per_game = self._library
            totals = np.zeros(E.MAX_SEATS, dtype=np.int64)
            totals[:len(self.totals)] = self.totals
            choice = S.searched_choice(self._kr, self._st, self._g, self._ts, self._kinds, self._params, seat,
                                       known_cards(self), evidence_counts(self), np.uint64(seed), game,
                                       self._search[seat], choice, choices,
                                       totals, rounds[seat], starts[seat], points_per_game[seat],
                                       np.zeros(E.N_TALLY, dtype=np.int64))
        return int(choice)

    def _play_int(self, choice: int) -> None:
        self._room()
        K.play_choice_for_python(self._kr, self._st, self._g, self._ev, self._ws, self._kinds, self._params,
                                 self._policy_rng, int(choice), self._ts)
        self._check()

    @property
    def first(self) -> int:
        """The round's first player."""
        return int(self._g[G_FIRST])
