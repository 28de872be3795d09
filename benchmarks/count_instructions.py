"""Instructions the compiled engine executes per round, counted by valgrind: a comparison that noise cannot move.

Run: python benchmarks/count_instructions.py [--rules rami51,contrat,basic] [--strategy greedy]
                                             [--games 1500,400,3000] [--cache FOLDER] [--branches]
     python benchmarks/count_instructions.py --playouts 400 [--cache FOLDER] [--branches]

On a shared machine the wall-clock and CPU rates of ``bench_engine.py``
move by ten percent or more from one run to the next, as much as most
single changes to the engine gain or lose. An instruction count does not:
this script plays the same simulations under valgrind's cachegrind, which
counts every instruction executed, and prints the instructions of the
compiled engine per round (a contrat deal is a round). Run it on two trees
(say before and after a change) and compare; equal results are equal to a
fraction of a percent. Instructions are not time (a cache miss or a
mispredicted branch costs more than an add), so confirm a gain that matters
with ``bench_engine.py`` too.

``--branches`` also counts, per round, the conditional branches and those
mispredicted by valgrind's branch simulation (``--branch-sim=yes``: a
simple predictor of two-bit counters, not the processor's, so read it as a
comparison of two versions, like the instructions). The engine's loops
branch on facts no processor can predict (whether a meld fits a hand, a
card completes a meld); a mispredicted branch costs some fifteen cycles
where an instruction costs a third of one. A contrat deal of four greedy
players counted 141,844 instructions and some 1,080 mispredicted branches
(the branch counts move by about 1% with what else the process compiled);
the contract search's fit lists written without a branch on each meld took
60 mispredictions off for 692 instructions more, and played about 2% more
deals a second over six interleaved pairs of runs.

How: valgrind cannot run the AVX-512 code numba generates for the newest
processors, so the engine is compiled for a fixed processor (Haswell:
AVX2, BMI2, POPCNT; ``NUMBA_CPU_NAME`` and ``NUMBA_CPU_FEATURES``) into a
numba cache of its own (``--cache``, by default a folder under the system's
temporary directory named after this tree), outside valgrind, once, by
two games of each game counted: about a minute the first time, nothing
after. Then each game is played twice under
cachegrind, ``N`` games and ``N / 10``, and the compiled code's instructions
(the code numba made at run time has no symbol: cachegrind files it under
``???``, with a fixed part from libraries without symbols that the
difference of the two runs removes) are divided by the difference in
rounds. Python's hash seed is fixed, so the Python around the engine runs
the same way each time.

``--playouts N`` counts playouts instead of rounds: the rollout of every
legal discard of ``benchmarks/bench_rollout.py``'s position (a Rami 51
round of four experts), belief and clairvoyant, ``N`` trials and ``N / 10``
on one worker, the difference divided by the difference in playouts (one
choice played out once). 400 trials (some 4,300 playouts counted) take
three minutes. Needs valgrind (Debian: ``apt-get install
valgrind``); each game takes a minute or two under it.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CPU_NAME = "haswell"
CPU_FEATURES = ("+64bit,+avx,+avx2,+bmi,+bmi2,+cmov,+cx16,+f16c,+fma,+fxsr,+lzcnt,+mmx,+movbe,+pclmul,+popcnt,"
                "+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+xsave")

# One line: cachegrind writes the command into its report's header, which cg_annotate reads line by line.
PLAY = ("import sys, sim; df = sim.simulate(sys.argv[1], [sys.argv[2]] * 4, n_games=int(sys.argv[3]), seed=12345, "
        "workers=1); print(df.select(['game', 'round']).unique().height)")

# The rollout benchmark's position, every legal choice rolled out (mode, trials); prints the playouts.
ROLLOUT = ("import sys; sys.path.insert(0, 'benchmarks'); import bench_rollout; from sim.rollouts import rollout; "
           "p = bench_rollout.position(); n = int(sys.argv[2]); rollout(p, n=n, mode=sys.argv[1], seed=3, workers=1); "
           "print(len(p.legal_choices()) * n)")


def unknown_code_counts(annotated: str) -> list[int]:
    """The events ``cg_annotate`` files under ``???:???`` (code without symbols), from its output, in its
    column order: the instructions, then with the branch simulation the conditional branches, those
    mispredicted, the indirect branches and those mispredicted."""
    for line in annotated.splitlines():
        if line.rstrip().endswith("???:???"):
            return [int(word.replace(",", "")) for word in line.split() if word.replace(",", "").isdigit()]
    raise ValueError("cg_annotate's output has no ???:??? line: no code without symbols ran")


def unknown_code_instructions(annotated: str) -> int:
    """The instructions ``cg_annotate`` files under ``???:???`` (code without symbols), from its output."""
    return unknown_code_counts(annotated)[0]


def environment(cache: Path) -> dict[str, str]:
    """This tree's Python with the engine compiled for :data:`CPU_NAME` into ``cache``."""
    env = dict(os.environ, NUMBA_CPU_NAME=CPU_NAME, NUMBA_CPU_FEATURES=CPU_FEATURES, NUMBA_CACHE_DIR=str(cache),
               PYTHONHASHSEED="0", RAMI_NO_WARM_UP="1")
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run(env: dict[str, str], script: str, arguments: list[str], what: str, valgrind_out: Path | None = None,
        branches: bool = False) -> int:
    """The number ``script`` prints last, run in a subprocess with ``arguments`` (under cachegrind if asked,
    with its branch simulation if ``branches``); ``what`` names the run in an error."""
    command = [sys.executable, "-c", script, *arguments]
    if valgrind_out is not None:
        command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--branch-sim={'yes' if branches else 'no'}",
                   f"--cachegrind-out-file={valgrind_out}", *command]
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{what} failed:\n{done.stderr[-2000:]}")
    return int(done.stdout.split()[-1])


def play(env: dict[str, str], rules: str, strategy: str, games: int, valgrind_out: Path | None = None,
         branches: bool = False) -> int:
    """Rounds of ``games`` games of four ``strategy`` seats, played in a subprocess (under cachegrind if asked,
    with its branch simulation if ``branches``)."""
    return run(env, PLAY, [rules, strategy, str(games)], f"playing {games} games of {rules}", valgrind_out, branches)


def roll_out(env: dict[str, str], mode: str, trials: int, valgrind_out: Path | None = None,
             branches: bool = False) -> int:
    """Playouts of the rollout benchmark's position, ``trials`` of every choice in ``mode``, in a subprocess."""
    return run(env, ROLLOUT, [mode, str(trials)], f"rolling out {trials} {mode} trials", valgrind_out, branches)


def difference(runs, n: int, folder: Path, name: str, branches: bool) -> tuple[list[float], int]:
    """(events of the compiled code per unit, units counted): ``runs(n, out)`` and ``runs(n // 10, out)`` under
    cachegrind, each returning its units (rounds, playouts); the instructions, and with ``branches`` the
    conditional branches and those mispredicted (:func:`unknown_code_counts`), of their difference."""
    measured = []
    for size in (n, max(1, n // 10)):
        out = folder / f"{name}-{size}.cachegrind"
        units = runs(size, out)
        annotated = subprocess.run(["cg_annotate", str(out)], capture_output=True, text=True, check=True).stdout
        measured.append((unknown_code_counts(annotated)[:3 if branches else 1], units))
    (big, units_big), (small, units_small) = measured
    units = units_big - units_small
    return [(b - s) / units for b, s in zip(big, small)], units


def count(env: dict[str, str], rules: str, strategy: str, games: int, folder: Path,
          branches: bool = False) -> tuple[list[float], int]:
    """(events per round of the compiled engine, rounds counted) for ``rules`` (see :func:`difference`)."""
    return difference(lambda n, out: play(env, rules, strategy, n, out, branches), games, folder, rules, branches)


def count_playouts(env: dict[str, str], mode: str, trials: int, folder: Path,
                   branches: bool = False) -> tuple[list[float], int]:
    """(events per playout of the compiled engine, playouts counted) of the rollout benchmark's position in
    ``mode`` (see :func:`difference`)."""
    return difference(lambda n, out: roll_out(env, mode, n, out, branches), trials, folder, mode, branches)


def _described(per_unit: list[float], branches: bool) -> str:
    extra = f", {per_unit[1]:,.0f} conditional branches, {per_unit[2]:,.0f} mispredicted" if branches else ""
    return f"{per_unit[0]:,.0f} instructions of compiled code{extra}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rules", default="rami51,contrat,basic", help="games, comma-separated")
    parser.add_argument("--strategy", default="greedy", help="the strategy of all four seats")
    parser.add_argument("--games", default="1500,400,3000", help="games played of each, comma-separated")
    parser.add_argument("--cache", type=Path, help="the numba cache of the Haswell build (default: one per tree)")
    parser.add_argument("--branches", action="store_true",
                        help="also count conditional branches and those mispredicted (valgrind's branch simulation)")
    parser.add_argument("--playouts", type=int, metavar="TRIALS",
                        help="count playouts of the rollout benchmark's position instead, TRIALS per choice "
                             "(at least 10)")
    args = parser.parse_args()
    if args.playouts is not None and args.playouts < 10:
        raise SystemExit("--playouts: at least 10 trials of every choice")
    for tool in ("valgrind", "cg_annotate"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} was not found: install valgrind (Debian: apt-get install valgrind)")
    if args.playouts is not None:
        count_all_playouts(args.playouts, args.cache, args.branches)
        return
    rules = args.rules.split(",")
    games = [int(g) for g in args.games.split(",")]
    if len(games) == 1:
        games *= len(rules)
    if len(games) != len(rules) or min(games) < 10:
        raise SystemExit("--games: one count of at least 10 for every game of --rules, or one for all")
    cache = _cache(args.cache)
    env = environment(cache)
    print(f"compiling the engine for {CPU_NAME} into {cache} (once; about a minute)...", flush=True)
    # Every game counted is played once here: what only some games compile
    # would otherwise compile inside the first counted run of another game,
    # and count in the difference (basic rummy read 53,762 instructions a
    # round instead of 53,238 after a change to the engine, counted after
    # Rami 51 had compiled alone).
    for name in rules:
        play(env, name, args.strategy, 2)
    with tempfile.TemporaryDirectory() as folder:
        for name, n in zip(rules, games):
            per_round, rounds = count(env, name, args.strategy, n, Path(folder), args.branches)
            print(f"{name:>8}  4 {args.strategy}: {_described(per_round, args.branches)} "
                  f"a round ({rounds:,} rounds counted)", flush=True)


def _cache(cache: Path | None) -> Path:
    """The numba cache of the Haswell build: ``cache``, or by default a folder named after this tree."""
    tree = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    return cache or Path(tempfile.gettempdir()) / f"rami-instructions-{tree}"


def count_all_playouts(trials: int, cache: Path | None, branches: bool) -> None:
    """Print the instructions per playout of the rollout benchmark's position, belief then clairvoyant."""
    cache = _cache(cache)
    env = environment(cache)
    print(f"compiling the rollouts for {CPU_NAME} into {cache} (once; about a minute)...", flush=True)
    roll_out(env, "belief", 2)
    with tempfile.TemporaryDirectory() as folder:
        for mode in ("belief", "clairvoyant"):
            per_playout, playouts = count_playouts(env, mode, trials, Path(folder), branches)
            print(f"{mode:>11}: {_described(per_playout, branches)} a playout ({playouts:,} playouts counted)",
                  flush=True)


if __name__ == "__main__":
    main()
