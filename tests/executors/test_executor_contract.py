"""The contract every executor of iotwin.executors.REGISTRY keeps, each made by its record
and run here for real: local under mpiexec, table on a table measured here by the local
executor, slurm on the test Slurm cluster (tests/support/slurm_cluster.py), twin on the
simulator. An executor added to the registry must say in HERE how it runs on this machine.

The contract: ``run_once`` returns a RunResult and never raises for a failing run; ``ok``
comes with a positive rate and no error, ``failed`` / ``timeout`` with an error and no rate;
its ``source`` is its record's; it launches programs exactly when its record says so, and
runs exactly the configs its record says it can; an executor that queues jobs submits,
collects and cancels them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast, get_args

import pytest
from iotwin.config.types import Config
from iotwin.config.validation import validate_config
from iotwin.core.hashing import config_hash
from iotwin.core.run_records import RunResult, Status, Target
from iotwin.executors import REGISTRY, ExecutorKind, ExecutorSettings
from iotwin.executors.base import JobExecutor, queues_jobs
from iotwin.executors.local import LocalExecutor
from iotwin.executors.slurm import job_state
from iotwin.executors.table import Landscape, read_table, write_table
from support.slurm_cluster import SlurmCluster

KERNEL = Target(ranks=2, kernel="vpic-io", args=("--particles", "16384"))  # 1 MiB: a short run
TUNED = validate_config({"mpiio": {"cb_nodes": 1, "cb_buffer_size": "1MiB"}}, "contract")
CRASHING = Target(ranks=1, command=("sh", "-c", "echo 'disk on fire' >&2; exit 3"))


@dataclass
class Here:
    """An executor as its record makes it, and two runs of it on this machine."""

    settings: ExecutorSettings
    ok: tuple[Target, Config]  # a run that succeeds here
    failing: tuple[Target, Config]  # one that fails, as a run (never as an exception)


def local_here(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Here:
    return Here(ExecutorSettings("local", timeout_s=120), (KERNEL, TUNED), (CRASHING, {}))


def twin_here(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Here:
    bad_argument = Target(ranks=4, kernel="vpic-io", args=("--particles", "many"))
    return Here(ExecutorSettings("hopper", truth_seed=3),
                (Target(ranks=4, kernel="vpic-io", args=("--particles", "16384")), TUNED),
                (bad_argument, {}))


def slurm_here(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Here:
    cluster: SlurmCluster = request.getfixturevalue("cluster")
    monkeypatch.setenv("SLURM_CONF", str(cluster.conf))  # sbatch, squeue, scontrol find it
    return Here(ExecutorSettings("local", timeout_s=120), (KERNEL, TUNED), (CRASHING, {}))


def table_here(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Here:
    table: Path = request.getfixturevalue("measured_table")
    measured = read_table(table).configs[0]
    return Here(ExecutorSettings("local", table=str(table)), (KERNEL, measured),
                (KERNEL, validate_config({"mpiio": {"cb_nodes": 2}}, "contract")))


#: how each registered executor runs on this machine
HERE: dict[str, Callable[[pytest.FixtureRequest, pytest.MonkeyPatch], Here]] = {
    "local": local_here, "twin": twin_here, "slurm": slurm_here, "table": table_here}


@pytest.fixture(scope="module")
def measured_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two configs of KERNEL, each run twice on this machine by the local executor, as the
    landscape table the table executor replays."""
    folder = tmp_path_factory.mktemp("table")
    executor = LocalExecutor(timeout_s=120, scratch_root=folder / "runs")
    configs = [validate_config({}, "contract"), TUNED]
    rates = [[executor.run_once(KERNEL, config).rate_mbs for _ in range(2)]
             for config in configs]
    assert all(rate for row in rates for rate in row), rates
    write_table(Landscape("vpic-io x2", configs, rates), folder / "vpic.csv")
    return folder / "vpic.csv"


@pytest.fixture(params=REGISTRY, ids=lambda kind: kind.name)
def kind(request: pytest.FixtureRequest) -> ExecutorKind:
    registered: ExecutorKind = request.param
    return registered


@pytest.fixture
def here(kind: ExecutorKind, request: pytest.FixtureRequest, scratch: Path,
         monkeypatch: pytest.MonkeyPatch) -> Here:
    assert kind.name in HERE, f"executor {kind.name}: say in HERE how it runs on this machine"
    monkeypatch.setenv("IOTWIN_SCRATCH", str(scratch))  # where local and slurm runs write
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)  # not inside an allocation
    return HERE[kind.name](request, monkeypatch)


def keeps_the_status_contract(result: RunResult) -> None:
    assert isinstance(result, RunResult)
    assert result.status in get_args(Status)
    if result.ok:
        assert result.rate_mbs is not None and result.rate_mbs > 0 and result.error is None
        assert result.total_s is None or result.total_s > 0
    else:
        assert result.error and result.rate_mbs is None


def test_an_executor_measures_as_the_contract_says(kind: ExecutorKind, here: Here) -> None:
    executor = kind.make(here.settings)
    assert executor.source == kind.source
    ok = executor.run_once(*here.ok, seed=1)
    keeps_the_status_contract(ok)
    assert ok.ok, ok.error
    failed = executor.run_once(*here.failing, seed=1)
    keeps_the_status_contract(failed)
    assert not failed.ok


def test_an_executor_launches_programs_exactly_when_its_record_says(
        kind: ExecutorKind, here: Here, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    program = Target(ranks=1, command=("sh", "-c", f"echo ran > {marker}; exit 3"))
    result = kind.make(here.settings).run_once(program, here.ok[1])
    keeps_the_status_contract(result)
    assert marker.exists() == kind.launches_programs
    if kind.launches_programs:
        assert result.status == "failed" and "exit status 3" in (result.error or "")


def test_an_executor_runs_exactly_the_configs_its_record_says(kind: ExecutorKind,
                                                              here: Here) -> None:
    executor = kind.make(here.settings)
    target, _ = here.ok
    if kind.configs is None:  # any config: the ok run's is not a default one
        assert here.ok[1] and executor.run_once(*here.ok).ok
        return
    runnable = kind.configs(here.settings)
    assert all(executor.run_once(target, config).ok for config in runnable)
    outside = here.failing[1]
    assert config_hash(outside) not in {config_hash(c) for c in runnable}
    assert not executor.run_once(target, outside).ok


def test_an_executor_that_queues_jobs_submits_collects_and_cancels(kind: ExecutorKind,
                                                                   here: Here) -> None:
    executor = kind.make(here.settings)
    if not hasattr(executor, "queues_jobs"):  # a campaign runs it through run_once
        assert not queues_jobs(executor)
        return
    assert queues_jobs(executor)  # outside an allocation: each run is a job
    jobs = cast(JobExecutor, executor)
    target, config = here.ok
    handle = jobs.submit(target, config, seed=1)
    assert json.loads(json.dumps(handle)) == handle  # a campaign stores it as JSON
    resubmitted: list[dict[str, object]] = []
    result = jobs.collect(target, handle, resubmitted.append)
    keeps_the_status_contract(result)
    assert result.ok and not resubmitted
    sleeper = jobs.submit(Target(ranks=1, command=("sleep", "300")), {})
    jobs.cancel(sleeper)
    assert _ends(sleeper["job"]) == "CANCELLED"


def _ends(job: str) -> str:
    """The state a job ends in (Slurm takes a moment to record a cancel)."""
    while (state := job_state(job, {})) in ("PENDING", "RUNNING", "COMPLETING"):
        time.sleep(0.2)
    return state
