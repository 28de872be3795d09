"""The hands games are dealt, without playing them, and deals kept only when a condition holds.

:func:`deal` gives round ``round_index`` of games ``first_game ..`` of the
simulation seeded ``seed`` exactly as :func:`sim.simulate` deals it: the
engine's own deck stream (``STREAM_DECK``) and its own deal
(``sim.engine.deals``). The odds tables (:mod:`sim.odds_tables`,
``sim.odds``) are counted on these deals.

:func:`sample` deals as bridge dealers do: only deals that satisfy a
condition on the hands dealt, such as ``"jokers(0) >= 1 and opening(0) >=
51"`` (the language of docs/deals.md, read by :func:`parse_condition` with
``ast`` and a whitelist, never ``eval``) or a Python predicate. A rejected
deal is followed by the next deal of the same game's deck stream, so every
seed's accepted deals are reproducible, and a condition too rare to sample
is refused with its rate measured on a pilot. A ``holds()`` term of the
condition's top-level ``and`` is not rejected on but dealt exactly, the rest
of the deck shuffled (:meth:`Condition.held`, ``sim.engine.deals.deal_held``),
so a hand given rare cards is sampled as fast as any other.
"""

from __future__ import annotations

import ast
import warnings
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim import cards as cardlib
from sim.checks import check_seed, check_whole
from sim.rules.facts import first_player
from sim.rules.ruleset import CONTRACTS, WHOLE_HAND_DEAL, Ruleset, as_ruleset, contract_deal

__all__ = ["FEATURES", "HELD_COUNTS", "MIN_RATE", "PILOT", "Condition", "ConditionError", "Dealer", "Deals", "Held",
           "Sample", "deal",
           "parse_condition", "pilot_rate", "sample", "stock_size"]


@dataclass(frozen=True)
class Deals:
    """Deals of one round of many games, as arrays of card codes (``sim.cards``: 52 the joker, -1 pads).

    Attributes
    ----------
    ruleset : Ruleset
    round_index : int
        The round dealt (0-based); its first player is ``round_index % players``.
    games : numpy.ndarray of int64, shape (n,)
        The game of each deal.
    attempts : numpy.ndarray of int64, shape (n,)
        Which deal of its round's deck stream each is: 0 the deal the game
        plays unconditioned, ``k`` the deal after ``k`` rejected ones.
    hands : numpy.ndarray of int64, shape (n, players, width)
        Each seat's hand, ascending card codes then jokers, padded with -1.
    stock : numpy.ndarray of int64, shape (n, k)
        The first ``k`` cards of the stock from its top: ``stock[:, 0]`` is
        the first player's first draw.
    pile : numpy.ndarray of int64, shape (n,)
        The card dealt face up on the discard.
    streams : numpy.ndarray of uint64, shape (n,), or None
        Where each deal's deck stream stands once it is dealt (from
        :func:`sample`): the round's restocks shuffle from there.
    """

    ruleset: Ruleset
    round_index: int
    games: np.ndarray
    attempts: np.ndarray
    hands: np.ndarray
    stock: np.ndarray
    pile: np.ndarray
    streams: np.ndarray | None = None

    @property
    def first(self) -> int:
        """The seat that plays first in this round."""
        return self.round_index % self.ruleset.players

    def __len__(self) -> int:
        return int(self.games.shape[0])

    def script(self, i: int) -> dict[str, Any]:
        """Deal ``i`` as the ``deal`` a traced game is given (``sim.play_traced(..., deal=...)``), in notation.

        The hands by seat, the discard, the stock's cards kept here (top
        first) and the round; ``sim.play_traced`` puts the deck's other
        cards under them. Every strategy played on it gets the same deal.
        """
        stock = [int(c) for c in self.stock[i] if c >= 0]
        return {"hands": [cardlib.format(int(c) for c in row if c >= 0) for row in self.hands[i]],
                "pile": cardlib.format([int(self.pile[i])]), "stock": cardlib.format(stock),
                "round": self.round_index}

    def orders(self) -> np.ndarray:
        """Each deal as the whole deck in dealing order, shape ``(n, deck size)``: what the engine deals from.

        The round's first player's cards, then each seat in turn order, the
        discard, then the stock from its top down (``sim.engine.round.deal_round``'s
        scripted deal). Needs the whole stock (``stock_cards`` of :func:`deal`
        or :func:`sample` at least the stock's size).
        """
        r = self.ruleset
        players = r.players
        in_hands = (self.hands >= 0).sum(axis=(1, 2))
        stock = (self.stock >= 0).sum(axis=1)
        if np.any(in_hands + 1 + stock != r.deck_size):
            raise ValueError("the deals keep only the stock's top cards: deal them with stock_cards at least the "
                             "stock's size to replay them")
        parts = [self.hands[:, (self.first + k) % players, :] for k in range(players)]
        rows = np.concatenate([*parts, self.pile[:, None], self.stock], axis=1)
        # Every row keeps exactly deck-size cards, in order: the pads dropped, the rows stay apart.
        return rows[rows >= 0].reshape(len(self), r.deck_size)

    def replace_orders(self, orders: np.ndarray, stock_cards: int) -> "Deals":
        """These deals with their decks (in dealing order, as :meth:`orders` gives them) replaced by ``orders``.

        Keeps ``stock_cards`` cards of the stock from its top (-1 past its end).
        """
        r = self.ruleset
        n = orders.shape[0]
        size = r.hand_size(self.round_index)
        extra = int(r.first_player_extra_card)
        hands = np.full((n, r.players, size + extra), -1, dtype=np.int64)
        at = 0
        for k in range(r.players):
            seat = (self.first + k) % r.players
            width = size + (extra if k == 0 else 0)
            hands[:, seat, :width] = np.sort(orders[:, at:at + width], axis=1)
            at += width
        pile = orders[:, at].copy()
        stock = np.full((n, stock_cards), -1, dtype=np.int64)
        kept = min(stock_cards, r.deck_size - at - 1)
        stock[:, :kept] = orders[:, at + 1:at + 1 + kept]
        return Deals(r, self.round_index, self.games, self.attempts, hands, stock, pile, self.streams)

    def first_turn_hands(self) -> np.ndarray:
        """The first player's cards on its first turn, before laying: the hand dealt and the stock's top card.

        Under ``first_player_extra_card`` the first player was dealt one
        card more and starts by discarding: its hand dealt, without a draw.
        """
        hand = self.hands[:, self.first, :]
        if self.ruleset.first_player_extra_card:
            return hand
        out = np.concatenate([hand, np.full((len(self), 1), -1, dtype=np.int64)], axis=1)
        sizes = (hand >= 0).sum(axis=1)
        out[np.arange(len(self)), sizes] = self.stock[:, 0]
        return out


def stock_size(ruleset: Ruleset, round_index: int = 0) -> int:
    """Cards left in the stock once round ``round_index`` is dealt (and its first discard turned up)."""
    dealt = ruleset.players * ruleset.hand_size(round_index) + int(ruleset.first_player_extra_card)
    return ruleset.deck_size - dealt - 1


def _check_seed(seed: int) -> int:
    return check_seed(seed)


class Dealer:
    """Deals of one round of given games, one after another from each game's deck stream.

    The first :meth:`next` of a game gives the deal the game plays; each
    later one the deal its stream gives next, which is what a game whose
    deal was rejected is dealt instead.
    """

    def __init__(self, ruleset: Ruleset, seed: int, games: np.ndarray, round_index: int, stock_cards: int) -> None:
        from sim.engine import deals as kernels
        from sim.engine.params import kernel_rules

        self._kernels = kernels
        self.ruleset = ruleset
        self.round_index = round_index
        self.games = np.ascontiguousarray(games, dtype=np.int64)
        self._kr = kernel_rules(ruleset)
        self._seed = seed
        self._states = kernels.deck_streams(np.uint64(seed), self.games, round_index)
        self.dealt = np.zeros(self.games.shape[0], dtype=np.int64)
        # The most cards a seat is dealt in this round.
        self._width = ruleset.hand_size(round_index) + int(ruleset.first_player_extra_card)
        self._stock_cards = stock_cards

    def add_games(self, games: np.ndarray) -> None:
        """Deal the games ``games`` too, from their first deal; they take the next rows."""
        games = np.ascontiguousarray(games, dtype=np.int64)
        self.games = np.concatenate([self.games, games])
        self._states = np.concatenate([self._states, self._kernels.deck_streams(np.uint64(self._seed), games,
                                                                                  self.round_index)])
        self.dealt = np.concatenate([self.dealt, np.zeros(games.shape[0], dtype=np.int64)])

    def next(self, rows: np.ndarray | None = None) -> Deals:
        """The next deal of the games ``self.games[rows]`` (all of them when ``rows`` is None)."""
        rows = np.arange(self.games.shape[0], dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
        n = rows.shape[0]
        hands = np.empty((n, self.ruleset.players, self._width), dtype=np.int64)
        stock = np.empty((n, self._stock_cards), dtype=np.int64)
        pile = np.empty(n, dtype=np.int64)
        self._kernels.deal_many(self._kr, self.round_index, self._states, rows, hands, stock, pile)
        # A row given k times is dealt k times, one deal after another of its stream.
        _, inverse, counts = np.unique(rows, return_inverse=True, return_counts=True)
        order = np.argsort(inverse, kind="stable")
        repeat = np.empty(n, dtype=np.int64)
        repeat[order] = np.arange(n) - np.repeat(np.cumsum(counts) - counts, counts)
        attempts = self.dealt[rows] + repeat
        np.add.at(self.dealt, rows, 1)
        return Deals(self.ruleset, self.round_index, self.games[rows], attempts, hands, stock, pile)


def deal(ruleset: Ruleset | str, n: int, seed: int = 1, first_game: int = 0, round_index: int = 0,
         stock_cards: int | None = None) -> Deals:
    """Round ``round_index`` of games ``first_game .. first_game + n - 1``, dealt as :func:`sim.simulate` deals it.

    Parameters
    ----------
    ruleset : Ruleset or str
    n : int
        Games (at least 1).
    seed : int
        The simulation seed, 0 .. 2**64 - 1 (1, as ``sim.simulate``).
    first_game, round_index : int
        The games' and the round's indices (0-based).
    stock_cards : int, optional
        How many cards of the stock to return from its top (the players'
        first draws); the number of players by default.

    Examples
    --------
    >>> d = deal("rami51", 2, seed=7)
    >>> d.hands.shape, d.stock.shape
    ((2, 4, 13), (2, 4))
    """
    r = as_ruleset(ruleset)
    n = check_whole("n", n, 1)
    first_game = check_whole("first_game", first_game, 0)
    round_index = check_whole("round_index", round_index, 0)
    seed = _check_seed(seed)
    k = r.players if stock_cards is None else check_whole("stock_cards", stock_cards, 1)
    games = np.arange(first_game, first_game + n, dtype=np.int64)
    return Dealer(r, seed, games, round_index, k).next()


# ---------------------------------------------------------------- conditions
FEATURES: dict[str, str] = {
    "jokers(seat)": "number: the jokers in the seat's hand dealt",
    "opening(seat)": "number: the best opening total of the seat's hand dealt (0 without a meld; "
                     "open_needs_natural_run honoured)",
    "melds(seat)": "number: the most cards of the seat's hand dealt that disjoint melds hold",
    "holds(seat, \"7♥ 7♦\")": "true when the seat's hand dealt holds every card named (a card named twice: both "
                             "copies)",
    "contract(seat)": "Rami contrat: true when the seat's hand dealt holds the contract of the deal played",
    "any_seat(...)": "true when what it holds is true for some seat, the name seat standing for each in turn",
    "every_seat(...)": "true when it is true for every seat",
}
"""The features and quantifiers of the condition language, with their meaning (docs/deals.md)."""

MIN_RATE = 1e-4
"""A condition accepted by fewer than this share of the pilot's deals is refused as too rare to sample."""

PILOT = 20_000
"""Deals of the pilot that measures a condition's acceptance rate before sampling."""

_NUMBERS = ("jokers", "opening", "melds")
_TRUTHS = ("holds", "contract")
_QUANTIFIERS = ("any_seat", "every_seat")


class ConditionError(ValueError):
    """A condition that cannot be read, or that does not fit the ruleset; the message names the place."""


class _Batch:
    """A batch of deals and its features, each computed once when the condition first asks for it."""

    def __init__(self, deals: Deals) -> None:
        self.deals = deals
        self._cache: dict[tuple, np.ndarray] = {}

    def hand(self, seat: int) -> np.ndarray:
        return np.ascontiguousarray(self.deals.hands[:, seat, :])

    def feature(self, name: str, seat: int, cards: tuple[int, ...] = ()) -> np.ndarray:
        key = (name, seat, cards)
        if key not in self._cache:
            self._cache[key] = self._compute(name, seat, cards)
        return self._cache[key]

    def _compute(self, name: str, seat: int, cards: tuple[int, ...]) -> np.ndarray:
        from sim.engine import deals as kernels
        from sim.engine import openings

        r = self.deals.ruleset
        hand = self.hand(seat)
        if name == "jokers":
            return (hand == cardlib.JOKER_CODE).sum(axis=1).astype(np.int64)
        if name == "opening":
            out, _ = openings.best_openings(hand, r.decks, r.n_jokers, r.min_run, r.ace_high,
                                            r.open_needs_natural_run)
            return out
        if name == "melds":
            out = np.zeros(hand.shape[0], dtype=np.int64)
            kernels.most_melded(hand, r.min_run, r.ace_high, out)
            return out
        if name == "holds":
            ok = np.ones(hand.shape[0], dtype=bool)
            for c in set(cards):
                ok &= (hand == c).sum(axis=1) >= cards.count(c)
            return ok
        if name == "contract":
            deal_no = contract_deal(self.deals.round_index)
            sets, runs, _ = CONTRACTS[deal_no - 1]
            out = np.zeros(hand.shape[0], dtype=np.int64)
            kernels.contracts_held(hand, sets, runs, deal_no == WHOLE_HAND_DEAL, r.min_run, r.ace_high, out)
            return out.astype(bool)
        raise AssertionError(name)


class Condition:
    """A condition on the hands dealt: a text in the condition language, or a Python predicate.

    The text is read once (:func:`parse_condition`) into a tree of numpy
    operations evaluated on a whole batch of deals at once. A predicate is
    called once per deal with the seats' hands, each a list of card codes
    (``sim.cards``: 52 the joker), and returns whether the deal is kept.
    """

    def __init__(self, condition: "str | Callable[[list[list[int]]], bool] | Condition") -> None:
        if isinstance(condition, Condition):
            self.text, self._predicate, self._tree = condition.text, condition._predicate, condition._tree
            self._seats, self._contract = condition._seats, condition._contract
            self._holds, self._shift = condition._holds, condition._shift
            self._conjuncts, self._held = condition._conjuncts, condition._held
            return
        self._predicate = None
        self._tree = None
        self._shift = 0
        # The terms the whole condition is the conjunction of: (seat, cards, text) for a holds() with a seat
        # number, dealt exactly (:meth:`held`), else None; and the term's evaluation.
        self._conjuncts: list[tuple[tuple[int, tuple[int, ...], str] | None, Any]] = []
        self._held: dict[tuple[Ruleset, int], Held | None] = {}
        self._seats: list[tuple[int, Any]] = []
        self._holds: list[tuple[tuple[int, ...], Any]] = []
        self._contract: Any = None
        if callable(condition):
            self.text = None
            self._predicate = condition
            return
        if not isinstance(condition, str):
            raise ConditionError(f"a condition is a text or a function of the dealt hands, got {condition!r}")
        self.text = condition
        self._tree = self._read(condition)

    def __repr__(self) -> str:
        return f"Condition({self.text!r})" if self.text is not None else f"Condition({self._predicate!r})"

    # ------------------------------------------------------------ reading
    def _read(self, text: str):
        if not text.strip():
            raise ConditionError("condition is empty: write one such as 'jokers(0) >= 1' (docs/deals.md)")
        try:
            # Python's parser warns on stderr about text such as "1x" before refusing it: the refusal below
            # is the one line a person reads.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)
                tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as exc:
            shift = len(text) - len(text.lstrip())
            # An offset of 0 (or none) is the end of the text: something is missing there.
            where = f"column {exc.offset + shift}" if exc.offset else "at its end"
            raise ConditionError(f"condition {text!r}, {where}: cannot be read ({exc.msg}); "
                                 "write e.g. 'jokers(0) >= 1 and opening(0) >= 51'") from None
        # Columns count from the stripped text; the text as given may start with spaces.
        self._shift = len(text) - len(text.lstrip())
        terms = _conjuncts(tree.body)
        if len(terms) == 1:
            kind, node = self._node(tree.body, text, False)
            if kind != "truth":
                self._fail(text, tree.body, "a number is not a condition; compare it, e.g. 'opening(0) >= 51'")
            self._conjuncts = [(self._held_term(tree.body, text), node)]
            return node
        parts = [self._truth(term, text, False) for term in terms]
        self._conjuncts = [(self._held_term(term, text), part) for term, part in zip(terms, parts)]
        return lambda b, s: np.logical_and.reduce([p(b, s) for p in parts])

    @staticmethod
    def _held_term(node, text: str) -> tuple[int, tuple[int, ...], str] | None:
        """``(seat, cards, its text)`` when the term (already read) is ``holds(seat number, "cards")``, else None."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "holds" \
                and isinstance(node.args[0], ast.Constant):
            return (node.args[0].value, tuple(sorted(int(c) for c in cardlib.parse(node.args[1].value))),
                    ast.get_source_segment(text.strip(), node) or "holds(...)")
        return None

    def _fail(self, text: str, node, message: str) -> None:
        column = getattr(node, "col_offset", 0) + 1 + getattr(self, "_shift", 0)
        raise ConditionError(f"condition {text!r}, column {column}: {message}")

    def _node(self, node, text: str, in_quantifier: bool):
        """``(kind, evaluate)``: kind ``"number"`` or ``"truth"``; ``evaluate(batch, seat)`` gives an array."""
        if isinstance(node, ast.BoolOp):
            parts = [self._truth(v, text, in_quantifier) for v in node.values]
            if isinstance(node.op, ast.And):
                return "truth", lambda b, s: np.logical_and.reduce([p(b, s) for p in parts])
            return "truth", lambda b, s: np.logical_or.reduce([p(b, s) for p in parts])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            part = self._truth(node.operand, text, in_quantifier)
            return "truth", lambda b, s: ~part(b, s)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            part = self._number(node.operand, text, in_quantifier)
            return "number", lambda b, s: -part(b, s)
        if isinstance(node, ast.Compare):
            for op in node.ops:
                if type(op) not in _COMPARE:
                    self._fail(text, node, f"'{_OP_TEXT.get(type(op), type(op).__name__)}' is not a comparison "
                                           "of the language: use < <= == != >= >")
            ops = [_COMPARE[type(op)] for op in node.ops]
            terms = [self._number(n, text, in_quantifier) for n in (node.left, *node.comparators)]

            def compare(b, s):
                values = [t(b, s) for t in terms]
                out = ops[0](values[0], values[1])
                for i in range(1, len(ops)):
                    out = out & ops[i](values[i], values[i + 1])
                return out

            return "truth", compare
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            left = self._number(node.left, text, in_quantifier)
            right = self._number(node.right, text, in_quantifier)
            if isinstance(node.op, ast.Add):
                return "number", lambda b, s: left(b, s) + right(b, s)
            return "number", lambda b, s: left(b, s) - right(b, s)
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            value = node.value
            return "number", lambda b, s: np.int64(value)
        if isinstance(node, ast.Call):
            return self._call(node, text, in_quantifier)
        if isinstance(node, ast.Name):
            self._fail(text, node, f"'{node.id}' alone means nothing here: the features are "
                                   f"{', '.join(FEATURES)}")
        if isinstance(node, ast.Constant):
            self._fail(text, node, f"{node.value!r} is not a whole number or a feature")
        self._fail(text, node, f"'{ast.get_source_segment(text.strip(), node) or type(node).__name__}' is not part "
                               "of the language: features, whole numbers, + -, comparisons, and, or, not")

    def _truth(self, node, text, in_quantifier):
        kind, f = self._node(node, text, in_quantifier)
        if kind != "truth":
            self._fail(text, node, "a number where a condition is needed; compare it, e.g. 'jokers(0) >= 1'")
        return f

    def _number(self, node, text, in_quantifier):
        kind, f = self._node(node, text, in_quantifier)
        if kind != "number":
            self._fail(text, node, "a condition where a number is needed (true and false are not counted)")
        return f

    def _seat(self, node, text, in_quantifier):
        """The seat argument: a whole number, or ``seat`` inside ``any_seat``/``every_seat``."""
        if isinstance(node, ast.Name) and node.id == "seat":
            if not in_quantifier:
                self._fail(text, node, "'seat' stands for each seat only inside any_seat(...) or every_seat(...)")
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            if node.value < 0:
                self._fail(text, node, f"seat {node.value}: seats count from 0")
            self._seats.append((node.value, node))
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            self._fail(text, node, "seats count from 0")
        self._fail(text, node, "a seat is a whole number from 0, or 'seat' inside any_seat(...)/every_seat(...)")

    def _call(self, node: ast.Call, text: str, in_quantifier: bool):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in _NUMBERS + _TRUTHS + _QUANTIFIERS:
            shown = name or (ast.get_source_segment(text.strip(), node.func) or "?")
            self._fail(text, node, f"unknown feature '{shown}': the features are {', '.join(FEATURES)}")
        if node.keywords:
            self._fail(text, node.keywords[0].value, f"{name}() takes its arguments by position")
        wanted = 2 if name == "holds" else 1
        if len(node.args) != wanted or any(isinstance(a, ast.Starred) for a in node.args):
            self._fail(text, node, f"{name}() takes {wanted} argument{'s' if wanted > 1 else ''}: "
                                   f"{next(k for k in FEATURES if k.startswith(name + '('))}")
        if name in _QUANTIFIERS:
            if in_quantifier:
                self._fail(text, node, f"{name}(...) inside another any_seat/every_seat: 'seat' would mean two "
                                       "seats")
            inner = self._truth(node.args[0], text, True)
            every = name == "every_seat"

            def quantified(b, s):
                values = [inner(b, seat) for seat in range(b.deals.ruleset.players)]
                return np.logical_and.reduce(values) if every else np.logical_or.reduce(values)

            return "truth", quantified
        seat = self._seat(node.args[0], text, in_quantifier)
        if name == "contract":
            self._contract = node
        cards: tuple[int, ...] = ()
        if name == "holds":
            arg = node.args[1]
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                self._fail(text, arg, 'holds() names its cards in quotes, e.g. holds(2, "7♥ 7♦")')
            try:
                cards = tuple(sorted(int(c) for c in cardlib.parse(arg.value)))
            except ValueError as exc:
                self._fail(text, arg, f"holds(): {exc}")
            if not cards:
                self._fail(text, arg, "holds() names no card")
            self._holds.append((cards, arg))
        kind = "number" if name in _NUMBERS else "truth"
        return kind, lambda b, s: b.feature(name, s if seat is None else seat, cards)

    # ------------------------------------------------------------ use
    def check(self, ruleset: Ruleset) -> None:
        """Refuse a condition the ruleset cannot meet the terms of: a seat past the players, a contract outside contrat."""
        if self._tree is None:
            return
        for cards, node in self._holds:
            most = max((cards.count(c) for c in set(cards) if c != cardlib.JOKER_CODE), default=0)
            if most > ruleset.decks:
                self._fail(self.text, node, f"holds() names a card {most} times: the deck holds {ruleset.decks}")
            if cards.count(cardlib.JOKER_CODE) > ruleset.n_jokers:
                self._fail(self.text, node, f"holds() names {cards.count(cardlib.JOKER_CODE)} jokers: the deck holds "
                                            f"{ruleset.n_jokers}")
        for seat, node in self._seats:
            if seat >= ruleset.players:
                self._fail(self.text, node, f"seat {seat}: the table has seats 0 .. {ruleset.players - 1}")
        if self._contract is not None and ruleset.game != "contrat":
            self._fail(self.text, self._contract, f"contract() is Rami contrat's, not {ruleset.game}'s")

    @property
    def held_terms(self) -> list[str]:
        """The texts of the ``holds()`` terms that may be dealt exactly (:meth:`held`), in the condition's order."""
        return [term[2] for term, _ in self._conjuncts if term is not None]

    def held(self, ruleset: Ruleset, round_index: int = 0) -> "Held | None":
        """The ``holds()`` terms of the condition dealt exactly in round ``round_index``, or None: none is.

        A ``holds(seat, "...")`` with a seat number that is one of the terms
        whose conjunction the whole condition is (the condition itself, or a
        term of its top-level ``and``) is dealt exactly; every other term is
        tested on those deals (:meth:`evaluate_rest`). Every seat's terms are
        dealt together, one count of each named card per seat drawn among
        every possible one; a seat whose terms would make more than
        ``HELD_COUNTS`` of them is left to rejection, which is as exact, only
        slower.

        Raises ``ValueError`` when no deal can hold the cards named.
        """
        key = (ruleset, round_index)
        if key in self._held:
            return self._held[key]
        wanted: dict[int, dict[int, int]] = {}
        for term, _ in self._conjuncts:
            if term is not None:
                seat, cards, _ = term
                need = wanted.setdefault(seat, {})
                for c in set(cards):
                    # Two terms on one seat: the hand holds the larger count of each card.
                    need[c] = max(need.get(c, 0), cards.count(c))
        chosen: dict[int, dict[int, int]] = {}
        table = None
        for seat, need in wanted.items():
            trial = _held_counts(ruleset, round_index, chosen | {seat: need})
            if trial is not None:
                chosen, table = chosen | {seat: need}, trial
        held = None
        if table is not None:
            counts, weights, total = table
            if not weights.size:
                raise ValueError(f"condition {self.text!r} can never hold: no deal of {ruleset.deck_size} cards "
                                 "gives the hands named the cards they name")
            from fractions import Fraction

            terms = [t for t, _ in self._conjuncts if t is not None and t[0] in chosen]
            cdf = np.cumsum(weights.astype(np.float64))
            named = np.zeros(cardlib.N_CODES, dtype=bool)
            named[[c for need in chosen.values() for c in need]] = True
            copies = np.array([ruleset.n_jokers if c == cardlib.JOKER_CODE else ruleset.decks
                               for c in range(cardlib.N_CODES)], dtype=np.int64)
            held = Held(tuple(chosen), " and ".join(term[2] for term in terms),
                        float(Fraction(int(sum(int(w) for w in weights)), total)), counts, cdf / cdf[-1], named,
                        copies)
        self._held[key] = held
        return held

    def evaluate_rest(self, deals: Deals, held: "Held | None") -> np.ndarray:
        """Whether each deal satisfies the terms ``held`` does not deal exactly (all of them when it is None)."""
        if held is None:
            return self.evaluate(deals)
        parts = [f for term, f in self._conjuncts if term is None or term[0] not in held.seats]
        if not parts:
            return np.ones(len(deals), dtype=bool)
        batch = _Batch(deals)
        out = np.logical_and.reduce([np.asarray(p(batch, None), dtype=bool) for p in parts])
        return np.broadcast_to(out, (len(deals),)).copy()

    def evaluate(self, deals: Deals) -> np.ndarray:
        """Whether each deal of ``deals`` satisfies the condition (bool array)."""
        if self._tree is None:
            out = np.zeros(len(deals), dtype=bool)
            for i in range(len(deals)):
                hands = [[int(c) for c in row if c >= 0] for row in deals.hands[i]]
                out[i] = bool(self._predicate(hands))
            return out
        return np.broadcast_to(np.asarray(self._tree(_Batch(deals), None), dtype=bool), (len(deals),)).copy()


def _conjuncts(node) -> list:
    """The terms whose conjunction ``node`` is: those of a top-level ``and`` (nested ones too), else ``node``."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return [t for v in node.values for t in _conjuncts(v)]
    return [node]


HELD_COUNTS = 50_000
"""The most possible counts of named cards per seat :meth:`Condition.held` draws among (beyond: rejection)."""


@dataclass(frozen=True)
class Held:
    """The ``holds()`` terms of a condition that are dealt exactly, and the chance a shuffled deal meets them.

    Attributes
    ----------
    seats : tuple of int
        The seats whose hands are dealt their named cards.
    text : str
        Those terms, e.g. ``holds(0, "7♥ 7♦")``.
    probability : float
        The exact chance that a uniformly shuffled deal meets them (hypergeometric).
    counts : numpy.ndarray of int64, shape (k, seats, 53)
        Every possible count of each card code in each of those hands, given the terms.
    cdf : numpy.ndarray of float64, shape (k,)
        Their cumulative probabilities under a uniform shuffle given the terms.
    named, copies : numpy.ndarray, shape (53,)
        Whether each card code is named by those terms, and its copies in the deck.
    """

    seats: tuple[int, ...]
    text: str
    probability: float
    counts: np.ndarray
    cdf: np.ndarray
    named: np.ndarray
    copies: np.ndarray


def _multinomial(n: int, parts: list[int]) -> int:
    """Ways to choose disjoint groups of sizes ``parts`` out of ``n`` distinct things (the rest left over)."""
    out = 1
    for k in parts:
        if k < 0 or k > n:
            return 0
        out *= math.comb(n, k)
        n -= k
    return out


def _held_counts(r: Ruleset, round_index: int, wanted: dict[int, dict[int, int]]):
    """Every count of the named cards in the seats' hands meeting ``wanted`` (seat: card: least copies).

    Returns ``(counts, weights, total)``: the counts ``(k, seats, 53)``, each
    one's number of deals (every copy of the deck told apart) and the number
    of all deals of those hands, so a count's probability given the terms is
    its weight over their sum and the terms' probability that sum over
    ``total``; None when there are more than ``HELD_COUNTS`` of them.
    """
    seats = list(wanted)
    first = first_player(round_index, r.players)
    sizes = [r.hand_size(round_index) + int(r.first_player_extra_card and s == first) for s in seats]
    codes = sorted({c for need in wanted.values() for c in need})
    copies = [r.n_jokers if c == cardlib.JOKER_CODE else r.decks for c in codes]
    others = r.deck_size - sum(copies)
    per_card = []
    for c, m in zip(codes, copies):
        ranges = [range(wanted[s].get(c, 0), m + 1) for s in seats]
        per_card.append([k for k in itertools.product(*ranges) if sum(k) <= m])
    if math.prod(len(o) for o in per_card) > HELD_COUNTS:
        return None
    # The least count each hand must still take from the cards after the i-th: a count past the hand's size
    # is cut off as soon as it cannot fit, not after every combination of the cards after it.
    least = [[sum(wanted[s].get(c, 0) for c in codes[i:]) for s in seats] for i in range(len(codes) + 1)]
    rows, weights = [], []

    def extend(i: int, combo: list, held: list[int]) -> None:
        if i == len(codes):
            free = [h - k for h, k in zip(sizes, held)]
            # The named cards' copies split among the hands and the rest of the deck; the hands filled with others.
            w = math.prod(_multinomial(m, list(k)) for m, k in zip(copies, combo)) * _multinomial(others, free)
            if w:
                row = np.zeros((len(seats), cardlib.N_CODES), dtype=np.int64)
                for c, k in zip(codes, combo):
                    row[:, c] = k
                rows.append(row)
                weights.append(w)
            return
        for k in per_card[i]:
            now = [a + b for a, b in zip(held, k)]
            if all(x + rest <= h for x, rest, h in zip(now, least[i + 1], sizes)):
                extend(i + 1, [*combo, k], now)

    extend(0, [], [0] * len(seats))
    counts = np.array(rows, dtype=np.int64).reshape(len(rows), len(seats), cardlib.N_CODES)
    return counts, np.array(weights, dtype=object), _multinomial(r.deck_size, sizes)


_COMPARE = {ast.Lt: np.less, ast.LtE: np.less_equal, ast.Eq: np.equal, ast.NotEq: np.not_equal,
            ast.GtE: np.greater_equal, ast.Gt: np.greater}
_OP_TEXT = {ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}


def parse_condition(text: str) -> Condition:
    """Read a condition of the language of docs/deals.md; :class:`ConditionError` names what and where.

    >>> parse_condition("jokers(0) >= 1 and opening(0) >= 51")
    Condition('jokers(0) >= 1 and opening(0) >= 51')
    """
    return Condition(text)


@dataclass(frozen=True)
class Sample:
    """Deals that satisfy a condition, one per game, and how many deals it took.

    Attributes
    ----------
    deals : Deals
        The accepted deal of each game, in game order (``deals.attempts``:
        how many deals of its stream were rejected before it).
    dealt : int
        Deals dealt and tested, up to each game's accepted one.
    accepted : int
        Deals accepted (the games).
    pilot_dealt, pilot_accepted : int
        The pilot's deals and acceptances (the games' first deals, ``PILOT`` of them).
    held : float
        The exact chance that a shuffled deal meets the ``holds()`` terms
        dealt exactly (:meth:`Condition.held`); 1 when none is. ``dealt``
        and ``accepted`` then count the deals the other terms were tested on.
    held_text : str or None
        Those terms, e.g. ``holds(0, "7♥")``.
    """

    deals: Deals
    dealt: int
    accepted: int
    pilot_dealt: int
    pilot_accepted: int
    held: float = 1.0
    held_text: str | None = None

    @property
    def rest_rate(self) -> float:
        """The measured rate of the terms not dealt exactly: accepted / dealt."""
        return self.accepted / self.dealt

    @property
    def rate(self) -> float:
        """The whole condition's acceptance rate: ``held`` times accepted / dealt (1 times it without held terms)."""
        return self.held * self.accepted / self.dealt

    def rest_rate_interval(self):
        """The measured rate with its 95% Wilson interval (:func:`sim.intervals.wilson_interval`)."""
        from sim.intervals import wilson_interval

        return wilson_interval(self.accepted, self.dealt)

    def rate_interval(self):
        """The whole condition's rate with its 95% interval: the measured rate's, times the exact ``held``."""
        from sim.intervals import Interval

        w = self.rest_rate_interval()
        return Interval(w.mean * self.held, w.low * self.held, w.high * self.held)


def _deal_held(deals: Deals, held: Held, seed: int, stock_cards: int) -> Deals:
    """The deals (dealt with their whole stock) with the cards ``held`` fixes dealt exactly (:func:`kernels.deal_held`).

    Each deal's count of the named cards per held hand is drawn from the
    stream of its seed, game, round and attempt; its other cards keep their
    shuffled order. Keeps ``stock_cards`` of the stock.
    """
    from sim.engine import deals as kernels

    orders = deals.orders()
    r = deals.ruleset
    positions = np.full(r.deck_size, -1, dtype=np.int64)
    size = r.hand_size(deals.round_index)
    extra = int(r.first_player_extra_card)
    starts = [0]
    for k in range(r.players):
        seat = (deals.first + k) % r.players
        width = size + (extra if k == 0 else 0)
        if seat in held.seats:
            positions[starts[-1]:starts[-1] + width] = held.seats.index(seat)
        starts.append(starts[-1] + width)
    kernels.deal_held(orders, deals.games, deals.attempts, np.uint64(seed), deals.round_index,
                      np.array(starts, dtype=np.int64), positions,
                      held.named, held.copies, held.counts, held.cdf)
    return deals.replace_orders(orders, stock_cards)


def _sample_games(r: Ruleset, seed: int, games: np.ndarray, round_index: int, condition: Condition,
                  stock_cards: int) -> tuple[Deals, int]:
    """The first accepted deal of each game's stream, and the deals dealt up to them."""
    held = condition.held(r, round_index)
    # Cards dealt exactly may come from anywhere in the deck: those deals are dealt whole.
    dealer = Dealer(r, seed, games, round_index, stock_size(r, round_index) if held else stock_cards)
    n = games.shape[0]
    width = dealer._width
    hands = np.empty((n, r.players, width), dtype=np.int64)
    stock = np.empty((n, stock_cards), dtype=np.int64)
    pile = np.empty(n, dtype=np.int64)
    attempts = np.zeros(n, dtype=np.int64)
    pending = np.arange(n, dtype=np.int64)
    tried = 0
    kept = 0
    while pending.shape[0]:
        # Several deals of one stream in one call when few games are left: the
        # kernel deals the repeated rows one after another from that stream.
        # (How many deals a call makes never changes which deal is accepted.)
        rate = max(kept, 1) / tried if tried else 1.0
        k = int(max(1, min(1.0 / rate, 100_000 // pending.shape[0], 10_000)))
        tried += pending.shape[0] * k
        rows = np.repeat(pending, k)
        d = dealer.next(rows)
        if held is not None:
            d = _deal_held(d, held, seed, stock_cards)
        ok = condition.evaluate_rest(d, held).reshape(pending.shape[0], k)
        hit = ok.any(axis=1)
        first = ok.argmax(axis=1)
        done = pending[hit]
        pick = np.flatnonzero(hit) * k + first[hit]
        hands[done] = d.hands[pick]
        stock[done] = d.stock[pick]
        pile[done] = d.pile[pick]
        attempts[done] += first[hit]
        attempts[pending[~hit]] += k
        kept += int(ok.sum())
        pending = pending[~hit]
    streams = dealer._kernels.streams_after(dealer._kr, round_index,
                                           dealer._kernels.deck_streams(np.uint64(seed), games, round_index),
                                           attempts + 1)
    return Deals(r, round_index, games.copy(), attempts, hands, stock, pile, streams), int(attempts.sum()) + n


def pilot_rate(ruleset: Ruleset, condition: Condition, seed: int, *, first_game: int = 0, round_index: int = 0,
               pilot: int = PILOT, min_rate: float = MIN_RATE) -> int:
    """How many of the first deals of games ``first_game .. first_game + pilot - 1`` satisfy ``condition``.

    With ``holds()`` terms dealt exactly (:meth:`Condition.held`), the pilot
    deals them so and counts the deals the other terms accept: the rate
    measured, and refused below ``min_rate``, is that of the rest.

    Raises ``ValueError`` with the measured rate and its 95% interval when
    the share is below ``min_rate``: a condition too rare to sample.
    """
    held = condition.held(ruleset, round_index)
    games = np.arange(first_game, first_game + pilot, dtype=np.int64)
    probe = Dealer(ruleset, seed, games, round_index, stock_size(ruleset, round_index) if held else 1).next()
    if held is not None:
        probe = _deal_held(probe, held, seed, 1)
    hits = int(condition.evaluate_rest(probe, held).sum())
    if hits / pilot < min_rate:
        from sim.intervals import wilson_interval

        w = wilson_interval(hits, pilot)
        shown = repr(condition.text) if condition.text is not None else repr(condition)
        if held is not None:
            shown += f" beyond {held.text} (dealt exactly)"
        raise ValueError(f"condition {shown} is too rare to sample: {hits} of {pilot:,} pilot deals accepted "
                         f"({hits / pilot:.4%}, 95% interval {w.low:.4%} to {w.high:.4%}), below the least rate "
                         f"{min_rate:.4%} (min_rate)")
    return hits


def sample(ruleset: Ruleset | str, condition: "str | Callable[[list[list[int]]], bool] | Condition", n: int,
           seed: int = 1, *, players: int | None = None, first_game: int = 0, round_index: int = 0,
           stock_cards: int | None = None, min_rate: float = MIN_RATE, pilot: int = PILOT,
           workers: int = 1) -> Sample:
    """Round ``round_index`` of games ``first_game .. first_game + n - 1``, each dealt until ``condition`` holds.

    As bridge dealers do: each game's round is dealt from its own deck
    stream (the very deal :func:`sim.simulate` plays); a deal the condition
    rejects is followed by the next deal of the same stream, until one is
    accepted. The accepted deals are therefore the same whatever ``n``,
    ``workers`` or the strategies to be played on them. The condition's
    top-level ``holds()`` terms are dealt exactly instead (docs/deals.md,
    "Cards dealt exactly"): the rate measured is then the other terms',
    ``Sample.rate`` that times the held cards' exact chance.

    Parameters
    ----------
    ruleset : Ruleset or str
    condition : str, callable or Condition
        A text of the condition language (docs/deals.md), e.g.
        ``"jokers(0) >= 1 and opening(0) >= 51"``, or a function of one
        deal's hands (a list per seat of card codes) returning whether it is kept.
    n : int
        Games (accepted deals), at least 1.
    seed : int
        The simulation seed, 0 .. 2**64 - 1.
    players : int, optional
        Overrides the ruleset's ``players``.
    first_game, round_index, stock_cards
        As :func:`deal`.
    min_rate : float
        The least acceptance rate sampled: first ``pilot`` deals (the first
        deals of games ``first_game ..``) measure the rate, and a condition
        accepted by a smaller share is refused with its measured rate.
    pilot : int
        Deals of the pilot (``PILOT``); 0: no pilot, for a caller that
        measured the rate already (``sim.simulate`` samples batch by batch).
    workers : int
        Threads sharing the games (the kernels release the GIL); the deals
        do not depend on it.

    Returns
    -------
    Sample

    Raises
    ------
    ConditionError
        The condition cannot be read or does not fit the ruleset (what and where).
    ValueError
        A bad value, or a condition too rare to sample (its rate on the pilot).
    """
    r = as_ruleset(ruleset)
    if players is not None:
        r = r.replace(players=players)
    n = check_whole("n", n, 1)
    first_game = check_whole("first_game", first_game, 0)
    round_index = check_whole("round_index", round_index, 0)
    seed = _check_seed(seed)
    pilot = check_whole("pilot", pilot, 0)
    if 0 < pilot < 100:
        raise ValueError(f"pilot must be 0 (no pilot: the caller measured the rate) or at least 100, got {pilot}")
    workers = check_whole("workers", workers, 1)
    if isinstance(min_rate, bool) or not isinstance(min_rate, (int, float)) or not 0 < min_rate <= 1:
        raise ValueError(f"min_rate must be a number above 0 and at most 1, got {min_rate!r}")
    k = r.players if stock_cards is None else check_whole("stock_cards", stock_cards, 1)
    cond = Condition(condition)
    cond.check(r)
    hits = pilot_rate(r, cond, seed, first_game=first_game, round_index=round_index, pilot=pilot,
                      min_rate=min_rate) if pilot else 0
    games = np.arange(first_game, first_game + n, dtype=np.int64)
    chunks = np.array_split(games, min(workers, n))
    if workers == 1:
        parts = [_sample_games(r, seed, games, round_index, cond, k)]
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(workers) as pool:
            parts = list(pool.map(lambda g: _sample_games(r, seed, g, round_index, cond, k), chunks))
    deals = Deals(r, round_index, np.concatenate([p[0].games for p in parts]),
                  np.concatenate([p[0].attempts for p in parts]), np.concatenate([p[0].hands for p in parts]),
                  np.concatenate([p[0].stock for p in parts]), np.concatenate([p[0].pile for p in parts]),
                  np.concatenate([p[0].streams for p in parts]))
    held = cond.held(r, round_index)
    return Sample(deals, sum(p[1] for p in parts), n, pilot, hits, 1.0 if held is None else held.probability,
                  None if held is None else held.text)
