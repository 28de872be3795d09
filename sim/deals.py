"""The hands games are dealt, without playing them, and deals kept only when a condition holds.

:func:`deal` gives round ``round_index`` of games ``first_game ..`` of the
simulation seeded ``seed`` exactly as :func:`sim.simulate` deals it: the
engine's own deck stream (``STREAM_DECK``) and its own deal
(``sim.engine.deals``). The odds tables (:mod:`sim.odds_tables`, ``sim.odds``) are counted on
these deals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.rules.ruleset import Ruleset, as_ruleset

__all__ = ["Deals", "deal"]


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
    """

    ruleset: Ruleset
    round_index: int
    games: np.ndarray
    attempts: np.ndarray
    hands: np.ndarray
    stock: np.ndarray
    pile: np.ndarray

    @property
    def first(self) -> int:
        """The seat that plays first in this round."""
        return self.round_index % self.ruleset.players

    def __len__(self) -> int:
        return int(self.games.shape[0])

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


def _check_count(name: str, value: int, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be a whole number of at least {low}, got {value!r}")
    return int(value)


def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be a whole number from 0 to 2**64 - 1, got {seed!r}")
    return int(seed)


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
        attempts = self.dealt[rows].copy()
        self.dealt[rows] += 1
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
    n = _check_count("n", n, 1)
    first_game = _check_count("first_game", first_game, 0)
    round_index = _check_count("round_index", round_index, 0)
    seed = _check_seed(seed)
    k = r.players if stock_cards is None else _check_count("stock_cards", stock_cards, 1)
    games = np.arange(first_game, first_game + n, dtype=np.int64)
    return Dealer(r, seed, games, round_index, k).next()
