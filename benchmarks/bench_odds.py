"""Speed of the odds tables: deals, best openings and whole tables per CPU second of one core.

Run: python benchmarks/bench_odds.py [--hands N] [--quick]

Prints, for ``rami51`` (CPU time of the calling thread, ``time.thread_time``,
which a loaded machine disturbs far less than wall-clock time):

- the engine's deal (``sim.deals.deal``: the deck stream seeded and the
  round dealt as a game deals it, the hands copied out): deals per second;
- the batch best-opening search (``sim.engine.openings``, behind
  ``sim.best_openings``) on the first player's first-turn hands of those
  deals (14 cards): hands per second, its memo warmed on other deals;
- ``sim.odds("rami51")`` at its default precision, what ``rami odds --rules
  rami51`` computes: hands dealt, seconds, and hands per second;
- ``sim.deals.sample`` under four conditions: deals dealt and tested per
  second until each game's first round is accepted (``holds()`` terms
  dealt exactly, docs/deals.md).

Target: millions of hands a second per core for the opening search.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import sim
from sim import rules
from sim.deals import deal
from sim.engine import openings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000, help="deals timed")
    parser.add_argument("--quick", action="store_true", help="100,000 deals, for a smoke test")
    args = parser.parse_args()
    n = 100_000 if args.quick else args.hands
    r = rules.preset("rami51")
    knobs = (r.decks, r.n_jokers, r.min_run, r.ace_high, r.open_needs_natural_run)
    deal(r, 10)  # compile (or load) the deal
    openings.best_openings(deal(r, 50_000, seed=99).first_turn_hands(), *knobs)  # compile and warm the memo

    t0 = time.thread_time()
    d = deal(r, n, seed=1)
    t_deal = time.thread_time() - t0
    hands = d.first_turn_hands()
    t0 = time.thread_time()
    totals, _ = openings.best_openings(hands, *knobs)
    t_open = time.thread_time() - t0
    print(f"rami51, {n:,} deals of seed 1 (CPU time of one core)")
    print(f"  deal (engine's deck stream and deal)   {n / t_deal / 1e6:6.2f} M deals/s   ({t_deal / n * 1e6:.2f} us each)")
    print(f"  best opening of the first-turn hands   {n / t_open / 1e6:6.2f} M hands/s   ({t_open / n * 1e6:.2f} us each)")
    print(f"  share that opens at 51: {float((totals >= 51).mean()):.4f}")

    t0, w0 = time.thread_time(), time.perf_counter()
    result = sim.odds(r, tables=True)
    cpu, wall = time.thread_time() - t0, time.perf_counter() - w0
    print(f"  sim.odds('rami51') at precision 0.002: {result.hands:,} hands, {wall:.2f} s wall, {cpu:.2f} s CPU, "
          f"{result.hands / cpu / 1e3:.0f} k hands/s (every table, rami sec's reference checks included)")

    # Conditioned deals: accepted deals per second of sim.deals.sample (the pilot included).
    from sim.deals import sample

    # holds() terms are dealt exactly: the deals tested are those of the other terms.
    for text, games in (("opening(0) >= 51", 20_000), ('holds(2, "7♥ 7♦")', 5_000),
                        ('holds(0, "7♥ 7♥ 7♦ 7♦ 7♣ 7♣ 7♠") and jokers(0) >= 1', 5_000),
                        ("jokers(0) >= 3", 2_000)):
        sample(r, text, 10)
        t0, w0 = time.thread_time(), time.perf_counter()
        kept = sample(r, text, games, seed=1)
        cpu, wall = time.thread_time() - t0, time.perf_counter() - w0
        print(f"  sample {text!r}: {games:,} accepted of {kept.dealt:,} dealt (rate {kept.rate:.3g}), {wall:.2f} s "
              f"wall, {cpu:.2f} s CPU, {kept.dealt / cpu / 1e3:.0f} k deals tested per CPU second")


if __name__ == "__main__":
    main()
