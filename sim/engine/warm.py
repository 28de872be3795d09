"""Having the kernels ready before a run: compiled once, then loaded from numba's cache.

The first run on a machine compiles the engine (about a minute of one core;
``cache=True`` keeps the result, so later runs load it in well under
a second). :func:`ensure_compiled` gets that done before the games start,
so that a progress display does not sit at 0% meanwhile and a rate measured
afterwards excludes it; it tells its caller when the wait is a compilation.
:func:`compile_with_notice` does the same for the other entry (the
searching table's, :func:`sim.engine.search.search_batch`), which only a
run that plays it compiles.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from sim.engine.jit import in_compiling_thread
from sim.engine.params import kernel_rules
from sim.engine.play import play_games
from sim.engine.policies import KIND_RANDOM, N_PARAMS
from sim.engine.rows import MAX_ROUNDS, N_R
from sim.engine.state import MAX_SEATS
from sim.rules import Ruleset

# Loading the compiled engine from the cache takes under two seconds even on
# a heavily loaded machine; compiling it takes a minute or more.
NOTICE_AFTER = 5.0


def ensure_compiled(ruleset: Ruleset, notice: Callable[[], None] | None = None,
                    notice_after: float = NOTICE_AFTER) -> float:
    """Compile, or load from the cache, the kernels that simulate ``ruleset``'s game.

    Plays one game of ``ruleset`` with random seats (the kernels' types do
    not depend on the strategies) and returns the seconds it took.
    ``notice`` is called once, from this thread, when that has not finished
    after ``notice_after`` seconds: the kernels are being compiled.
    """
    kr = kernel_rules(ruleset)
    kinds = np.full(MAX_SEATS, KIND_RANDOM, dtype=np.int64)
    params = np.zeros((MAX_SEATS, N_PARAMS), dtype=np.float64)
    res = np.zeros((N_R, MAX_ROUNDS * kr.players), dtype=np.int32)
    return compile_with_notice(lambda: play_games(kr, np.uint64(0), 0, 1, kinds, params, MAX_ROUNDS, res, 0,
                                                  False), notice, notice_after)


def compile_with_notice(work: Callable[[], object], notice: Callable[[], None] | None = None,
                        notice_after: float = NOTICE_AFTER) -> float:
    """Run ``work`` (a small call of the entry a run will use) in the compiling thread; the seconds it took.

    As :func:`ensure_compiled`, for any entry: the searching table's,
    compiled (or loaded) once and only by a run that uses it. ``notice`` is called once, from this
    thread, when ``work`` has not finished after ``notice_after`` seconds
    (called from a compiling thread, ``work`` runs in it, without the notice).
    """
    start = time.perf_counter()
    in_compiling_thread(work, notice, notice_after)
    return time.perf_counter() - start
