"""Speed of the compiled engine: rounds and games per second, best_opening latency.

Run: python benchmarks/bench_engine.py [--seconds S] [--repeat R] [--quick] [--no-compile] [--report]

Prints, after compilation (a warm-up run is not timed):
- rounds/s and games/s of whole ``sim.simulate`` calls (result frame
  included) for 2 and 4 players, `greedy` and `random`, under rami51, and
  for 4 greedy players of basic rummy and of Rami contrat (a contrat game is
  seven deals), on one worker and on every core, with the scaling
  efficiency. Each case is sized to last about S seconds from a short
  calibration run, and the median of R timed runs is printed, so that the
  figures do not depend on a lucky or an unlucky run of this machine; runs
  on one worker and on every core alternate, and the scaling is the median
  ratio of adjacent runs;
- the median and 99th percentile of the compiled best_opening on random
  14-card hands of the 108-card deck, one call per hand, and of the batch
  ``sim.best_openings`` per hand, over chunks of 1,000 hands, for hands
  without joker and with one or more apart;
- the machine's own scaling: a compiled loop of table lookups and branches
  that shares nothing between threads, on one and on every core. A shared
  virtual machine rarely scales perfectly even then; the engine's scaling is
  best read against this figure;
- a table of four experts of Rami 51, the base player of rollouts and of
  the searching player's playouts, with its floor ratio too;
- the floor ratio of each game on one core: when the speed floor
  ``../shared/bench/floor.py`` (relative to the repository root) is present,
  it is run in the same process tree before and after each case (the run
  after a case is the next one's run before, when it has as many players),
  and each one-core rate is printed as floor rounds/s / engine
  rounds/s, the floor being the mean of its runs just before and just
  after the case (the floor with as many players; a contrat round is one
  deal). Absolute rates move by tens of percent on a shared machine, and
  drift within one run by ten percent and more; ratios to a floor measured
  beside the case move much less;
- the compile time on a fresh cache: the first ``rami simulate --games 100``
  in a subprocess whose numba cache is an empty temporary folder (wall and
  CPU seconds, peak memory), and the part of it a second run does not
  repeat, the compiling (``--no-compile`` skips it); with ``--report``, the
  README's main job too, ``rami report --quick`` on a fresh cache (wall and
  CPU seconds, peak memory; about four minutes).
Targets (4 greedy players, one core, floor ratios read in one run): rami51
within 10x of the floor, contrat within 14x, basic rummy within 4.5x; four
experts of rami51 within 30x; two
cores within 10% of twice one core, read against the machine baseline;
sim.best_openings at most 1 us per 14-card hand; the first
``rami simulate --games 100`` on a fresh cache within 30 s on an idle
2-core machine (compile included), and ``rami report --quick`` within 75 s.

On a shared, loaded machine, wall-clock rates move by tens of percent from
one run to the next; to compare two versions of the engine there, compare
rounds per CPU second of the same simulation (``time.process_time``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from numba import njit

import sim
from sim.engine.hand import hand_words
from sim.engine.meld_search import best_opening_points


def rate(ruleset: str, strategies: list[str], n_games: int, workers: int) -> tuple[float, float, int]:
    """(rounds/s, games/s, rounds) of one timed simulation."""
    start = time.perf_counter()
    df = sim.simulate(ruleset, strategies, n_games=n_games, seed=12345, workers=workers)
    elapsed = time.perf_counter() - start
    rounds = df.select(["game", "round"]).unique().height
    return rounds / elapsed, n_games / elapsed, rounds


def games_for(ruleset: str, strategies: list[str], workers: int, seconds: float) -> int:
    """How many games take about ``seconds``, calibrated on runs long enough
    that fixed costs do not skew the estimate."""
    n_games = 20 * workers
    while True:
        start = time.perf_counter()
        sim.simulate(ruleset, strategies, n_games=n_games, seed=12345, workers=workers)
        elapsed = time.perf_counter() - start
        if elapsed >= 0.2 * seconds:
            break
        n_games *= max(2, min(10, int(0.3 * seconds / max(elapsed, 1e-3))))
    return max(20 * workers, int(n_games * seconds / elapsed))


def measure(ruleset: str, strategies: list[str], cores: int, seconds: float, repeat: int) -> list[tuple]:
    """Per worker count (1, then ``cores`` if more): median rounds/s, games/s,
    the rounds of one run, and the median scaling.

    Runs on one worker and on every core alternate, and the scaling is the
    median of each adjacent pair's ratio, so that a change in what else the
    machine runs between two measurements does not pass for the engine's.
    """
    counts = [1] + ([cores] if cores > 1 else [])
    sizes = {w: games_for(ruleset, strategies, w, seconds) for w in counts}
    runs: dict[int, list] = {w: [] for w in counts}
    ratios = []
    for _ in range(repeat):
        for w in counts:
            runs[w].append(rate(ruleset, strategies, sizes[w], w))
        if cores > 1:
            ratios.append(runs[cores][-1][0] / (runs[1][-1][0] * cores))
    scaling = statistics.median(ratios) if ratios else 1.0
    return [(w, statistics.median(r[0] for r in runs[w]), statistics.median(r[1] for r in runs[w]), runs[w][0][2],
             scaling) for w in counts]


def best_opening_latency(n: int = 20000) -> tuple[float, float]:
    rng = np.random.default_rng(7)
    deck = np.array([c for c in range(52) for _ in range(2)] + [52] * 4)
    hands = [hand_words(rng.choice(deck, 14, replace=False)) for _ in range(n)]
    best_opening_points(*hands[0], 3, True, False)  # compile
    times = np.empty(n)
    for i, (lo, hi, jk) in enumerate(hands):
        t0 = time.perf_counter_ns()
        best_opening_points(lo, hi, jk, 3, True, False)
        times[i] = time.perf_counter_ns() - t0
    return float(np.median(times)) / 1000, float(np.percentile(times, 99)) / 1000


def batch_best_opening_time(n: int = 200_000, chunk: int = 1000) -> dict[str, tuple[float, float]]:
    """(median, 99th percentile) microseconds per hand of ``sim.best_openings`` on random
    14-card hands of the 108-card deck, hands without joker and with apart, timed over
    chunks of ``chunk`` hands (kernel time: the hands are code rows already, so no
    parsing is timed); benchmarks/bench_openings.py says more."""
    rng = np.random.default_rng(11)
    deck = np.array([c for c in range(52) for _ in range(2)] + [52] * 4, dtype=np.int64)
    hands = np.stack([rng.choice(deck, 14, replace=False) for _ in range(n)])
    warm = np.stack([rng.choice(deck, 14, replace=False) for _ in range(n // 2)])
    sim.best_openings(warm, "rami51")  # compile, and warm the memo of suit patterns on other hands
    jokers = (hands == 52).any(axis=1)
    figures = {}
    for group, rows in (("plain", hands[~jokers]), ("joker", hands[jokers])):
        per_hand = []
        for start in range(0, len(rows) - chunk + 1, chunk):
            t0 = time.perf_counter_ns()
            sim.best_openings(rows[start:start + chunk], "rami51")
            per_hand.append((time.perf_counter_ns() - t0) / chunk / 1000)
        figures[group] = (float(np.median(per_hand)), float(np.percentile(per_hand, 99)))
    return figures


@njit(nogil=True, cache=True)
def _branchy_loop(n: int, seed: int, table: np.ndarray) -> int:
    """Table lookups and data-dependent branches, touching only ``table``."""
    x = np.uint64(seed) | np.uint64(1)
    acc = 0
    for _ in range(n):
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
        j = np.int64(x & np.uint64(8191))
        v = table[j]
        if v & 1:
            acc += v >> 1
        else:
            acc -= v * 3
        table[(j * 7) & 8191] = acc & 0xFFFF
    return acc


def machine_scaling(cores: int, repeat: int, n: int = 50_000_000) -> float:
    """Median scaling of :func:`_branchy_loop` from one thread to ``cores`` threads."""
    _branchy_loop(10, 1, np.zeros(8192, dtype=np.int64))  # compile
    ratios = []
    for _ in range(repeat):
        start = time.perf_counter()
        _branchy_loop(n, 1, np.zeros(8192, dtype=np.int64))
        one = time.perf_counter() - start
        tables = [np.zeros(8192, dtype=np.int64) for _ in range(cores)]
        start = time.perf_counter()
        with ThreadPoolExecutor(cores) as pool:
            list(pool.map(lambda i: _branchy_loop(n, i + 1, tables[i]), range(cores)))
        ratios.append(one / (time.perf_counter() - start))
    return statistics.median(ratios)


FLOOR = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "floor.py"
"""The speed floor, ``../shared/bench/floor.py`` from the repository root (optional)."""


def floor_rate(players: int, seconds: float, repeat: int) -> float:
    """Median rounds/s of the floor's ``turns_check`` variant on one core."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "floor.json"
        subprocess.run(
            [sys.executable, str(FLOOR), "--players", str(players), "--variants", "turns_check",
             "--seconds", str(seconds), "--reps", str(repeat), "--json", str(out)],
            check=True, stdout=subprocess.DEVNULL,
        )
        return float(json.loads(out.read_text())[0]["rounds_per_s_median"])


def _run_measured(command: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """Run ``command``; its wall seconds, CPU seconds (user and system), peak resident memory (MB) and
    standard error. The CPU and memory are the process's own (``wait4``), not those of earlier runs."""
    with tempfile.TemporaryFile(mode="w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=err, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            raise subprocess.CalledProcessError(process.returncode, command)
        err.seek(0)
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, err.read()  # ru_maxrss: KB on Linux


def first_run_seconds() -> tuple[float, float, float, bool, float]:
    """Wall seconds of the first and of a second ``rami simulate --games 100``
    on a fresh numba cache (an empty temporary folder): the first compiles.
    Also the CPU seconds (user and system) of the first, which a loaded
    machine disturbs less than its wall time. The flag: the first run said
    it was compiling and the second did not. Last, the first run's peak
    memory (resident, MB)."""
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, NUMBA_CACHE_DIR=folder)
        command = [sys.executable, "-c", "from sim.cli import main; main()", "simulate", "--games", "100",
                   "--quiet", "--out", str(Path(folder) / "results.parquet")]
        first, first_cpu, peak, first_err = _run_measured(command, env)
        second, _, _, second_err = _run_measured(command, env)
        told = "compiling the engine" in first_err and "compiling the engine" not in second_err
        return first, second, first_cpu, told, peak


def first_report_seconds() -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak memory (MB) of ``rami report --quick``
    on a fresh numba cache, into a temporary folder: the README's main job on a new machine."""
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, NUMBA_CACHE_DIR=folder)
        command = [sys.executable, "-c", "from sim.cli import main; main()", "report", "--quick", "--quiet",
                   "--out", str(Path(folder) / "reports")]
        wall, cpu, peak, _ = _run_measured(command, env)
        return wall, cpu, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one timed run")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per case (the median is printed)")
    parser.add_argument("--quick", action="store_true", help="short single runs, for a smoke test")
    parser.add_argument("--no-compile", action="store_true", help="skip the fresh-cache compile time")
    parser.add_argument("--report", action="store_true",
                        help="also time `rami report --quick` on a fresh cache (about four minutes)")
    args = parser.parse_args()
    seconds, repeat = (0.2, 1) if args.quick else (args.seconds, args.repeat)
    if seconds <= 0 or repeat < 1:
        parser.error("--seconds must be positive and --repeat at least 1")
    cores = os.cpu_count() or 1
    print(f"cores: {cores}; each figure is the median of {repeat} run(s) of about {seconds:g} s")
    if not args.no_compile:
        first, second, first_cpu, told, peak = first_run_seconds()
        print(f"first `rami simulate --games 100` on a fresh cache: {first:.1f} s, {first_cpu:.1f} s of CPU, "
              f"{peak:,.0f} MB at the peak (a second run: {second:.1f} s; compiling about {first - second:.0f} s; "
              f"{'said' if told else 'did NOT say'} it was compiling, the first run only)")
    if args.report:
        wall, cpu, peak = first_report_seconds()
        print(f"first `rami report --quick` on a fresh cache: {wall:.1f} s, {cpu:.1f} s of CPU, "
              f"{peak:,.0f} MB at the peak")
    for ruleset in ("rami51", "basic", "contrat"):
        sim.simulate(ruleset, ["greedy", "random", "greedy"], n_games=2, seed=0)  # compile (cached after)
    cases = [("rami51", p, name) for p in (2, 4) for name in ("greedy", "random")]
    # A table of experts: the base player of every rollout and of the searching player's playouts.
    cases.append(("rami51", 4, "expert"))
    cases.append(("basic", 4, "greedy"))
    cases.append(("contrat", 4, "greedy"))
    # The floor runs between the cases, with as many players: each case's
    # yardstick is the mean of the runs just before and just after it. A
    # shared machine's speed drifts by ten percent and more over the minutes
    # the cases take, so one floor for all of them would move every ratio
    # with the hour; beside each case, the floor moves with it.
    have_floor = FLOOR.exists()
    if not have_floor:
        print("no speed floor found (../shared/bench/floor.py): floor ratios are not printed")
    floors: dict[int, list[float]] = {p: [] for p in sorted({players for _, players, _ in cases})}
    measured = []
    last_players = None
    for ruleset, players, name in cases:
        before = None
        if have_floor:
            # The run after the case before serves, when it had as many players.
            if players != last_players:
                floors[players].append(floor_rate(players, seconds, repeat))
            before = floors[players][-1]
        last_players = players
        rows = measure(ruleset, [name] * players, cores, seconds, repeat)
        after = None
        if have_floor:
            after = floor_rate(players, seconds, repeat)
            floors[players].append(after)
        measured.append((ruleset, players, name, rows, before, after))
    if have_floor:
        print("floor (rounds/s, one core, measured between the cases): " + "; ".join(
            f"{p} players {min(rates):,.0f} to {max(rates):,.0f} over {len(rates)} runs"
            for p, rates in floors.items()))
    print(f"{'rules':>7} {'players':>7} {'strategy':>8} {'workers':>7} {'rounds/s':>10} {'games/s':>9} {'rounds':>7} "
          f"{'scaling':>8} {'floor ratio':>12}")
    for ruleset, players, name, rows, before, after in measured:
        for workers, per_s, games_s, rounds, scaling in rows:
            shown = f"{scaling:>8.0%}" if workers > 1 else f"{'':>8}"
            ratio = ""
            if workers == 1 and have_floor:
                ratio = f"{(before + after) / 2 / per_s:>11.1f}x"
            print(f"{ruleset:>7} {players:>7} {name:>8} {workers:>7} {per_s:>10.0f} {games_s:>9.1f} {rounds:>7} "
                  f"{shown} {ratio}")
    median, p99 = best_opening_latency()
    print(f"best_opening on 14-card hands: median {median:.2f} us, p99 {p99:.2f} us (includes the Python call)")
    for group, (median, p99) in batch_best_opening_time().items():
        print(f"sim.best_openings on 14-card hands, {group}: median {median:.2f} us per hand, p99 {p99:.2f} us "
              "(chunks of 1,000 hands)")
    if cores > 1:
        print(f"machine baseline: a compiled loop sharing nothing scales {machine_scaling(cores, max(repeat, 3)):.0%} "
              f"from 1 to {cores} threads")


if __name__ == "__main__":
    main()
