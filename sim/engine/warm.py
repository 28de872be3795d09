"""Having the kernels ready before a run: compiled once, then loaded from numba's cache.

The first run on a machine compiles the engine (about a minute on two
cores; ``cache=True`` keeps the result, so later runs load it in well under
a second). :func:`ensure_compiled` gets that done before the games start,
so that a progress display does not sit at 0% meanwhile and a rate measured
afterwards excludes it; it tells its caller when the wait is a compilation.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

from sim.engine import play as E
from sim.engine.params import kernel_rules
from sim.rules import Ruleset
from sim.engine.policies import KIND_RANDOM, N_PARAMS

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
    kinds = np.full(E.MAX_SEATS, KIND_RANDOM, dtype=np.int64)
    params = np.zeros((E.MAX_SEATS, N_PARAMS), dtype=np.float64)
    res = np.zeros((E.MAX_ROUNDS * kr.players, E.N_R), dtype=np.int32)
    failure: list[BaseException] = []

    def play() -> None:
        try:
            E.play_games(kr, np.uint64(0), 0, 1, kinds, params, E.MAX_ROUNDS, res, False)
        except BaseException as exc:  # handed to the caller's thread below
            failure.append(exc)

    start = time.perf_counter()
    worker = threading.Thread(target=play, name="compile-engine", daemon=True)
    worker.start()
    worker.join(notice_after)
    if worker.is_alive():
        if notice is not None:
            notice()
        worker.join()
    if failure:
        raise failure[0]
    return time.perf_counter() - start
