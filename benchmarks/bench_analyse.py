"""Speed of game analysis: decisions analysed per second, and the seconds one seat of one game takes.

Run: python benchmarks/bench_analyse.py [--seed S] [--seat K] [--trials N] [--width W] [--workers W]

The game: 4 expert players of rami51, game 0 of seed S (every round, as
`rami analyse --strategies expert,expert,expert,expert --seed S --seats K`
analyses it). Prints, after a warm-up (compilation) run on one round, the
seconds to trace the game, to walk every decision of it (replay and the
played choices alone), and to analyse every decision of seat K at the
budget given (default: `sim.analyse`'s), with the decisions analysed per
second, how many had a choice and how many trials their rollouts played.
Target: one seat of a whole game in under a minute on 2 cores at the
default budget.
"""

from __future__ import annotations

import argparse
import time

import sim
from sim.analysis.analyse import DEFAULT_TRIALS, DEFAULT_WIDTH, analyse, walk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--seat", type=int, default=0)
    parser.add_argument("--trials", type=int, default=DEFAULT_TRIALS)
    parser.add_argument("--width", type=float, default=DEFAULT_WIDTH)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    strategies = ["expert"] * 4
    analyse(sim.play_traced("rami51", strategies, seed=args.seed, max_rounds=1), seats=[args.seat], trials=20)
    start = time.perf_counter()
    events = sim.play_traced("rami51", strategies, seed=args.seed)
    traced = time.perf_counter() - start
    start = time.perf_counter()
    steps = sum(1 for _ in walk(events))
    walked = time.perf_counter() - start
    start = time.perf_counter()
    result = analyse(events, seats=[args.seat], trials=args.trials, width=args.width, workers=args.workers)
    analysed = time.perf_counter() - start
    n = len(result.decisions)
    chosen = [d for d in result.decisions if len(d.candidates) > 1]
    trials = sum(c.trials for d in chosen for c in d.candidates)
    rounds = sum(1 for e in events if e["type"] == "deal")
    print(f"game: rami51, 4 expert, seed {args.seed}, {rounds} rounds, {len(events)} events, {steps} decisions")
    print(f"trace: {traced:.2f} s; walk of every decision (replay, played choices): {walked:.2f} s "
          f"({steps / walked:,.0f} decisions/s)")
    print(f"analysis of seat {args.seat} (at most {args.trials} trials, width {args.width:g}, {args.workers} workers): "
          f"{n} decisions ({len(chosen)} with a choice, {trials:,} playouts) in {analysed:.2f} s: "
          f"{n / analysed:.1f} decisions/s, {len(chosen) / analysed:.1f} with a choice/s")
    print(f"total for one seat of one game (trace + analysis): {traced + analysed:.1f} s")


if __name__ == "__main__":
    main()
