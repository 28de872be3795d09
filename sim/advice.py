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
from sim.api import scripted_deal
from sim.engine import melds as M
from sim.engine import play as E
from sim.engine.params import kernel_rules
from sim.trace import events_to_dicts, meld_cards
from strategies.policies import (
    KIND_HEURISTIC,
    KIND_RANDOM,
    N_VIEW,
    P_DISCARD,
    P_FEED_WEIGHT,
    P_NEAR_WEIGHT,
    PUB_PILE,
    V_ACE_HIGH,
    V_DECKS,
    V_MIN_RUN,
    V_NEXT,
    V_SEAT,
    feeds,
    near_score,
)

__all__ = ["Advice", "DiscardOption", "DrawReason", "MeldOption", "advise", "describe"]

_OUTCOMES = {
    E.TURN_NEXT: "next",
    E.TURN_OUT: "out",
    E.TURN_BLOCKED: "blocked: stock",
    E.TURN_CAP: "blocked: turn_cap",
    E.TURN_CYCLE: "blocked: cycle",
    E.TURN_CLOSED: "blocked: table_closed",
}
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
    :func:`strategies.policies.near_score`).
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
    ``feeds`` are :func:`strategies.policies.near_score` and
    :func:`strategies.policies.feeds`; ``score`` is the strategy's score (the
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

    @property
    def discarded(self) -> DiscardOption | None:
        """The option thrown, or ``None`` when the turn ended without a discard."""
        return next((d for d in self.discards if d.chosen), None)

    def __str__(self) -> str:
        lines = [f"Seat {self.seat}, round {self.round}, turn {self.turn} ({self.strategy}): hand {self.hand}"]
        chosen = self.discarded
        for m in self.moves:
            if _is_discard(m, self.seat) and chosen is not None:
                lines.append(f"  discards {chosen.card} ({_weighing_text(chosen, self._highest(), self.kind)})")
            else:
                lines.append("  " + _move_text(m, self.seat, self.tables))
        if self.outcome.startswith("blocked"):
            lines.append(f"  the round stops ({self.outcome})")
        if self.moves != self.played:
            shown = " / ".join(_move_text(m, self.seat, ()) for m in self.played) or "nothing"
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
            return f"draw: takes the pile's top {d.card}, which {facts}"
        if d.top is None:
            return f"draw: {d.card} from the stock (the pile is empty)"
        text = f"draw: leaves the pile's top {d.top} ({facts}) and draws {d.card} from the stock"
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
            return f"contract of deal {self.round % 7 + 1}: {what}; {verdict}"
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


def _move_text(e: dict[str, Any], seat: int, tables: Sequence[str]) -> str:
    """One event of a turn in words."""
    t = e["type"]
    who = "" if e.get("seat", seat) == seat else f"seat {e['seat']} "
    if t == "draw":
        where = "draws {} from the stock" if e["source"] == "stock" else "takes {} from the pile"
        return who + where.format(e["card"])
    if t == "restock":
        return f"the stock is rebuilt from the pile ({e['mode']})"
    if t == "open":
        melds = " + ".join(m["cards"] for m in e["melds"])
        return f"{who}opens with {melds} ({e['points']} points{', the whole hand' if e['lay_all'] else ''})"
    if t == "meld":
        return f"{who}lays {e['cards']}"
    if t == "add":
        end = f", {e['end']} end" if e["end"] else ""
        now = f" -> {tables[e['id']]}" if e["id"] < len(tables) else ""
        return f"{who}adds {e['card']} to meld {e['id']}{end}{now}"
    if t == "recover":
        return f"{who}takes back the joker of meld {e['id']} with {e['card']}"
    if t == "may_i":
        return f"seat {e['seat']} says \"Puis-je ?\" and takes {e['card']} (and {e['penalty']} from the stock)"
    if t == "discard":
        return f"{who}discards {e['card']}"
    if t == "out":
        return f"{who}goes out"
    if t == "blocked":
        return f"the round is blocked ({e['reason']})"
    if t == "deal":
        return f"round {e['round']} is dealt; seat {e['first']} plays first, the pile shows {e['pile']}"
    if t == "round_end":
        won = "blocked, no winner" if e["winner"] is None else f"seat {e['winner']} won"
        return f"round {e['round']} ends ({won}): points {e['points']}, totals {e['totals']}"
    if t == "game_start":
        return f"game {e.get('game')} of seed {e.get('seed')}: {', '.join(e.get('strategies', []))}"
    if t == "game_end":
        won = "no single winner" if e["winner"] is None else f"seat {e['winner']} wins"
        return f"the game ends after {e['rounds']} rounds ({won}): totals {e['totals']}"
    return t


def describe(event: dict[str, Any]) -> str:
    """One trace event in words, e.g. ``"seat 2 draws 9♣ from the stock"``."""
    return _move_text(event, -1, ())


# ---------------------------------------------------------------- the position


def _codes(lo: Any, hi: Any, jk: Any) -> list[int]:
    lo, hi = int(lo), int(hi)
    codes = []
    for c in range(52):
        codes += [c] * ((lo >> c & 1) + (hi >> c & 1))
    return codes + [int(cardlib.JOKER)] * int(jk)


def _event_rows(event: dict[str, Any]) -> int:
    """Kernel event rows behind one event dict (to size the replay's buffer)."""
    t = event.get("type")
    if t == "deal":
        return 1 + sum(len(h.split()) for h in event["hands"]) + len(event["stock"].split()) + 1
    if t == "restock":
        return 1 + len(event["stock"].split()) + len(event["pile"].split())
    if t == "open":
        return 1 + len(event["melds"])
    return 1


def _locate(events: Sequence[dict[str, Any]], index: int) -> tuple[int, int, int]:
    """``(deal index, turn, start)`` of the turn that contains event ``index``."""
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        raise ValueError(f"index must be a whole number, got {index!r}")
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


class _Position:
    """The engine's state at the start of a turn: the arguments of ``step_turn``."""

    def __init__(self, kr, kinds, params, buffers, g, policy_rng, deck_rng):
        self.kr, self.kinds, self.params = kr, kinds, params
        self.buffers, self.g, self.policy_rng, self.deck_rng = buffers, g, policy_rng, deck_rng

    def copy(self) -> "_Position":
        return _Position(self.kr, self.kinds.copy(), self.params.copy(), tuple(b.copy() for b in self.buffers),
                         self.g.copy(), self.policy_rng.copy(), self.deck_rng.copy())

    @property
    def seat(self) -> int:
        return int((self.g[E.G_FIRST] + self.g[E.G_TURN]) % self.kr.players)

    def step(self, ws, rows: int) -> tuple[int, np.ndarray]:
        """Play the next turn recording its events: ``(TURN_* status, event rows)``."""
        ev = np.zeros((rows, E.N_EV), dtype=np.int32)
        self.g[E.G_TRACE] = 1
        self.g[E.G_NEV] = 0
        status = E.step_turn(self.kr, self.kinds, self.params, self.buffers, ws, self.g, ev, self.policy_rng,
                             self.deck_rng)
        if self.g[E.G_OVERFLOW]:
            raise RuntimeError(f"a turn recorded more than {rows} event rows")
        return int(status), ev[: self.g[E.G_NEV]]


def _rebuild(events: Sequence[dict[str, Any]], head: dict[str, Any], r: rules.Ruleset, deal: int, turns: int,
             start: int, ws) -> _Position:
    """Replay the round of ``events[deal]`` for ``turns`` turns; check it matches the trace."""
    kr = kernel_rules(r)
    try:
        chosen = [strategy_lib.get(s).for_game(r.game) for s in head["strategies"]]
    except ValueError as exc:
        raise ValueError(f"the trace cannot be replayed: {exc}") from None
    if len(chosen) != r.players:
        raise ValueError(f"the trace names {len(chosen)} strategies for {r.players} players")
    kinds, params = strategy_lib.parameter_arrays(chosen, E.MAX_SEATS)
    d = events[deal]
    rnd, seed, game = int(d["round"]), np.uint64(head["seed"]), int(head["game"])
    if d.get("first") != rnd % r.players:
        raise ValueError(f"the trace cannot be replayed: round {rnd} starts with seat {d.get('first')}, "
                         f"the engine's first player is seat {rnd % r.players}")
    try:
        order = scripted_deal(r, d["hands"], d["pile"], d["stock"], 0, rnd)
    except (KeyError, ValueError) as exc:
        raise ValueError(f"the trace cannot be replayed: the deal of event {deal} is not a deal: {exc}") from None
    rows = sum(_event_rows(e) for e in events[deal:start]) + 16
    ev = np.zeros((rows, E.N_EV), dtype=np.int32)
    g = np.zeros(E.N_G, dtype=np.int64)
    g[E.G_TRACE] = 1
    buffers = E.make_buffers()
    policy_rng = np.zeros(E.MAX_SEATS, dtype=np.uint64)
    deck_rng = np.zeros(1, dtype=np.uint64)
    E.start_round(kr, game, seed, rnd, buffers, g, ev, policy_rng, deck_rng, order)
    # A shuffled deal moved the round's deck stream on, and a later reshuffle
    # of the stock draws from it; a scripted deal did not: deal the round
    # shuffled too and keep its stream when that is the trace's deal.
    shuffled = E.make_buffers()
    g_shuffled = np.zeros(E.N_G, dtype=np.int64)
    rng_shuffled = np.zeros(E.MAX_SEATS, dtype=np.uint64)
    deck_shuffled = np.zeros(1, dtype=np.uint64)
    E.start_round(kr, game, seed, rnd, shuffled, g_shuffled, ev[:0], rng_shuffled, deck_shuffled,
                  np.zeros(0, dtype=np.int64))
    if all(np.array_equal(shuffled[i], buffers[i]) for i in (0, 1, 2, 3, 7, 8)):
        deck_rng[:] = deck_shuffled
    # As play_game does: deterministic tables stop a repeating round.
    g[E.G_DETERMINISTIC] = 1 if head["deterministic"] else 0
    position = _Position(kr, kinds, params, buffers, g, policy_rng, deck_rng)
    for turn in range(turns):
        status = E.step_turn(kr, kinds, params, buffers, ws, g, ev, policy_rng, deck_rng)
        if status != E.TURN_NEXT or g[E.G_OVERFLOW]:
            raise ValueError(f"the trace cannot be replayed: the engine ends round {rnd} at its turn {turn} "
                             f"({_OUTCOMES.get(int(status), status)}), the trace plays on")
    rebuilt = events_to_dicts(ev[: g[E.G_NEV]], r.players)
    expected = list(events[deal:start])
    for i, (got, want) in enumerate(zip(rebuilt, expected)):
        if got != want:
            raise ValueError(f"the trace cannot be replayed: at event {deal + i} the trace has {want}, "
                             f"the engine plays {got}")
    if len(rebuilt) != len(expected):
        raise ValueError(f"the trace cannot be replayed: the engine records {len(rebuilt)} events for the first "
                         f"{turns} turns of round {rnd}, the trace {len(expected)}")
    return position


# ------------------------------------------------------------------ the reasons


def _draw_reason(before: _Position, moves: list[dict[str, Any]], seat: int, r: rules.Ruleset, ws) -> DrawReason:
    """The draw, whether the pile's top could be taken, and the three facts of ``choose_take`` about it."""
    draw = next((m for m in moves if m["type"] == "draw" and m["seat"] == seat), None)
    h_lo, h_hi, h_jk = before.buffers[0], before.buffers[1], before.buffers[2]
    seats, pile, pub = before.buffers[4], before.buffers[8], before.buffers[20].copy()
    g = before.g
    n_pile = int(g[E.G_PILE])
    source = None if draw is None else draw["source"]
    card = None if draw is None else draw["card"]
    if n_pile == 0:
        return DrawReason(source, card, None, False, False, False, 0.0)
    top = int(pile[n_pile - 1])
    if any(m["type"] == "restock" for m in moves[:1]) and r.stock_exhausted != "flip_no_shuffle":
        # The stock was rebuilt before the draw: only the top stays in the pile.
        pub[PUB_PILE, :] = 0
        pub[PUB_PILE, top] = 1
    lo, hi, jk = h_lo[seat], h_hi[seat], int(h_jk[seat])
    if top == int(cardlib.JOKER):
        completes = bool(M.joker_in_meld(lo, r.min_run, r.ace_high))
        on_table = g[E.G_ACCEPT_JOKER] == 1
    else:
        completes = bool(M.card_in_meld(lo, jk, top, r.min_run, r.ace_high))
        on_table = (int(g[E.G_ACCEPT]) >> top) & 1 == 1
    can_add = bool(seats[seat, E.S_OPENED]) or r.add_before_opening
    view = np.zeros(N_VIEW, dtype=np.int64)
    view[V_SEAT], view[V_NEXT] = seat, (seat + 1) % r.players
    view[V_DECKS], view[V_MIN_RUN], view[V_ACE_HIGH] = r.decks, r.min_run, int(r.ace_high)
    near = float(near_score(top, lo, hi, pub, view))
    # The engine's own check of the take (its scratch arrays are copies).
    b = tuple(x.copy() for x in before.buffers)
    may_take = False
    if draw is not None:
        may_take, _, _ = E._take_status(before.kr, g.copy(), seat, top, bool(seats[seat, E.S_OPENED]), lo, hi,
                                        h_jk[seat], before.buffers[3][seat], b[5], b[9], b[10], b[11], b[12],
                                        b[17], b[18], b[13], b[14], b[15], b[16], ws)
    return DrawReason(source, card, cardlib.Card(top).text(), bool(may_take), completes,
                      bool(can_add and on_table), near)


def _discard_options(after: _Position, seat: int, thrown: int, taken: int, strategy: strategy_lib.Strategy,
                     r: rules.Ruleset) -> tuple[DiscardOption, ...]:
    """Every legal discard of the hand just before the discard, weighed as ``choose_discard`` does.

    ``after`` is the position once the turn is over: the hand is its hand
    plus ``thrown``, the public counts its counts less ``thrown`` on the pile;
    the last meld enumeration of the turn (``c_mask``, ``c_info``) is the
    one the engine's discard read, of this very hand.
    """
    b, g = after.buffers, after.g
    lo, hi, jk = int(b[0][seat]), int(b[1][seat]), int(b[2][seat])
    if thrown == int(cardlib.JOKER):
        jk += 1
    elif lo >> thrown & 1:
        hi |= 1 << thrown
    else:
        lo |= 1 << thrown
    pub = b[20].copy()
    pub[PUB_PILE, thrown] -= 1
    view = b[21]
    c_mask, c_info = b[9], b[10]
    in_meld = 0
    for k in range(int(g[E.G_NCAND])):
        if c_info[k, M.I_JOKER] <= jk:
            in_meld |= int(c_mask[k])
    can_add = bool(b[4][seat, E.S_OPENED]) or r.add_before_opening
    table_mask, joker_fits = int(g[E.G_ACCEPT]), g[E.G_ACCEPT_JOKER] == 1
    codes = [c for c in range(52) if lo >> c & 1] + ([int(cardlib.JOKER)] if jk else [])

    def on_table(code: int) -> bool:
        return bool(joker_fits) if code == int(cardlib.JOKER) else bool(table_mask >> code & 1)

    legal = [c for c in codes if c != taken and not (r.discard_playable == "forbidden" and on_table(c))]
    if not legal:
        legal = [c for c in codes if c != taken]
    vector = strategy.vector()
    mode = vector[P_DISCARD]
    lo_w, hi_w = np.uint64(lo), np.uint64(hi)
    nxt = int(view[V_NEXT])
    options = []
    for code in legal:
        is_joker = code == int(cardlib.JOKER)
        penalty = rules.card_penalty(code, r)
        sits = is_joker or bool(in_meld >> code & 1)
        fits_table = can_add and on_table(code)
        near = float(near_score(code, lo_w, hi_w, pub, view))
        fed = float(feeds(code, nxt, pub, view, np.uint64(table_mask), bool(joker_fits)))
        score = None
        if strategy.kind == KIND_HEURISTIC:
            # The very arithmetic of choose_discard, in its order.
            score = float(penalty)
            if sits or fits_table:
                score -= 1000.0
            if mode >= 1:
                score -= vector[P_NEAR_WEIGHT] * near
            if mode >= 2:
                score -= vector[P_FEED_WEIGHT] * fed
            if is_joker:
                score -= 5000.0
        options.append(DiscardOption(cardlib.Card(code).text(), penalty, sits, fits_table, near, fed, score,
                                     code == thrown))
    return tuple(options)


def _table_texts(position: _Position) -> tuple[str, ...]:
    table = position.buffers[5]
    out = []
    for m in range(int(position.g[E.G_MELDS])):
        row = table[m]
        text, _ = meld_cards(int(row[M.I_KIND]), int(row[M.I_KEY]), int(row[M.I_START]), int(row[M.I_END]),
                             int(row[M.I_JPOS]), int(row[M.I_JOKER]))
        out.append(text)
    return tuple(out)


# -------------------------------------------------------------------- advise


def advise(events: Sequence[dict[str, Any]], index: int, strategy: str | strategy_lib.Strategy = "expert") -> Advice:
    """What ``strategy`` plays at the start of the turn containing event ``index``, and why.

    Parameters
    ----------
    events : sequence of dict
        A whole trace from :func:`sim.play_traced` (its ``game_start`` names
        the ruleset, the strategies per seat, the seed and the game).
    index : int
        An event inside a round: the ``deal`` (the round's first turn) or any
        event of a turn (a draw, a laying, a ``may_i``, a discard, ...). The
        position advised is the start of that turn, before its draw.
    strategy : str or Strategy
        The strategy the seat to move plays in the advised turn: a name,
        ``"name:param=value,..."`` or a :class:`strategies.Strategy`. The
        other seats keep theirs (a ``may_i`` of theirs may be part of the turn).

    Returns
    -------
    Advice
        The advised moves and their reasons; ``str(advice)`` prints them.

    Raises
    ------
    ValueError
        ``index`` is not inside a turn of the trace, or the engine does not
        replay the trace exactly up to the position (another engine version,
        an edited trace).
    """
    events = list(events)
    head = _header(events)
    deal, turns, start = _locate(events, index)
    try:
        r = rules.Ruleset(**head["ruleset"])
    except (TypeError, rules.RulesetError) as exc:
        raise ValueError(f"the trace cannot be replayed: its ruleset is not valid: {exc}") from None
    advised = strategy_lib.get(strategy).for_game(r.game)
    ws = M.workspace()
    before = _rebuild(events, head, r, deal, turns, start, ws)
    seat = before.seat
    rnd = int(events[deal]["round"])
    after = before.copy()
    after.kinds[seat], after.params[seat] = advised.kind, advised.vector()
    # A repeated position proves a cycle only if the seat plays as it did
    # when the position was first seen.
    own = strategy_lib.get(head["strategies"][seat]).for_game(r.game)
    if advised.kind != own.kind or not np.array_equal(advised.vector(), own.vector()):
        after.g[E.G_DETERMINISTIC] = 0
    status, rows = after.step(ws, rows=4 * r.deck_size + 512)
    if advised.kind == strategy_lib.policies.KIND_PYTHON:
        from strategies import user

        user.raise_pending()  # a Python policy's error during the advised turn
    moves = events_to_dicts(rows, r.players)

    hand = _codes(before.buffers[0][seat], before.buffers[1][seat], before.buffers[2][seat])
    draw = _draw_reason(before, moves, seat, r, ws)
    after_draw = sorted(hand + ([int(cardlib.parse(draw.card)[0])] if draw.card else []))
    found = rules.candidate_melds(after_draw, r)
    melds = tuple(sorted((MeldOption(m.text(), m.kind, m.points) for m in found.values()),
                         key=lambda m: (-m.points, m.cards)))
    opened = bool(before.buffers[4][seat, E.S_OPENED])
    contract = contract_ready = opening = threshold = None
    if r.game == "contrat":
        contract = r.contract(rnd % 7 + 1)
        contract_ready = rules.meets_contract(after_draw, rnd % 7 + 1, r)
    else:
        opening = rules.best_opening(after_draw, r)
        threshold = r.open_threshold
        last = int(before.g[E.G_LAST_OPEN])
        if r.open_threshold_rises and last > 0 and last + 1 > threshold:
            threshold = last + 1

    discards: tuple[DiscardOption, ...] = ()
    thrown = next((m for m in moves if _is_discard(m, seat)), None)
    if thrown is not None:
        taken = int(cardlib.parse(draw.card)[0]) if draw.source == "discard" else -1
        discards = _discard_options(after, seat, int(cardlib.parse(thrown["card"])[0]), taken, advised, r)

    return Advice(
        seat=seat, round=rnd, turn=int(before.g[E.G_TURN]), index=int(index), start=start,
        strategy=advised.name, kind=_KINDS.get(advised.kind, "python"), hand=cardlib.format(hand), opened=opened,
        moves=tuple(moves),
        played=tuple(events[start:_turn_end(events, start)]), outcome=_OUTCOMES.get(status, str(status)),
        hand_after_draw=cardlib.format(after_draw), melds=melds, opening=opening, threshold=threshold,
        contract=contract, contract_ready=contract_ready, draw=draw, discards=discards,
        tables=_table_texts(after), discard_take=r.discard_take,
    )
