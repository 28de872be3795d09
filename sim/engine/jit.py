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

Why some kernels are ``kernel(forceinline=True)``: numba passes every array
by value, as a struct of seven to nine machine words, so a call with thirty
arrays copies some 250 words onto the stack. The steps played once a turn
(the take check, listing the legal layings, choosing, applying, discarding)
are inlined into the turn, and the turn into the round, which removed a
quarter of a turn's time. The inlining is LLVM's (the function gets LLVM's
``alwaysinline``), not numba's own ``inline="always"``: numba's re-types the
whole caller after every function it inlines, which made compiling the
round loop take minutes; LLVM inlines the finished code in seconds, with
the same result. Every other kernel says ``forceinline=False``, since numba
passes a caller's setting on to callees that leave it unset; small helpers
are still inlined by LLVM's optimiser when it pays.
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
