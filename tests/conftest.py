"""How the whole suite uses the cores: its test files spread over two processes, or one process and a compiler.

On a fresh clone numba's cache is empty, and compiling the kernels the suite
uses (the three games' rounds, traces, positions, rollouts, opening searches,
conditioned deals, the odds tables, the searching player) is a large part of
the whole suite's time. The whole suite (``python -m pytest``: ``-n auto`` in
``pyproject.toml``) runs whole test files in each of two processes
(pytest-xdist, :func:`pytest_xdist_auto_num_workers`): each compiles or loads
what its files use, and numba's on-disk cache lets one load what the other
compiled. A single file or a few tests run in this process alone.

Run in one process (``-n 0``) with at least :data:`WHOLE_SUITE` tests
collected, a second Python process compiles, in the order the test files will
want them, the kernels the first test files do not compile themselves; it
writes them to numba's on-disk cache, where the tests find them loaded instead
of compiling them. The results are the same either way (a kernel's machine
code does not depend on which process compiled it); only the wall time
changes. That process is stopped when the session ends.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

WHOLE_SUITE = 500
MAX_WORKERS = 2
"""Collected tests from which the warm-up pays (a single file or a few tests compile only what they need)."""

# Each step compiles one family of kernels through the public API, in the
# order the test files (run alphabetically) first need them. The first test
# file (test_advice) traces Rami 51 games, then stands positions in them: it
# compiles the traces at once while the positions' kernels are compiled here
# from a scripted deal, which needs no trace.
_WARM_UP = textwrap.dedent("""
    import sim
    from sim.position import Position
    from sim.rollouts import rollout

    def position(preset, seats):
        events = sim.play_traced(preset, seats, seed=1, max_rounds=1)
        index = next(i for i, e in enumerate(events) if e["type"] == "discard")
        return Position.from_trace(events, index)

    dealt = Position.deal("rami51", ["greedy", "expert", "random"],
                          ["7♣ 8♣ 9♣ K♦ K♥ K♠ 2♦ 4♦ 6♦ 8♦ 10♦ Q♦ 3♥", "2♣ 4♣ 6♣ 10♣ Q♣ 3♦ 5♦ 7♦ 9♦ J♦ 4♥ 6♥ 8♥",
                           "A♣ 3♣ 5♣ J♣ K♣ A♦ 5♥ 7♥ 9♥ J♥ K♥ 2♠ 4♠"], "6♠")
    dealt.apply(dealt.legal_choices()[0]).play_out()
    sim.simulate("basic", ["greedy", "random", "expert"], n_games=2, workers=1)
    position("basic", ["greedy", "random"])
    sim.simulate("contrat", ["greedy", "random", "expert"], n_games=1, workers=1)
    position("contrat", ["greedy", "random", "expert"])
    for preset in ("rami51", "basic", "contrat"):
        sim.best_openings(["7♣ 8♣ 9♣ K♦ K♥ K♠ 2♦"], preset)
    rollout(position("rami51", ["greedy", "expert"]), n=2, workers=1)
    rollout(position("basic", ["greedy", "random"]), n=2, workers=1)
    rollout(position("contrat", ["greedy", "random", "expert"]), n=2, workers=1)
    sim.simulate("rami51", ["greedy", "expert"], n_games=2, workers=1, condition="jokers(0) >= 1")
    sim.odds("rami51", max_hands=1000, precision=0.5)
    sim.play_traced("rami51", ["search:trials=2", "greedy"], seed=1, max_rounds=1)
    sim.simulate("rami51", ["search:trials=2", "greedy"], n_games=1, workers=1, max_rounds=1)
""")

_warmer: subprocess.Popen | None = None


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Test processes for ``-n auto``: two or more only for the whole suite.

    The whole suite spreads its test files over the cores (at most
    :data:`MAX_WORKERS`: each process compiles or loads the kernels its files
    use, and holds them); a single file or a few tests run in this process,
    without the seconds a worker takes to start.
    """
    whole = not config.args or [Path(a).resolve() for a in config.args] == [Path(__file__).resolve().parent]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(cores, MAX_WORKERS) if whole and cores >= 2 else 0


def pytest_collection_finish(session: pytest.Session) -> None:
    global _warmer
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if len(session.items) < WHOLE_SUITE or os.environ.get("RAMI_NO_WARM_UP") or (os.cpu_count() or 1) < 2:
        return
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    _warmer = subprocess.Popen([sys.executable, "-c", _WARM_UP], cwd=root, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _warmer is not None and _warmer.poll() is None:
        _warmer.kill()
        _warmer.wait()
