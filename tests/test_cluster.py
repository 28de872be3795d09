"""Every long job on a real Dask cluster gives the very results of a local run, even when a worker is killed.

One ``LocalCluster`` of two worker processes (one thread each, behind
nannies that restart a killed worker) serves the whole module. Each job runs
on one local thread and on the cluster, and the two results are compared
whole: datasets, findings, tables and JSON, the provenance and wall times
aside. A study and a tournament lose a worker in the middle (SIGKILL of its
process) and still end with the local results. Bad input exits 2, a cluster
that fails exits 1, each with one line naming the address and nothing made.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

import sim  # noqa: E402
from sim import distributed  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def client():
    import cloudpickle
    from distributed import Client, LocalCluster

    # The workers cannot import this test module: its functions travel by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as c:
        yield c


@pytest.fixture()
def cluster(client):
    """The module's client with both workers up (a test before may have killed one)."""
    client.wait_for_workers(2, timeout=60)
    return client


def killer(client):
    """A progress callback that kills one worker process (SIGKILL) at the first finished batch."""
    pids = sorted(client.run(os.getpid).values())
    killed: list[int] = []

    def tick(*args) -> None:
        done = args[-2] if len(args) >= 2 else args[0]
        if not killed and done > 0:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    return tick, killed


def test_a_simulation_in_memory_is_the_local_frame_whatever_the_batches(cluster):
    seats = ["greedy", "expert", "random"]
    for rules in ("rami51", "basic"):
        local = sim.simulate(rules, seats, n_games=30, seed=4, workers=1)
        assert sim.simulate(rules, seats, n_games=30, seed=4, batch_size=7, scheduler=cluster).equals(local)
    # Conditioned deals too: the same accepted deals, the same count of deals dealt.
    local = sim.simulate("rami51", ["greedy"] * 2, n_games=12, seed=4, workers=1, condition="jokers(0) >= 1")
    assert sim.simulate("rami51", ["greedy"] * 2, n_games=12, seed=4, batch_size=5, scheduler=cluster,
                        condition="jokers(0) >= 1").equals(local)
    # Every worker ran the warm-up before the first batch.
    for warmed in cluster.run(distributed.warmed).values():
        assert any(key[0] == "simulate" for key in warmed)


STUDY = '''title = "Does the expert beat greedy at three players?"
game = "rami51"
games = 240
quick_games = 240
seeds = [1]
measures = ["points", "won"]

[arms]
greedy = ["greedy", "greedy", "greedy"]
expert = ["expert", "greedy", "greedy"]
'''


def _summary(folder: Path) -> dict:
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    summary.pop("provenance")
    return summary


def test_a_study_loses_a_worker_and_ends_with_the_local_data_and_findings(cluster, tmp_path):
    from experiments import report

    (tmp_path / "s.toml").write_text(STUDY, encoding="utf-8")
    local = report.run_study(tmp_path / "s.toml", tmp_path / "local", workers=1)
    tick, killed = killer(cluster)
    remote = report.run_study(tmp_path / "s.toml", tmp_path / "dask", scheduler=cluster, progress=tick)
    assert killed, "no worker was killed"
    assert remote.conclusions == local.conclusions
    a, b = tmp_path / "local" / "s" / "seed-1", tmp_path / "dask" / "s" / "seed-1"
    assert _summary(a) == _summary(b)
    assert remote.runs[0].frame.equals(local.runs[0].frame)
    # The arms' datasets say where they were played.
    run = sim.store.read_manifest(tmp_path / "dask" / "s" / "seed-1" / "data" / "expert" / "rotation-0")["runs"][0]
    assert run["where"].startswith("dask tcp://")
    cluster.wait_for_workers(2, timeout=60)
    assert killed[0] not in cluster.run(os.getpid).values()


def test_a_tournament_loses_a_worker_and_ranks_as_the_local_one(cluster, tmp_path):
    from experiments import tournament as T

    players = ["greedy", "expert", "cautious"]
    local = T.tournament(players, "rami51", games=60, seed=3, workers=1, resamples=60)
    tick, killed = killer(cluster)
    remote = T.tournament(players, "rami51", games=60, seed=3, resamples=60, scheduler=cluster, progress=tick)
    assert killed
    assert remote.table().equals(local.table())
    assert {k: v.estimate for k, v in remote.pairwise.items()} == {k: v.estimate for k, v in local.pairwise.items()}
    # Written to datasets too, with the same rows read back.
    stored = T.tournament(players, "basic", games=8, seed=3, resamples=60, scheduler=cluster, out=tmp_path / "t")
    assert stored.table().equals(T.tournament(players, "basic", games=8, seed=3, resamples=60, workers=1).table())


def test_the_sequential_comparison_takes_the_same_looks_and_decision(cluster):
    from experiments import sequential

    args = ("expert", "greedy", "basic", ["greedy"])
    local = sequential.compare(*args, batch=50, max_games=300, seed=2, workers=1).to_dict()
    remote = sequential.compare(*args, batch=50, max_games=300, seed=2, scheduler=cluster).to_dict()
    local.pop("wall_seconds")
    remote.pop("wall_seconds")
    assert remote == local


def test_tuning_searches_and_confirms_alike(cluster, tmp_path):
    from experiments import tuning

    config = tuning.TuneConfig(start="greedy", space=tuning.parse_space(["discard=0:2"]), ruleset="basic",
                               field=("greedy",), trials=2, games=20, top=1, confirm_games=20, max_games=200,
                               seed=5, name="t")
    local = tuning.tune(config, tmp_path / "local.db", workers=1)
    remote = tuning.tune(config, tmp_path / "dask.db", scheduler=cluster)
    assert remote.trials_table.drop("state").equals(local.trials_table.drop("state"))
    assert [c.reevaluated.estimate for c in remote.candidates] == [c.reevaluated.estimate for c in local.candidates]
    assert (remote.confirmation is None) == (local.confirmation is None)
    if local.confirmation is not None:
        a, b = local.confirmation.to_dict(), remote.confirmation.to_dict()
        a.pop("wall_seconds"), b.pop("wall_seconds")
        assert a == b


def test_the_ladder_rates_alike(cluster, tmp_path):
    from experiments import ladder

    local = ladder.ladder(["random", "greedy"], "basic", games=6, seed=2, workers=1, timing_games=0, resamples=60)
    remote = ladder.ladder(["random", "greedy"], "basic", games=6, seed=2, timing_games=0, resamples=60,
                           scheduler=cluster, out=tmp_path / "l")
    assert remote.table().equals(local.table())


def test_an_experiment_with_positions_and_one_with_arms_run_alike(cluster, tmp_path):
    import experiments

    for name, changes in (("joker_fork", {"games": 4, "trials": 20, "resamples": 60}),
                          ("seat_advantage", {"games": 30, "resamples": 60})):
        experiment = experiments.load(name)
        config = experiment.config(True, **changes)
        local = experiment.run(config, tmp_path / name / "local", workers=1)
        remote = experiment.run(config, tmp_path / name / "dask", scheduler=cluster)
        assert _summary(tmp_path / name / "dask") == _summary(tmp_path / name / "local"), name
        assert remote.frame.equals(local.frame), name


def test_the_report_writes_the_same_summaries(cluster, tmp_path):
    from experiments import report

    def tiny(config):
        return config.replace(games=6, resamples=60)

    for where, extra in (("local", {"workers": 1}), ("dask", {"scheduler": cluster})):
        report.build_report(tmp_path / where, quick=True, names=["seat_advantage"], seeds=(1,), configure=tiny,
                            **extra)
    assert _summary(tmp_path / "dask" / "seat_advantage" / "seed-1") == \
        _summary(tmp_path / "local" / "seat_advantage" / "seed-1")


def test_an_analysis_an_agreement_and_the_odds_count_alike(cluster):
    from sim.agreements import agreement
    from sim.analysis.analyse import analyse
    from sim.odds_tables import odds

    events = sim.play_traced("rami51", ["expert", "greedy", "cautious", "expert"], seed=3)
    local = analyse(events, seats=[1], trials=6, width=None, workers=1)
    assert analyse(events, seats=[1], trials=6, width=None, scheduler=cluster).to_dict() == local.to_dict()
    local = agreement("greedy", "expert", rules="rami51", games=2, seed=2, workers=1)
    remote = agreement("greedy", "expert", rules="rami51", games=2, seed=2, scheduler=cluster)
    assert remote.to_dict(3) == local.to_dict(3)
    assert odds("rami51", precision=0.01, max_hands=60_000, scheduler=cluster).equals(
        odds("rami51", precision=0.01, max_hands=60_000))


def _rami(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "RAMI_DASK_TIMEOUT": "3"}, timeout=300)


def test_the_command_line_plays_on_the_cluster_and_prints_the_local_json(cluster, tmp_path):
    address = cluster.scheduler.address
    args = ["compare", "expert", "greedy", "--rules", "basic", "--field", "greedy", "--batch", "50",
            "--max-games", "200", "--json"]
    local = _rami(*args, "--workers", "1", cwd=tmp_path)
    remote = _rami(*args, "--scheduler", address, cwd=tmp_path)
    assert local.returncode == remote.returncode == 0, remote.stderr
    a, b = json.loads(local.stdout), json.loads(remote.stdout)
    a.pop("wall_seconds"), b.pop("wall_seconds")
    assert a == b


def test_bad_schedulers_exit_with_one_line_naming_the_address_and_make_nothing(cluster, tmp_path):
    with socket.socket() as listener:  # something that listens but is no Dask scheduler
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        cases = [
            (["--scheduler", "not an address"], 2, "'not an address' is not a Dask scheduler address"),
            (["--scheduler", cluster.scheduler.address, "--workers", "2"], 2, "with --workers 2"),
            (["--scheduler", f"tcp://127.0.0.1:{port}"], 1, f"tcp://127.0.0.1:{port} does not answer"),
        ]
        for extra, code, words in cases:
            started = time.perf_counter()
            done = _rami("tournament", "greedy,expert", "--rules", "basic", "--games", "4", "--out",
                         str(tmp_path / "t"), *extra, cwd=tmp_path)
            assert done.returncode == code, done.stderr
            assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr, done.stderr
            assert not (tmp_path / "t").exists()
            assert time.perf_counter() - started < 60
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()
    done = _rami("study", str(tmp_path / "none.toml"), "--scheduler", f"tcp://127.0.0.1:{port}", cwd=tmp_path)
    assert done.returncode in (1, 2) and len(done.stderr.strip().splitlines()) == 1


def _hide_the_package() -> None:
    """Make this worker unable to import the simulator, as a machine without it."""
    import sys as worker_sys

    names = {"sim"} | {k for k in worker_sys.modules if k.startswith("sim.")}
    worker_sys.modules["_rami_hidden"] = {k: worker_sys.modules.get(k) for k in names}
    for name in names:
        worker_sys.modules[name] = None


def _show_the_package() -> None:
    import sys as worker_sys

    for name, module in worker_sys.modules.pop("_rami_hidden").items():
        if module is None:
            del worker_sys.modules[name]
        else:
            worker_sys.modules[name] = module


def _another_version() -> None:
    """Make this worker report another version of the package, as a machine with an older install."""
    from importlib import metadata

    from sim import provenance

    metadata.rami_saved_version = metadata.version
    metadata.version = lambda name: "0.0.1"
    provenance.package_version.cache_clear()


def _the_version_back() -> None:
    from importlib import metadata

    from sim import provenance

    metadata.version = metadata.rami_saved_version
    provenance.package_version.cache_clear()


def test_workers_without_the_package_or_of_another_version_are_refused_before_anything(cluster, tmp_path):
    address = cluster.scheduler.address
    args = ["tournament", "greedy,expert", "--rules", "basic", "--games", "4", "--out", str(tmp_path / "t"),
            "--scheduler", address]
    cluster.run(_hide_the_package)
    try:
        done = _rami(*args, cwd=tmp_path)
    finally:
        cluster.run(_show_the_package)
    assert done.returncode == 1 and "cannot import the simulator" in done.stderr and address in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "t").exists()
    cluster.run(_another_version)
    try:
        done = _rami(*args, cwd=tmp_path)
    finally:
        cluster.run(_the_version_back)
    assert done.returncode == 1 and "runs rami-lab 0.0.1" in done.stderr and address in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "t").exists()
