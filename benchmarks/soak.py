"""Soak: millions of events of engine games replayed through the rules reference.

Run: python benchmarks/soak.py [--events N] [--workers W] [--seed S] [--chunk C]

Not part of the test suite (a full run takes about 35 minutes of CPU: 10
million events at about 5,000 a CPU second). Games are traced by the compiled
engine (``sim.play_traced``) and every event is replayed by
:func:`sim.rules.replay.check_trace`, the pure-Python reference, which fails
on any illegal move, lost or duplicated card, or score that differs from the
rules.

The tables cover every preset at every number of players it allows (2 to 6:
Rami 51 and its variants 2 to 5, contrat 3 to 5, basic rummy 2 to 6), and
every strategy: game ``g`` goes to table ``g mod tables``, and its seat ``s``
plays strategy ``(g // tables + s) mod strategies``, so every strategy plays
every seat of every table. Whole games are played (to the game's end or the
round cap). Game ``g`` is game ``g`` of seed S, so any failure can be replayed
alone from the printed line.

Games are handed out by chunks of C consecutive games to W processes until
the events replayed reach N (the chunks already handed out finish and count). Prints
progress about every minute, then games, events, errors, the wall time, the
events per second (wall) and per CPU second of the workers, and each error.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context

import sim
from sim import rules
from sim.rules.replay import check_trace
from sim.rules.ruleset import RulesetError
from strategies import STRATEGIES


def tables() -> list[tuple[str, int]]:
    """Every (preset, players) the rules allow."""
    out = []
    for name in rules.PRESETS:
        for players in range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1):
            try:
                rules.preset(name, players=players)
            except RulesetError:
                continue
            out.append((name, players))
    return out


def seating(game: int, players: int, n_tables: int) -> list[str]:
    names = sorted(STRATEGIES)
    return [names[(game // n_tables + seat) % len(names)] for seat in range(players)]


def play_chunk(seed: int, first: int, count: int) -> tuple[int, int, int, float, list[str]]:
    """Trace and replay games ``first .. first + count - 1``: (games, events, errors, CPU seconds, error lines)."""
    every = tables()
    start = time.process_time()
    events = errors = 0
    lines = []
    for game in range(first, first + count):
        name, players = every[game % len(every)]
        seats = seating(game, players, len(every))
        try:
            trace = sim.play_traced(rules.preset(name, players=players), seats, seed=seed, game=game)
            events += len(trace)
            check_trace(trace)
        except Exception as exc:  # every failure is a finding to print, not a reason to stop
            errors += 1
            lines.append(f"{name} players={players} seats={','.join(seats)} seed={seed} game={game}: "
                         f"{type(exc).__name__}: {exc}")
    return count, events, errors, time.process_time() - start, lines


def warm(seed: int) -> float:
    """Compile (or load) the tracing kernel in this process; its CPU seconds."""
    start = time.process_time()
    sim.play_traced("basic", ["greedy", "greedy"], seed=seed, max_rounds=1)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000_000, help="events to replay at least")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chunk", type=int, default=20, help="games a process plays between reports")
    args = parser.parse_args()
    if args.events < 1 or args.workers < 1 or args.chunk < 1:
        parser.error("--events, --workers and --chunk must be at least 1")
    every = tables()
    print(f"tables: {', '.join(f'{n}/{p}' for n, p in every)} ({len(every)}); strategies: "
          f"{', '.join(sorted(STRATEGIES))}; seed {args.seed}; {args.workers} processes", flush=True)
    games = events = errors = 0
    cpu = 0.0
    failures: list[str] = []
    with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as pool:
        compile_cpu = sum(pool.map(warm, [args.seed] * args.workers))
        print(f"kernel ready in every process ({compile_cpu:.0f} CPU s in all)", flush=True)
        start = last_report = time.monotonic()
        next_game = 0
        pending = set()

        def submit() -> None:
            nonlocal next_game
            pending.add(pool.submit(play_chunk, args.seed, next_game, args.chunk))
            next_game += args.chunk

        for _ in range(2 * args.workers):
            submit()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                pending.remove(future)
                g, e, err, c, lines = future.result()
                games, events, errors, cpu = games + g, events + e, errors + err, cpu + c
                failures += lines
                if events < args.events:
                    submit()
            if time.monotonic() - last_report > 60:
                last_report = time.monotonic()
                elapsed = last_report - start
                print(f"  {games:,} games, {events:,} events, {errors} errors, {elapsed:,.0f} s, "
                      f"{events / elapsed:,.0f} events/s", flush=True)
        wall = time.monotonic() - start
    print(f"games {games:,}")
    print(f"events {events:,}")
    print(f"errors {errors:,}")
    print(f"wall {wall:,.0f} s; {events / wall:,.0f} events per second; "
          f"{events / max(cpu, 1e-9):,.0f} events per CPU second of a process")
    for line in failures:
        print(f"error: {line}")
    if errors:
        sys.exit(1)


if __name__ == "__main__":
    main()
