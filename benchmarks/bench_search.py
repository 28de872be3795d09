"""Speed of the search strategy: searched decisions and playouts per second, and the time of a whole game.

Run: python benchmarks/bench_search.py [--games N] [--strategy search] [--seed S] [--rules rami51]

Plays N games (of Rami 51 unless ``--rules`` names another preset), one at a time on one thread, with the searching
strategy at seat 0 and three experts (the seats do not rotate), after a
warm-up game (compilation). Prints the median and the largest CPU time of
one whole game (the thread's CPU clock), the searched decisions (two legal
choices or more) and the playouts per CPU second, and the mean of each per
game. Target: a game at the default budget under 2 seconds of one core.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import strategies
from sim import rules
from sim.engine import play as E
from sim.engine.params import kernel_rules
from sim.engine.game_value import futures
from sim.engine.search import N_TALLY, TALLY_DECISIONS, TALLY_PLAYOUTS, search_games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--strategy", default="search")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", default="rami51", help="a preset: the budget's target is set on Rami 51")
    args = parser.parse_args()
    r = rules.preset(args.rules, players=4)
    chosen = [strategies.get(args.strategy).for_game(r.game)] + [strategies.get("expert").for_game(r.game)] * 3
    kinds, params = strategies.parameter_arrays(chosen, E.MAX_SEATS)
    kr = kernel_rules(r)
    res = np.zeros((E.N_R, E.MAX_ROUNDS * r.players), dtype=np.int32)
    library = futures(kr, kinds, params)  # the library of rounds, when the search values the game

    def game(i: int) -> tuple[float, np.ndarray]:
        tally = np.zeros(N_TALLY, dtype=np.int64)
        start = time.thread_time()
        search_games(kr, np.uint64(args.seed), i, 1, kinds, params, E.MAX_ROUNDS, res, 0, False, *library, tally)
        return time.thread_time() - start, tally

    game(10**6)  # compile (cached after)
    times, tallies = zip(*(game(i) for i in range(args.games)))
    total = sum(times)
    work = np.sum(tallies, axis=0)
    print(f"{chosen[0].name} (trials {chosen[0].params['trials']:g}, width {chosen[0].params['width']:g}, base "
          f"{chosen[0].base.name}) + 3 experts, {args.rules}, {args.games} games of seed {args.seed}, one thread:")
    print(f"  one game: median {statistics.median(times):.2f} s, largest {max(times):.2f} s of CPU")
    print(f"  searched decisions: {work[TALLY_DECISIONS] / total:,.0f} per CPU second "
          f"({work[TALLY_DECISIONS] / args.games:,.0f} per game)")
    print(f"  playouts: {work[TALLY_PLAYOUTS] / total:,.0f} per CPU second "
          f"({work[TALLY_PLAYOUTS] / args.games:,.0f} per game, "
          f"{work[TALLY_PLAYOUTS] / max(work[TALLY_DECISIONS], 1):,.0f} per searched decision)")


if __name__ == "__main__":
    main()
