"""Strength of one player against another in seat 0, three experts in the other seats, on the same deals.

Run: python benchmarks/search_strength.py GAME A B [--games N] [--seed S] [--workers W]

Plays games 0 .. N-1 of the simulation seeded S twice, with A and then B in
seat 0 and experts in seats 1 to 3 (the seats do not rotate: seat 0 is dealt
the same cards in both arms), and prints A's gain over B in points per round
(the game's own sense of better: fewer points in Rami 51 and Rami contrat,
more in basic rummy) with a 95% normal interval over games, the game being
the unit, and each arm's CPU seconds per game (the process's CPU clock,
which depends on the machine). Two searches that differ a little play many
games alike, so their paired difference is far tighter than either's gain
over the expert: this is the quick look that chose the search's default
(docs/strategies.md); ``rami compare`` gives the verdict, with the seats
rotated.
"""

from __future__ import annotations

import argparse
import math
import resource

import polars as pl

import sim
from experiments.sequential import game_gains
from sim import rules


def cpu_seconds() -> float:
    """The process's CPU time, every thread's (the workers are threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted(rules.PRESETS))
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    r = rules.preset(args.game, players=4)
    frames, cost = [], []
    for player in (args.a, args.b):
        start = cpu_seconds()
        df = sim.simulate(r, [player, "expert", "expert", "expert"], n_games=args.games, seed=args.seed,
                          workers=args.workers)
        cost.append((cpu_seconds() - start) / args.games)
        frames.append(df.with_columns(pl.lit(0).alias("rotation")))
    gains = game_gains(frames[0], frames[1], rules.better_points(r.game))["gain"].to_numpy()
    mean = float(gains.mean())
    half = 1.96 * float(gains.std(ddof=1)) / math.sqrt(gains.size)
    print(f"{args.game}: {args.a} against {args.b} in seat 0, three experts, {gains.size} games of seed {args.seed}")
    print(f"  gain {mean:+.2f} points per round (95% interval {mean - half:+.2f} to {mean + half:+.2f}; "
          "the game is the unit, higher is better)")
    print(f"  CPU per game: {cost[0]:.3f} s and {cost[1]:.3f} s (every thread, this machine)")


if __name__ == "__main__":
    main()
