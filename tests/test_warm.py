"""sim.engine.warm: the kernels are made ready before a run, and only a compilation is told.

The notice itself, on an empty numba cache, is checked by
``benchmarks/bench_engine.py`` (a minute or more of compiling: not for the suite).
"""

from __future__ import annotations

import subprocess
import sys

from sim.engine.warm import ensure_compiled
from sim.rules import preset


def test_a_loaded_engine_is_ready_without_a_notice():
    told = []
    ensure_compiled(preset("rami51"), lambda: told.append("compiling"))  # compiles or loads, told or not
    told.clear()
    # Loaded now: well inside the notice delay, nothing to tell.
    assert ensure_compiled(preset("rami51"), lambda: told.append("compiling")) < 60
    assert told == []


def test_rami_simulate_says_nothing_of_compiling_once_compiled(tmp_path):
    ensure_compiled(preset("basic", players=2))
    run = subprocess.run(
        [sys.executable, "-c", "from sim.cli import main; main()", "simulate", "--rules", "basic",
         "--strategies", "greedy,random", "--games", "5", "--quiet", "--out", str(tmp_path / "r.parquet")],
        capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert "compiling" not in run.stderr
