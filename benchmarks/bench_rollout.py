"""Speed of rollouts: trials per second for every legal discard of a mid-round position.

Run: python benchmarks/bench_rollout.py [--trials N] [--workers W] [--repeat R]

The position: 4 expert players of rami51 (game 0 of seed 7), the first
discard among turns 4 to 15 of round 0 with the most legal choices (every
distinct card of a hand that has laid nothing yet). Prints, after a warm-up (compilation) run, the wall time of a
belief and a clairvoyant rollout of every choice with N trials each (the
median of R runs), the playouts per second (choices x trials / time) and
the variance reduction the paired differences measured.
Target: every legal discard (about 14 choices) x 1,000 trials in under 3 s
on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import sim
from sim.modes import MODES
from sim.position import Position
from sim.rollouts import rollout


def position() -> Position:
    events = sim.play_traced("rami51", ["expert"] * 4, seed=7, max_rounds=1)
    discards = [i for i, e in enumerate(events) if e["type"] == "discard"]
    # Mid-round (after the first round of turns), the widest choice of discards.
    roots = [Position.from_trace(events, i) for i in discards[4:16]]
    return max(roots, key=lambda p: len(p.legal_choices()))


def reduction(result) -> str:
    if result.variance_reduction is None:
        return "none to measure (every trial played the same)"
    return f"{result.variance_reduction:.1f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = position()
    choices = root.legal_choices()
    print(f"position: seat {root.seat}, round {root.round}, turn {root.turn}, {root.decision}; hand "
          f"{root.hand(root.seat)}; {len(choices)} choices")
    rollout(root, n=4, workers=1)  # compile (cached after)
    for mode in MODES:
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = rollout(root, n=args.trials, mode=mode, seed=3, workers=args.workers)
            times.append(time.perf_counter() - start)
        t = statistics.median(times)
        playouts = len(choices) * args.trials
        print(f"{mode:>11}: {len(choices)} choices x {args.trials} trials in {t:.2f} s on {args.workers} workers: "
              f"{playouts / t:,.0f} playouts/s ({args.trials / t:,.0f} trials/s); "
              f"variance reduction {reduction(result)}")
    print(result)


if __name__ == "__main__":
    main()
