"""What ``sim.engine.jit`` changes in numba's compiler gives numba's own answers."""

from __future__ import annotations

import re
import threading
from typing import NamedTuple

import numba
import numpy as np
import pytest
from numba.core import compiler, cpu, targetconfig

from sim.engine import jit


def _numbas_values(config) -> dict:
    # numba's definition: every option read through its property.
    return {name: getattr(config, name) for name in config.options}


def test_the_flags_values_are_numbas_own_in_numbas_order():
    assert targetconfig.TargetConfig.values.__module__ == jit.__name__  # the engine's import put it in place
    plain = compiler.Flags()
    assert list(plain.values().items()) == list(_numbas_values(plain).items())
    flags = compiler.Flags()
    flags.no_compile = True
    flags.nrt = True
    flags.fastmath = cpu.FastMathOptions(True)
    flags.inline = "always"
    assert list(flags.values().items()) == list(_numbas_values(flags).items())
    assert flags.values()["no_compile"] is True and plain.values()["no_compile"] is False
    # Equal flags hash alike and differ from other flags, as numba's cache of implementations needs.
    again = compiler.Flags(flags)
    assert again == flags and hash(again) == hash(flags)
    assert flags != plain


def test_each_kind_of_flags_reads_its_own_defaults():
    class Narrow(targetconfig.TargetConfig):
        width = targetconfig.Option(type=int, default=8, doc="a width")

    class Wide(Narrow):
        width = targetconfig.Option(type=int, default=64, doc="a wider width")
        depth = targetconfig.Option(type=int, default=2, doc="a depth")

    assert Narrow().values() == {"width": 8}
    assert Wide().values() == {"width": 64, "depth": 2}
    wide = Wide()
    wide.depth = 5
    assert wide.values() == {"width": 64, "depth": 5} and Narrow().values() == {"width": 8}


def _add_one(x):
    return x + 1


def _twice(x):
    return _add_one_kernel(_add_one_kernel(x))


_add_one_kernel = jit.kernel(_add_one, cache=False)


def test_an_entry_with_optimised_callees_only_relinks_its_module():
    # Its callees are optimised in their own libraries; the entry's module
    # is not optimised again, so the kernel it calls is still called there
    # (an optimised entry inlines so small a kernel), with the same answer.
    relinked = jit.entry(_twice, cache=False, optimised_callees=True)
    optimised = jit.entry(_twice, cache=False)
    assert relinked(3) == optimised(3) == 5
    assert _calls(relinked, "_add_one") == 2 and _calls(optimised, "_add_one") == 0


def _calls(dispatcher, name: str) -> int:
    """Calls of functions whose symbol holds ``name`` in the machine code's module of ``dispatcher``'s one
    compiled signature."""
    ir = dispatcher.overloads[dispatcher.signatures[0]].library.get_llvm_str()
    body = ir[ir.index("define "):]
    return sum(1 for line in body.splitlines() if " call " in line and name in line)


class _Knobs(NamedTuple):
    """Eight whole numbers passed as one argument, as the engine passes its rules."""

    a: int
    b: int
    c: int
    d: int
    e: int
    f: int
    g: int
    h: int


def _reads_one_knob(cards, knobs, k):
    return cards[k] + knobs.c


_reads_one_knob_kernel = jit.kernel(_reads_one_knob, cache=False)


def _sum_with_a_knob(cards, knobs):
    total = 0
    for k in range(cards.shape[0]):
        total += _reads_one_knob_kernel(cards, knobs, k)
    return total


def _defined_arguments(ir: str, name: str) -> list[str]:
    """The linkage word and argument names of the function of ``ir`` whose symbol holds ``name``."""
    line = next(line for line in ir.splitlines() if line.startswith("define ") and name in line)
    return [line.split()[1]] + re.findall(r"%(arg\.[\w.]+)", line)


def test_a_linked_kernel_is_passed_only_the_words_it_reads():
    # numba passes the array as seven words and the tuple as eight; the
    # kernel linked into the entry is internal to it, so LLVM drops the words
    # it never reads: the array's memory owner, parent, size and item size,
    # and every knob but the one it adds.
    entry = jit.entry(_sum_with_a_knob, cache=False, optimised_callees=True)
    cards = np.arange(5, dtype=np.int64)
    assert entry(cards, _Knobs(*range(8))) == 10 + 5 * 2
    ir = entry.overloads[entry.signatures[0]].library.get_llvm_str()
    linkage, *arguments = _defined_arguments(ir, "_reads_one_knob")
    assert linkage == "internal"
    assert [a for a in arguments if a.startswith("arg.knobs")] == ["arg.knobs.2"]
    assert not {"arg.cards.0", "arg.cards.1", "arg.cards.2", "arg.cards.3"} & set(arguments)
    # Compiled for Python, the kernel's own function keeps every word: its
    # callers may read any of them.
    assert _reads_one_knob_kernel(cards, _Knobs(*range(8)), 4) == 6
    own = _reads_one_knob_kernel.overloads[_reads_one_knob_kernel.signatures[0]].library.get_llvm_str()
    _, *all_arguments = _defined_arguments(own, "_reads_one_knob")
    assert len([a for a in all_arguments if a.startswith("arg.knobs")]) == 8


def _scaled(x, mode, offset):
    return x * mode + offset


_scaled_kernel = jit.kernel(_scaled, cache=False, constants=("mode",))


def _scaled_four_ways(x):
    # Two constants for ``mode`` (kept), two for ``offset`` (typed as integers).
    return (_scaled_kernel(x, 1, 0) + _scaled_kernel(x, 1, 5) + _scaled_kernel(x, 2, 0)
            + _scaled_kernel(x, 2, 5))


def test_a_kernel_keeps_the_constants_of_the_named_parameters_only():
    total = jit.entry(_scaled_four_ways, cache=False)
    assert total(3) == 3 + 8 + 6 + 11
    compiled = [sig.args for sig in _scaled_kernel.nopython_signatures]
    # One compilation per constant of ``mode``; ``offset`` is an integer in both.
    modes = sorted(str(args[1]) for args in compiled)
    assert modes == ["Literal[int](1)", "Literal[int](2)"]
    assert all("Literal" not in str(args[2]) for args in compiled)


def test_constants_must_name_parameters_of_the_kernel():
    with pytest.raises(TypeError, match=r"constants names no parameter \['mood'\]"):
        jit.kernel(_scaled, cache=False, constants=("mood",))


def _relinked_caller(kernel):
    """An entry that only calls ``kernel`` and only relinks its module: the calls in its machine code are the
    kernel's own, as the kernel's library left them."""

    def call(x):
        return kernel(x)

    return jit.entry(call, cache=False, optimised_callees=True)


def test_a_kernel_with_optimised_callees_is_relinked_where_compiled_code_calls_it():
    # Linked into a relinked entry, a relinked kernel still calls the small
    # kernel it calls; an optimised one has inlined it in its own library.
    relinked = _relinked_caller(jit.kernel(_twice, cache=False, optimised_callees=True))
    optimised = _relinked_caller(jit.kernel(_twice, cache=False))
    assert relinked(3) == optimised(3) == 5
    assert _calls(relinked, "_add_one") == 2 and _calls(optimised, "_add_one") == 0


def _add_two(x):
    return x + 2


_add_two_inlined = jit.kernel(_add_two, cache=False, forceinline=True)


def _doubled_plus_three(x):
    return _add_one_kernel(2 * _add_two_inlined(x))


def test_a_kernel_optimised_apart_links_its_plain_callees_after_its_own_optimisation():
    # Its own module is optimised with its forceinline callee linked in
    # (inlined there), and its plain callee, optimised in its own library, is
    # linked in after: still called, where a kernel optimised with its callees
    # inlines so small a one.
    apart = _relinked_caller(jit.kernel(_doubled_plus_three, cache=False, optimised_apart=True))
    together = _relinked_caller(jit.kernel(_doubled_plus_three, cache=False))
    assert apart(3) == together(3) == 11
    assert _calls(apart, "_add_two") == 0 and _calls(apart, "_add_one") == 1
    assert _calls(together, "_add_two") == 0 and _calls(together, "_add_one") == 0


def test_a_kernel_cannot_be_both_relinked_only_and_optimised_apart():
    with pytest.raises(TypeError, match="optimised_callees .* and optimised_apart .* contradict"):
        jit.kernel(_twice, cache=False, optimised_callees=True, optimised_apart=True)


def _tripled(x):
    return 3 * x


_tripled_kernel = jit.kernel(_tripled, cache=False)


def _tripled_plus_one(x):
    return _tripled_kernel(x) + 1


def _tripled_for_python(x):
    return _tripled_kernel(x)


def test_a_door_calls_a_linked_kernel_from_python_without_compiling_it_again():
    # The position machine's decide and play_choice, and the rollouts, are
    # linked into the searching game and called from Python through entries
    # that call them (sim.engine.position's doors): the kernel is typed once,
    # for linking, and Python's call compiles no second, Python version of it.
    compiled_caller = jit.entry(_tripled_plus_one, cache=False)
    door = jit.entry(_tripled_for_python, cache=False, optimised_callees=True)
    assert compiled_caller(4) == 13
    assert door(4) == 12
    assert len(_tripled_kernel.overloads) == 0  # linked only: no machine code of its own for Python
    assert _tripled_kernel(4) == 12  # a direct call from Python compiles that version
    assert len(_tripled_kernel.overloads) == 1


def test_numbas_error_markup_is_numbas_text():
    # numba's markup of a typing failure's message, without its colorama
    # shell: the same text for every theme, colour and style. Without
    # colorama numba marks nothing up, and nothing is replaced.
    from numba.core import errors

    if not hasattr(errors, "HighlightColorScheme"):
        assert jit._numba_markup is None
        return
    from colorama import Style

    for theme in errors.themes.values():
        scheme = errors.HighlightColorScheme(theme)
        assert scheme._markup.__func__ is not jit._numba_markup  # the engine's import replaced it
        for color in (None, theme["errmsg"], theme["highlight"]):
            for style in (None, Style.BRIGHT, Style.DIM):
                ours = scheme._markup("No implementation of function", color, style)
                assert ours == jit._numba_markup(scheme, "No implementation of function", color, style)
        assert scheme.errmsg("x") == jit._numba_markup(scheme, "x", theme["errmsg"])


def _double(x):
    return 2 * x


def _untypable(x):
    return x + "a"


class _CompileThreads(numba.core.event.Listener):
    """Records the thread each numba compile runs in (numba's event API)."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    def on_start(self, event) -> None:
        self.threads.append(threading.get_ident())

    def on_end(self, event) -> None:
        pass


def test_a_compile_python_asks_for_runs_in_a_compiling_thread_and_its_errors_reach_the_caller():
    kernel = jit.kernel(cache=False)(_double)
    compiles = _CompileThreads()
    with numba.core.event.install_listener("numba:compile", compiles):
        assert kernel(np.int64(21)) == 42
        assert len(compiles.threads) == 1 and compiles.threads[0] != threading.get_ident()
        # Compiled once: a second call compiles nothing.
        assert kernel(np.int64(4)) == 8 and len(compiles.threads) == 1
        # In a compiling thread already (a warm-up), the compile stays in it.
        found = jit.in_compiling_thread(lambda: (kernel(np.float64(1.5)), threading.get_ident()))
        assert found[0] == 3.0 and compiles.threads[-1] == found[1]
    broken = jit.kernel(cache=False)(_untypable)
    with pytest.raises(numba.core.errors.TypingError):
        broken(np.int64(1))
