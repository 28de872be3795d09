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

* ``kernel(inline="always")``, numba's own inlining, for the turn's steps
  (``sim.engine.turn``), which take the round state: numba types the whole
  caller again after each function it inlines, so compiling grows quickly
  with it, but LLVM's inlining of these steps cost basic rummy 0.8% and
  contrat 0.6% more instructions a round. Measured again later: Rami 51
  0.2%, basic rummy 0.4% and contrat 0.5% more instructions. The plain
  compile was no shorter (26-32 s either way), and the searching game
  compiled alone in 51-60 s against 59-65 s. But the first
  ``rami report --quick``, where the two compiles share the machine's two
  cores, was no faster: 80.3 and 87.0 s against 77.5 and 82.0 s,
  alternating. So the steps stay with numba's inlining;
* ``kernel(forceinline=True)``, LLVM's ``alwaysinline``, for every other
  inlined kernel (the policies' choices, listing the legal layings, the
  take check, the small helpers of hands and melds, the rollout's copies):
  numba types each once, and its library is not optimised before its
  callers inline it (see below). Moving the policies', the actions' and
  the helpers' kernels from numba's inlining to LLVM's made the first
  ``rami simulate --games 100`` on an empty cache 53.3 -> 44.3 s (side by
  side), with the instructions of a round within 0.3% in all three games
  (cachegrind: basic rummy and Rami 51 0.1% fewer, contrat 0.3% more).

Each entry generates the machine code of everything it calls, so the
plain game loop has one entry for Python, ``sim.engine.play.play_batch``:
a simulation's batch, a batch of dealt games and a traced game are all
calls of it (as three entries, the round's machine code was generated
three times, some three seconds of a first compile apiece; a traced game
after a simulation now compiles nothing). The game loop (``play_game``) is
inlined by numba into it: numba links the machine code of every callee
into each caller's library, so a game loop of its own made LLVM generate
the whole round's code once more (about 2 seconds of a fresh compile). So
too the searching table's batch loop into its two batch entries: called,
it was a library of its own that LLVM optimised with the whole round
linked in, before the entry optimised it all again (some 3 seconds).

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
second). The searches name the modes they keep
(``kernel(constants=("objective", "need_natural"))``): every other
argument is typed plainly, so that the joker-free second search of an
opening or a contract (called with the constant 0 jokers, and rare: only
when the best one used a joker) does not compile the whole search again,
about 5 s of a first compile for no measurable speed (cachegrind's
instructions of a round within 0.02% in all three games).

Why the kernels that compiled code calls have no machine code of their
own: numba compiles each callee into a library of its own and generates
its machine code at once (cached or not: a library is handed to LLVM's
code generator when it is finalised), and each caller links the callee's
LLVM module into its own, optimises it again and generates its machine
code again. The round (``play_round``) was generated once in its own
library and again inside the batch's (``play_batch``), the take check and
the legal layings four or five times over. :class:`KernelDispatcher`
compiles a callee typed from compiled code to LLVM IR only (numba's own
``no_compile`` mode, which it uses for its internal subroutines), in a
library that is optimised once but never code-generated; machine code is
generated once, in the library of the function Python calls (an
:func:`entry`), and cached there, callees included. A kernel that Python
calls directly (tests, the API) compiles and caches as before. Measured
on a fresh cache, the first ``rami simulate --games 100`` went from 109 to
85 CPU seconds with this alone, peak memory from 875 to 824 MB, at the same
speed (rounds per CPU second of the three games within noise, if anything
a few percent faster); only the entries write cache files now (5 files
instead of 137), and a second run compiles nothing (2 CPU seconds, as
before). Optimising a linked-only library's module too is kept: skipping
it saved 11 more CPU seconds but made Rami contrat 6% slower.

Two optimisations are not made twice, though. A ``forceinline`` kernel's
library is not optimised at all (:attr:`_LinkedLibrary.inlined`): every
caller inlines its code and optimises it there, where it meets the
caller's constants. And a function Python calls that is declared
``optimised_callees=True`` only relinks its module (:class:`_EntryLibrary`):
numba would run LLVM's whole pipeline twice more over the code it links in,
already optimised in the callees' own libraries. Declared so are the batch
and trace entries of ``sim.engine.play`` and of the searching table
(``sim.engine.search``), whose work is all in the round or the searching
game they call, and the position machine's ``advance``, a loop over the
turn's steps. Measured on a fresh cache, side by side: the first ``rami
simulate --games 100`` 60.5 to 55.6 s for the first, 58.4 to 55.1 s for the
second; the machine code runs as fast (cachegrind's instruction counts of
simulations of all three games within 0.8%, fewer if anything), and the
result hashes are unchanged. Not so the rollout's ``run_trials``: relinked,
its own loop over the trials went unoptimised, 1% more instructions a
playout when it was measured, for some seconds less compiling. It is
optimised apart from its callees instead (below).

A kernel that compiled code calls may be declared so too: its linked
library is then relinked rather than optimised (:attr:`_LinkedLibrary.relinked`).
Declared so are the searching game's levels above the rollouts
(``play_search_game``, ``search_round``, ``search_decision``,
``searched_choice``): each linked in the whole round and the rollouts,
and LLVM optimised all of it again at every level (some 5 s each), while
the rollouts, where a searching game spends its time, are optimised in
``run_trials``' own library. Measured on a fresh cache, side by side: a
first simulation with a searching seat 97.5 -> 78.8 s; a searching game
plays the same decisions and playouts, at 0.35% more instructions a round
(cachegrind, four searching seats of 8 trials: 187.8 -> 188.4 million),
the price of the levels' own loops left unoptimised.

Why some kernels are optimised apart from the kernels they call: a
kernel's library links in the modules of the kernels it calls, already
optimised in their own libraries, and LLVM optimises the whole again. The
position machine's steps call one another (the draw calls the start of the
laying, which lists the layings; ``play_choice`` calls the draw, the
laying, the throw and the "Puis-je ?" answer), so the listing of the
layings was optimised once in its own library and again in seven callers,
some 1.2 s apiece, in the second process of a first report (:mod:`sim.ahead`),
the one a first report waits for. A kernel declared
``optimised_apart=True`` (:attr:`_LinkedLibrary.apart`) is optimised with
only its ``forceinline`` callees and numba's own helpers linked in; the
other kernels it calls are linked in after, as they were optimised. Unlike
``optimised_callees``, its own code (the turn's steps numba inlines into
it) is still optimised; what it gives up is LLVM inlining a small plain
kernel it calls, so the policies' ``took_cards``, which a round's turns
call, is ``forceinline`` now, as it was inlined anyway. Declared so: the position
machine's steps that call others, ``finish_round`` and the rollouts'
``run_trials``. Measured on an empty cache: the second process (positions,
then the searching game) 62.8 -> 51.0 CPU seconds, LLVM's module
optimisation in it 22.2 -> 11.2 s; the first ``rami report --quick``
73.6 and 71.5 s -> 65.8 and 65.5 s, alternating (CPU 135.5 and 132.1 s
-> 120.0 and 120.7 s). A playout of the rollout benchmark's position
counted 0.2% more instructions (``benchmarks/count_instructions.py
--playouts 400``: belief 99,880 -> 100,112, clairvoyant 92,868 -> 93,041;
mispredicted branches 1.5% fewer): the steps now call the throw and the
listing of the discards where LLVM had inlined them. A round of the plain
game loop is unchanged (Rami 51 73,789, contrat 121,980, basic rummy
42,718), and rollouts give the same results.

Why the callees linked into a library are made internal to it, once it is
optimised: numba passes every argument of a compiled call as machine words
of its own, an array as seven to nine (its memory owner, parent, size,
item size, data, shape and strides) and the rules (``KernelRules``) as
twenty-nine, so a called kernel such as the table's refresh after a laying
took some sixty words, most of them on the stack, at every call. LLVM
removes the arguments a function never reads (dead-argument elimination)
only for a function no other module can see, and numba links each callee
in as ``linkonce_odr``, a definition other modules may share. So every
library whose machine code is generated (:class:`_EngineLibrary`,
:class:`_EntryLibrary`) makes its linked callees internal and runs that
elimination just before code generation (``_drop_dead_arguments``);
the libraries linked into others are left as they are. Measured against
the tree before, cachegrind's instructions of a round
(``benchmarks/count_instructions.py``): Rami 51 86,383 -> 83,895, contrat
152,390 -> 144,292 (with the contract test of both kinds together, 0.8%
of it), basic rummy 52,665 -> 50,531; rounds per CPU second, alternating
over three pairs: Rami 51 0 to +21%, basic rummy +7 to +33% (storing the
words and loading them back cost more time than their instructions'
share); the rollout benchmark's playouts +7 to +8% (belief) and +10 to
+17% (clairvoyant); the first ``rami simulate --games 100`` on an empty
cache within the noise (28.7 and 27.9 s against 28.4 and 27.1 s), its
peak memory the same; the result hashes unchanged. Made internal before
the optimisation instead, the callees saved some 0.5% more instructions,
but LLVM then inlined every function called once into its caller and
optimised it again there: the first rollout on an empty cache compiled in
122 s instead of 61 s, at 1.04 GB instead of 0.67 GB.

Why Python calls some kernels through doors: a kernel typed for linking
has no machine code of its own, so when Python then calls it directly
numba types, lowers and optimises it again for Python. The position
machine's ``decide`` and ``play_choice`` and the rollouts' ``run_trials``
are linked into the searching game, and a report plays the searching game
before its positions and rollouts, so each was compiled twice there.
Python calls them through entries that only call them
(``decide_for_python``, ``play_choice_for_python``,
``run_trials_for_python``, declared ``optimised_callees``): the kernel
is typed once, for linking, and the door relinks it and generates its
machine code. Measured on a fresh cache, a searching game then a traced
game, a position and a rollout in one process: 17.9 to 11.4 s for the
second part; the first ``rami report --quick`` took 130 s before and 109 s
after, run one after the other (a first compile's time moves by some 15%
between runs on one machine); a rollout alone compiles as before (57.8
and 56.5 s side by side).

numba keys each cached entry on the processor it was compiled for (the
target, CPU name and CPU features: its codegen's ``magic_tuple``), so a
cache copied to a machine whose processor differs is compiled afresh
there, callees included, since they are part of the entry's machine code.

Why an inlined function's IR is built once: numba inlines an
``inline="always"`` function by running its front end (bytecode to IR,
with its own inlinings, recursively) afresh at every call site, then deep
copying the result twice; the turn's steps were thus rebuilt once per
caller level. That IR does not depend on the caller, so it is built once
per process (:func:`_inline_ir`) and each call site gets a copy with a
fresh function identity (so that two inlined copies keep distinct
variable names, as numba's own give them): alone, 109 to 97 CPU seconds
of a first run; with the linking above, 85 to 80.

Why the inlined blocks are copied with one memo: numba copies the IR it
inlines block by block, twice per call site, each block with a fresh
``deepcopy`` memo, and each variable holds its scope, which holds every
variable of the function: so each block's copy copied the whole function's
variables again, a cost of blocks times variables. The turn, inlined with
its steps, has hundreds of blocks and thousands of variables: copying took
over a third of a fresh compile (6 million variable copies).
:class:`_BlockCopies` gives the blocks of one scope one memo during an
inlining, so the scope is copied once, and the copy shares one scope among
its blocks as the original does (numba asserts a single scope there).
Measured on a fresh cache, the first ``rami simulate --games 100`` went
from 81.5 to 66.4 s (77.8 to 63.5 CPU seconds, run side by side), peak
memory from 857 to 565 MB, with the same machine code (the result hashes
unchanged).

Why a compile that Python asks for runs in another thread: numba's
compiler recurses deeply, and a thread whose first frame chunk is small
maps and unmaps memory at every step across a chunk boundary (see
:func:`run_in_thread`). The engine's game loops were compiled in such a
thread already (``sim.engine.warm``); the kernels Python calls otherwise
(the position machine's and the rollouts' doors, the traced game, the
tests' direct calls) compiled in the calling thread.
:meth:`_LinkedDispatcher.compile` now hands every compile or cache load
Python asks for to a compiling thread, unless it runs in one already or
under numba's compiler lock (a compile that compiled code asked for).
Measured on an empty cache, a traced game of Rami 51, a position taken
from it and its rollouts, in one process: 70.7 and 62.6 s before, 61.7
and 62.0 s after (system time 3.3 and 3.1 s before, 0.6 s after).

Why the flags' values are read from a dict: numba keys every typed
implementation (an operator on given types, an array's ``setitem``) on the
flags of the compile that asked for it, and hashes and compares those
flags by all their values, which it read through some twenty properties every
time: 391,455 times in a first compile of the engine (``rami simulate``).
:func:`_config_values` builds the same values from a dict of the defaults
and the options set: 3.8 µs a call before, 0.3 µs after, some 1.4 s of the
first compile's CPU time (the compile's own time varies more than that
from run to run on a shared machine, so the saving is counted, not timed).

Why numba's error markup is replaced: numba writes the message of every
failed typing attempt (an operator tried on types it does not take), some
28,000 of them in a first compile, nearly all never shown, and its markup
opened a colorama shell for each, wrapping the console's streams anew.
:func:`_markup` joins the same text without it: 1.5 s to 0.03 s of a first
compile under ``cProfile`` (58.4 to 56.7 s in all there).

Why hot kernels index with unsigned or bounded integers: numba reads a
signed index as Python does, counting from the end when it is negative,
so every array access with a signed index carries a compare and a select
that LLVM removes only where it can prove the index non-negative (a
``range`` counter, yes; a value read from an array or passed in by the
caller, no). The kernels a turn runs many times read such indices: a seat
(``play_turn`` bounds it, ``seat & 0xFF``, the same seat, for all its
inlined steps), candidates read from the searches' lists and chains, card
codes and the pile's and stock's tops; these are cast to ``np.uint64``
where read. Together they removed 10% of a basic rummy round's
instructions and of a contrat deal's, and 5% of a Rami 51 round's
(``benchmarks/count_instructions.py``), the bounded seat most.
Mixing ``np.uint64`` with signed integers in arithmetic gives floats in
numba, so the casts are made at the index, not on the variables a kernel
computes with.
"""

from __future__ import annotations

import _thread
import copy
import inspect
import os
import threading
from collections.abc import Callable, Iterator

import llvmlite.binding as _ll

from numba.core import compiler, ir, sigutils, typing, types
from numba.core import errors as _errors
from numba.core import inline_closurecall as _inline_closurecall
from numba.core import targetconfig as _targetconfig
from numba.core.codegen import CPUCodegen, JITCodeLibrary
from numba.core.llvm_bindings import create_pass_builder
from numba.core.compiler_lock import global_compiler_lock, require_global_compiler_lock
from numba.core.inline_closurecall import InlineWorker
from numba.core.registry import CPUDispatcher

_numba_inline_ir = InlineWorker.run_untyped_passes
_inline_irs: dict = {}


def _inline_ir(worker, function, enable_ssa=False):
    """numba's front end run on an engine function to inline it, built once per process (see the module's docstring).

    Stands in for ``InlineWorker.run_untyped_passes``; functions outside the
    project are left to numba.
    """
    if not getattr(function, "__module__", "").startswith("sim."):
        return _numba_inline_ir(worker, function, enable_ssa)
    flags = worker.flags
    key = (function, enable_ssa, bool(flags.enable_pyobject), bool(flags.enable_looplift))
    built = _inline_irs.get(key)
    if built is None:
        built = _inline_irs[key] = _numba_inline_ir(worker, function, enable_ssa)
    else:
        flags.enable_ssa = enable_ssa  # numba's own sets it on the caller's flags: so do we
    # The caller deep-copies the blocks before changing them; the copy's own
    # identity names its inlined variables apart from other call sites'.
    copy = built.copy()
    copy.func_id = built.func_id.derive()
    return copy


InlineWorker.run_untyped_passes = _inline_ir


class _BlockCopies:
    """The ``copy`` module as numba's inlining sees it: the blocks of one function's IR copied with one memo.

    numba copies a callee's IR block by block, each with a fresh memo, so
    the function's scope (every variable it has) is copied again with each
    block: quadratic in the function's size (see the module's docstring).
    Inside :func:`_inline_with_shared_copies`, the blocks that share a scope
    share one memo too, so the scope is copied once, and the copy keeps the
    original's sharing (one scope for all blocks, as numba asserts).
    """

    def __init__(self) -> None:
        self.memos: list[dict] = []

    def deepcopy(self, value, memo=None):
        if memo is None and self.memos and isinstance(value, ir.Block):
            memo = self.memos[-1].setdefault(id(value.scope), {})
        return copy.deepcopy(value, memo)

    def __getattr__(self, name):
        return getattr(copy, name)


_block_copies = _BlockCopies()
_numba_inline = InlineWorker.inline_ir


def _inline_with_shared_copies(worker, *args, **kwargs):
    """numba's ``InlineWorker.inline_ir``, its copies of the callee made by :class:`_BlockCopies`."""
    _block_copies.memos.append({})
    try:
        return _numba_inline(worker, *args, **kwargs)
    finally:
        _block_copies.memos.pop()


_inline_closurecall.copy = _block_copies
InlineWorker.inline_ir = _inline_with_shared_copies

_config_defaults: dict[type, dict] = {}


def _config_values(config) -> dict:
    """numba's ``TargetConfig.values``, the same dict built from the defaults and the options set.

    numba keys each typed implementation on the compile's flags, and hashes
    and compares them by these values, read option by option through a
    property each (some twenty of them): 391,455 times in a first compile of
    the engine (see the module's docstring).
    """
    defaults = _config_defaults.get(type(config))
    if defaults is None:
        defaults = _config_defaults[type(config)] = {name: option.default for name, option in config.options.items()}
    values = dict(defaults)
    values.update(config._values)  # only options are ever set: the keys keep the options' order
    return values


_targetconfig.TargetConfig.values = _config_values


_numba_markup = getattr(getattr(_errors, "HighlightColorScheme", None), "_markup", None)
"""numba's own markup of an error message; None where colorama is missing and numba marks nothing up."""

if _numba_markup is not None:
    from colorama import Style as _Style

    def _markup(scheme, msg, color=None, style=_Style.BRIGHT):
        """numba's ``HighlightColorScheme._markup``: the same text, without colorama wrapping the console's streams.

        numba formats the message of every failed typing attempt (some
        28,000 in a first compile of the engine, most of them never shown),
        and its markup opened and closed a colorama shell each time,
        wrapping ``sys.stdout`` and ``sys.stderr`` anew: the colour codes
        themselves are plain text, joined here as numba joins them.
        """
        return (color or "") + (style or "") + msg + _Style.RESET_ALL

    _errors.HighlightColorScheme._markup = _markup


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
            _compiling_thread.is_one = True
            work()
        finally:
            finished.set()
        yield

    # Started from C (``list`` drains the generator), so no Python frame of
    # the threading machinery comes first.
    _thread.start_new_thread(list, (body(),))
    return finished


_compiling_thread = threading.local()
"""``is_one`` is set in the threads :func:`run_in_thread` starts."""


def wait_with_notice(finished: threading.Event, notice: Callable[[], None] | None, notice_after: float) -> None:
    """Wait until ``finished`` is set; call ``notice`` once (from this thread) if it is not after ``notice_after``
    seconds: the wait is a compilation, which a run says rather than sitting silent."""
    if not finished.wait(notice_after):
        if notice is not None:
            notice()
        finished.wait()


def in_compiling_thread(work: Callable[[], object], notice: Callable[[], None] | None = None,
                        notice_after: float = 5.0) -> object:
    """``work()`` run in a thread of :func:`run_in_thread`'s (this one, if it is one already); its result.

    Its exception, if it raises, is raised here. ``notice`` is called once
    if ``work`` has not finished after ``notice_after`` seconds (see
    :func:`wait_with_notice`); run in this very thread, it gives none.
    """
    if getattr(_compiling_thread, "is_one", False):
        return work()
    result: list = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(work())
        except BaseException as exc:  # handed to the caller's thread below
            failure.append(exc)

    wait_with_notice(run_in_thread(run), notice, notice_after)
    if failure:
        raise failure[0]
    return result[0]


class _EngineLibrary(JITCodeLibrary):
    """numba's library, whose module, once optimised, passes its linked callees only the words they read."""

    def _optimize_final_module(self):
        super()._optimize_final_module()
        self._drop_dead_arguments()

    def _drop_dead_arguments(self) -> None:
        """Make every function linked into the module internal to it, then let LLVM drop the arguments those
        functions never read (see the module's docstring).

        numba marks the functions it links in ``linkonce_odr``: another module
        might define them too, so LLVM keeps their signatures as they are. The
        functions the module defines itself (the entry and its wrappers) keep
        their linkage. Run on the module as optimised, just before its machine
        code is generated: made internal before, every function called once
        would be inlined into its caller and optimised there again.
        """
        module = self._final_module
        for function in module.functions:
            if not function.is_declaration and function.linkage == _ll.Linkage.linkonce_odr:
                function.linkage = _ll.Linkage.internal
        builder = create_pass_builder(self._codegen._tm, opt=0)
        passes = builder.getModulePassManager()
        passes.add_dead_arg_elimination_pass()
        passes.add_global_dead_code_eliminate_pass()
        passes.run(module, builder)


class _RelinkingLibrary(JITCodeLibrary):
    """A library whose module may be relinked only instead of optimised (``optimised_callees``)."""

    def _relink(self) -> None:
        """The always-inliner and global dead-code elimination, instead of LLVM's pipeline."""
        builder = create_pass_builder(self._codegen._tm, opt=0)
        passes = builder.getModulePassManager()
        passes.add_always_inliner_pass()
        passes.add_global_dead_code_eliminate_pass()
        passes.run(self._final_module, builder)


class _EntryLibrary(_RelinkingLibrary, _EngineLibrary):
    """The library of an entry whose work is all in kernels it calls, each optimised in a library of its own.

    Its module, those kernels linked in, is not optimised again: the
    always-inliner (for ``forceinline`` kernels the entry calls itself),
    global dead-code elimination (the linked copies that every caller has
    inlined already) and the removal of the arguments its linked kernels
    never read (:meth:`_EngineLibrary._drop_dead_arguments`) are all it runs
    before its machine code is generated.
    """

    def _optimize_final_module(self):
        self._relink()
        self._drop_dead_arguments()


_relinking: list[str] = []
"""The entries being compiled whose own library is an :class:`_EntryLibrary` (innermost last)."""
_numba_create_library = CPUCodegen.create_library


def _create_library(codegen, name, **kwargs):
    """numba's ``CPUCodegen.create_library``: an :class:`_EntryLibrary` for the entry being compiled so, an
    :class:`_EngineLibrary` otherwise."""
    if _relinking and name == _relinking[-1] and not kwargs:
        return _EntryLibrary(codegen, name)
    if not kwargs:
        return _EngineLibrary(codegen, name)
    return _numba_create_library(codegen, name, **kwargs)


CPUCodegen.create_library = _create_library


def _relinked(compile_core, name: str):
    """The dispatcher's ``_compile_core``, its library made an :class:`_EntryLibrary` (``optimised_callees``)."""

    def compile_relinked(args, return_type):
        _relinking.append(name)
        try:
            return compile_core(args, return_type)
        finally:
            _relinking.pop()

    return compile_relinked


class _LinkedLibrary(_RelinkingLibrary):
    """A callee's library: LLVM IR optimised to be linked into its callers, never code-generated itself."""

    inlined = False
    """A ``forceinline`` kernel's library: every caller inlines its code and optimises it there."""

    relinked = False
    """A kernel declared ``optimised_callees``: its module is relinked only (as an :class:`_EntryLibrary`'s)."""

    apart = False
    """A kernel declared ``optimised_apart``: its module is optimised before its called kernels are linked in."""

    def _optimize_final_module(self):
        if self.relinked:
            self._relink()
        elif not self.inlined:
            super()._optimize_final_module()

    def finalize(self):
        """numba's ``finalize``; for an :attr:`apart` library, the called kernels that are not inlined are linked
        in only after the module is optimised (see the module's docstring)."""
        if not self.apart:
            return super().finalize()
        require_global_compiler_lock()
        self._codegen._check_llvm_bugs()
        self._raise_if_finalized()
        after = []
        seen = set()
        for callee in self._linking_libraries:
            if callee in seen:
                continue
            seen.add(callee)
            self._reload_init.update(callee._reload_init)
            if isinstance(callee, _LinkedLibrary) and not callee.inlined:
                after.append(callee)
            else:  # inlined here (``forceinline``) or numba's own helpers: optimised with the module
                self._final_module.link_in(callee._get_module_for_linking(), preserve=True)
        self._optimize_final_module()
        for callee in after:
            self._final_module.link_in(callee._get_module_for_linking(), preserve=True)
        self._final_module.verify()
        self._finalize_final_module()

    def _finalize_final_module(self):
        # numba would hand the module to LLVM's code generator here; the
        # entry that links it in generates its machine code instead.
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True


class _LinkKey:
    """What the lowering of a call finds a linked callee by (numba keys user functions on their compiled entry)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<linked {self.name}>"


class _LinkedDispatcher(CPUDispatcher):
    """A dispatcher whose calls from compiled code link its LLVM IR in, with no machine code of its own."""

    def _call_types(self, args, kws):
        """The argument types a call from compiled code is compiled for (numba's own: constants included)."""
        return args, kws

    def compile(self, sig):
        """numba's ``compile`` (from Python: compile ``sig`` or load it from the cache), in a compiling thread.

        See :func:`run_in_thread`: numba's recursion then keeps to one frame chunk. A compile that compiled code
        asks for, under numba's compiler lock, stays in its thread.
        """
        compile_here = super().compile
        if global_compiler_lock.is_locked():
            return compile_here(sig)
        existing = self.overloads.get(tuple(sigutils.normalize_signature(sig)[0]))
        if existing is not None:
            return existing.entry_point
        return in_compiling_thread(lambda: compile_here(sig))

    def get_call_template(self, args, kws):
        """Type a call from compiled code; the callee is compiled to LLVM IR only (see the module's docstring)."""
        args, kws = self._call_types(args, kws)
        pysig, folded = self._compiler.fold_argument_types(args, kws)
        folded = tuple(folded)
        if folded not in self.overloads:  # compiled for Python already (or loaded from the cache): linked as is
            self._compile_for_linking(folded)
        name = f"CallTemplate({self.py_func.__name__})"
        template = typing.make_concrete_template(name, key=self.py_func.__name__,
                                                 signatures=self.nopython_signatures)
        return template, pysig, folded, {}

    @property
    def nopython_signatures(self):
        """numba's compiled signatures and the ones compiled for linking only."""
        linked = self.__dict__.get("_linked", {})
        return super().nopython_signatures + [cres.signature for args, cres in linked.items()
                                              if args not in self.overloads]

    def get_overload(self, sig):
        """The compiled entry for ``sig``, or the key of its linked-only compilation."""
        args = tuple(sig)
        keys = self.__dict__.get("_link_keys", {})
        if args not in self.overloads and args in keys:
            return keys[args]
        return super().get_overload(sig)

    def _compile_for_linking(self, args):
        """Compile for ``args`` to LLVM IR that callers link in, once per process."""
        linked = self.__dict__.setdefault("_linked", {})
        keys = self.__dict__.setdefault("_link_keys", {})
        with global_compiler_lock:
            if args in linked:
                return
            flags = compiler.Flags()
            self.targetdescr.options.parse_as_flags(flags, self.targetoptions)
            flags.no_compile = True
            flags.no_cpython_wrapper = True
            flags.no_cfunc_wrapper = True
            context = self.targetdescr.target_context
            library = _LinkedLibrary(context.codegen(), self.py_func.__qualname__)
            # Inlined by LLVM into every caller, which optimises it there:
            # its own module is not optimised first (some 5 s of a first compile).
            library.inlined = bool(self.targetoptions.get("forceinline"))
            library.relinked = self.relinks
            library.apart = self.optimises_apart
            cres = compiler.compile_extra(self.targetdescr.typing_context, context, self.py_func, args=args,
                                          return_type=None, flags=flags, locals=self._compiler.locals,
                                          library=library, pipeline_class=self._compiler.pipeline_class)
            key = _LinkKey(self.py_func.__qualname__)
            context.insert_user_function(key, cres.fndesc, [library])
            keys[args] = key
            linked[args] = cres

    relinks = False
    """Declared ``optimised_callees``: called from Python or from compiled code, its module is relinked only."""

    optimises_apart = False
    """Declared ``optimised_apart``: linked into compiled code, its module is optimised before its callees are
    linked in."""

    def relink_only(self) -> None:
        """Relink only this function's module (``optimised_callees=True``): called from Python, its library is
        an :class:`_EntryLibrary`; linked into compiled code, a :class:`_LinkedLibrary` marked ``relinked``."""
        self.relinks = True
        self._compiler._compile_core = _relinked(self._compiler._compile_core, self.py_func.__qualname__)


class _ConstantsDispatcher(_LinkedDispatcher):
    """A linked dispatcher that keeps the constant types of the named parameters only (``kernel(constants=(...))``)."""

    kept: tuple[str, ...] = ()
    """The parameters whose constants a call keeps."""
    kept_positions: frozenset[int] = frozenset()
    """Their positions."""

    def _call_types(self, args, kws):
        """Type a call from compiled code with constants kept for :attr:`kept` and plain types elsewhere."""
        return (tuple(a if i in self.kept_positions else types.unliteral(a) for i, a in enumerate(args)),
                {k: v if k in self.kept else types.unliteral(v) for k, v in kws.items()})


class KernelDispatcher(_LinkedDispatcher):
    """A dispatcher that compiles one machine function per argument types, whatever constants its callers pass."""

    def _call_types(self, args, kws):
        """Type a call from compiled code with the constants' plain types (see the module's docstring)."""
        return tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()}


PROFILE_BUILD = os.environ.get("RAMI_PROFILE_BUILD") == "1"
"""Compile every kernel as a function of its own, nothing inlined and nothing cached (``RAMI_PROFILE_BUILD=1``).

For ``benchmarks/profile_engine.py`` only: a sampling profiler can then say
which kernel the time is spent in (inlined, the whole round is one machine
function). The code is slower and laid out otherwise, so the shares are a
guide, not the engine's figures; nothing is cached, so that a profile build
never stands in numba's cache for the engine's own.
"""


def _compiled(function, settings: dict):
    """``function`` behind a :class:`KernelDispatcher`, as ``numba.njit(**settings)`` would build it.

    ``constants=True`` in ``settings`` keeps numba's own typing of calls
    instead: a compiled callee per set of constants passed; a tuple of
    parameter names keeps the constants of those parameters only.
    """
    settings = dict(settings)
    if PROFILE_BUILD:
        settings.update(cache=False, forceinline=False)
        settings.pop("inline", None)
    cache = settings.pop("cache", False)
    relinked = settings.pop("optimised_callees", False) and not PROFILE_BUILD
    apart = settings.pop("optimised_apart", False) and not PROFILE_BUILD
    if relinked and apart:
        raise TypeError(f"kernel {function.__qualname__}: optimised_callees (its module relinked only) and "
                        "optimised_apart (its module optimised) contradict each other")
    constants = settings.pop("constants", False)
    dispatcher = (_ConstantsDispatcher if isinstance(constants, tuple) else
                  _LinkedDispatcher if constants else KernelDispatcher)
    disp = dispatcher(py_func=function, locals={}, targetoptions=dict(settings, nopython=True, boundscheck=None))
    if isinstance(constants, tuple):
        names = list(inspect.signature(function).parameters)
        unknown = set(constants) - set(names)
        if unknown:
            raise TypeError(f"kernel {function.__qualname__}: constants names no parameter {sorted(unknown)}")
        disp.kept = constants
        disp.kept_positions = frozenset(names.index(name) for name in constants)
    if relinked:
        disp.relink_only()
    if apart:
        disp.optimises_apart = True
    if cache:
        disp.enable_caching()
    return disp


def kernel(*args, **options):
    """``numba.njit(cache=True, nogil=True, _nrt=False, forceinline=False)``, usable with or without options.

    ``constants=True`` keeps numba's typing of constant arguments, ``constants=("name", ...)`` of the named
    parameters only; ``optimised_callees=True`` relinks only the kernel's module, whether Python or compiled
    code calls it; ``optimised_apart=True``, linked into compiled code, optimises the kernel's module before
    the kernels it calls (those not ``forceinline``) are linked in (see the module's docstring).
    """
    settings = dict(cache=True, nogil=True, _nrt=False, forceinline=False)
    settings.update(options)
    if args and callable(args[0]):
        return _compiled(args[0], settings)
    return lambda function: _compiled(function, settings)


def entry(function=None, **options):
    """``numba.njit(cache=True, nogil=True)`` with numba's reference counting, for the functions that allocate.

    As for :func:`kernel`, ``optimised_callees=True`` declares a function whose work is all in the kernels it
    calls: called from Python or linked into compiled code, its module is only relinked, not optimised again;
    ``optimised_apart=True`` as for :func:`kernel` (see the module's docstring).
    """
    settings = dict(cache=True, nogil=True)
    settings.update(options)
    if function is not None:
        return _compiled(function, settings)
    return lambda f: _compiled(f, settings)
