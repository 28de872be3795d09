"""Where the compiled engine's mispredicted branches are, by function and source line, in valgrind's model.

Run: python benchmarks/profile_branches.py [--rules contrat] [--strategy greedy] [--games 100] [--top 40]
                                           [--event Bcm]

The engine's loops branch on facts no processor can predict (whether a meld
fits a hand, whether a card completes a meld): ``count_instructions.py
--branches`` counts the mispredicted branches a round, and this script says
where they are. It plays whole ``simulate`` calls under valgrind's callgrind
with its branch simulation (``--branch-sim=yes``, a simple predictor of
two-bit counters, not the processor's: read the shares as a guide, and
measure a change with ``count_instructions.py --branches``), which records
the cost of every instruction address, and looks each address up in the
line tables of the machine code (``llvm-symbolizer``), as
``profile_engine.py --lines`` does for its samples.

How: valgrind cannot run the AVX-512 code numba generates for the newest
processors, so, as ``count_instructions.py`` does, the engine is compiled for
Haswell, here with numba's line tables (``NUMBA_DEBUGINFO=1``, and
``profile_engine.line_tables_only``: the build ``simulate`` plays), into a
numba cache of its own, in a first process that saves the machine code's
object (a library loaded from the cache keeps none). A second process,
under callgrind, loads that very code from the cache, plays ``--games``
games, and writes where each machine function lies; an address's offset in
its function is its offset in the saved object. Compiling takes about a
minute, the play under callgrind about a minute for 100 contrat games.
Needs valgrind, nm and llvm-symbolizer (Debian: ``apt-get install valgrind
binutils llvm``).
"""

from __future__ import annotations

import argparse
import bisect
import json
import linecache
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import count_instructions  # noqa: E402
import profile_engine  # noqa: E402


def cost_by_address(lines: Iterable[str]) -> tuple[list[str], dict[int, list[int]]]:
    """``(event names, self cost by instruction address)`` read from a callgrind file made with ``--dump-instr=yes``.

    Each cost line starts with its positions (``positions:`` says how many:
    the instruction address, then with ``--dump-line`` a source line), each
    absolute (``0x...``), relative to the line before (``+n``, ``-n``) or the
    same (``*``); the events follow, the missing ones zero. The line after a
    ``calls=`` line is the call's inclusive cost, which is its callee's: it
    is left out, so that each address carries only its own cost.
    """
    events: list[str] = []
    n_positions = 1
    costs: dict[int, list[int]] = defaultdict(lambda: [0] * len(events))
    last = [0]
    inclusive = False
    for line in lines:
        if line.startswith("events:"):
            events = line.split()[1:]
            continue
        if line.startswith("positions:"):
            n_positions = len(line.split()) - 1
            last = [0] * n_positions
            continue
        if line.startswith("calls="):
            inclusive = True
            continue
        if not line or line[0] not in "0123456789+-*":
            continue
        words = line.split()
        for k, word in enumerate(words[:n_positions]):
            if word == "*":
                continue
            if word[0] in "+-":
                step = int(word[1:], 0)
                last[k] += step if word[0] == "+" else -step
            else:
                last[k] = int(word, 0)
        if inclusive:
            inclusive = False
            continue
        cost = costs[last[0]]
        for k, value in enumerate(words[n_positions:]):
            cost[k] += int(value)
    return events, dict(costs)


def _compile(rules: str, strategy: str, folder: Path) -> None:
    """First process: compile the engine with line tables into the cache; save its objects and their symbols."""
    profile_engine.line_tables_only()
    import sim
    from sim.engine import play as E

    sim.simulate(rules, [strategy] * 4, n_games=5, workers=1)
    symbols: dict[str, dict[str, int]] = {}
    for i, cres in enumerate(E.play_batch.overloads.values()):
        obj = folder / f"engine-{i}.o"
        obj.write_bytes(cres.library._get_compiled_object())
        listing = subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True).stdout
        symbols[str(i)] = {parts[2]: int(parts[0], 16) for parts in map(str.split, listing.splitlines())
                           if len(parts) == 3 and parts[1] in "Tt"}
    (folder / "symbols.json").write_text(json.dumps(symbols))


def _play(rules: str, strategy: str, games: int, folder: Path) -> None:
    """Second process, under callgrind: the same code from the cache; play, then write where each function lies."""
    profile_engine.line_tables_only()
    import sim
    from sim.engine import play as E

    sim.simulate(rules, [strategy] * 4, n_games=games, seed=12345, workers=1)
    symbols = json.loads((folder / "symbols.json").read_text())
    starts = []
    for i, cres in enumerate(E.play_batch.overloads.values()):
        for name in symbols.get(str(i), {}):
            address = cres.library.get_pointer_to_function(name)
            if address:
                starts.append((address, name, i))
    (folder / "addresses.json").write_text(json.dumps(sorted(starts)))


def _run(mode: str, args: argparse.Namespace, env: dict[str, str], folder: Path, valgrind: list[str]) -> None:
    command = [*valgrind, sys.executable, __file__, mode, "--rules", args.rules, "--strategy", args.strategy,
               "--games", str(args.games), "--folder", str(folder)]
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{done.stderr[-3000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rules", default="contrat")
    parser.add_argument("--strategy", default="greedy", help="the strategy of all four seats")
    parser.add_argument("--games", type=int, default=100, help="games played under callgrind")
    parser.add_argument("--top", type=int, default=40, help="functions and lines printed")
    parser.add_argument("--event", default="Bcm", help="Bcm (mispredicted conditional branches), Bc, Ir, Bim, Bi")
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("mode", nargs="?", choices=["compile", "play"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mode == "compile":
        return _compile(args.rules, args.strategy, args.folder)
    if args.mode == "play":
        return _play(args.rules, args.strategy, args.games, args.folder)
    if args.games < 1:
        raise SystemExit("--games: at least 1")
    for tool in ("valgrind", "nm", "llvm-symbolizer"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} was not found (Debian: apt-get install valgrind binutils llvm)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = count_instructions.environment(folder / "cache")
        env["NUMBA_DEBUGINFO"] = "1"
        print(f"compiling the engine of {args.rules} for {count_instructions.CPU_NAME} with line tables "
              "(about a minute)...", file=sys.stderr, flush=True)
        _run("compile", args, env, folder, [])
        print(f"playing {args.games} games under callgrind...", file=sys.stderr, flush=True)
        out = folder / "callgrind.out"
        _run("play", args, env, folder,
             ["valgrind", "--tool=callgrind", "--branch-sim=yes", "--dump-instr=yes", f"--callgrind-out-file={out}"])
        with open(out, encoding="utf-8") as f:
            events, costs = cost_by_address(f)
        if args.event not in events:
            raise SystemExit(f"--event {args.event}: callgrind counted {', '.join(events)}")
        column = events.index(args.event)
        starts = [tuple(s) for s in json.loads((folder / "addresses.json").read_text())]
        symbols = json.loads((folder / "symbols.json").read_text())
        keys = [s[0] for s in starts]
        hits: dict[tuple[int, int], int] = defaultdict(int)
        for address, cost in costs.items():
            j = bisect.bisect_right(keys, address) - 1
            if j < 0 or not cost[column]:
                continue
            start, name, i = starts[j]
            following = starts[j + 1][0] if j + 1 < len(starts) else start + (1 << 20)
            if address < following:
                hits[(i, symbols[str(i)][name] + address - start)] += cost[column]
        addresses: dict[int, list[int]] = defaultdict(list)
        for i, offset in hits:
            addresses[i].append(offset)
        places = profile_engine.symbolize({int(i): folder / f"engine-{i}.o" for i in symbols}, addresses)
    engine = sum(hits.values())
    if engine == 0:
        raise SystemExit(f"no {args.event} in the compiled engine")
    by_function: dict[str, int] = defaultdict(int)
    by_line: dict[tuple[str, int, str], int] = defaultdict(int)
    for key, count in hits.items():
        function, file, line = places[key]
        by_function[function] += count
        by_line[(file, line, function)] += count
    print(f"{args.rules}, {args.games} games of four {args.strategy}: {engine:,} {args.event} in the compiled engine")
    print(f"\nshare by the innermost function:")
    for name, count in sorted(by_function.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {100 * count / engine:5.1f}%  {name}")
    print(f"\nby source line:")
    root = str(ROOT) + os.sep
    for (file, line, function), count in sorted(by_line.items(), key=lambda kv: -kv[1])[:args.top]:
        text = linecache.getline(file, line).strip() if line and file.endswith(".py") else ""
        where = f"{file.removeprefix(root)}:{line}" if line else f"(no source line, in {function})"
        print(f"  {100 * count / engine:5.1f}%  {where}  [{function}]  {text[:70]}")


if __name__ == "__main__":
    main()
