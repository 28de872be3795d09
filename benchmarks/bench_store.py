"""Writing results datasets: speed, the driver's peak memory, bytes on disk, locally and through Dask.

Run: python benchmarks/bench_store.py [--games 1000000] [--small 100000] [--workers N] [--no-dask | --no-local]

Each case runs ``rami simulate --games N --out FOLDER --quiet`` (4 greedy
players, rami51, seed 1) as a fresh process, exactly as a user would, and
prints its games per second (wall time of the whole command: start-up,
loading the compiled engine, playing, writing, the summary), its peak
resident memory (the driver: the command's own process, read by ``wait4``),
and the dataset's bytes per game on disk. The cases run for ``--small`` and
``--games`` games, on this machine's threads, then through a local Dask
cluster of 2 worker processes of 1 thread each (``--scheduler``), whose
workers' peak memory is printed too.

Target: the driver's peak for ``--games`` (1 million) within 150 MB of its
peak for ``--small`` (100,000), so that 10 million games fit in 2 GiB: rows
go to disk batch by batch, and the summary reads at most the first 20,000
games of a dataset.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_MB = 150


def run_case(games: int, folder: Path, workers: int, scheduler: str | None) -> dict[str, float]:
    """One ``rami simulate`` process: wall seconds, peak RSS (MB), dataset bytes."""
    command = [sys.executable, "-c", "from sim.cli import main; main()", "simulate", "--games", str(games),
               "--seed", "1", "--workers", str(workers), "--out", str(folder), "--quiet"]
    if scheduler:
        command += ["--scheduler", scheduler]
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed")
    size = sum(f.stat().st_size for f in folder.rglob("*.parquet"))
    return {"seconds": seconds, "peak_mb": usage.ru_maxrss / 1024, "bytes": size}


def report(label: str, games: int, case: dict[str, float]) -> None:
    print(f"{label:<22} {games:>10,} {case['seconds']:>9.1f} {games / case['seconds']:>9,.0f} "
          f"{case['peak_mb']:>13,.0f} {case['bytes'] / games:>10,.0f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="the large run (default 1,000,000)")
    parser.add_argument("--small", type=int, default=100_000, help="the reference run (default 100,000)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="local threads")
    parser.add_argument("--no-dask", action="store_true", help="skip the runs through a local Dask cluster")
    parser.add_argument("--no-local", action="store_true", help="skip the runs on this machine's threads")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="bench-store-"))
    print("4 greedy players, rami51; each case a fresh `rami simulate --out` process")
    print(f"{'case':<22} {'games':>10} {'seconds':>9} {'games/s':>9} {'driver peak MB':>13} {'bytes/game':>10}")
    try:
        # Compile (or load) the engine once, untimed, so no case pays for it.
        run_case(200, root / "warm-up", args.workers, None)
        peaks = {}
        for games in () if args.no_local else (args.small, args.games):
            case = run_case(games, root / f"local-{games}", args.workers, None)
            report(f"local, {args.workers} threads", games, case)
            peaks[("local", games)] = case["peak_mb"]
            shutil.rmtree(root / f"local-{games}")
        if not args.no_dask:
            from distributed import Client, LocalCluster

            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
                    Client(cluster) as client:
                for games in (args.small, args.games):
                    case = run_case(games, root / f"dask-{games}", args.workers, cluster.scheduler_address)
                    report("dask, 2 workers", games, case)
                    peaks[("dask", games)] = case["peak_mb"]
                    shutil.rmtree(root / f"dask-{games}")
                workers = client.run(_peak_rss_mb)
                print("dask workers' peak MB: " + ", ".join(f"{mb:,.0f}" for mb in workers.values()))
        for where in ("local", "dask"):
            if (where, args.games) in peaks:
                growth = peaks[(where, args.games)] - peaks[(where, args.small)]
                verdict = "met" if growth <= TARGET_MB else "NOT met"
                print(f"{where}: driver peak grows {growth:+,.0f} MB from {args.small:,} to {args.games:,} games "
                      f"(target: within {TARGET_MB} MB: {verdict})")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    main()
