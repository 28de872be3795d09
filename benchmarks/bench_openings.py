"""Speed of the batch best opening: microseconds per 14-card hand, plain and joker hands apart.

Run: python benchmarks/bench_openings.py [--hands N] [--chunk C] [--quick]

Deals random 14-card hands from the 108-card deck and splits them into hands
without joker and hands holding one or more (about 57% and 43%). For each
group, under ``rami51`` and under ``rami51-ducale`` (an opening must hold a
natural run), it prints the median and the 99th percentile per hand of

- ``sim.best_openings``' compiled search (``sim.engine.openings``), the
  kernel time: the hands are code rows already, timed by chunks of C hands;
- the same hands through the engine's general meld search
  (``sim.engine.deals.opening_totals``, what ``sim.best_openings`` ran
  before), in the same run, and the ratio of the two medians;
- the whole ``sim.best_openings`` call, its checks of the rows included.

Times are CPU time of the calling thread (``time.thread_time_ns``), which a
loaded machine disturbs far less than wall-clock time. The search memoises
each suit's runs by pattern and keeps its memo from call to call, so a first
pass over 100,000 other hands warms it, as a long analysis would; the time
per hand of a first call on an empty memo is printed too. Target: at most 1 microsecond per
14-card hand (median).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import sim
from sim import rules
from sim.engine import openings
from sim.engine.deals import opening_totals


def deal(n: int, seed: int) -> np.ndarray:
    """``n`` random 14-card hands of the 108-card deck, as code rows."""
    rng = np.random.default_rng(seed)
    deck = np.array([c for c in range(52) for _ in range(2)] + [52] * 4, dtype=np.int64)
    return np.stack([rng.choice(deck, 14, replace=False) for _ in range(n)])


def per_hand(run, hands: np.ndarray, chunk: int) -> np.ndarray:
    """CPU microseconds per hand of ``run(rows)`` over each chunk of ``hands``."""
    times = []
    for start in range(0, len(hands) - chunk + 1, chunk):
        rows = hands[start:start + chunk]
        t0 = time.thread_time_ns()
        run(rows)
        times.append((time.thread_time_ns() - t0) / len(rows) / 1000)
    return np.array(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000, help="hands timed (split into plain and joker)")
    parser.add_argument("--chunk", type=int, default=1000, help="hands per timed call")
    parser.add_argument("--quick", action="store_true", help="20,000 hands, for a smoke test")
    args = parser.parse_args()
    n = 20_000 if args.quick else args.hands
    if n < 2 * args.chunk or args.chunk < 1:
        parser.error("--hands must hold at least two chunks and --chunk be positive")
    hands = deal(n, seed=11)
    jokers = (hands == 52).any(axis=1)
    print(f"{n:,} random 14-card hands of the 108-card deck: {int((~jokers).sum()):,} without joker, "
          f"{int(jokers.sum()):,} with; CPU microseconds per hand, chunks of {args.chunk:,} hands")
    for name in ("rami51", "rami51-ducale"):
        r = rules.preset(name)
        knobs = (r.decks, r.n_jokers, r.min_run, r.ace_high, r.open_needs_natural_run)
        out = np.zeros(args.chunk, dtype=np.int64)

        def new(rows, knobs=knobs):
            return openings.best_openings(rows, *knobs)

        def old(rows, r=r, out=out):
            return opening_totals(rows, r.min_run, r.ace_high, r.open_needs_natural_run, out)

        def call(rows, r=r):
            return sim.best_openings(rows, r)

        old(hands[:10])  # compile (or load) the engine's search
        if name == "rami51":
            openings.best_openings(hands[:0], *knobs)  # compile (or load) the new search, with no hand
            first = per_hand(new, deal(args.chunk, seed=12), args.chunk)[0]
            print(f"first call, on an empty memo: {first:.2f} us per hand")
        new(deal(100_000 if not args.quick else 10_000, seed=13))  # warm the memo on other hands
        print(name)
        print(f"  {'hands':<8} {'search':>8} {'p99':>7}   {'engine':>8} {'p99':>7} {'ratio':>6}   {'call':>6}")
        for group, rows in (("plain", hands[~jokers]), ("joker", hands[jokers])):
            t_new, t_old, t_call = (per_hand(f, rows, args.chunk) for f in (new, old, call))
            ratio = np.median(t_old) / np.median(t_new)
            print(f"  {group:<8} {np.median(t_new):>8.3f} {np.percentile(t_new, 99):>7.3f}   "
                  f"{np.median(t_old):>8.3f} {np.percentile(t_old, 99):>7.3f} {ratio:>5.1f}x   {np.median(t_call):>6.3f}")


if __name__ == "__main__":
    main()
