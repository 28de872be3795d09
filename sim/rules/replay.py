"""The trace replay checker: replays a game trace through the rules reference.

A trace (``docs/trace.md``) is the list of events of one game, as plain dicts
with cards in notation. :func:`check_trace` replays it card by card and raises
:class:`ReplayError` at the first event that breaks a rule (sections 1 to 8) or
a decision of ``docs/rules.md`` (items 11 to 24 are about play, items 26 to
31 about Rami contrat), loses or duplicates a card, or scores differently from
:func:`sim.rules.round_scores`.

The checker holds the whole state of the table itself: the stock (top first),
the discard pile (bottom first), every hand as a multiset of card codes, and
the melds on the table. After every event the cards of all these places must
be exactly the deck of the ruleset.

It is written to be read, like the rest of the rules reference, and never
imports the compiled engine (``sim.engine``): it is what the engine is checked
against.

Choices where the documents leave room (each one the careful player's reading):

* A ``restock`` or a ``blocked`` for lack of stock happens at a turn boundary,
  before the next player draws. Under ``reshuffle`` and
  ``turn_once_then_block`` an empty stock must be rebuilt (or the round
  blocked) before anyone draws, even from the discard; under
  ``flip_no_shuffle`` the player may take the discard top instead.
* The turn cap counts completed turns of the round: once ``turn_cap`` turns
  are done the round must be blocked (``reason = "turn_cap"``).
* An opening (a ``lay_all`` one and a contract too) lays a joker that could
  stand at either end of its run at the end worth more (docs/rules.md item
  4), so its recorded points are the most its melds are worth.
* A table joker in a set may stand for any missing suit; ``stands_for`` must
  name one of them. A meld's ``cards`` must be written as docs/trace.md says
  (a run from its lowest rank up, a set by suit, the joker at its place).
* ``discard_playable`` and ``last_card_no_discard_take`` ask whether a card
  "fits the table": a natural that one table meld accepts at an end (or as a
  missing suit), or a joker while some meld without a joker has room.
* ``round_end.rami_sec`` is true only when the bonus is scored: never under
  ``rami_sec = "none"``.
* A game with ``game_rounds > 0`` ends after that many rounds (``game_target``
  is then ignored); a tie for the best total there gives ``winner = null``
  (no single winner), and so does a game truncated by the round cap.

Rami contrat (docs/rules.md section 6 and items 26 to 31):

* The deal of round ``r`` is contrat deal ``r + 1``: its hand size and its
  contract come from ``CONTRACTS``; the deck is the ruleset's (two decks and
  ``players - 1`` jokers in the preset).
* The ``open`` event is the contract, always: ``lay_all`` is never true in
  contrat (nothing waives the contract, whatever ``lay_all_ignores_opening``
  says), and in deal 7 the three runs hold the whole hand, which ends the
  deal by laying. The other knobs keep their meaning (``add_before_opening``
  would allow additions before the contract, as in basic rummy).
* ``may_i`` is checked for where it happens (after the mover's stock draw and
  before its first laying or discard), who asks (not the mover; seats in turn
  order from the mover's left, each once), how many (``may_i_limit``) and
  which cards (the pile's top and the stock's top). Whether the card "really
  serves" the asker (the online game's courtesy, section 6.7) is a strategy's
  business and is not checked. A card taken this way is no discard take: no
  ``must_use``, no item 11 for the asker.
* ``table_closed`` reads the table alone: every player has laid its contract
  and no card code, natural or joker, is accepted by any table meld (every set
  a carré, every run 13 cards long), whoever holds the copies; it is what the
  whole table can see. Once it holds at the start of a turn the deal stops:
  a draw or a restock then is refused (a ``blocked`` for ``stock`` or
  ``turn_cap`` that also applies is accepted).
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sim.cards import JOKER, Card, card, deck, format as format_cards, parse
from sim.rules.facts import better_points, blocked_reasons, first_player
from sim.rules.melds import ACE_HIGH_POSITION, MeldReading, meld_readings
from sim.rules.ruleset import WHOLE_HAND_DEAL, Ruleset, RulesetError, as_ruleset, contract_deal
from sim.rules.scoring import round_scores

__all__ = ["ReplayError", "TableState", "check_trace", "replay_states"]

ROUND_CAP = 200
"""Rounds after which an undecided game stops, recorded as truncated (item 25)."""

MAX_RUN = 13
"""Longest run: 13 cards (ace low to king, or 2 to ace high)."""

RESTOCK_MODE = {"reshuffle": "reshuffle", "turn_once_then_block": "turn", "flip_no_shuffle": "flip"}
"""The ``restock`` event's ``mode`` for each ``stock_exhausted`` knob value."""


class ReplayError(AssertionError):
    """A trace event broke a rule; the message names the event and the rule."""


class _Broken(Exception):
    """Raised inside the replay; turned into a ReplayError naming the event."""


def _fail(problem: str) -> None:
    raise _Broken(problem)


def _text(cards) -> str:
    """Cards in notation, sorted, or "(none)"."""
    cards = sorted(cards)
    return format_cards(cards) if cards else "(none)"


def _run_card(position: int, suit: int) -> Card:
    """The natural card at a run position (1 ace low .. 14 ace high)."""
    return card(1 if position == ACE_HIGH_POSITION else position, suit)


# ----------------------------------------------------------------- table melds
@functools.lru_cache(maxsize=4096)
def _meld_text(meld_id: int, kind: str, suit: int, low: int, high: int, joker_at: int | None, rank: int,
               suits: tuple[int, ...], joker: bool) -> str:
    """``meld ID (cards)`` for a meld in this state (see :meth:`_Meld.text`)."""
    meld = _Meld(meld_id, kind, suit, low, high, joker_at, rank, set(suits), joker)
    return f"meld {meld_id} ({format_cards(meld.codes())})"


# Whether the table still takes a card is asked of all 54 cards at every draw of a contrat deal, and every card's
# place after every event: both are asked of a meld's state, which changes only when a card is added or a joker
# recovered, so each answer is worked out once per state by the very methods that define it.
@functools.lru_cache(maxsize=8192)
def _meld_takes(kind: str, suit: int, low: int, high: int, joker_at: int | None, rank: int, suits: tuple[int, ...],
                joker: bool, ace_high: bool) -> tuple[Card, ...]:
    """The cards a meld in this state accepts (see :meth:`_Meld.accepts`), in code order."""
    meld = _Meld(0, kind, suit, low, high, joker_at, rank, set(suits), joker)
    return tuple(Card(code) for code in range(JOKER + 1) if meld.accepts(Card(code), ace_high))


@functools.lru_cache(maxsize=8192)
def _meld_cards(kind: str, suit: int, low: int, high: int, joker_at: int | None, rank: int, suits: tuple[int, ...],
                joker: bool) -> tuple[Card, ...]:
    """The cards of a meld in this state (see :meth:`_Meld.codes`)."""
    return tuple(_Meld(0, kind, suit, low, high, joker_at, rank, set(suits), joker).codes())


@dataclass
class _Meld:
    """One meld on the table.

    A run keeps its suit, its lowest and highest positions (1 ace low .. 14
    ace high) and the position of its joker; a set keeps its rank, the suits
    of its natural cards and whether it holds a joker (which stands for any
    missing suit).
    """

    id: int
    kind: str
    suit: int = -1
    low: int = 0
    high: int = 0
    joker_at: int | None = None
    rank: int = 0
    suits: set[int] = field(default_factory=set)
    joker: bool = False

    @classmethod
    def from_reading(cls, meld_id: int, reading: MeldReading) -> "_Meld":
        if reading.kind == "run":
            joker_at = None
            if reading.stands_for:
                joker_at = reading.positions[reading.order.index(reading.stands_for[0])]
            return cls(
                meld_id,
                "run",
                suit=reading.order[0].suit,
                low=reading.positions[0],
                high=reading.positions[-1],
                joker_at=joker_at,
            )
        natural_suits = {c.suit for c in reading.order} - {c.suit for c in reading.stands_for}
        return cls(
            meld_id, "set", rank=reading.order[0].rank, suits=natural_suits, joker=bool(reading.stands_for)
        )

    @property
    def has_joker(self) -> bool:
        return self.joker_at is not None if self.kind == "run" else self.joker

    def size(self) -> int:
        if self.kind == "run":
            return self.high - self.low + 1
        return len(self.suits) + int(self.joker)

    def codes(self) -> list[Card]:
        if self.kind == "run":
            return [
                JOKER if p == self.joker_at else _run_card(p, self.suit)
                for p in range(self.low, self.high + 1)
            ]
        return [card(self.rank, s) for s in sorted(self.suits)] + [JOKER] * int(self.joker)

    def missing_suits(self) -> list[int]:
        return [s for s in range(4) if s not in self.suits]

    def state(self) -> tuple[Any, ...]:
        """What the meld is, without its id: the key of the answers worked out once per state."""
        return self.kind, self.suit, self.low, self.high, self.joker_at, self.rank, tuple(sorted(self.suits)), self.joker

    def takes(self, ace_high: bool) -> tuple[Card, ...]:
        """The cards this meld accepts now, in code order (each one :meth:`accepts`)."""
        return _meld_takes(*self.state(), ace_high)

    def cards(self) -> tuple[Card, ...]:
        """:meth:`codes`, worked out once per state of the meld."""
        return _meld_cards(*self.state())

    def text(self) -> str:
        # Every refusal message names the meld, and whether the table still takes a card is asked of all 54
        # cards at every action of a contrat deal: the notation is made once per state of the meld.
        return _meld_text(self.id, self.kind, self.suit, self.low, self.high, self.joker_at, self.rank,
                          tuple(sorted(self.suits)), self.joker)

    # ------------------------------------------------------------ additions
    def end_card(self, end: str, ace_high: bool) -> tuple[Card | None, str]:
        """The card a run accepts at ``end`` ("low"/"high"), or None and why not."""
        if self.size() >= MAX_RUN:
            return None, f"{self.text()} already holds {MAX_RUN} cards, the longest run"
        if end == "low":
            if self.low <= 1:
                return None, f"{self.text()} starts at the ace low: nothing goes below it"
            return _run_card(self.low - 1, self.suit), ""
        top = ACE_HIGH_POSITION if ace_high else 13
        if self.high >= top:
            why = "the ace high" if top == ACE_HIGH_POSITION else "the king (ace_high is false)"
            return None, f"{self.text()} ends at {why}: nothing goes above it (never K-A-2)"
        return _run_card(self.high + 1, self.suit), ""

    def addition_problem(self, c: Card, end: Any, stands_for: Card | None, ace_high: bool) -> str | None:
        """Why adding ``c`` (at ``end``, a joker standing for ``stands_for``) is illegal, or None."""
        if c.is_joker and self.has_joker:
            return f"{self.text()} already holds a joker: at most one joker per meld"
        if not c.is_joker and stands_for is not None:
            return f"a natural card {c} is added with stands_for {stands_for}: only a joker stands for a card"
        if c.is_joker and stands_for is None:
            return "a joker is added without stands_for: it must stand for the exact card at its place"
        if self.kind == "run":
            if end not in ("low", "high"):
                return f"an addition to a run needs end 'low' or 'high', got {end!r}"
            target, why = self.end_card(end, ace_high)
            if target is None:
                return why
            if c.is_joker:
                if stands_for != target:
                    return f"a joker added at the {end} end of {self.text()} stands for {target}, not {stands_for}"
                return None
            if c != target:
                return f"{c} does not fit the {end} end of {self.text()}: only {target} does"
            return None
        if end is not None:
            return f"an addition to a set has end null, got {end!r}"
        if self.size() >= 4:
            return f"{self.text()} already holds 4 cards, the largest set"
        if c.is_joker:
            allowed = [card(self.rank, s) for s in self.missing_suits()]
            if stands_for not in allowed:
                return f"a joker added to {self.text()} stands for a missing suit ({_text(allowed)}), not {stands_for}"
            return None
        if c.rank != self.rank:
            return f"{c} is not of the rank of {self.text()}"
        if c.suit in self.suits:
            return f"{c}: {self.text()} already holds that suit (a set has distinct suits)"
        return None

    def accepts(self, c: Card, ace_high: bool) -> bool:
        """Whether ``c`` can be added to this meld in some way."""
        if self.kind == "run":
            for end in ("low", "high"):
                target, _ = self.end_card(end, ace_high)
                if target is not None and self.addition_problem(c, end, target if c.is_joker else None, ace_high) is None:
                    return True
            return False
        if c.is_joker:
            return any(
                self.addition_problem(c, None, card(self.rank, s), ace_high) is None for s in self.missing_suits()
            )
        return self.addition_problem(c, None, None, ace_high) is None

    def add(self, c: Card, end: Any) -> None:
        if self.kind == "run":
            position = self.low - 1 if end == "low" else self.high + 1
            if end == "low":
                self.low = position
            else:
                self.high = position
            if c.is_joker:
                self.joker_at = position
        elif c.is_joker:
            self.joker = True
        else:
            self.suits.add(c.suit)


# ------------------------------------------------------------------ the round
@dataclass
class _Round:
    """The table during one round."""

    number: int
    first: int
    hands: list[Counter]
    stock: list[Card]  # top first
    pile: list[Card]  # bottom first
    players: int
    melds: dict[int, _Meld] = field(default_factory=dict)
    next_id: int = 0
    seat: int = -1  # whose turn it is
    stage: str = "start"  # start (before the draw), turn, out (hand empty), ended
    turn: int = 0  # turns started in the round
    turns_done: int = 0
    no_draw_turn: bool = False  # the first player's first turn (first_player_extra_card)
    taken: Card | None = None  # the card taken from the discard this turn
    laid: Counter = field(default_factory=Counter)  # cards laid from the hand this turn
    pending_joker: int | None = None  # meld whose joker was recovered and is not yet laid again
    discard_next: bool = False  # a lay_all opening kept one card: it is discarded next
    turned: bool = False  # the stock was rebuilt once this round
    last_opening: int | None = None
    out_how: str | None = None
    winner: int | None = None
    blocked: bool = False
    opened: list[bool] = field(default_factory=list)
    opened_turn: list[int | None] = field(default_factory=list)
    first_lay_turn: list[int | None] = field(default_factory=list)
    positions_at_turnings: list = field(default_factory=list)  # see _Replay.position
    last_turning: tuple | None = None
    may_i_open: bool = False  # the mover drew from the stock and has not laid or discarded yet
    may_i_askers: list[int] = field(default_factory=list)  # seats that said "Puis-je ?" this stock draw

    def __post_init__(self) -> None:
        self.seat = self.first
        self.opened = [False] * self.players
        self.opened_turn = [None] * self.players
        self.first_lay_turn = [None] * self.players


# ----------------------------------------------------------------- the replay
class _Replay:
    """The state of one game as the trace unfolds, and one handler per event type."""

    def __init__(self, ruleset: Ruleset | str | None) -> None:
        self.given_ruleset = ruleset
        self.r: Ruleset | None = None
        self.phase = "before_game"  # before_game, between_rounds, in_round, over
        self.totals: list[int] = []
        self.rounds_played = 0
        self.round_log: list[dict[str, Any]] = []
        self.full_deck: Counter = Counter()
        self.sorted_deck: list[Card] = []
        self.result: dict[str, Any] = {}

    # -------------------------------------------------------------- driving
    def handlers(self) -> dict[str, Any]:
        """The event types of the game being replayed; ``may_i`` is a contrat event."""
        handlers = {
            "game_start": self.on_game_start,
            "deal": self.on_deal,
            "draw": self.on_draw,
            "restock": self.on_restock,
            "open": self.on_open,
            "meld": self.on_meld,
            "add": self.on_add,
            "recover": self.on_recover,
            "may_i": self.on_may_i,
            "discard": self.on_discard,
            "out": self.on_out,
            "blocked": self.on_blocked,
            "round_end": self.on_round_end,
            "game_end": self.on_game_end,
        }
        if self.r is not None and self.r.game != "contrat":
            del handlers["may_i"]
        return handlers

    def run(self, events: list[dict], after: Any = None) -> dict[str, Any]:
        """Replay every event; ``after(self)``, when given, is called once each event is checked."""
        for index, event in enumerate(events):
            try:
                if not isinstance(event, dict) or "type" not in event:
                    _fail("an event is a dict with a 'type' key")
                kind = event["type"]
                handlers = self.handlers()
                if kind not in handlers:
                    _fail(f"unknown event type {kind!r}; known types: {', '.join(handlers)}")
                if self.phase == "over":
                    _fail("an event after game_end")
                if self.phase == "before_game" and kind != "game_start":
                    _fail("the trace must start with game_start")
                handlers[kind](event)
                if self.phase == "in_round" or kind == "round_end":
                    self.check_cards()
                if after is not None:
                    after(self)
            except _Broken as broken:
                raise ReplayError(f"event {index} {_show(event)}: {broken}") from None
            except RulesetError as exc:
                raise ReplayError(f"event {index} {_show(event)}: bad ruleset: {exc}") from None
        if self.phase != "over":
            raise ReplayError(f"event {len(events)} (end of trace): the trace ended before game_end")
        return self.result

    def get(self, event: dict, key: str, what: str | None = None) -> Any:
        if key not in event:
            _fail(f"{what or 'a ' + str(event.get('type')) + ' event'} needs the key {key!r}")
        return event[key]

    def cards(self, text: Any, what: str) -> list[Card]:
        if not isinstance(text, str):
            _fail(f"{what} must be a notation string, got {text!r}")
        try:
            return parse(text)
        except ValueError as exc:
            _fail(f"{what}: {exc}")

    def one_card(self, text: Any, what: str) -> Card:
        found = self.cards(text, what)
        if len(found) != 1:
            _fail(f"{what} must be exactly one card, got {text!r}")
        return found[0]

    # ------------------------------------------------------------ the game
    def on_game_start(self, event: dict) -> None:
        if self.phase != "before_game":
            _fail("a second game_start")
        if self.given_ruleset is not None:
            self.r = as_ruleset(self.given_ruleset)
        else:
            knobs = self.get(event, "ruleset")
            if not isinstance(knobs, dict):
                _fail("game_start.ruleset must be a dict of knobs")
            try:
                self.r = Ruleset(**knobs)
            except TypeError as exc:
                _fail(f"bad ruleset: {exc}")
        players = self.get(event, "players")
        if players != self.r.players:
            _fail(f"players = {players} but the ruleset seats {self.r.players}")
        strategies = event.get("strategies")
        if strategies is not None and len(strategies) != players:
            _fail(f"{len(strategies)} strategies for {players} players")
        self.max_rounds = event.get("max_rounds", ROUND_CAP)
        self.deterministic = bool(event.get("deterministic", False))
        if not isinstance(self.max_rounds, int) or self.max_rounds < 1:
            _fail(f"max_rounds = {self.max_rounds!r} must be a whole number of at least 1")
        self.totals = [0] * self.r.players
        self.full_deck = Counter(deck(self.r.decks, self.r.n_jokers))
        self.sorted_deck = sorted(self.full_deck.elements())
        self.phase = "between_rounds"

    def game_result(self) -> tuple[bool, list[int]]:
        """Whether the game is decided after the rounds played, and the seats with the best total."""
        r = self.r
        if r.game_rounds > 0:
            decided = self.rounds_played >= r.game_rounds
        else:
            lowest = min(self.totals)
            decided = max(self.totals) >= r.game_target and self.totals.count(lowest) == 1
        best = max(self.totals) if better_points(r.game) == "higher" else min(self.totals)
        return decided, [seat for seat, total in enumerate(self.totals) if total == best]

    def on_game_end(self, event: dict) -> None:
        if self.phase != "between_rounds":
            _fail("game_end in the middle of a round")
        rounds = self.get(event, "rounds")
        if rounds != self.rounds_played:
            _fail(f"rounds = {rounds} but {self.rounds_played} rounds were played")
        totals = self.get(event, "totals")
        if list(totals) != self.totals:
            _fail(f"totals {totals} but the rounds add up to {self.totals}")
        decided, best = self.game_result()
        truncated = not decided and self.rounds_played >= self.max_rounds
        if not decided and not truncated:
            _fail(f"the game is not over after {self.rounds_played} rounds: {self.rule_for_end()}")
        if bool(self.get(event, "truncated")) != truncated:
            _fail(
                f"truncated = {event['truncated']} but the game "
                + (f"was stopped undecided by the {self.max_rounds}-round cap (item 25)" if truncated else "was decided")
            )
        winner = self.get(event, "winner")
        side = "highest" if better_points(self.r.game) == "higher" else "lowest"
        if truncated:
            if winner is not None:
                _fail(f"winner {winner} of a truncated game: an undecided game has no winner")
        elif len(best) > 1:
            if winner is not None:
                _fail(f"winner {winner} but the {side} total is shared by seats {best}: no single winner")
        elif winner != best[0]:
            _fail(f"winner {winner} but the {side} total {self.totals} is held by seat {best[0]}")
        self.phase = "over"
        self.result = {
            "rounds": self.rounds_played,
            "events": None,  # filled in by check_trace
            "deck_size": sum(self.full_deck.values()),
            "cards_per_round": [entry["cards"] for entry in self.round_log],
            "turns_per_round": [entry["turns"] for entry in self.round_log],
            "round_winners": [entry["winner"] for entry in self.round_log],
            "blocked_rounds": sum(entry["blocked"] for entry in self.round_log),
            "totals": list(self.totals),
            "winner": winner,
            "truncated": truncated,
        }

    def rule_for_end(self) -> str:
        r = self.r
        if r.game_rounds > 0:
            return f"the game has {r.game_rounds} rounds"
        return f"it ends after a round in which a total reaches {r.game_target}, with a single lowest total"

    # ----------------------------------------------------------- the round
    def on_deal(self, event: dict) -> None:
        if self.phase != "between_rounds":
            _fail("a deal in the middle of a round")
        r = self.r
        decided, _ = self.game_result()
        if self.rounds_played and decided:
            _fail(f"the game was decided after round {self.rounds_played - 1} ({self.rule_for_end()}): no further deal")
        if self.rounds_played >= self.max_rounds:
            _fail(f"the game reached the round cap of {self.max_rounds} (item 25): no further deal")
        number = self.get(event, "round")
        if number != self.rounds_played:
            _fail(f"round {number} dealt, but round {self.rounds_played} comes next")
        first = self.get(event, "first")
        if first != first_player(number, r.players):
            _fail(f"first = {first} but the first player of round {number} is seat {first_player(number, r.players)} "
                  "(item 23)")
        hands_text = self.get(event, "hands")
        if len(hands_text) != r.players:
            _fail(f"{len(hands_text)} hands dealt for {r.players} players")
        hands = [Counter(self.cards(text, f"hand of seat {seat}")) for seat, text in enumerate(hands_text)]
        for seat, hand in enumerate(hands):
            expected = r.hand_size(number) + int(r.first_player_extra_card and seat == first)
            if sum(hand.values()) != expected:
                _fail(f"seat {seat} is dealt {sum(hand.values())} cards, the rules deal {expected}")
        self.round = _Round(
            number=number,
            first=first,
            hands=hands,
            stock=self.cards(self.get(event, "stock"), "stock"),
            pile=self.cards(self.get(event, "pile"), "pile"),
            players=r.players,
        )
        self.round.no_draw_turn = r.first_player_extra_card
        self.phase = "in_round"

    def check_cards(self) -> None:
        """Every card of the deck is in exactly one place: stock, pile, a hand or a table meld."""
        rnd = self.round
        every = [*rnd.stock, *rnd.pile]
        for hand in rnd.hands:
            every += hand.elements()
        for meld in rnd.melds.values():
            every += meld.cards()
        # Asked after every event: the sorted codes are compared at C speed, the counts only to name a loss.
        every.sort()
        if every == self.sorted_deck:
            return
        present = Counter(every)
        if present != self.full_deck:
            missing = self.full_deck - present
            extra = present - self.full_deck
            _fail(
                f"cards lost or duplicated: missing {_text(missing.elements())}, "
                f"extra {_text(extra.elements())} (stock + pile + hands + table must be the deck)"
            )

    def round_event(self, event: dict, seat_needed: bool = True) -> int | None:
        """Common checks of an event inside a round; returns the event's seat."""
        if self.phase != "in_round":
            _fail(f"a {event['type']} event outside a round")
        number = self.get(event, "round")
        if number != self.round.number:
            _fail(f"round = {number} during round {self.round.number}")
        if not seat_needed:
            return None
        seat = self.get(event, "seat")
        if self.round.stage in ("out", "ended"):
            _fail(f"a {event['type']} after the round's last play")
        if seat != self.round.seat:
            _fail(f"seat {seat} plays out of turn: it is seat {self.round.seat}'s turn")
        return seat

    def start_turn(self) -> None:
        rnd = self.round
        if rnd.turns_done >= self.r.turn_cap:
            _fail(f"{rnd.turns_done} turns are done: the turn cap ({self.r.turn_cap}) blocks the round")
        rnd.turn += 1
        rnd.taken = None
        rnd.laid = Counter()
        rnd.pending_joker = None
        rnd.discard_next = False
        rnd.may_i_open = False
        rnd.may_i_askers = []
        rnd.stage = "turn"

    def stock_rebuildable(self) -> bool:
        rnd = self.round
        mode = self.r.stock_exhausted
        if mode == "flip_no_shuffle":
            return len(rnd.pile) >= 1
        if mode == "turn_once_then_block" and rnd.turned:
            return False
        return len(rnd.pile) >= 2

    def fits_table(self, c: Card) -> bool:
        return any(c in meld.takes(self.r.ace_high) for meld in self.round.melds.values())

    def deal_number(self) -> int:
        """The contrat deal being played, 1 .. 7 (round 0 is deal 1)."""
        return contract_deal(self.round.number)

    def table_open_reason(self) -> str | None:
        """Why a contrat deal is not closed (item 30), or None when it is.

        Closed: every player has laid its contract and no card, natural or
        joker, can be added to any table meld.
        """
        rnd = self.round
        waiting = [seat for seat in range(self.r.players) if not rnd.opened[seat]]
        if waiting:
            return f"seat(s) {', '.join(map(str, waiting))} have not laid their contract"
        for meld in rnd.melds.values():
            takes = meld.takes(self.r.ace_high)
            if takes:
                return f"{meld.text()} still takes {_text(takes)}"
        return None

    def refuse_if_table_closed(self, what: str) -> None:
        if self.r.game == "contrat" and self.table_open_reason() is None:
            _fail(
                f"{what}, but every player has laid its contract and the table takes no card: "
                "the deal stops, blocked 'table_closed' (item 30)"
            )

    # ------------------------------------------------------------- drawing
    def on_draw(self, event: dict) -> None:
        seat = self.round_event(event)
        rnd, r = self.round, self.r
        if rnd.stage == "turn":
            _fail("a second draw in one turn")
        if rnd.no_draw_turn:
            _fail("the first player's first turn has no draw: it holds the extra card (item 15)")
        self.refuse_if_table_closed("a draw")
        source = self.get(event, "source")
        c = self.one_card(self.get(event, "card"), "draw.card")
        hand = rnd.hands[seat]
        if source == "stock":
            if not rnd.stock:
                _fail("a draw from an empty stock: it must be restocked (or the round blocked) first (item 22)")
            if c != rnd.stock[0]:
                _fail(f"draws {c} from the stock, but the top of the stock is {rnd.stock[0]}")
            self.start_turn()
            rnd.stock.pop(0)
            rnd.may_i_open = True
        elif source == "discard":
            if not rnd.pile:
                _fail("a draw from an empty discard pile")
            if c != rnd.pile[-1]:
                _fail(f"takes {c} from the discard, but the top of the pile is {rnd.pile[-1]}")
            if not rnd.stock and r.stock_exhausted != "flip_no_shuffle":
                _fail(f"the stock is empty: under {r.stock_exhausted} it is rebuilt (or the round blocked) before any draw (item 22)")
            if r.discard_take == "only_after_opening" and not rnd.opened[seat]:
                _fail("a discard take before opening, but discard_take is only_after_opening")
            if not any(code != c for code in hand.elements()):
                _fail(f"a discard take needs a card of another code in hand, the hand holds {_text(hand.elements())} (item 12)")
            if r.last_card_no_discard_take and sum(hand.values()) == 1 and self.fits_table(c):
                _fail(f"a player holding one card takes {c}, which fits a table meld (last_card_no_discard_take)")
            self.start_turn()
            rnd.pile.pop()
            rnd.taken = c
        else:
            _fail(f"source must be 'stock' or 'discard', got {source!r}")
        hand[c] += 1

    def on_restock(self, event: dict) -> None:
        self.round_event(event, seat_needed=False)
        rnd, r = self.round, self.r
        if rnd.stage != "start":
            _fail("a restock in the middle of a turn: the stock is rebuilt before the next draw (item 22)")
        if rnd.stock:
            _fail(f"a restock while the stock still holds {len(rnd.stock)} cards (item 22)")
        self.refuse_if_table_closed("a restock")
        mode = self.get(event, "mode")
        expected_mode = RESTOCK_MODE[r.stock_exhausted]
        if mode != expected_mode:
            _fail(f"restock mode {mode!r}, but stock_exhausted = {r.stock_exhausted} restocks by {expected_mode!r} (item 22)")
        if not self.stock_rebuildable():
            why = "it was already turned once this round" if rnd.turned and mode == "turn" else "the pile is too small"
            _fail(f"the stock cannot be rebuilt ({why}): the round is blocked (item 22)")
        stock = self.cards(self.get(event, "stock"), "restock.stock")
        pile = self.cards(self.get(event, "pile"), "restock.pile")
        old = rnd.pile
        if mode == "flip":
            kept, to_stock = [], old
        else:
            kept, to_stock = old[-1:], old[:-1]
        if pile != kept:
            _fail(f"the pile after a {mode} restock must be {_text(kept)}, got {_text(pile)} (item 22)")
        if mode == "reshuffle":
            if Counter(stock) != Counter(to_stock):
                _fail(f"the reshuffled stock must hold the pile under its top card ({_text(to_stock)}), got {_text(stock)}")
        elif stock != to_stock:
            _fail(
                f"a {mode} restock turns the pile over without shuffling: the stock must read "
                f"{format_cards(to_stock)} from the top, got {format_cards(stock)} (item 22)"
            )
        rnd.stock, rnd.pile = stock, pile
        rnd.turned = True
        rnd.last_turning = self.position()
        rnd.positions_at_turnings.append(rnd.last_turning)

    def position(self) -> tuple:
        """Everything a deterministic player's future depends on, to spot a cycle.

        The seat to move, every hand, the stock in order, the pile, the table
        melds and who has opened.
        """
        rnd = self.round
        hands = tuple(tuple(sorted(hand.elements())) for hand in rnd.hands)
        melds = tuple(
            (m.kind, m.suit, m.low, m.high, m.joker_at, m.rank, tuple(sorted(m.suits)), m.joker)
            for _, m in sorted(rnd.melds.items())
        )
        return (rnd.seat, hands, tuple(rnd.stock), tuple(rnd.pile), melds, tuple(rnd.opened))

    def on_blocked(self, event: dict) -> None:
        self.round_event(event, seat_needed=False)
        rnd, r = self.round, self.r
        if rnd.stage != "start":
            _fail("a round is blocked only between turns")
        reason = self.get(event, "reason")
        if reason == "stock":
            if rnd.stock:
                _fail(f"blocked for lack of stock, but the stock holds {len(rnd.stock)} cards")
            if self.stock_rebuildable():
                _fail(f"blocked for lack of stock, but under {r.stock_exhausted} the stock can be rebuilt (item 22)")
        elif reason == "turn_cap":
            if rnd.turns_done < r.turn_cap:
                _fail(f"blocked by the turn cap after {rnd.turns_done} turns, the cap is {r.turn_cap}")
        elif reason == "cycle":
            # Claimed right after a turning of the pile: the position must be
            # one the round already had at an earlier turning, and every
            # seat must play deterministically, so the round would repeat.
            if not self.deterministic:
                _fail("a cycle is claimed, but a seat plays at random: positions need not repeat")
            position = rnd.last_turning
            if position is None or position != self.position():
                _fail("a cycle is claimed only right after the pile is turned over")
            if rnd.positions_at_turnings.count(position) < 2:
                _fail("a cycle is claimed, but this position was not seen at an earlier turning of the pile")
        elif reason == "table_closed":
            if r.game != "contrat":
                _fail(f"reason 'table_closed' belongs to Rami contrat (item 30), not {r.game}")
            why_open = self.table_open_reason()
            if why_open is not None:
                _fail(f"blocked 'table_closed', but the table is not closed: {why_open} (item 30)")
        else:
            *rest, last = (repr(x) for x in blocked_reasons(r.game))
            reasons = f"{', '.join(rest)} or {last}"
            _fail(f"reason must be {reasons}, got {reason!r}")
        rnd.blocked = True
        rnd.stage = "ended"

    # ------------------------------------------------------------- laying
    def begin_laying(self, event: dict) -> int:
        seat = self.round_event(event)
        rnd = self.round
        if rnd.stage == "start":
            if not rnd.no_draw_turn:
                _fail("a laying before the draw: every turn starts with a draw")
            self.start_turn()
        if rnd.discard_next:
            _fail("after a lay_all opening that keeps one card, that card is discarded at once (item 20)")
        rnd.may_i_open = False
        return seat

    def read_meld(self, spec: Any, what: str) -> tuple[list[Card], MeldReading]:
        """The cards of a laid meld and its reading, given its ``cards`` and ``stands_for``."""
        if not isinstance(spec, dict):
            _fail(f"{what} must be a dict with cards and stands_for")
        cards = self.cards(self.get(spec, "cards", what), f"{what}.cards")
        stands_text = spec.get("stands_for")
        stands_for = None if stands_text is None else self.one_card(stands_text, f"{what}.stands_for")
        readings = meld_readings(cards, self.r)
        if not readings:
            _fail(f"{format_cards(cards)} is not a valid meld (classify_meld refuses it)")
        if any(c.is_joker for c in cards) != (stands_for is not None):
            _fail(f"{format_cards(cards)}: stands_for must name the joker's card exactly when the meld holds a joker")
        written = format_cards(cards)
        wanted = (stands_for,) if stands_for is not None else ()
        for reading in readings:
            if reading.text() == written and reading.stands_for == wanted:
                return cards, reading
        options = "; ".join(
            f"{reading.text()} with the joker as {_text(reading.stands_for)}" if reading.stands_for else reading.text()
            for reading in readings
        )
        _fail(
            f"{written} with stands_for {stands_for} matches no reading of the meld "
            f"(the joker must stand for the card at its place; readings: {options})"
        )

    def take_from_hand(self, seat: int, cards: list[Card]) -> None:
        hand = self.round.hands[seat]
        needed = Counter(cards)
        lacking = needed - hand
        if lacking:
            _fail(f"seat {seat} lays {_text(lacking.elements())} but does not hold it (hand: {_text(hand.elements())})")
        hand.subtract(needed)
        for code in list(hand):
            if hand[code] == 0:
                del hand[code]
        self.round.laid.update(cards)

    def new_meld(self, event_id: Any, reading: MeldReading) -> None:
        rnd = self.round
        if event_id != rnd.next_id:
            _fail(f"meld id {event_id}, but the next meld of the round is numbered {rnd.next_id}")
        rnd.melds[rnd.next_id] = _Meld.from_reading(rnd.next_id, reading)
        rnd.next_id += 1

    def after_laying(self, seat: int) -> None:
        rnd, r = self.round, self.r
        if rnd.first_lay_turn[seat] is None:
            rnd.first_lay_turn[seat] = rnd.turn
        hand = rnd.hands[seat]
        # While a recovered joker waits to be laid again, the hand is between
        # two layings of one move: the next laying must lay that joker (item
        # 17), and item 12 is checked after it, on the hand the move leaves.
        if rnd.taken is not None and rnd.pending_joker is None and hand and set(hand) == {rnd.taken}:
            _fail(f"the laying leaves only copies of {rnd.taken}, the card just taken, in hand: no legal discard is left (item 12)")
        if not hand:
            if r.game == "contrat":
                if self.deal_number() != WHOLE_HAND_DEAL:
                    _fail(
                        f"the laying empties the hand in deal {self.deal_number()}: in deals 1 to 6 a player "
                        "goes out only by discarding the last card (item 28)"
                    )
            elif r.go_out == "discard_only":
                _fail("the laying empties the hand, but go_out is discard_only: the last card must be discarded (item 18)")
            rnd.stage = "out"
            rnd.out_how = "lay"

    def on_open(self, event: dict) -> None:
        seat = self.begin_laying(event)
        rnd, r = self.round, self.r
        if rnd.opened[seat]:
            _fail(f"seat {seat} has already opened: later melds are 'meld' events")
        specs = self.get(event, "melds")
        if not isinstance(specs, list) or not specs:
            _fail("an opening lays at least one meld")
        laid: list[tuple[Any, MeldReading]] = []
        all_cards: list[Card] = []
        for i, spec in enumerate(specs):
            cards, reading = self.read_meld(spec, f"open.melds[{i}]")
            best = max(other.points for other in meld_readings(cards, r))
            if reading.stands_for and reading.points != best:
                _fail(
                    f"{reading.text()} with the joker as {_text(reading.stands_for)} is worth {reading.points}; "
                    f"an opening lays an ambiguous joker where it is worth most, {best} (item 4)"
                )
            laid.append((spec.get("id"), reading))
            all_cards += cards
        self.take_from_hand(seat, all_cards)
        points = sum(reading.points for _, reading in laid)
        if self.get(event, "points") != points:
            _fail(f"points = {event['points']}, but the melds are worth {points} toward the opening")
        left = sum(rnd.hands[seat].values())
        lay_all = self.get(event, "lay_all")
        if r.game == "contrat":
            if lay_all:
                _fail("lay_all is never true in contrat: the opening is the contract, never waived (item 26)")
            self.check_contract(laid, left)
        elif lay_all:
            if not r.lay_all_ignores_opening:
                _fail("a lay_all opening, but lay_all_ignores_opening is false")
            if left > 1:
                _fail(f"a lay_all opening keeps {left} cards: it must hold the whole hand or all of it but one card (item 20)")
            rnd.discard_next = left == 1
        else:
            if points < r.open_threshold:
                _fail(f"an opening of {points} points is below the threshold of {r.open_threshold}")
            if r.open_needs_natural_run and not any(reading.is_natural_run for _, reading in laid):
                _fail("the opening holds no natural run (tierce franche), but open_needs_natural_run is true")
            if r.open_threshold_rises and rnd.last_opening is not None and points <= rnd.last_opening:
                _fail(
                    f"an opening of {points} points must beat the round's previous opening of "
                    f"{rnd.last_opening} (open_threshold_rises, item 19)"
                )
        for meld_id, reading in laid:
            self.new_meld(meld_id, reading)
        rnd.opened[seat] = True
        rnd.opened_turn[seat] = rnd.turn
        rnd.last_opening = points
        self.after_laying(seat)

    def check_contract(self, laid: list[tuple[Any, MeldReading]], left: int) -> None:
        """The contrat opening is the deal's contract, exactly (items 26 and 28).

        Each meld was read under the ruleset (runs of ``min_run`` = 4, sets of
        3 or 4 suits, one joker per meld); the opening's points were checked
        as opening values, with no threshold.
        """
        deal = self.deal_number()
        sets, runs = self.r.contract(deal)
        got_sets = sum(reading.kind == "set" for _, reading in laid)
        got_runs = sum(reading.kind == "run" for _, reading in laid)
        if (got_sets, got_runs) != (sets, runs):
            _fail(
                f"deal {deal}'s contract is {sets} set(s) and {runs} run(s), exactly; "
                f"laid {got_sets} and {got_runs} (item 26)"
            )
        if deal == WHOLE_HAND_DEAL and left:
            _fail(
                f"deal {deal}'s contract holds the whole hand, {left} card(s) are left: "
                "it is laid whole to go out, with no final discard (item 28)"
            )

    def on_meld(self, event: dict) -> None:
        seat = self.begin_laying(event)
        rnd = self.round
        if not rnd.opened[seat]:
            _fail(f"seat {seat} lays a meld before opening: the first laying is the opening (item 14)")
        if self.r.game == "contrat":
            _fail("no new meld after the contract: only additions and joker recovery (item 27)")
        cards, reading = self.read_meld(event, "meld")
        if rnd.pending_joker is not None and JOKER not in cards:
            _fail(f"the joker recovered from meld {rnd.pending_joker} must be laid by this laying (item 17)")
        rnd.pending_joker = None
        self.take_from_hand(seat, cards)
        self.new_meld(self.get(event, "id"), reading)
        self.after_laying(seat)

    def table_meld(self, event: dict) -> _Meld:
        meld_id = self.get(event, "id")
        if meld_id not in self.round.melds:
            _fail(f"no meld {meld_id!r} on the table")
        return self.round.melds[meld_id]

    def on_add(self, event: dict) -> None:
        seat = self.begin_laying(event)
        rnd, r = self.round, self.r
        if not rnd.opened[seat] and not r.add_before_opening:
            _fail(f"seat {seat} adds to the table before opening (item 14; add_before_opening is false)")
        meld = self.table_meld(event)
        c = self.one_card(self.get(event, "card"), "add.card")
        stands_text = self.get(event, "stands_for")
        stands_for = None if stands_text is None else self.one_card(stands_text, "add.stands_for")
        end = self.get(event, "end")
        if rnd.pending_joker is not None:
            if not c.is_joker:
                _fail(f"the joker recovered from meld {rnd.pending_joker} must be laid by this laying (item 17)")
            if meld.id == rnd.pending_joker:
                _fail(f"the recovered joker goes to a new meld or another table meld, not back to meld {meld.id} (item 17)")
        problem = meld.addition_problem(c, end, stands_for, r.ace_high)
        if problem:
            _fail(f"illegal addition: {problem}")
        rnd.pending_joker = None
        self.take_from_hand(seat, [c])
        meld.add(c, end)
        self.after_laying(seat)

    def on_recover(self, event: dict) -> None:
        seat = self.begin_laying(event)
        rnd, r = self.round, self.r
        if not rnd.opened[seat]:
            _fail(f"seat {seat} recovers a joker before opening: recovery is only after opening")
        if rnd.pending_joker is not None:
            _fail(f"a second recovery before the joker recovered from meld {rnd.pending_joker} is laid again (item 17)")
        meld = self.table_meld(event)
        c = self.one_card(self.get(event, "card"), "recover.card")
        if not meld.has_joker:
            _fail(f"{meld.text()} holds no joker to recover")
        if c.is_joker:
            _fail("a joker is recovered with the natural card it stands for, not with a joker")
        if meld.kind == "run":
            wanted = _run_card(meld.joker_at, meld.suit)
            if c != wanted:
                _fail(f"the joker of {meld.text()} stands for {wanted}: only {wanted} recovers it, not {c}")
        else:
            missing = [card(meld.rank, s) for s in meld.missing_suits()]
            if c not in missing:
                _fail(f"the joker of {meld.text()} stands for a missing suit ({_text(missing)}): {c} cannot recover it")
            if r.joker_recovery_from_set == "unambiguous_only" and meld.size() < 4:
                _fail(f"never from a 3-card set under unambiguous_only: the joker of {meld.text()} is ambiguous")
        self.take_from_hand(seat, [c])
        if meld.kind == "run":
            meld.joker_at = None
        else:
            meld.suits.add(c.suit)
            meld.joker = False
        rnd.hands[seat][JOKER] += 1
        rnd.pending_joker = meld.id
        self.after_laying(seat)

    # ------------------------------------------------------------ "Puis-je ?"
    def on_may_i(self, event: dict) -> None:
        """Another seat takes the pile's top and a penalty card after a stock draw (item 29)."""
        self.round_event(event, seat_needed=False)
        rnd, r = self.round, self.r
        if not r.may_i:
            _fail('may_i is false in this ruleset: no "Puis-je ?"')
        if rnd.stage in ("out", "ended"):
            _fail("a may_i after the round's last play")
        if rnd.stage != "turn" or not rnd.may_i_open:
            _fail(
                '"Puis-je ?" comes only right after the player to move drew from the stock, '
                "before its first laying or discard (item 29)"
            )
        seat = self.get(event, "seat")
        if seat not in range(r.players):
            _fail(f"seat {seat!r} is not at the table")
        mover = rnd.seat
        if seat == mover:
            _fail(f"seat {seat} is the player to move: only the other players say \"Puis-je ?\" (item 29)")
        if seat in rnd.may_i_askers:
            _fail(f"seat {seat} already said \"Puis-je ?\" for this stock draw: each seat asks once (item 29)")
        if rnd.may_i_askers:
            last = rnd.may_i_askers[-1]
            if (seat - mover) % r.players < (last - mover) % r.players:
                _fail(
                    f"seat {seat} asks after seat {last}: the players are asked in turn order, "
                    f"from seat {(mover + 1) % r.players}, the next after seat {mover} (item 29)"
                )
        if len(rnd.may_i_askers) >= r.may_i_limit:
            _fail(f"a may_i beyond may_i_limit = {r.may_i_limit} cards for one stock draw (item 29)")
        c = self.one_card(self.get(event, "card"), "may_i.card")
        penalty = self.one_card(self.get(event, "penalty"), "may_i.penalty")
        if not rnd.pile:
            _fail("a may_i with the discard pile empty")
        if c != rnd.pile[-1]:
            _fail(f"seat {seat} asks for {c}, but the top of the pile is {rnd.pile[-1]}")
        if not rnd.stock:
            _fail("a may_i with no card left in the stock for the penalty (item 29)")
        if penalty != rnd.stock[0]:
            _fail(f"the penalty card is {penalty}, but the top of the stock is {rnd.stock[0]}: it is drawn blind (item 29)")
        rnd.pile.pop()
        rnd.stock.pop(0)
        hand = rnd.hands[seat]
        hand[c] += 1
        hand[penalty] += 1
        rnd.may_i_askers.append(seat)

    # --------------------------------------------------------- end of turn
    def on_discard(self, event: dict) -> None:
        seat = self.round_event(event)
        rnd, r = self.round, self.r
        if rnd.stage == "start":
            if not rnd.no_draw_turn:
                _fail("a discard before the draw: every turn starts with a draw")
            self.start_turn()
        c = self.one_card(self.get(event, "card"), "discard.card")
        rnd.may_i_open = False
        hand = rnd.hands[seat]
        if hand[c] == 0:
            _fail(f"seat {seat} discards {c} but does not hold it (hand: {_text(hand.elements())})")
        if rnd.pending_joker is not None:
            _fail(f"the turn ends before the joker recovered from meld {rnd.pending_joker} is laid again (item 17)")
        if rnd.taken is not None:
            if c == rnd.taken:
                _fail(f"discards {c}, the card just taken from the discard (or its twin) (item 11)")
            if r.discard_take == "must_use" and rnd.laid[rnd.taken] == 0:
                _fail(f"must_use: {rnd.taken}, taken from the discard, was not laid this turn (item 13)")
        if r.discard_playable == "forbidden" and self.fits_table(c):
            may_discard = [code for code in hand if code != rnd.taken]
            if not all(self.fits_table(code) for code in may_discard):
                _fail(f"{c} fits a table meld and discard_playable is forbidden; the hand has a card that does not (item 16)")
        hand[c] -= 1
        if hand[c] == 0:
            del hand[c]
        rnd.pile.append(c)
        rnd.turns_done += 1
        rnd.no_draw_turn = False
        rnd.discard_next = False
        if hand:
            rnd.seat = (seat + 1) % r.players
            rnd.stage = "start"
        else:
            rnd.stage = "out"
            rnd.out_how = "discard"

    def on_out(self, event: dict) -> None:
        self.round_event(event, seat_needed=False)
        rnd = self.round
        seat = self.get(event, "seat")
        if rnd.stage != "out":
            held = sum(rnd.hands[seat].values()) if seat in range(self.r.players) else "?"
            _fail(f"seat {seat} goes out while the hand still holds {held} card(s) (or not at its turn)")
        if seat != rnd.seat:
            _fail(f"seat {seat} goes out, but seat {rnd.seat} emptied its hand")
        how = self.get(event, "how")
        if how != rnd.out_how:
            _fail(f"how = {how!r}, but the hand was emptied by a {rnd.out_how}")
        if how == "lay":
            rnd.turns_done += 1
        rnd.winner = seat
        rnd.stage = "ended"

    def on_round_end(self, event: dict) -> None:
        self.round_event(event, seat_needed=False)
        rnd, r = self.round, self.r
        if rnd.stage != "ended":
            _fail("round_end before the round is over (no out and no blocked)")
        winner = self.get(event, "winner")
        if winner != rnd.winner:
            _fail(f"winner = {winner}, but {'seat %d went out' % rnd.winner if rnd.winner is not None else 'the round was blocked'}")
        hands_text = self.get(event, "hands")
        if len(hands_text) != r.players:
            _fail(f"{len(hands_text)} hands for {r.players} players")
        for seat, text in enumerate(hands_text):
            reported = Counter(self.cards(text, f"round_end.hands[{seat}]"))
            if reported != rnd.hands[seat]:
                _fail(f"hand of seat {seat} is {_text(reported.elements())}, the replay holds {_text(rnd.hands[seat].elements())}")
        opened = [bool(x) for x in self.get(event, "opened")]
        if opened != rnd.opened:
            _fail(f"opened = {opened}, the replay has {rnd.opened}")
        rami_sec = self.rami_sec()
        if bool(self.get(event, "rami_sec")) != rami_sec:
            _fail(f"rami_sec = {event['rami_sec']}, but under rami_sec = {r.rami_sec} it is {rami_sec} (item 21)")
        hands = [list(hand.elements()) for hand in rnd.hands]
        points = round_scores(hands, rnd.opened, r, rnd.winner, rami_sec, rnd.blocked)
        if list(self.get(event, "points")) != points:
            _fail(f"points {event['points']}, but round_scores gives {points}")
        self.totals = [total + p for total, p in zip(self.totals, points)]
        if list(self.get(event, "totals")) != self.totals:
            _fail(f"totals {event['totals']}, but the running totals are {self.totals}")
        self.round_log.append(
            {
                "cards": sum(self.full_deck.values()),
                "turns": rnd.turns_done,
                "winner": rnd.winner,
                "blocked": rnd.blocked,
            }
        )
        self.rounds_played += 1
        self.phase = "between_rounds"

    def rami_sec(self) -> bool:
        """Whether the round's rami sec is scored (item 21; basic rummy's "rami", item 8)."""
        rnd, r = self.round, self.r
        w = rnd.winner
        if w is None or r.rami_sec == "none":
            return False
        if r.game == "basic":
            in_one_turn = rnd.first_lay_turn[w] in (None, rnd.turn)
        else:
            in_one_turn = rnd.opened_turn[w] == rnd.turn
        if not in_one_turn:
            return False
        if r.rami_sec == "flat_200":
            return not any(rnd.opened[seat] for seat in range(r.players) if seat != w)
        return True


def _show(event: Any) -> str:
    try:
        text = json.dumps(event, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(event)
    return text if len(text) <= 300 else text[:297] + "..."


def check_trace(events: list[dict], ruleset: Ruleset | str | None = None) -> dict[str, Any]:
    """Replay a game trace through the rules reference; raise at the first broken rule.

    Parameters
    ----------
    events : list of dict
        The game's events (``docs/trace.md``), from ``game_start`` to ``game_end``.
    ruleset : Ruleset or str, optional
        The rules to check against; by default the ``game_start`` event's
        ``ruleset`` dict.

    Returns
    -------
    dict
        A summary: ``rounds``, ``events`` checked, ``deck_size``,
        ``cards_per_round`` (cards accounted for after every event of each
        round), ``turns_per_round``, ``round_winners``, ``blocked_rounds``,
        ``totals``, ``winner`` and ``truncated``.

    Raises
    ------
    ReplayError
        The message names the event's index, the event, and the rule broken.
    """
    events = list(events)
    summary = _Replay(ruleset).run(events)
    summary["events"] = len(events)
    return summary


@dataclass(frozen=True)
class TableState:
    """Where every card is after one event of a trace, as the rules reference holds it.

    ``round`` is ``None`` before the first deal; ``hands`` one notation
    string per seat (sorted by card code); ``table`` the melds laid, as
    ``(id, cards)`` with the joker at its place (docs/trace.md); ``pile``
    the discard pile from its bottom to its top; ``stock_size`` the cards
    left to draw; ``opened`` who has opened; ``totals`` the game's running
    totals.
    """

    round: int | None
    hands: tuple[str, ...]
    table: tuple[tuple[int, str], ...]
    pile: str
    stock_size: int
    opened: tuple[bool, ...]
    totals: tuple[int, ...]


def _laid_text(meld: _Meld) -> str:
    """A table meld as docs/trace.md writes it: a set's joker at the place of the first suit it may stand for."""
    cards = meld.codes()
    if meld.kind == "set" and meld.joker:
        naturals = [c for c in cards if c != JOKER]
        at = sum(1 for c in naturals if c.suit < meld.missing_suits()[0])
        cards = [*naturals[:at], JOKER, *naturals[at:]]
    return format_cards(cards)


def _table_state(replay: _Replay) -> TableState:
    rnd = getattr(replay, "round", None)
    players = replay.r.players
    if rnd is None:
        return TableState(None, ("",) * players, (), "", 0, (False,) * players, tuple(replay.totals))
    return TableState(
        round=rnd.number,
        hands=tuple(format_cards(sorted(hand.elements())) for hand in rnd.hands),
        table=tuple((meld_id, _laid_text(meld)) for meld_id, meld in sorted(rnd.melds.items())),
        pile=format_cards(rnd.pile),
        stock_size=len(rnd.stock),
        opened=tuple(bool(x) for x in rnd.opened),
        totals=tuple(replay.totals),
    )


def replay_states(events: list[dict], ruleset: Ruleset | str | None = None) -> list[TableState]:
    """The state after each event of a trace, replayed and checked as :func:`check_trace` does.

    One :class:`TableState` per event, the ``game_start`` included (before
    any deal: empty hands, no table). Raises :class:`ReplayError` as
    :func:`check_trace` does: a state is never read off a trace that breaks
    a rule.
    """
    states: list[TableState] = []
    _Replay(ruleset).run(list(events), after=lambda replay: states.append(_table_state(replay)))
    return states
