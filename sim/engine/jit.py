"""How the engine's functions are compiled: the rules, and why.

The measurements behind each rule, and their history, are in
``docs/performance.md``; change a rule only with a measurement there.

Which decorator:

* :func:`kernel`: ``numba.njit`` with ``cache=True`` (a second run starts at
  once), ``nogil=True`` (worker threads run side by side) and numba's
  reference counting of arrays off (``_nrt=False``). A compiled function
  counts a reference to each array it takes, with an atomic instruction
  apiece, and a turn calls a dozen functions with up to thirty arrays: the
  counting was over a third of the engine's time. Kernels only read and
  write arrays their callers own and keep alive, so they need no count. The
  price: a kernel cannot create an array (numba refuses ``np.empty`` there,
  so the mistake cannot go unnoticed) nor hand one to Python. ``_nrt`` is an
  underscore option of numba's CPU target; if a release drops it, importing
  the engine fails at once.
* :func:`entry`: for the functions that allocate (the buffer makers, the
  game loops that own the buffers, the callbacks to Python policies):
  ``njit`` with reference counting, otherwise compiled as kernels are.

Inlining. numba passes every array by value, seven to nine machine words,
so a call with thirty arrays copies some 250 words onto the stack; the steps
played once a turn are therefore inlined, two ways:

* ``kernel(inline="always")``, numba's own inlining, for the turn's steps
  (``sim.engine.turn``), which take the round state as one named tuple of
  arrays (``RoundState``): inlined, the tuple is never copied, so the turn
  and the position machine share the steps at no cost. numba types the
  caller again after each function it inlines, so use it only there: LLVM's
  inlining of these steps counted more instructions a round and compiled
  no faster.
* ``kernel(forceinline=True)``, LLVM's ``alwaysinline``, for every other
  inlined kernel (the policies' choices, the legal layings, the take check,
  small helpers of hands and melds, the rollout's copies): numba types it
  once, and its library is not optimised before its callers inline it.

Every other kernel says ``forceinline=False`` (numba passes a caller's
setting on to callees that leave it unset); LLVM still inlines small
helpers where it pays.

Constants. numba types a constant argument as its value and compiles a
callee once per set of constants its callers pass (a loop counter starting
at ``0`` even compiled the round twice). :class:`KernelDispatcher` types
every call from compiled code with plain types: one machine function per
argument types (LLVM still sees the constants where it inlines). The meld
searches keep the constants that they prune branches by:
``kernel(constants=True)`` keeps them all, ``kernel(constants=("objective",
...))`` those of the named parameters only, so that a rare call with
another constant elsewhere does not compile the search again.

Linking. numba compiles each callee into a library of its own and
generates its machine code, then every caller links the callee's LLVM
module in, optimises it again and generates it again. Here a kernel that
compiled code calls is compiled to LLVM IR only (numba's ``no_compile``),
optimised once and never code-generated; machine code is generated once,
in the library of the function Python calls (an :func:`entry`), and cached
there, callees included. So:

* one entry per kind of table for Python (``sim.engine.play.play_batch``
  for a plain table, ``sim.engine.search.search_batch`` for a table with a
  searching seat, each playing a batch, a dealt batch and a traced game
  alike), with the one batch loop and game loop
  (``sim.engine.game.play_batch_loop``, ``play_game``) inlined into it
  rather than called, the table's round function handed to them as an
  argument: each entry generates the whole round's code;
* a kernel that Python calls directly compiles and caches as before.

Three declarations say how much of a library LLVM optimises:

* a ``forceinline`` kernel's library is not optimised at all: every caller
  inlines it and optimises it there, with the caller's constants;
* ``optimised_callees=True`` (an entry or a kernel whose work is all in the
  kernels it calls, optimised in their own libraries): its module is only
  relinked (:class:`_EntryLibrary`, :attr:`_LinkedLibrary.relinked`), not
  run through LLVM's pipeline again. Declared so: the batch entries of the
  plain and the searching table, the position machine's ``advance``, the
  searching game's levels above the rollouts (``search_round``,
  ``search_decision``, ``searched_choice``) and the doors below. Not a function with a hot loop
  of its own (the rollouts' ``run_trials``): relinked, that loop goes
  unoptimised;
* ``optimised_apart=True`` (:attr:`_LinkedLibrary.apart`), for a kernel that
  calls kernels which many others call too (the position machine's steps
  that call one another, ``finish_round``, ``run_trials``): its module is
  optimised with only its ``forceinline`` callees and numba's helpers linked
  in, and its other callees, already optimised, are linked in after. Its
  own code is still optimised; what it gives up is LLVM inlining a small
  plain kernel it calls, so make such a kernel ``forceinline`` if it must be
  inlined (the policies' ``took_cards``). The two declarations contradict
  each other and are refused together.

Internal callees. numba links each callee in as ``linkonce_odr``, visible to
other modules, so LLVM never removes the arguments it does not read: a
called kernel took some sixty words (arrays, and the rules'
``KernelRules`` as twenty-nine), most on the stack. Every library whose
machine code is generated makes its linked callees internal and drops
their dead arguments just before code generation
(``_EngineLibrary._drop_dead_arguments``). Not before the optimisation:
LLVM would then inline every function called once and optimise it again,
doubling the compile.

Doors. A kernel typed for linking has no machine code of its own, so
Python calling it directly would compile it a second time. The kernels
that the searching game links in and Python calls too (the position
machine's ``decide`` and ``play_choice``, the rollouts' ``run_trials``) are
called from Python through entries that only call them
(``decide_for_python``, ``play_choice_for_python``,
``run_trials_for_python``, declared ``optimised_callees``).

numba keys each cached entry on the processor it was compiled for, so a
cache copied to another processor is compiled afresh there, callees
included.

What is changed in numba's compiler, to compile in less time with the same
machine code:

* an inlined function's IR is built once per process (:func:`_inline_ir`):
  numba runs its front end afresh at every call site, though that IR does
  not depend on the caller; each call site gets a copy with a fresh function
  identity, so two inlined copies keep distinct variable names;
* the inlined blocks of one scope are copied with one memo
  (:class:`_BlockCopies`): numba copied the whole function's variables
  again with every block, a cost of blocks times variables;
* a compile that Python asks for runs in a compiling thread with a large
  first frame chunk (:func:`run_in_thread`): numba recurses deeply, and a
  small chunk maps and unmaps memory at every step across its boundary;
  a compile under numba's compiler lock stays in its thread;
* the flags' values are read from a dict (:func:`_config_values`), not
  through some twenty properties at each of the hundreds of thousands of
  hashes and comparisons numba makes of them;
* numba's error markup of the failed typing attempts, nearly all never
  shown, joins the same text without opening a colorama shell each time
  (:func:`_markup`).

Hot kernels index with unsigned or bounded integers. numba reads a signed
index as Python does, counting from the end when negative, so each access
carries a compare and a select that LLVM removes only where it can prove
the index non-negative (a ``range`` counter, yes; a value read from an
array or passed in, no). The indices a turn reads many times (the seat,
bounded once by ``play_turn`` as ``seat & 0xFF``, candidates read from the
searches' lists and chains, card codes, the pile's and stock's tops) are
cast to ``np.uint64`` where read. Mixing ``np.uint64`` with signed integers
in arithmetic gives floats in numba, so cast at the index, not on the
variables a kernel computes with.
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
