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
    assert kernel_name("_ZN3sim6engine5melds7_searchB4v169E") == "sim.engine.melds._search"
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
