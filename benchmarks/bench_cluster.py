"""A study, a tournament and a comparison on a Dask ``LocalCluster`` of two workers against one local thread.

Prints each job's wall time on one thread of this machine and on the
cluster (two worker processes, one thread each), the speed-up, and whether
the results are identical (the study's ``summary.json`` and rows, the
tournament's standings and pairwise differences, the comparison's looks and
decision; provenance and wall times aside). Both sides have their kernels
compiled before the clock starts: one small run of each job first.

    python benchmarks/bench_cluster.py [--games 3000]

On a machine of two cores the cluster's two workers share them with the
driver, which gathers and writes the batches: expect somewhat under 2.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

STUDY = '''title = "Does the expert beat greedy at three players?"
game = "rami51"
games = {games}
quick_games = {games}
seeds = [1]
measures = ["points", "won"]

[arms]
greedy = ["greedy", "greedy", "greedy"]
expert = ["expert", "greedy", "greedy"]
'''


def _summary(folder: Path) -> dict[str, Any]:
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    summary.pop("provenance")
    return summary


def _study(root: Path, games: int, where: str, **how: Any) -> tuple[float, Any]:
    from experiments import report

    # One study name on both sides (it is in the summary), each in an edition folder of its own.
    file = root / f"bench-{games}.toml"
    file.write_text(STUDY.format(games=games), encoding="utf-8")
    start = time.perf_counter()
    result = report.run_study(file, root / where, **how)
    seconds = time.perf_counter() - start
    return seconds, (_summary(root / where / f"bench-{games}" / "seed-1"), result.runs[0].frame)


def _tournament(games: int, **how: Any) -> tuple[float, Any]:
    from experiments import tournament

    start = time.perf_counter()
    result = tournament.tournament(["greedy", "expert", "cautious"], "rami51", games=games, seed=3, resamples=100,
                                   **how)
    seconds = time.perf_counter() - start
    return seconds, (result.table(), {k: (e.estimate, e.low, e.high) for k, e in result.pairwise.items()})


def _comparison(games: int, **how: Any) -> tuple[float, Any]:
    from experiments import sequential

    start = time.perf_counter()
    result = sequential.compare("expert", "cautious", "rami51", ["greedy", "greedy"], improvement=0.5, batch=400,
                                max_games=games, seed=2, **how).to_dict()
    seconds = time.perf_counter() - start
    result.pop("wall_seconds")
    return seconds, result


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple):
        return all(_same(x, y) for x, y in zip(a, b, strict=True))
    if hasattr(a, "equals"):
        return bool(a.equals(b))
    return a == b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="games per arm, tournament and comparison's most")
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp, \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        root = Path(tmp)
        # Kernels compiled or loaded on both sides before any clock starts.
        for how, tag in (({"workers": 1}, "warm-local"), ({"scheduler": client}, "warm-dask")):
            _study(root, 50, tag, **how)
            _tournament(12, **how)
            _comparison(400, **how)
        print(f"LocalCluster: 2 worker processes x 1 thread, against 1 local thread ({args.games:,} games a job); "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} (other work on the cores lowers "
              "the speed-up)")
        print(f"{'job':<12} {'1 thread':>10} {'cluster':>10} {'speed-up':>9}  identical")
        for name, job in (("study", lambda **how: _study(root, args.games, how.pop("tag"), **how)),
                          ("tournament", lambda **how: _tournament(args.games, **how)),
                          ("comparison", lambda **how: _comparison(args.games, **how))):
            local_s, local = job(workers=1, **({"tag": "local"} if name == "study" else {}))
            dask_s, remote = job(scheduler=client, **({"tag": "dask"} if name == "study" else {}))
            print(f"{name:<12} {local_s:>9.1f}s {dask_s:>9.1f}s {local_s / dask_s:>8.2f}x  "
                  f"{'yes' if _same(local, remote) else 'NO'}", flush=True)


if __name__ == "__main__":
    main()
