"""SHA-256 of the engine's raw result rows for nine fixed configurations.

Run: python benchmarks/result_hashes.py [--check] [--write] [--only NAME[,NAME]]

Each configuration (a ruleset, one strategy per seat, a game count and a
seed) is played by the compiled engine, and the int32 rows that
``sim.engine.play.play_games`` writes (one per game, round and seat, columns
``R_*`` of ``sim.engine.play``) are hashed as little-endian bytes, row after
row (the kernel writes them column-major; the hash reads them as rows, as
it always has). The rows come before any frame is built, so a change to the
result frame's columns leaves these hashes alone; a change to how any game
is played does not.

The expected hashes live in ``result_hashes.json`` beside this script, with
the rules version that produced them. A speed-up must leave every hash
unchanged; a rule fix changes some, bumps ``sim.rules.RULES_VERSION`` and
records the new hashes with ``--write``.

Without options the hashes are printed beside the recorded ones; ``--check``
exits 1 when any differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np

import strategies as strategy_lib
from sim.engine import play as E
from sim.api import resolve
from sim.engine.params import kernel_rules
from sim.rules import RULES_VERSION

EXPECTED = Path(__file__).with_name("result_hashes.json")


class Config(NamedTuple):
    """One tracked configuration."""

    name: str
    ruleset: str
    strategies: tuple[str, ...]
    n_games: int
    seed: int


CONFIGS = (
    Config("rami51-greedy-4", "rami51", ("greedy",) * 4, 200, 1),
    Config("rami51-classic-mixed-4", "rami51-classic", ("expert", "random", "greedy", "random"), 150, 2),
    Config("rami51-ducale-mixed-3", "rami51-ducale", ("cautious", "greedy", "expert"), 150, 3),
    Config("rami51-random-2", "rami51", ("random", "random"), 150, 4),
    Config("basic-greedy-4", "basic", ("greedy",) * 4, 300, 5),
    Config("basic-mixed-3", "basic", ("random", "expert", "cautious"), 300, 6),
    Config("contrat-greedy-4", "contrat", ("greedy",) * 4, 60, 7),
    Config("contrat-cautious-3", "contrat", ("cautious",) * 3, 60, 8),
    # "Puis-je ?" asked between a draw and the discard of a seat that weighs feeding its next player.
    Config("contrat-mixed-4", "contrat", ("random", "greedy", "expert", "cautious"), 60, 9),
)


def result_rows(config: Config) -> np.ndarray:
    """The engine's result rows of ``config``: int32, shape ``(rows, N_R)``."""
    # The strategies as simulate resolves them (expert plays its game's point).
    ruleset, chosen = resolve(config.ruleset, list(config.strategies))
    kinds, params = strategy_lib.parameter_arrays(chosen, E.MAX_SEATS)
    kr = kernel_rules(ruleset)
    chunks = []
    done = 0
    while done < config.n_games:
        # Room for every game at its longest, so one call plays them all.
        capacity = (config.n_games - done) * E.MAX_ROUNDS * ruleset.players
        res = np.zeros((E.N_R, capacity), dtype=np.int32)
        games, rows = E.play_games(kr, np.uint64(config.seed), done, config.n_games - done, kinds, params,
                                   E.MAX_ROUNDS, res, 0, False)
        chunks.append(res[:, :rows].T)
        done += games
    return np.concatenate(chunks)


def digest(rows: np.ndarray) -> str:
    """SHA-256 (hex) of the rows as little-endian int32, row after row."""
    return hashlib.sha256(np.ascontiguousarray(rows, dtype="<i4").tobytes()).hexdigest()


def expected() -> dict:
    """The recorded hashes: ``{"rules_version": int, "hashes": {name: hex}}``."""
    return json.loads(EXPECTED.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a hash differs from the recorded one")
    parser.add_argument("--write", action="store_true", help="record the hashes computed now")
    parser.add_argument("--only", default="", help="comma-separated configuration names (default: all)")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n]
    unknown = set(names) - {c.name for c in CONFIGS}
    if unknown:
        parser.error(f"unknown configuration(s) {sorted(unknown)}; known: {', '.join(c.name for c in CONFIGS)}")
    if args.write and names:
        parser.error("--write records all nine configurations: drop --only")
    recorded = expected() if EXPECTED.exists() else {"rules_version": None, "hashes": {}}
    computed = {}
    differs = []
    for config in CONFIGS:
        if names and config.name not in names:
            continue
        rows = result_rows(config)
        computed[config.name] = digest(rows)
        old = recorded["hashes"].get(config.name)
        status = "same" if old == computed[config.name] else "DIFFERS"
        if status != "same":
            differs.append(config.name)
        print(f"{config.name:<24} {len(rows):>7} rows  {computed[config.name]}  {status}")
    if args.write:
        EXPECTED.write_text(json.dumps({"rules_version": RULES_VERSION, "hashes": computed}, indent=2) + "\n")
        print(f"recorded in {EXPECTED.name} (rules version {RULES_VERSION})")
        return 0
    if recorded["rules_version"] != RULES_VERSION:
        print(f"recorded under rules version {recorded['rules_version']}, the rules are now version {RULES_VERSION}")
    if args.check and differs:
        print(f"{len(differs)} hash(es) differ: {', '.join(differs)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
