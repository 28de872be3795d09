"""Fuzz every reader of a stranger's file for a while and print, per format, the inputs tried, how many the
reader accepted, refused with its own clear error, and the failures (another exception, a write outside the
input, a hang), each failure kind once with its input.

    python benchmarks/fuzz.py --seconds 600            # every format, the time shared out evenly
    python benchmarks/fuzz.py --seconds 60 --only trace,record --seed 3

The formats and their readers are those of ``tests/fuzz_readers.py`` (its short pass runs in the test suite);
inputs come from a seeded ``random.Random``, so a seed and a count of inputs make the same inputs again.
The exit code is 1 when any input failed.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import fuzz_readers  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="Time for the whole run, shared by the formats.")
    parser.add_argument("--seed", type=int, default=0, help="Seed of the inputs.")
    parser.add_argument("--only", default="", help="Comma-separated formats (default: every one).")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(fuzz_readers.FORMATS)
    unknown = [n for n in names if n not in fuzz_readers.FORMATS]
    if unknown:
        parser.error(f"unknown format {unknown[0]!r}; the formats are: {', '.join(fuzz_readers.FORMATS)}")
    rng = random.Random(args.seed)
    chooser = fuzz_readers.RandomChooser(rng)
    share = args.seconds / len(names)
    total = failed = 0
    print(f"{'format':<10} {'inputs':>8} {'accepted':>9} {'refused':>8} {'failures':>8} {'inputs/s':>9}")
    for name in names:
        fmt = fuzz_readers.FORMATS[name]
        counts: collections.Counter[str] = collections.Counter()
        failures: dict[str, bytes] = {}
        start = time.perf_counter()
        while time.perf_counter() - start < share:
            data = fmt.make(chooser)
            outcome, detail = fuzz_readers.read_input(fmt, data)
            counts[outcome] += 1
            if outcome == "failure":
                failures.setdefault(detail[:120], data)
        spent = time.perf_counter() - start
        n = sum(counts.values())
        total, failed = total + n, failed + counts["failure"]
        print(f"{name:<10} {n:>8,} {counts['accepted']:>9,} {counts['refused']:>8,} {counts['failure']:>8,} "
              f"{n / spent:>9,.0f}", flush=True)
        for detail, data in failures.items():
            print(f"    {detail}\n        input: {data[:300]!r}")
    print(f"{'all':<10} {total:>8,} {'':>9} {'':>8} {failed:>8,}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
