"""How the engine's functions are compiled.

:func:`kernel` is ``numba.njit`` with ``cache=True`` (a second run starts at
once), ``nogil=True`` (worker threads run side by side) and numba's reference
counting of arrays switched off (``_nrt=False``).

Why no reference counting: a compiled function that takes arrays counts a
reference to each on entry and releases it on exit, with an atomic
instruction apiece, unless the optimiser can prove the pair useless, which it
rarely can in a function with loops and early returns. A turn calls a dozen
such functions with up to thirty arrays each, and the counting took over a
third of the engine's time. Kernel functions only read and write arrays that
their callers own and keep alive for the whole call, so they need no count.

The price: a kernel function cannot create an array (numba refuses to
compile ``np.empty`` there, so the mistake cannot go unnoticed) nor hand one
to Python. Functions that allocate, such as the buffer makers and the game
loop that owns the buffers, and the callbacks to Python policies, stay plain
``njit``. ``_nrt`` is a documented-in-code but underscore option of numba's
CPU target; if a numba release drops it, importing the engine fails at once.

Why some kernels are inlined: numba passes every array by value, as a
struct of seven to nine machine words, so a call with thirty arrays copies
some 250 words onto the stack. The steps played once a turn (the take
check, listing the legal layings, choosing, applying, discarding) are
inlined into the turn, and the turn into the round, which removed a quarter
of a turn's time. Two ways are used:

* ``kernel(inline="always")``, numba's own inlining, for the turn and its
  small steps: it gives the fastest code, but numba types the whole caller
  again after each function it inlines, so compiling grows quickly with it;
* ``kernel(forceinline=True)``, LLVM's ``alwaysinline``, for listing the
  legal layings (``enumerate_actions``) and the take check around it,
  which is the largest piece and is inlined twice: numba types it once,
  and compiling the engine takes a third less time than with numba's
  inlining there, at the same speed (measured: rounds per CPU second of
  all three games within 1%).

Every other kernel says ``forceinline=False``, since numba passes a caller's
setting on to callees that leave it unset; small helpers are still inlined
by LLVM's optimiser when it pays.
"""

from __future__ import annotations

from numba import njit


def kernel(*args, **options):
    """``numba.njit(cache=True, nogil=True, _nrt=False, forceinline=False)``, usable with or without options."""
    settings = dict(cache=True, nogil=True, _nrt=False, forceinline=False)
    settings.update(options)
    if args and callable(args[0]):
        return njit(**settings)(args[0])
    return njit(*args, **settings)
