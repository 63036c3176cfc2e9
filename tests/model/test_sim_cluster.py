"""Simulation batches on a real dask.distributed LocalCluster: the same results as the
single-process path (also through `iotwin whatif --sim-cluster`), and a worker killed in the
middle of a batch loses nothing."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from iotwin.cli import main
from iotwin.model import sim_cluster
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.workloads.workload import dump_workload, kernel_workload

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
    # Phase times are differences of a simulated clock that runs on from config to config
    # (IOSIM.md): a config's times depend on its batch-mates to ~1e-11, no more.
    assert rates(spread) == pytest.approx(rates(alone), rel=1e-10)
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


def test_whatif_with_sim_cluster_answers_as_without(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(sim_cluster.ENV, raising=False)
    workload = tmp_path / "vpic.yaml"
    workload.write_text(dump_workload(kernel_workload("vpic-io", 512, ["--particles", "1048576"])))
    argv = [sys.executable, "-m", "iotwin", "whatif", "--workload", str(workload), "--platforms",
            "hopper,archer", "--tune", "--strategy", "random", "--budget", "6", "--json"]

    def answer(*extra: str) -> tuple[dict, str]:
        done = subprocess.run([*argv, *extra], capture_output=True, text=True, check=False,
                              env={**os.environ})
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout), done.stderr

    alone, _ = answer()
    spread, progress = answer("--sim-cluster", CLUSTER)
    assert "Dask LocalCluster of 2 worker(s)" in progress
    assert to_12_digits(spread) == to_12_digits(alone)


def to_12_digits(value: Any) -> Any:
    """``value`` with its floats to 12 significant digits: a phase's time is a difference of
    SimGrid clock readings, and a batch cut into chunks times some phases at another clock
    offset, which can round their last bits differently."""
    if isinstance(value, float):
        return float(f"{value:.12g}")
    if isinstance(value, dict):
        return {key: to_12_digits(item) for key, item in value.items()}
    if isinstance(value, list):
        return [to_12_digits(item) for item in value]
    return value


def test_a_sim_cluster_address_that_means_nothing_is_refused_by_name(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["whatif", "--workload", "w.yaml", "--platforms", "hopper", "--sim-cluster",
              "local:zero"])
    assert "'local:zero': expected local, local:N" in capsys.readouterr().err
