"""Odds of the deal: what the first hands hold, counted on the engine's own deals, without play.

:func:`odds` deals round after round exactly as games are dealt
(:func:`sim.deals.deal`: the engine's deck stream and deal) and asks each
first hand what the compiled searches answer at once: the best opening
(``sim.best_openings``' search), the most cards melded, the contract. It
deals until every share it reports is known to the precision asked (the
half-width of its 95% Wilson interval, :func:`sim.intervals.wilson_interval`)
or the most hands allowed are dealt. Every deal is a fresh round of a
different game, so the hands are independent.

The tables (column ``table``):

``first_turn``
    The first player can open on its first turn: its hand dealt and its first
    draw (the stock's top card; none under ``first_player_extra_card``)
    reach an opening of at least ``value`` points (``open_needs_natural_run``
    honoured). Rami 51 and basic rummy.
``dealt``
    The same with the hand dealt alone.
``points``
    The distribution of the best opening of the first turn's cards: ``value``
    is the lowest total of a bin of 10 points (0: no meld at all, 1: 1 to 9).
``jokers``
    The first player's hand dealt holds exactly ``value`` jokers (exact:
    hypergeometric).
``rami_sec``
    The first player can go out on its first turn: its first turn's cards lay
    whole, or all but the one discarded (``go_out``), in melds making an
    opening (the threshold and the natural run, unless
    ``lay_all_ignores_opening`` waives them): the rami sec of docs/rules.md
    section 5.2 at the earliest moment. ``value`` is 0.
``contract_dealt``, ``contract_drawn``
    Rami contrat: the first player of deal ``value`` (1 .. 7) holds that
    deal's contract in the hand dealt, and with its first draw.
"""

from __future__ import annotations

import functools
import math
import time
from collections import defaultdict
from collections.abc import Sequence
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim import distributed
from sim.checks import check_seed, check_whole, is_whole
from sim.deals import Dealer
from sim.intervals import wilson_interval
from sim.cards import JOKER_CODE as JOKER
from sim.rules import candidate_melds
from sim.rules.ruleset import CONTRACTS, WHOLE_HAND_DEAL, Ruleset, as_ruleset

__all__ = ["DEFAULT_THRESHOLDS", "ODDS_COLUMNS", "Odds", "goes_out_at_once", "odds"]

DEFAULT_THRESHOLDS: tuple[int, ...] = (30, 40, 51, 61, 71)
"""The opening thresholds of the ``first_turn`` and ``dealt`` tables by default."""

ODDS_COLUMNS: dict[str, str] = {
    "table": "which table (see the module docstring)",
    "value": "the threshold, number of jokers, bin's lowest total or deal the row is about",
    "hits": "hands for which it holds",
    "hands": "hands dealt and asked",
    "share": "hits / hands",
    "low": "lower end of the 95% Wilson interval of the share",
    "high": "upper end of the 95% Wilson interval of the share",
}
"""The columns of the frame :func:`odds` returns, with their meaning."""

BATCH = 100_000
"""Deals per pass of the counting loop (memory stays a few tens of MB)."""


def goes_out_at_once(hand: Sequence[int], ruleset: Ruleset | str) -> bool:
    """Whether ``hand`` lays out in one turn from a closed hand, by the rules reference's melds.

    Melds must hold the whole hand, or all of it but one card left to discard
    (only that under ``go_out = "discard_only"``), and, unless
    ``lay_all_ignores_opening``, make an opening: at least ``open_threshold``
    points and a natural run where ``open_needs_natural_run``. The hand's
    candidate melds (``rules.candidate_melds``) are listed once; the search
    then decides the lowest card left, as ``rules.best_collection`` does:
    the card left out, or the lowest natural of a meld laid.
    """
    r = as_ruleset(ruleset)
    cards = tuple(sorted(int(c) for c in hand if int(c) >= 0))
    waived = r.lay_all_ignores_opening
    must_discard = r.go_out == "discard_only"
    by_lowest: dict[int, list[tuple[tuple[int, ...], int, bool]]] = defaultdict(list)
    for codes, reading in candidate_melds(list(cards), r).items():
        by_lowest[codes[0]].append((codes, reading.points, reading.is_natural_run))

    @lru_cache(maxsize=None)
    def best(remaining: tuple[int, ...], spare: int, need_natural: bool) -> float:
        """The most points of melds holding all of ``remaining`` but ``spare`` (0 or 1) cards left out."""
        if not remaining or remaining[0] == JOKER:
            # Only jokers are left, and no meld is made of jokers alone.
            left = len(remaining)
            if need_natural or left > spare or (must_discard and left < spare):
                return -math.inf
            return 0.0
        found = best(remaining[1:], 0, need_natural) if spare else -math.inf
        for codes, points, natural_run in by_lowest.get(remaining[0], ()):
            rest = list(remaining)
            try:
                for c in codes:
                    rest.remove(c)
            except ValueError:
                continue
            found = max(found, points + best(tuple(rest), spare, need_natural and not natural_run))
        return found

    total = best(cards, 1, r.open_needs_natural_run and not waived)
    return total > -math.inf and (waived or total >= r.open_threshold)


@dataclass
class _Tally:
    """Hits and hands of one row."""

    table: str
    value: int
    hits: int = 0
    hands: int = 0

    def half_width(self) -> float:
        if self.hands == 0:
            return math.inf
        w = wilson_interval(self.hits, self.hands)
        return (w.high - w.low) / 2


@dataclass
class Odds:
    """The tables of :func:`odds`, with how they were made."""

    ruleset: Ruleset
    rows: list[dict] = field(default_factory=list)
    hands: int = 0
    seed: int = 1
    precision: float = 0.0
    reached: bool = False
    seconds: float = 0.0

    def frame(self):
        """The rows as a polars frame (columns :data:`ODDS_COLUMNS`)."""
        import polars as pl

        return pl.DataFrame(self.rows, schema={"table": pl.Utf8, "value": pl.Int64, "hits": pl.Int64,
                                               "hands": pl.Int64, "share": pl.Float64, "low": pl.Float64,
                                               "high": pl.Float64})


def _opening_kernel(r: Ruleset):
    import sim.engine.openings as kernel

    def best(hands: np.ndarray) -> np.ndarray:
        out, bad = kernel.best_openings(hands, r.decks, r.n_jokers, r.min_run, r.ace_high, r.open_needs_natural_run)
        assert bad < 0, "a dealt hand the deck cannot hold"
        return out

    return best


def _count_rami51(r: Ruleset, dealer: Dealer, tallies: dict, thresholds: Sequence[int], n: int) -> None:
    """Deal ``n`` more first rounds and count every table of Rami 51 and basic rummy."""
    from sim.engine import deals as kernels

    best = _opening_kernel(r)
    d = dealer.next(np.arange(dealer.games.shape[0] - n, dealer.games.shape[0]))
    dealt = d.hands[:, d.first, :]
    first_turn = d.first_turn_hands()
    best_dealt = best(dealt)
    best_first = best(first_turn)
    for t in thresholds:
        tallies[("first_turn", t)].hits += int((best_first >= t).sum())
        tallies[("dealt", t)].hits += int((best_dealt >= t).sum())
    bins = np.where(best_first == 0, -1, best_first // 10 * 10)
    values, counts = np.unique(bins, return_counts=True)
    for v, c in zip(values.tolist(), counts.tolist()):
        key = ("points", 0 if v == -1 else max(v, 1))
        if key not in tallies:
            tallies[key] = _Tally("points", key[1])
        tallies[key].hits += c
    jokers = (dealt == JOKER).sum(axis=1)
    for k in range(r.n_jokers + 1):
        tallies[("jokers", k)].hits += int((jokers == k).sum())
    # Rami sec: the compiled searches rule out almost every hand; the rules
    # reference decides the few left (melds holding all cards but one at most,
    # and, unless waived, an opening's points).
    size = (first_turn >= 0).sum(axis=1)
    maybe = np.ones(len(d), dtype=bool) if r.lay_all_ignores_opening else best_first >= r.open_threshold
    idx = np.flatnonzero(maybe)
    melded = np.zeros(idx.shape[0], dtype=np.int64)
    kernels.most_melded(np.ascontiguousarray(first_turn[idx]), r.min_run, r.ace_high, melded)
    idx = idx[melded >= size[idx] - 1]
    tallies[("rami_sec", 0)].hits += sum(goes_out_at_once(first_turn[i], r) for i in idx)
    for t in tallies.values():
        if t.table != "points":
            t.hands += n
    for key, t in tallies.items():
        if key[0] == "points":
            t.hands = tallies[("jokers", 0)].hands


def _count_contrat(r: Ruleset, dealers: list[Dealer], tallies: dict, n: int) -> None:
    """Deal ``n`` more rounds of each contrat deal and count the contracts and jokers."""
    from sim.engine import deals as kernels

    for deal_no, dealer in enumerate(dealers, start=1):
        sets, runs, _ = CONTRACTS[deal_no - 1]
        d = dealer.next(np.arange(dealer.games.shape[0] - n, dealer.games.shape[0]))
        dealt = np.ascontiguousarray(d.hands[:, d.first, :])
        out = np.zeros(n, dtype=np.int64)
        kernels.contracts_held(dealt, sets, runs, deal_no == WHOLE_HAND_DEAL, r.min_run, r.ace_high, out)
        tallies[("contract_dealt", deal_no)].hits += int(out.sum())
        kernels.contracts_held(d.first_turn_hands(), sets, runs, deal_no == WHOLE_HAND_DEAL, r.min_run,
                               r.ace_high, out)
        tallies[("contract_drawn", deal_no)].hits += int(out.sum())
        tallies[("contract_dealt", deal_no)].hands += n
        tallies[("contract_drawn", deal_no)].hands += n
        if deal_no == 1:
            jokers = (dealt == JOKER).sum(axis=1)
            for k in range(r.n_jokers + 1):
                tallies[("jokers", k)].hits += int((jokers == k).sum())
                tallies[("jokers", k)].hands += n


def _new_tallies(r: Ruleset, thresholds: Sequence[int]) -> dict[tuple[str, int], _Tally]:
    """The rows :func:`odds` counts for ``r``, before any hand is dealt."""
    tallies: dict[tuple[str, int], _Tally] = {}
    if r.game == "contrat":
        for deal_no in range(1, len(CONTRACTS) + 1):
            for table in ("contract_dealt", "contract_drawn"):
                tallies[(table, deal_no)] = _Tally(table, deal_no)
    else:
        for t in thresholds:
            tallies[("first_turn", t)] = _Tally("first_turn", t)
            tallies[("dealt", t)] = _Tally("dealt", t)
        tallies[("rami_sec", 0)] = _Tally("rami_sec", 0)
    for k in range(r.n_jokers + 1):
        tallies[("jokers", k)] = _Tally("jokers", k)
    return tallies


def count_deals(r: Ruleset, seed: int, thresholds: Sequence[int], first: int, count: int
                ) -> dict[tuple[str, int], tuple[int, int]]:
    """Hits and hands of every row of :func:`odds` over the first rounds of games ``first .. first + count - 1``
    (each deal of Rami contrat): one piece of the odds, here or on a Dask worker."""
    tallies = _new_tallies(r, thresholds)
    games = np.arange(first, first + count, dtype=np.int64)
    if r.game == "contrat":
        _count_contrat(r, [Dealer(r, seed, games, i, 1) for i in range(len(CONTRACTS))], tallies, count)
    else:
        _count_rami51(r, Dealer(r, seed, games, 0, 1), tallies, thresholds, count)
    return {key: (t.hits, t.hands) for key, t in tallies.items()}


@distributed.on_cluster
def odds(ruleset: Ruleset | str = "rami51", *, players: int | None = None, hand_size: int | None = None,
         thresholds: Sequence[int] = DEFAULT_THRESHOLDS, precision: float = 0.002, max_hands: int = 2_000_000,
         seed: int = 1, tables: bool = False, workers: int = 1, scheduler: Any = None):
    """Odds of the first hands, counted on the engine's deals until each share is known to ``precision``.

    Parameters
    ----------
    ruleset : Ruleset or str
    players, hand_size : int, optional
        Override the ruleset's ``players`` and ``deal`` (Rami 51 and basic rummy).
    thresholds : sequence of int
        Opening totals of the ``first_turn`` and ``dealt`` tables.
    precision : float
        Deal until every share's 95% interval is at most this wide on each
        side (0.0001 .. 0.5), or ``max_hands`` hands are dealt.
    max_hands : int
        Most hands dealt (per deal in Rami contrat), at least 1,000.
    seed : int
        The simulation seed whose games' first rounds are dealt: game ``i``
        of :func:`sim.simulate` with this seed gets the same hands.
    tables : bool
        Return the :class:`Odds` (the frame, how many hands, whether the
        precision was reached) instead of the frame alone.
    workers : int
        Threads dealing and counting side by side; the counts do not depend on it.
    scheduler : str or distributed.Client, optional
        Deal and count on this Dask cluster (:mod:`sim.distributed`): the
        same counts as a local run.

    Returns
    -------
    polars.DataFrame
        One row per table and value, columns :data:`ODDS_COLUMNS`; or
        :class:`Odds` with ``tables=True``.

    Examples
    --------
    >>> frame = odds("rami51", precision=0.01)
    >>> frame.filter(frame["table"] == "first_turn")["value"].to_list()
    [30, 40, 51, 61, 71]
    """
    r = as_ruleset(ruleset)
    knobs = {}
    if players is not None:
        knobs["players"] = players
    if hand_size is not None:
        if r.game == "contrat":
            raise ValueError("hand_size: Rami contrat deals by its contract table; leave hand_size unset")
        knobs["deal"] = hand_size
    if knobs:
        r = r.replace(**knobs)
    if isinstance(precision, bool) or not isinstance(precision, (int, float)) or not 0.0001 <= precision <= 0.5:
        raise ValueError(f"precision must be a number from 0.0001 to 0.5, got {precision!r}")
    max_hands = check_whole("max_hands", max_hands, 1000)
    seed = check_seed(seed)
    thresholds = list(thresholds)
    if not thresholds or not all(is_whole(t, 1, 200) for t in thresholds):
        raise ValueError(f"thresholds must be whole numbers from 1 to 200, got {thresholds!r}")
    thresholds = sorted(set(int(t) for t in thresholds))
    workers = check_whole("workers", workers, 1)
    start = time.perf_counter()
    tallies = _new_tallies(r, thresholds)
    cluster = distributed.current()
    threads = cluster.threads() if cluster is not None else workers
    warm = (("odds", r.game), functools.partial(count_deals, r, int(seed), thresholds, 0, 100))
    dealt = 0
    reached = False
    while dealt < max_hands:
        # The first pass is small, so that a coarse precision is met in a blink.
        n = min(BATCH if dealt else 20_000, max_hands - dealt)
        # A pass's games split among the threads or workers: each game's deal depends on its stream alone and
        # the counts add up, so the pass counts the same whatever the split; the precision is checked on passes.
        step = n if threads == 1 else max(1_000, math.ceil(n / (4 * threads)))
        pieces = [(r, int(seed), thresholds, dealt + a, min(step, n - a)) for a in range(0, n, step)]
        for counted in distributed.run_pieces(count_deals, pieces, workers, warm=warm):
            for key, (hits, hands) in counted.items():
                if key not in tallies:
                    tallies[key] = _Tally(*key)
                tallies[key].hits += hits
                tallies[key].hands += hands
        for key, t in tallies.items():
            if key[0] == "points":  # every hand dealt has a best opening's points, none included
                t.hands = tallies[("jokers", 0)].hands
        dealt += n
        if max(t.half_width() for t in tallies.values()) <= precision:
            reached = True
            break
    order = ("first_turn", "dealt", "points", "jokers", "rami_sec", "contract_dealt", "contract_drawn")
    rows = []
    for t in sorted(tallies.values(), key=lambda t: (order.index(t.table), t.value)):
        w = wilson_interval(t.hits, t.hands)
        rows.append({"table": t.table, "value": t.value, "hits": t.hits, "hands": t.hands, "share": w.mean,
                     "low": w.low, "high": w.high})
    result = Odds(r, rows, dealt, int(seed), float(precision), reached, time.perf_counter() - start)
    return result if tables else result.frame()
