"""The condition language of conditioned deals: a condition on the hands dealt, read and evaluated.

A condition such as ``"jokers(0) >= 1 and opening(0) >= 51"`` (the language
of docs/deals.md) is read by :func:`parse_condition` with ``ast`` and a
whitelist, never ``eval``, into a tree of numpy operations evaluated on a
whole batch of deals at once; a text outside the grammar, or one the ruleset
cannot meet, is refused with a :class:`ConditionError` naming what and
where. A Python predicate of one deal's hands is taken too. A ``holds()``
term of the condition's top-level ``and`` can be dealt exactly instead of
rejected on (:meth:`Condition.held`: the seats, the counts of the named
cards and their exact chance under a uniform shuffle); dealing them is
:mod:`sim.deals`'s, which samples the deals a condition keeps.
"""

from __future__ import annotations

import ast
import itertools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from sim import cards as cardlib
from sim.rules.facts import first_player
from sim.rules.ruleset import CONTRACTS, WHOLE_HAND_DEAL, Ruleset, contract_deal

if TYPE_CHECKING:
    from sim.deals import Deals

__all__ = ["FEATURES", "HELD_COUNTS", "Condition", "ConditionError", "Held", "parse_condition"]


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
