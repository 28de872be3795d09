"""Where the engine's time goes: a sampling profile of whole simulations, kernel by kernel.

Run: python benchmarks/profile_engine.py [--rules rami51] [--strategies greedy,greedy,greedy,greedy]
                                         [--seconds 10] [--top 30] [--lines]

Needs Linux ``perf`` (Debian's ``linux-perf``) and leave to read this
process's samples (root, or ``kernel.perf_event_paranoid`` at 1 or less).

The engine inlines the whole round into one machine function, where a
profiler sees a single symbol. This script compiles a *profile build*
instead (``RAMI_PROFILE_BUILD=1``, see ``sim/engine/jit.py``): every kernel
a function of its own, nothing inlined by numba or forced by LLVM (LLVM still
inlines small helpers into their callers), nothing cached. It then writes
where each kernel's machine code lies in the perf map that ``perf`` reads for
code made at run time (``/tmp/perf-PID.map``), samples one core playing whole
``simulate`` calls of the given table for about ``--seconds``, and prints each
kernel's share of the samples taken in compiled code ("self" time: a kernel's
callees that LLVM did not inline count for themselves), then how much of the
run was outside the compiled engine (Python, the result frame, the system).

The profile build is slower than the engine (calls where the engine inlines)
and its code is laid out otherwise, so read the shares as a guide to where
the time goes, and measure any change with ``benchmarks/bench_engine.py``.
Above all, a caller's self time includes passing its callees' arguments:
numba passes each array as a struct of seven to nine words, and the turn's
steps take the round state's thirty arrays, so the turn and the round loop
(``play_turn``, ``play_round``) show a third to a half of the samples in the
profile build where, inlined, the engine does not copy them at all. The
kernels at the leaves (the meld search, the contract search, the policies'
scores) are measured as they run. Compiling takes about as long as a first
run.

``--lines`` profiles the engine as it runs instead: the very build that
``simulate`` plays, every kernel inlined into the batch loop, compiled once
more with numba's debug line tables (``NUMBA_DEBUGINFO=1``, into a numba
cache of its own, removed afterwards: a library loaded from the cache keeps
no object to read lines from). Each sample's address in that machine code
is looked up in the compiled object's line tables (``llvm-symbolizer``,
Debian's ``llvm``), and the script prints the shares of the innermost
function and of the source lines the samples fall in, with each line's
text. Nothing is copied where the engine does not copy, so these are the
shares of the engine's own time; but a sample lands on the instruction
after the one that stalled, so a line's share can belong to the line just
before it, and the debug tables may move the optimiser's choices a little
(the script prints the rate it measured: compare it with
``bench_engine.py``'s). The turn's steps, which numba inlines itself
(``kernel(inline="always")``), carry the line numbers of their own file
under the name of the function they were inlined into (numba's line tables
name one file per function): such lines are marked as a step's, and their
function is the round loop's.
"""

from __future__ import annotations

import argparse
import bisect
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def kernel_name(symbol: str) -> str:
    """The dotted Python name of a numba machine function's symbol, e.g. ``sim.engine.turn.play_turn``.

    numba names a compiled function ``_ZN`` followed by the length-prefixed
    parts of its qualified name, then ``B``-tagged parts (its ABI and
    argument types). A symbol of another shape is returned as it is.
    """
    if not symbol.startswith("_ZN"):
        return symbol
    parts, i = [], 3
    while i < len(symbol) and symbol[i].isdigit():
        m = re.match(r"\d+", symbol[i:])
        n = int(m.group())
        i += len(m.group())
        parts.append(symbol[i:i + n])
        i += n
    return ".".join(p.replace("_3clocals_3e", "<locals>") for p in parts) or symbol


def machine_functions(dispatcher) -> list[tuple[int, str, int]]:
    """``(address, symbol, library)`` of every machine function of ``dispatcher``'s compiled entries, by address.

    ``library`` numbers the entries' libraries in the dispatcher's order.
    """
    starts = []
    for i, cres in enumerate(dispatcher.overloads.values()):
        library = cres.library
        for function in library._final_module.functions:
            if function.is_declaration:
                continue
            address = library.get_pointer_to_function(function.name)
            if address:
                starts.append((address, function.name, i))
    return sorted(starts)


def write_perf_map(dispatcher, path: Path) -> list[tuple[int, str, int]]:
    """Write where each machine function of ``dispatcher``'s compiled entries lies, in perf's map format.

    Returns them as :func:`machine_functions` does. A table with a searching
    seat plays through the search's entries, each a library of its own
    (:mod:`sim.engine.search`, and the rollouts it calls, optimised apart):
    their functions are mapped too, once compiled.
    """
    from sim.engine import rollout, search

    starts = machine_functions(dispatcher)
    for extra in (search.search_batch, search.turn_continuations, rollout.run_trials):
        starts += machine_functions(extra)
    starts = sorted(set(starts))
    with open(path, "w", encoding="utf-8") as out:
        # perf wants each symbol's size: up to the next function (the last gets 64 KB).
        for (address, name, _), (following, _, _) in zip(starts, starts[1:] + [(starts[-1][0] + 65536, "", 0)]):
            out.write(f"{address:x} {following - address:x} {kernel_name(name)}\n")
    return starts


def sample(rules: str, strategies: list[str], seconds: float, data: Path) -> tuple[int, int, float]:
    """Record perf samples of this process playing whole ``simulate`` calls for about ``seconds`` into ``data``.

    The engine must be compiled and its perf map written. Returns the games,
    rounds and CPU seconds of the sampled run.
    """
    import sim

    # Size the run from a short one, so that it lasts about ``seconds``.
    n = 200
    t = time.process_time()
    sim.simulate(rules, strategies, n_games=n, workers=1)
    n = max(n, int(n * seconds / max(time.process_time() - t, 1e-3)))
    recorder = subprocess.Popen(["perf", "record", "-F", "999", "-p", str(os.getpid()), "-o", str(data)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # perf attaches
    t = time.process_time()
    frame = sim.simulate(rules, strategies, n_games=n, workers=1)
    cpu = time.process_time() - t
    recorder.send_signal(signal.SIGINT)
    recorder.wait()
    return n, frame.select("game", "round").unique().height, cpu


def profile(rules: str, strategies: list[str], seconds: float, top: int) -> None:
    import sim
    from sim.engine import play as E

    print(f"compiling the profile build of {rules} ({', '.join(strategies)}): about a minute", file=sys.stderr)
    t0 = time.perf_counter()
    sim.simulate(rules, strategies, n_games=5, workers=1)
    compiled = time.perf_counter() - t0
    perf_map = Path(f"/tmp/perf-{os.getpid()}.map")
    functions = len(write_perf_map(E.play_batch, perf_map))
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        n, rounds, cpu = sample(rules, strategies, seconds, data)
        report = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--no-children", "--sort",
                                 "dso,symbol", "--percent-limit", "0"], capture_output=True, text=True)
    perf_map.unlink(missing_ok=True)
    shares: dict[str, float] = defaultdict(float)
    outside: dict[str, float] = defaultdict(float)
    for line in report.stdout.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(.+?)\s+\[[.k]\]\s+(.+?)\s*$", line)
        if not m:
            continue
        share, dso = float(m.group(1)), m.group(2).strip()
        symbol = re.sub(r"(\s+-)+\s*$", "", m.group(3)).strip()  # perf's empty IPC columns
        if dso.startswith("[JIT]"):
            shares[symbol if symbol.startswith("sim.") else "(compiled code of numba's own)"] += share
        elif dso.startswith("[kernel"):
            outside["the system (page faults, memory)"] += share
        else:
            outside[Path(dso).name.split(".")[0] or dso] += share
    engine = sum(shares.values())
    if engine == 0:
        raise SystemExit("perf recorded no sample in the compiled engine: is perf allowed to read this process "
                         f"(perf report said: {report.stderr.strip()[:300]})?")
    print(f"{rules}, {', '.join(strategies)}: {n:,} games, {rounds:,} rounds in {cpu:.1f} s of CPU "
          f"(profile build: {rounds / cpu:,.0f} rounds per CPU second; compiled in {compiled:.0f} s; "
          f"{functions} machine functions mapped)")
    print(f"\nshare of the samples in compiled code ({engine:.1f}% of all samples), self time:")
    for name, share in sorted(shares.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {100 * share / engine:5.1f}%  {name}")
    print(f"\noutside the compiled engine, share of all samples ({100 - engine:.1f}% in all):")
    for name, share in sorted(outside.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {share:5.1f}%  {name}")


def function_spans(path: Path) -> dict[str, list[tuple[int, int]]]:
    """The first and last line of every function defined in the Python file ``path``, by name."""
    import ast

    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return spans
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            spans[node.name].append((node.lineno, node.end_lineno or node.lineno))
    return spans


def symbolize(objects: dict[int, Path],
              addresses: dict[int, list[int]]) -> dict[tuple[int, int], tuple[str, str, int]]:
    """``(function, file, line)`` of the innermost source frame at each object address, by ``(object, address)``.

    ``addresses`` lists, per object file, offsets into that relocatable
    object's code, which ``llvm-symbolizer`` looks up in its line tables.
    """
    found = {}
    for i, wanted in addresses.items():
        out = subprocess.run(["llvm-symbolizer", "--obj", str(objects[i]), "--inlining", "--functions=short"],
                             input="\n".join(hex(a) for a in wanted), capture_output=True, text=True, check=True)
        for address, block in zip(wanted, out.stdout.strip().split("\n\n")):
            lines = block.strip().splitlines()
            function = lines[0].strip() if lines else "??"
            where = lines[1].strip() if len(lines) > 1 else "??:0:0"
            parts = where.rsplit(":", 2)
            file, line = (parts[0], int(parts[1])) if len(parts) == 3 and parts[1].isdigit() else (where, 0)
            found[(i, address)] = (function, file, line)
    return found


def line_tables_only() -> None:
    """Have numba compile the engine's machine code as without debug information, only with line tables beside it.

    With ``NUMBA_DEBUGINFO=1`` alone numba also forbids LLVM to inline any
    function not forced inline, keeps every variable in memory (it drops its
    own replacement of single-assignment variables by values) and lengthens
    each variable's life to the end of its block: Rami 51 ran at less than
    half its speed (33,000 rounds per CPU second against 77,000). These
    three are switched back to what the engine's own build does (70,000).
    """
    from numba.core import cpu, lowering

    finalize = cpu.CPUTargetOptions.finalize

    def without_debug_costs(self, flags, options):
        finalize(self, flags, options)
        flags.dbg_extend_lifetimes = False

    cpu.CPUTargetOptions.finalize = without_debug_costs
    lowering.Lower._disable_sroa_like_opt = property(lambda self: False)
    pre_lower = lowering.Lower.pre_lower

    def inlined_as_without(self):
        pre_lower(self)
        self.builder.function.attributes.discard("noinline")

    lowering.Lower.pre_lower = inlined_as_without


def profile_lines(rules: str, strategies: list[str], seconds: float, top: int) -> None:
    import linecache

    line_tables_only()
    import sim
    from sim.engine import play as E

    print(f"compiling the engine of {rules} with line tables: about a minute", file=sys.stderr)
    t0 = time.perf_counter()
    sim.simulate(rules, strategies, n_games=5, workers=1)
    compiled = time.perf_counter() - t0
    # Where each machine function lies, and the object numba's JIT loaded it from.
    perf_map = Path(f"/tmp/perf-{os.getpid()}.map")
    starts = write_perf_map(E.play_batch, perf_map)
    objects = {i: cres.library._get_compiled_object() for i, cres in enumerate(E.play_batch.overloads.values())}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = folder / "perf.data"
        n, rounds, cpu = sample(rules, strategies, seconds, data)
        script = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip"], capture_output=True, text=True)
        perf_map.unlink(missing_ok=True)
        ips: dict[int, int] = defaultdict(int)
        for word in script.stdout.split():
            ips[int(word, 16)] += 1
        # Each sample's offset in its object: the function's place there plus the offset into it.
        files: dict[int, Path] = {}
        symbols: dict[tuple[int, str], int] = {}
        for i in objects:
            files[i] = folder / f"engine-{i}.o"
            files[i].write_bytes(objects[i])
            listing = subprocess.run(["nm", str(files[i])], capture_output=True, text=True).stdout
            for line in listing.splitlines():
                parts = line.split()
                if len(parts) == 3:
                    symbols[(i, parts[2])] = int(parts[0], 16)
        keys = [s[0] for s in starts]
        hits: dict[tuple[int, int], int] = defaultdict(int)
        for ip, count in ips.items():
            j = bisect.bisect_right(keys, ip) - 1
            if j < 0:
                continue
            address, name, i = starts[j]
            following = starts[j + 1][0] if j + 1 < len(starts) else address + 65536
            if ip < following and (i, name) in symbols:
                hits[(i, symbols[(i, name)] + ip - address)] += count
        addresses: dict[int, list[int]] = defaultdict(list)
        for i, address in hits:
            addresses[i].append(address)
        places = symbolize(files, addresses)
    total = sum(ips.values())
    engine = sum(hits.values())
    if engine == 0:
        raise SystemExit("perf recorded no sample in the compiled engine: is perf allowed to read this process?")
    by_function: dict[str, int] = defaultdict(int)
    by_line: dict[tuple[str, int, str], int] = defaultdict(int)
    spans: dict[str, dict[str, list[tuple[int, int]]]] = {}
    for key, count in hits.items():
        function, file, line = places[key]
        if file not in spans:
            spans[file] = function_spans(Path(file)) if file.endswith(".py") else {}
        own = any(first <= line <= last for first, last in spans[file].get(function, []))
        by_function[function] += count
        by_line[(file if own else "", line, function)] += count
    print(f"{rules}, {', '.join(strategies)}: {n:,} games, {rounds:,} rounds in {cpu:.1f} s of CPU "
          f"(this build: {rounds / cpu:,.0f} rounds per CPU second; compiled in {compiled:.0f} s; "
          f"{100 * engine / total:.1f}% of the samples in compiled code)")
    print(f"\nshare of the samples in compiled code, by the innermost function they fall in:")
    for name, count in sorted(by_function.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {100 * count / engine:5.1f}%  {name}")
    print(f"\nby source line:")
    root = str(ROOT) + os.sep
    for (file, line, function), count in sorted(by_line.items(), key=lambda kv: -kv[1])[:top]:
        text = ""
        if line == 0:
            where = f"(no source line, in {function})" if function != "??" else "(no source line)"
        elif file:
            text = linecache.getline(file, line).strip()
            where = f"{file.removeprefix(root)}:{line}"
        else:
            where = f"(a step inlined by numba into {function}, line {line} of its own file)"
        print(f"  {100 * count / engine:5.1f}%  {where}  {text[:80]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="rami51", help="a preset or ruleset file [default: rami51]")
    parser.add_argument("--strategies", default="greedy,greedy,greedy,greedy",
                        help="the seats' strategies, comma separated [default: four greedy]")
    parser.add_argument("--seconds", type=float, default=10.0, help="CPU seconds of play to sample [default: 10]")
    parser.add_argument("--top", type=int, default=30, help="kernels (and lines) to list [default: 30]")
    parser.add_argument("--lines", action="store_true",
                        help="profile the engine as it runs, by function and source line (needs llvm-symbolizer)")
    args = parser.parse_args()
    if args.seconds <= 0 or args.top <= 0:
        parser.error("--seconds and --top must be positive")
    if shutil.which("perf") is None:
        raise SystemExit("perf is not installed: this profile needs Linux perf (Debian: apt-get install linux-perf)")
    if args.lines:
        if shutil.which("llvm-symbolizer") is None or shutil.which("nm") is None:
            raise SystemExit("--lines needs llvm-symbolizer and nm (Debian: apt-get install llvm binutils)")
        if os.environ.get("NUMBA_DEBUGINFO") != "1":
            # Line tables are chosen when the engine is compiled: run again with them, in a numba cache of
            # its own (the engine's cached code has none, and must not be replaced by this build).
            with tempfile.TemporaryDirectory() as cache:
                env = dict(os.environ, NUMBA_DEBUGINFO="1", NUMBA_CACHE_DIR=cache,
                           PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
                env.pop("RAMI_PROFILE_BUILD", None)
                sys.exit(subprocess.run([sys.executable, __file__, *sys.argv[1:]], env=env).returncode)
        profile_lines(args.rules, args.strategies.split(","), args.seconds, args.top)
        return
    if os.environ.get("RAMI_PROFILE_BUILD") != "1":
        # The profile build is chosen when the engine is imported: run again with it.
        env = dict(os.environ, RAMI_PROFILE_BUILD="1",
                   PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
        sys.exit(subprocess.run([sys.executable, __file__, *sys.argv[1:]], env=env).returncode)
    profile(args.rules, args.strategies.split(","), args.seconds, args.top)


if __name__ == "__main__":
    main()
