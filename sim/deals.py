"""The hands games are dealt, without playing them, and deals kept only when a condition holds.

:func:`deal` gives round ``round_index`` of games ``first_game ..`` of the
simulation seeded ``seed`` exactly as :func:`sim.simulate` deals it: the
engine's own deck stream (``STREAM_DECK``) and its own deal
(``sim.engine.deals``). The odds tables (:mod:`sim.odds_tables`,
``sim.odds``) are counted on these deals.

:func:`sample` deals as bridge dealers do: only deals that satisfy a
condition on the hands dealt, such as ``"jokers(0) >= 1 and opening(0) >=
51"`` (the language of docs/deals.md, read by :mod:`sim.conditions`) or a
Python predicate. A rejected deal is followed by the next deal of the same
game's deck stream, so every seed's accepted deals are reproducible, and a
condition too rare to sample is refused with its rate measured on a pilot.
A ``holds()`` term of the condition's top-level ``and`` is not rejected on
but dealt exactly, the rest of the deck shuffled (the condition's
:meth:`~sim.conditions.Condition.held` terms, dealt by
``sim.engine.deals.deal_held``), so a hand given rare cards is sampled as
fast as any other.

The condition language's names (:class:`~sim.conditions.Condition`,
:class:`~sim.conditions.ConditionError`, :func:`~sim.conditions.parse_condition`,
``FEATURES``, ``Held``, ``HELD_COUNTS``) are :mod:`sim.conditions`'s, and
are offered here too, where docs/deals.md names them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim import cards as cardlib
from sim.checks import check_seed, check_whole
from sim.conditions import FEATURES, HELD_COUNTS, Condition, ConditionError, Held, parse_condition
from sim.rules.ruleset import Ruleset, as_ruleset

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


# ---------------------------------------------------------------- sampling
MIN_RATE = 1e-4
"""A condition accepted by fewer than this share of the pilot's deals is refused as too rare to sample."""

PILOT = 20_000
"""Deals of the pilot that measures a condition's acceptance rate before sampling."""


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
