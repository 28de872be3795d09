"""The profile build (``RAMI_PROFILE_BUILD=1``) of ``benchmarks/profile_engine.py``: nothing inlined, nothing cached.

The profile itself needs Linux perf and a minute of compiling: it is run by
hand (``python benchmarks/profile_engine.py``), not by the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchmark_scripts import load

ROOT = Path(__file__).resolve().parents[1]


def _profile_module():
    return load("profile_engine")


def test_a_numba_symbol_reads_as_the_kernel_s_python_name():
    kernel_name = _profile_module().kernel_name
    symbol = "_ZN3sim6engine4turn9play_turnB3v99B60c8tJTIeFIjxB2IKSgI4CrvQClUaPLCRhSLpAEkCNa6gEUooCi2gCAA_3dE"
    assert kernel_name(symbol) == "sim.engine.turn.play_turn"
    assert kernel_name("_ZN3sim6engine11meld_search7_searchB4v169E") == "sim.engine.meld_search._search"
    assert kernel_name("NRT_decref") == "NRT_decref"


def _kernel_settings(profile_build: bool) -> str:
    code = ("from sim.engine import jit, turn, play\n"
            "print(jit.PROFILE_BUILD, turn.play_turn.targetoptions.get('inline'),"
            " turn.take_status.targetoptions.get('forceinline'), type(play.play_batch._cache).__name__)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    env.pop("RAMI_PROFILE_BUILD", None)
    if profile_build:
        env["RAMI_PROFILE_BUILD"] = "1"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


def test_the_profile_build_inlines_nothing_and_caches_nothing():
    # The engine's own build: the turn inlined by numba, the take check by LLVM, the entries cached.
    assert _kernel_settings(False) == ["False", "always", "True", "FunctionCache"]
    # The profile build: each kernel a machine function of its own, and never written to numba's cache.
    assert _kernel_settings(True) == ["True", "None", "False", "NullCache"]


def test_the_line_profile_names_the_function_a_line_lies_in(tmp_path):
    spans = _profile_module().function_spans
    source = tmp_path / "kernels.py"
    source.write_text("def outer(x):\n    def inner(y):\n        return y\n    return inner(x)\n\n\ndef other():\n    pass\n")
    found = spans(source)
    assert found["outer"] == [(1, 4)] and found["inner"] == [(2, 3)] and found["other"] == [(7, 8)]
    assert spans(tmp_path / "missing.py") == {}


def _debug_build(tmp_path, undone: bool) -> list[str]:
    """``(callee called, lines in the machine code)`` of a small function built with numba's debug information,
    with or without what ``--lines`` undoes of it."""
    code = (
        "import re, sys\n"
        f"sys.path.insert(0, {str(ROOT / 'benchmarks')!r})\n"
        "import profile_engine\n"
        f"if {undone}:\n"
        "    profile_engine.line_tables_only()\n"
        "import numba, numpy as np\n"
        "@numba.njit\n"
        "def callee(a, i):\n"
        "    return a[i] * 3\n"
        "@numba.njit\n"
        "def caller(a):\n"
        "    total = 0\n"
        "    for i in range(a.shape[0]):\n"
        "        total += callee(a, i)\n"
        "    return total\n"
        "caller(np.arange(4))\n"
        "sig = caller.signatures[0]\n"
        "asm = caller.inspect_asm(sig)\n"
        "print(bool(re.search(r'call.*callee', asm)), '.loc' in asm)\n"
    )
    env = dict(os.environ, NUMBA_DEBUGINFO="1", NUMBA_CACHE_DIR=str(tmp_path / f"cache-{undone}"))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


def test_the_line_profile_build_has_line_tables_and_the_engine_s_machine_code(tmp_path):
    # numba's debug information alone forbids LLVM to inline (the engine ran at
    # half its speed so); --lines undoes that and keeps the lines.
    assert _debug_build(tmp_path, undone=False) == ["True", "True"]
    assert _debug_build(tmp_path, undone=True) == ["False", "True"]
