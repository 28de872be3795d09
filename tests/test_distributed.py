"""A simulation on a real Dask cluster gives the very dataset of a local run."""

from __future__ import annotations

import pytest

import sim
from sim import distributed, store

pytest.importorskip("distributed")


def test_a_local_cluster_writes_the_local_dataset_and_compiles_once_per_worker(tmp_path):
    from distributed import Client, LocalCluster

    seats = ["greedy", "expert", "random"]
    local = sim.simulate("rami51", seats, n_games=48, seed=4, batch_size=5, workers=2, out=tmp_path / "local")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        before = client.run(distributed.worker_state)
        ds = sim.simulate("rami51", seats, n_games=48, seed=4, batch_size=4, out=tmp_path / "dask", scheduler=client)
        after = client.run(distributed.worker_state)
        # A second run through the same workers: nothing compiles or loads again.
        sim.simulate("rami51", seats, n_games=20, seed=8, batch_size=2, out=tmp_path / "again",
                     scheduler=cluster.scheduler_address)
        last = client.run(distributed.worker_state)
    assert ds.games_played == 48 and ds.manifest["runs"][0]["where"].startswith("dask tcp://")
    for table in store.TABLES:
        assert sim.load(tmp_path / "dask", table).collect().equals(sim.load(tmp_path / "local", table).collect())
    assert len(after) == 2
    for worker, state in after.items():
        assert state["pid"] == before[worker]["pid"] == last[worker]["pid"]
        # Twelve batches over two workers, then ten more: one compiled game loop per process, got once.
        assert state["compiled"] == 1 and state["cache_hits"] + state["cache_misses"] == 1
        assert last[worker]["compiled"] == 1
        assert last[worker]["cache_hits"] + last[worker]["cache_misses"] == 1


def test_a_scheduler_is_an_address_or_a_client_and_strategies_must_be_compiled():
    with pytest.raises(ValueError, match="not a Dask scheduler address"):
        distributed.check_address("not an address")
    assert distributed.check_address(" tcp://10.0.0.5:8786 ") == "tcp://10.0.0.5:8786"
    with pytest.raises(distributed.ClusterError, match="address"):
        distributed.connect(42)
    with pytest.raises(distributed.ClusterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:1"):
        sim.simulate("rami51", ["greedy"] * 2, n_games=2, scheduler="tcp://127.0.0.1:1")
