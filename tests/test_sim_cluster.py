"""Simulation batches on a real dask.distributed LocalCluster: the same results as the
single-process path, and a worker killed in the middle of a batch loses nothing."""

from __future__ import annotations

import os
import random
import signal
import threading
import time

import pytest
from iotwin.model import sim_cluster
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.workloads.workload import kernel_workload

CLUSTER = "local:2"


def batch(count: int, ranks: int) -> tuple[list[dict], dict]:
    space = load_space("table3").bind(SpaceContext(filesystem="lustre", ranks=ranks,
                                                   max_stripe_count=156))
    points = random.Random(7).sample(list(space.points()), count)
    configs = [space.config(point) for point in points]
    return configs, kernel_workload("vpic-io", ranks, ["--particles", "1048576"])


def rates(results: list) -> list[float | None]:
    return [r.rate_mbs for r in results]


def test_the_cluster_gives_the_single_process_results(monkeypatch: pytest.MonkeyPatch) -> None:
    configs, workload = batch(12, 256)
    hopper = load_platform("hopper")
    alone = simulate(hopper, workload, configs, jobs=1)
    monkeypatch.setenv(sim_cluster.ENV, CLUSTER)
    spread = simulate(hopper, workload, configs)
    assert all(r.ok for r in spread)
    assert rates(spread) == pytest.approx(rates(alone), rel=1e-9)
    assert [r.breakdown["rpcs"] for r in spread] == [r.breakdown["rpcs"] for r in alone]


def test_a_worker_killed_mid_batch_changes_no_result(monkeypatch: pytest.MonkeyPatch) -> None:
    configs, workload = batch(32, 2048)
    hopper = load_platform("hopper")
    monkeypatch.setenv(sim_cluster.ENV, CLUSTER)
    undisturbed = simulate(hopper, workload, configs)
    dask = sim_cluster.client(CLUSTER)
    victim = next(iter(dask.run(os.getpid).values()))
    killed = threading.Event()

    def kill_when_busy() -> None:
        for _ in range(600):
            if any(dask.processing().values()):
                time.sleep(0.3)  # inside a chunk
                if any(dask.processing().values()):  # still: the kill lands mid-batch
                    killed.set()
                os.kill(victim, signal.SIGKILL)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_when_busy)
    killer.start()
    disturbed = simulate(hopper, workload, configs)
    killer.join()
    assert killed.is_set()
    assert victim not in dask.run(os.getpid).values()  # the nanny started a new worker
    assert rates(disturbed) == rates(undisturbed)  # recomputed chunks: the same bytes
