"""``benchmarks/profile_branches.py`` reads each instruction's own cost off callgrind's file.

The profile itself runs valgrind for minutes: it is run by hand, not by the suite.
"""

from __future__ import annotations

from benchmark_scripts import load

# Addresses absolute, relative to the line before (+n, -n) or the same (*),
# a second position (the source line) beside each, events left out when zero,
# and a call's inclusive cost on the line after ``calls=``.
CALLGRIND = """\
version: 1
creator: callgrind-3.19.0
positions: instr line
events: Ir Bc Bcm Bi Bim
ob=(1) ???
fl=(1) ???
fn=(1) 0x0000000004a3f10
0x4a3f10 0 5 2 1
+4 * 3
+2 0 7 1 1
calls=1 0x4b0000 0
* 0 100 10 10 4 1
-6 0 2
"""


def test_each_address_carries_its_own_cost_and_not_its_callees():
    events, costs = load("profile_branches").cost_by_address(CALLGRIND.splitlines())
    assert events == ["Ir", "Bc", "Bcm", "Bi", "Bim"]
    assert costs == {0x4A3F10: [7, 2, 1, 0, 0], 0x4A3F14: [3, 0, 0, 0, 0], 0x4A3F16: [7, 1, 1, 0, 0]}
