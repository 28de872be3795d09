"""``benchmarks/count_instructions.py`` reads the compiled code's instructions off cachegrind's report.

The count itself runs valgrind for minutes: it is run by hand, not by the suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmark_scripts import load


def _module():
    return load("count_instructions")


REPORT = """\
--------------------------------------------------------------------------------
Ir
--------------------------------------------------------------------------------
4,703,329,650 (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                    file:function
--------------------------------------------------------------------------------
480,603,220 (10.22%)  /tmp/python-build/Python-3.11.7/Python/ceval.c:_PyEval_EvalFrameDefault
407,728,305 ( 8.67%)  ???:???
208,303,759 ( 4.43%)  /tmp/python-build/Python-3.11.7/Objects/dictobject.c:unicodekeys_lookup_unicode
"""


def test_the_code_without_symbols_is_read_off_the_report():
    assert _module().unknown_code_instructions(REPORT) == 407_728_305


def test_a_report_without_such_code_is_refused_by_name():
    without = "\n".join(line for line in REPORT.splitlines() if "???" not in line)
    with pytest.raises(ValueError, match=r"\?\?\?:\?\?\?"):
        _module().unknown_code_instructions(without)


def test_the_engine_is_compiled_for_a_processor_valgrind_runs():
    env = _module().environment(Path("cache"))
    assert env["NUMBA_CPU_NAME"] == "haswell" and "avx512" not in env["NUMBA_CPU_FEATURES"]
    assert env["NUMBA_CACHE_DIR"] == "cache" and env["PYTHONHASHSEED"] == "0"


BRANCH_REPORT = """\\
--------------------------------------------------------------------------------
Ir            Bc          Bcm        Bi        Bim
--------------------------------------------------------------------------------
4,703,329,650 612,000,000 31,000,000 9,000,000 400,000  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                   Bc                  Bcm                Bi               Bim              file:function
--------------------------------------------------------------------------------
480,603,220 (10.22%) 61,000,000 ( 9.97%)  2,000,000 ( 6.45%) 1,000,000 (11.1%) 20,000 ( 5.0%)  /tmp/python-build/Python-3.11.7/Python/ceval.c:_PyEval_EvalFrameDefault
407,728,305 ( 8.67%) 40,112,730 ( 6.55%)  3,151,004 (10.16%)   210,004 ( 2.3%)  1,500 ( 0.4%)  ???:???
"""


def test_the_branch_simulation_columns_are_read_off_the_report_in_order():
    assert _module().unknown_code_counts(BRANCH_REPORT) == [407_728_305, 40_112_730, 3_151_004, 210_004, 1_500]
    assert _module().unknown_code_instructions(BRANCH_REPORT) == 407_728_305


def test_the_scripts_run_under_cachegrind_are_one_line():
    # cachegrind writes the command into its report's header, which cg_annotate reads line by line.
    module = _module()
    assert "\n" not in module.PLAY and "\n" not in module.ROLLOUT


def test_too_few_playouts_are_refused_before_anything_runs(monkeypatch):
    monkeypatch.setattr("sys.argv", ["count_instructions.py", "--playouts", "5"])
    with pytest.raises(SystemExit, match="--playouts: at least 10 trials"):
        _module().main()
