"""Having the kernels ready before a run: compiled once, then loaded from numba's cache.

The first run on a machine compiles the engine (about a minute of one core;
``cache=True`` keeps the result, so later runs load it in well under
a second). :func:`ensure_compiled` gets that done before the games start,
so that a progress display does not sit at 0% meanwhile and a rate measured
afterwards excludes it; it tells its caller when the wait is a compilation.
:func:`compile_with_notice` does the same for the other entries (the
searching game loop, the loops given conditioned first deals), which only a
run that plays them compiles.
"""

from __future__ import annotations

import _thread
import threading
import time
from collections.abc import Callable, Iterator

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
    res = np.zeros((E.N_R, E.MAX_ROUNDS * kr.players), dtype=np.int32)
    return compile_with_notice(lambda: E.play_games(kr, np.uint64(0), 0, 1, kinds, params, E.MAX_ROUNDS, res, 0,
                                                    False), notice, notice_after)


def compile_with_notice(work: Callable[[], object], notice: Callable[[], None] | None = None,
                        notice_after: float = NOTICE_AFTER) -> float:
    """Run ``work`` (a small call of the entry a run will use) in the compiling thread; the seconds it took.

    As :func:`ensure_compiled`, for any entry: the searching game loop, or
    the loops that play conditioned deals, each compiled (or loaded) once
    and only by a run that uses it. ``notice`` is called once, from this
    thread, when ``work`` has not finished after ``notice_after`` seconds.
    """
    failure: list[BaseException] = []

    def play() -> None:
        try:
            work()
        except BaseException as exc:  # handed to the caller's thread below
            failure.append(exc)

    start = time.perf_counter()
    finished = run_in_thread(play)
    if not finished.wait(notice_after):
        if notice is not None:
            notice()
        finished.wait()
    if failure:
        raise failure[0]
    return time.perf_counter() - start


# Python frames in a thread live on a stack of memory chunks, and (in Python
# 3.11 and 3.12, and in 3.13 and 3.14 until CPython issue 142183 was fixed)
# a chunk is returned to the system as soon as the call that opened it
# returns. numba's compiler recurses deeply and steps across a chunk boundary
# again and again, so each such call maps and unmaps memory afresh: measured,
# 3.5 million page faults and a third of a fresh compile's CPU time. The
# first chunk of a thread is never returned and is sized for the thread's
# first frame, so a thread whose first frame is made large (address space
# only: pages are touched as frames use them) keeps the whole compilation in
# that one chunk.
FRAME_STACK_SLOTS = 1 << 20
"""Object slots (8 MB) of the compiling thread's first frame chunk: far more than the compiler's deepest recursion."""


def _reserve_frame_stack() -> None:
    """Opens the thread's first frame chunk: its code asks for :data:`FRAME_STACK_SLOTS` slots of stack."""


_reserve_frame_stack.__code__ = _reserve_frame_stack.__code__.replace(co_stacksize=FRAME_STACK_SLOTS)


def run_in_thread(work: Callable[[], None]) -> threading.Event:
    """Run ``work`` in a new daemon thread whose frames stay in one chunk; the event is set when it returns.

    ``work`` must not raise (hand exceptions over by other means).
    """
    finished = threading.Event()

    def body() -> Iterator[None]:
        # A generator's own frame lives in the generator, so the first frame
        # the thread's stack holds is the reserving call's.
        try:
            _reserve_frame_stack()
            work()
        finally:
            finished.set()
        yield

    # Started from C (``list`` drains the generator), so no Python frame of
    # the threading machinery comes first.
    _thread.start_new_thread(list, (body(),))
    return finished
