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
of a turn's time. The turn's steps (``sim.engine.turn``) take the round
state as one named tuple of arrays (``RoundState``): inlined, the tuple is
never copied, so ``play_turn`` and the position machine
(``sim.engine.position``), which calls the same steps one decision at a
time, share them at no cost. Two ways are used:

* ``kernel(inline="always")``, numba's own inlining, for the turn and its
  small steps: it gives the fastest code, but numba types the whole caller
  again after each function it inlines, so compiling grows quickly with it;
* ``kernel(forceinline=True)``, LLVM's ``alwaysinline``, for listing the
  legal layings (``enumerate_actions``) and the take check around it,
  which is the largest piece and is inlined twice: numba types it once,
  and compiling the engine takes a third less time than with numba's
  inlining there, at the same speed (measured: rounds per CPU second of
  all three games within 1%).

The game loop (``play_game``) is inlined by numba into its two callers,
the batch (``play_games``) and the trace (``trace_game``): numba links the
machine code of every callee into each caller's library, so a game loop
of its own made LLVM generate the whole round's code once more (about
2 seconds of a fresh compile).

Every other kernel says ``forceinline=False``, since numba passes a caller's
setting on to callees that leave it unset; small helpers are still inlined
by LLVM's optimiser when it pays.

Why constants passed to a kernel do not make new machine functions: numba
types a constant argument as its value (``Literal[int](3)``), and its plain
dispatcher compiles a callee once for every distinct set of constants its
callers pass: the event recorder was compiled 28 times, the action pusher
11 times. Worse, a loop counter that starts at ``0`` is first typed as the
constant 0 and only then as an integer, so the round loop and everything
under it were compiled twice. :class:`KernelDispatcher` types every call
from compiled code with the plain types of its arguments: one machine
function per argument types. This removed a third of a fresh compile's CPU
time, with the same speed (LLVM still sees the constants where it inlines).
Functions that allocate (:func:`entry`) use it too, so that their callers
type them once. The meld search's kernels keep numba's way
(``kernel(constants=True)``): callers pass them constant modes (objective,
forced card, suit) that numba then prunes branches by, and without that
basic rummy ran 6% and the batch best opening 5% slower (rounds per CPU
second).
"""

from __future__ import annotations

from numba.core import types
from numba.core.registry import CPUDispatcher


class KernelDispatcher(CPUDispatcher):
    """A dispatcher that compiles one machine function per argument types, whatever constants its callers pass."""

    def get_call_template(self, args, kws):
        """Type a call from compiled code with the constants' plain types (see the module's docstring)."""
        plain = tuple(types.unliteral(a) for a in args)
        plain_kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(plain, plain_kws)


def _compiled(function, settings: dict):
    """``function`` behind a :class:`KernelDispatcher`, as ``numba.njit(**settings)`` would build it.

    ``constants=True`` in ``settings`` keeps numba's own dispatcher instead: a
    machine function per set of constants passed.
    """
    settings = dict(settings)
    cache = settings.pop("cache", False)
    dispatcher = CPUDispatcher if settings.pop("constants", False) else KernelDispatcher
    disp = dispatcher(py_func=function, locals={}, targetoptions=dict(settings, nopython=True, boundscheck=None))
    if cache:
        disp.enable_caching()
    return disp


def kernel(*args, **options):
    """``numba.njit(cache=True, nogil=True, _nrt=False, forceinline=False)``, usable with or without options."""
    settings = dict(cache=True, nogil=True, _nrt=False, forceinline=False)
    settings.update(options)
    if args and callable(args[0]):
        return _compiled(args[0], settings)
    return lambda function: _compiled(function, settings)


def entry(function=None, **options):
    """``numba.njit(cache=True, nogil=True)`` with numba's reference counting, for the functions that allocate."""
    settings = dict(cache=True, nogil=True)
    settings.update(options)
    if function is not None:
        return _compiled(function, settings)
    return lambda f: _compiled(f, settings)
