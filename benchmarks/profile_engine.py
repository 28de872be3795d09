"""Where the engine's time goes: a sampling profile of whole simulations, kernel by kernel.

Run: python benchmarks/profile_engine.py [--rules rami51] [--strategies greedy,greedy,greedy,greedy]
                                         [--seconds 10] [--top 30]

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
"""

from __future__ import annotations

import argparse
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


def write_perf_map(dispatcher, path: Path) -> int:
    """Write where each machine function of ``dispatcher``'s compiled entries lies, in perf's map format."""
    starts: dict[int, str] = {}
    for cres in dispatcher.overloads.values():
        library = cres.library
        for function in library._final_module.functions:
            if function.is_declaration:
                continue
            address = library.get_pointer_to_function(function.name)
            if address:
                starts[address] = kernel_name(function.name)
    ordered = sorted(starts.items())
    with open(path, "w", encoding="utf-8") as out:
        # perf wants each symbol's size: up to the next function (the last gets 64 KB).
        for (address, name), (following, _) in zip(ordered, ordered[1:] + [(ordered[-1][0] + 65536, "")]):
            out.write(f"{address:x} {following - address:x} {name}\n")
    return len(ordered)


def profile(rules: str, strategies: list[str], seconds: float, top: int) -> None:
    import sim
    from sim.engine import play as E

    print(f"compiling the profile build of {rules} ({', '.join(strategies)}): about a minute", file=sys.stderr)
    t0 = time.perf_counter()
    sim.simulate(rules, strategies, n_games=5, workers=1)
    compiled = time.perf_counter() - t0
    perf_map = Path(f"/tmp/perf-{os.getpid()}.map")
    functions = write_perf_map(E.play_batch, perf_map)
    # Size the run from a short one, so that it lasts about ``seconds``.
    n = 200
    t = time.process_time()
    sim.simulate(rules, strategies, n_games=n, workers=1)
    n = max(n, int(n * seconds / max(time.process_time() - t, 1e-3)))
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        recorder = subprocess.Popen(["perf", "record", "-F", "999", "-p", str(os.getpid()), "-o", str(data)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # perf attaches
        t = time.process_time()
        frame = sim.simulate(rules, strategies, n_games=n, workers=1)
        cpu = time.process_time() - t
        recorder.send_signal(signal.SIGINT)
        recorder.wait()
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
    rounds = frame.select("game", "round").unique().height
    print(f"{rules}, {', '.join(strategies)}: {n:,} games, {rounds:,} rounds in {cpu:.1f} s of CPU "
          f"(profile build: {rounds / cpu:,.0f} rounds per CPU second; compiled in {compiled:.0f} s; "
          f"{functions} machine functions mapped)")
    print(f"\nshare of the samples in compiled code ({engine:.1f}% of all samples), self time:")
    for name, share in sorted(shares.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {100 * share / engine:5.1f}%  {name}")
    print(f"\noutside the compiled engine, share of all samples ({100 - engine:.1f}% in all):")
    for name, share in sorted(outside.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {share:5.1f}%  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="rami51", help="a preset or ruleset file [default: rami51]")
    parser.add_argument("--strategies", default="greedy,greedy,greedy,greedy",
                        help="the seats' strategies, comma separated [default: four greedy]")
    parser.add_argument("--seconds", type=float, default=10.0, help="CPU seconds of play to sample [default: 10]")
    parser.add_argument("--top", type=int, default=30, help="kernels to list [default: 30]")
    args = parser.parse_args()
    if args.seconds <= 0 or args.top <= 0:
        parser.error("--seconds and --top must be positive")
    if shutil.which("perf") is None:
        raise SystemExit("perf is not installed: this profile needs Linux perf (Debian: apt-get install linux-perf)")
    if os.environ.get("RAMI_PROFILE_BUILD") != "1":
        # The profile build is chosen when the engine is imported: run again with it.
        env = dict(os.environ, RAMI_PROFILE_BUILD="1",
                   PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
        sys.exit(subprocess.run([sys.executable, __file__, *sys.argv[1:]], env=env).returncode)
    profile(args.rules, args.strategies.split(","), args.seconds, args.top)


if __name__ == "__main__":
    main()
