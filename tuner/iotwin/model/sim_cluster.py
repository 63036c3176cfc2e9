"""Simulation batches on a `dask.distributed` cluster, for screening that needs more cores
than one node.

    IOTWIN_SIM_CLUSTER=local        a LocalCluster on this machine, one worker per core
    IOTWIN_SIM_CLUSTER=local:N      ... with N workers
    IOTWIN_SIM_CLUSTER=tcp://H:P    an existing scheduler, e.g. dask-jobqueue's SLURMCluster:

        from dask_jobqueue import SLURMCluster
        cluster = SLURMCluster(cores=32, processes=32, memory="64GB", walltime="02:00:00")
        cluster.scale(jobs=4)          # 128 workers, one iosim each
        print(cluster.scheduler_address)   # -> IOTWIN_SIM_CLUSTER=tcp://...

Every command that simulates takes ``--sim-cluster ADDRESS``, which sets the variable for
itself and what it starts. Unset, batches run in one local `iosim --jobs N` process
(iotwin.model.sim.run_iosim). On a cluster a batch is cut into chunks of configs; each chunk is
one task that runs `iosim --jobs 1` on a worker (workers must see the same iosim binary and
platform files: a shared file system).
Chunks are deterministic, so a task recomputed after its worker died (Dask reschedules the
tasks of a lost worker) gives the same bytes as the first attempt would have.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Mapping
from functools import cache
from typing import Any

from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.model import iosim_process

ENV = "IOTWIN_SIM_CLUSTER"
CHUNKS_PER_WORKER = 2  # enough to balance unequal configs, few enough to keep start-up small


def cluster_address() -> str | None:
    return os.environ.get(ENV) or None


def checked_address(address: str) -> str:
    """``address`` if it is one ``--sim-cluster`` understands; an error naming it if not."""
    if address == "local" or "://" in address or local_workers(address) >= 1:
        return address
    raise ValueError(f"{address!r}: expected local, local:N (N >= 1) or a scheduler address "
                     f"such as tcp://host:8786")


def local_workers(address: str) -> int:
    """N of ``local:N``; 0 for any other address (``local``: a worker per core)."""
    count = address.removeprefix("local:")
    return int(count) if address.startswith("local:") and count.isdigit() else 0


def use(address: str | None) -> None:
    """Send this process's simulations (and its children's) to the cluster at ``address``."""
    if address:
        os.environ[ENV] = address


@cache
def client(address: str) -> Any:
    """The Dask client of ``address`` (one per process, started on first use)."""
    from distributed import Client, LocalCluster

    address = checked(address)
    if address.startswith("local"):
        workers = local_workers(address) or os.cpu_count() or 1
        print(f"simulations on a Dask LocalCluster of {workers} worker(s)", file=sys.stderr,
              flush=True)
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        return Client(cluster)
    try:
        dask = Client(address, timeout=30)
    except OSError as error:
        raise UserError(f"{ENV}={address}: no Dask scheduler answers there ({error})") from None
    print(f"simulations on the Dask cluster at {address} "
          f"({len(dask.scheduler_info()['workers'])} worker(s))", file=sys.stderr, flush=True)
    return dask


def checked(address: str) -> str:
    try:
        return checked_address(address)
    except ValueError as error:
        raise UserError(f"{ENV}: {error}") from None


def run_chunk(payload: Mapping[str, Any], simulator: str) -> list[dict[str, Any]]:
    """One task: ``iosim --jobs 1`` over a chunk of configs, on the worker's core."""
    done = subprocess.run(iosim_process.argv(1, simulator), input=json.dumps(payload),
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"iosim failed on a worker: {done.stderr.strip()}")
    return iosim_process.results(done.stdout)


def chunks(payload: Mapping[str, Any], count: int) -> list[dict[str, Any]]:
    configs = payload["configs"]
    size = max(1, math.ceil(len(configs) / max(count, 1)))
    return [{**payload, "configs": configs[i:i + size]} for i in range(0, len(configs), size)]


def run_on_cluster(payload: Mapping[str, Any], address: str) -> list[dict[str, Any]]:
    """iosim's results for ``payload``, in input order, computed on the cluster's workers."""
    dask = client(address)
    workers = max(1, len(dask.scheduler_info()["workers"]))
    simulator = str(paths.simulator_binary())
    parts = chunks(payload, workers * CHUNKS_PER_WORKER)
    futures = dask.map(run_chunk, parts, simulator=simulator, pure=False)
    return [entry for part in dask.gather(futures) for entry in part]
