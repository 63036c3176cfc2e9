"""The Slurm executor against a real one-node Slurm cluster (slurmctld, slurmd, munged from
Debian's packages) that this module starts in a temporary directory and stops afterwards."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from iotwin.core.errors import UserError
from iotwin.core.mpi_flavours import select_flavour
from iotwin.core.run_records import Target
from iotwin.executors.interposer_reports import file_reports
from iotwin.executors.launch import launcher, run_mpi
from iotwin.executors.slurm import Site, SlurmExecutor
from support.processes import with_default_sigint
from support.slurm_cluster import SlurmCluster

PARTICLES = 16384  # x 32 B x 4 ranks = 2 MiB: a short run


def executor(cluster: SlurmCluster, scratch: Path, timeout_s: float = 120.0) -> SlurmExecutor:
    return SlurmExecutor(timeout_s=timeout_s, scratch_root=scratch / "runs", workdir=scratch,
                         env=cluster.env)


def test_a_kernel_run_as_a_job_measures_what_the_local_run_does(cluster: SlurmCluster,
                                                                 scratch: Path) -> None:
    config = {"mpiio": {"cb_nodes": 2, "cb_config_list": "*:*"}}
    target = Target(ranks=4, kernel="vpic-io", args=("--particles", str(PARTICLES)))
    result = executor(cluster, scratch).run_once(target, config)
    assert result.status == "ok", result.error
    assert result.bytes == 4 * 32 * PARTICLES
    assert result.rate_mbs is not None and result.rate_mbs > 0
    [report] = file_reports(result.reports)
    assert report["ranks"] == 4
    assert report["effective"]["hints"]["cb_nodes"] == "2"  # the config reached the ranks


def test_a_failing_program_is_a_failed_run_with_its_exit_status(cluster: SlurmCluster,
                                                                scratch: Path) -> None:
    target = Target(ranks=2, command=("sh", "-c", "echo broken input >&2; exit 3"))
    result = executor(cluster, scratch).run_once(target, {})
    assert result.status == "failed"
    assert result.error is not None
    assert "exit status 3" in result.error and "broken input" in result.error


def test_a_job_runs_in_the_working_directory_and_leaves_it_as_it_was(
        cluster: SlurmCluster, scratch: Path) -> None:
    (scratch / "out").mkdir()
    (scratch / "input.nml").write_text("3\n")
    target = Target(ranks=1, command=("sh", "-c", "read steps < input.nml || exit 5; "
                                                  "echo $steps > out/r.txt; echo x > new.txt"))
    result = executor(cluster, scratch).run_once(target, {})
    assert "exit status" not in (result.error or ""), result.error  # it ran, wrote no HDF5
    assert sorted(p.name for p in scratch.rglob("*")) == ["input.nml", "out", "runs"]
    assert list((scratch / "runs").iterdir()) == []


def test_a_job_over_its_time_limit_is_a_timeout(cluster: SlurmCluster, scratch: Path) -> None:
    # Slurm's limits are whole minutes: 30 s asks for 1 minute, and the job sleeps past it.
    target = Target(ranks=1, command=("sleep", "300"))
    started = time.monotonic()
    result = executor(cluster, scratch, timeout_s=30).run_once(target, {})
    assert result.status == "timeout", result.error
    assert "time limit" in (result.error or "")
    assert time.monotonic() - started < 240  # ended by Slurm, not by the program


def test_a_site_file_sets_the_launcher_and_sbatch_options(tmp_path: Path) -> None:
    site_file = tmp_path / "site.yaml"
    site_file.write_text("name: big\nsbatch: {partition: regular, account: m123, "
                         "extra: [--constraint=haswell]}\ncores_per_node: 32\n"
                         "launcher: srun\n")
    site = Site.load(site_file)
    assert site.sbatch_options(100, 90) == ["--ntasks=100", "--nodes=4", "--time=2",
                                            "--dependency=singleton",
                                            "--partition=regular", "--account=m123",
                                            "--constraint=haswell"]
    openmpi = select_flavour("openmpi")
    assert site.launcher_for(openmpi).line(100, ["./app", "a b"]) == \
        "srun --mpi=pmi2 -n 100 ./app 'a b'"  # the site's launcher, whatever the flavour
    assert Site().launcher_for(openmpi).name == "openmpi"  # no site launcher: the flavour's


def test_a_site_file_with_an_unknown_key_is_refused_by_name(tmp_path: Path) -> None:
    site_file = tmp_path / "site.yaml"
    site_file.write_text("partition: debug\n")
    with pytest.raises(Exception, match="partition: unknown key"):
        Site.load(site_file)


def test_a_job_the_scheduler_cancels_is_a_failed_run_saying_so(cluster: SlurmCluster,
                                                               scratch: Path) -> None:
    results = []
    target = Target(ranks=1, command=("sleep", "120"))
    worker = threading.Thread(
        target=lambda: results.append(executor(cluster, scratch).run_once(target, {})))
    worker.start()
    env = {**os.environ, **cluster.env}
    for _ in range(200):  # until the job runs
        running = subprocess.run(["squeue", "-h", "-t", "R", "-n", "iotwin", "-o", "%i"],
                                 capture_output=True, text=True, env=env, check=True).stdout
        if running.strip():
            break
        time.sleep(0.1)
    subprocess.run(["scancel", running.strip()], check=True, env=env)
    worker.join(timeout=60)
    [result] = results
    assert result.status == "failed"
    assert "cancelled" in (result.error or "").lower()


def test_inside_an_allocation_each_run_is_a_job_step(cluster: SlurmCluster, scratch: Path) -> None:
    program = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from iotwin.core.run_records import Target\n"
        "from iotwin.executors.slurm import SlurmExecutor, Site\n"
        f"target = Target(ranks=4, kernel='vpic-io', args=('--particles', '{PARTICLES}'))\n"
        "executor = SlurmExecutor(site=Site(launcher='srun'), workdir=Path(sys.argv[1]),\n"
        "                         scratch_root=Path(sys.argv[1]) / 'runs')\n"
        "result = executor.run_once(target, {'mpiio': {'cb_nodes': 2, 'cb_config_list': '*:*'}})\n"
        "print(json.dumps({'status': result.status, 'error': result.error,\n"
        "                  'bytes': result.bytes, 'reports': result.reports}))\n")
    batch_jobs_before = iotwin_jobs(cluster)
    done = subprocess.run(["salloc", "-n", "4", sys.executable, "-c", program, str(scratch)],
                          capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, **cluster.env})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["status"] == "ok", result["error"]
    assert result["bytes"] == 4 * 32 * PARTICLES
    [report] = file_reports(result["reports"])
    assert report["ranks"] == 4  # srun started the 4 ranks as one MPI job
    assert report["effective"]["hints"]["cb_nodes"] == "2"
    assert iotwin_jobs(cluster) == batch_jobs_before  # a step of salloc's job, no sbatch


def iotwin_jobs(cluster: SlurmCluster) -> int:
    """How many jobs the executor submitted with sbatch (named iotwin) have run to the end."""
    log = cluster.root / "log" / "jobcomp.txt"
    lines = log.read_text().splitlines() if log.exists() else []
    return sum(" Name=iotwin " in line and " JobState=COMPLETED " in line for line in lines)


def test_launchers_pass_the_interposer_variables_as_each_needs() -> None:
    openmpi = launcher("openmpi").argv(4, ["./app", "-x"], ["IOTWIN_CONFIG", "IOTWIN_REPORT"])
    as_root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    assert openmpi == ["mpiexec.openmpi", *as_root, "--oversubscribe", "-n", "4",
                       "-x", "IOTWIN_CONFIG", "-x", "IOTWIN_REPORT", "./app", "-x"]
    assert launcher("srun").argv(2, ["./app"], ["IOTWIN_CONFIG"]) == [
        "srun", "--mpi=pmi2", "-n", "2", "./app"]  # srun passes the whole environment
    custom = launcher("aprun -n {ranks} -N 24 {program}").argv(48, ["./a b"])
    assert custom == ["aprun", "-n", "48", "-N", "24", "./a b"]


def test_a_launcher_that_cannot_start_is_named_in_the_error(scratch: Path) -> None:
    with pytest.raises(UserError, match="cannot start the launcher: no-such-mpiexec -n 2"):
        run_mpi(2, ["true"], cwd=scratch, using=launcher("no-such-mpiexec -n {ranks} {program}"))
    with pytest.raises(UserError, match=r"neither a launcher of launchers\.yaml"):
        launcher("mpirun")


def test_tune_runs_every_real_run_as_a_job_of_the_site(cluster: SlurmCluster, scratch: Path,
                                                       tmp_path: Path) -> None:
    site = tmp_path / "site.yaml"
    site.write_text("name: test\nsbatch: {partition: debug}\ncores_per_node: 16\n"
                    "launcher: mpich\n")
    jobs_before = iotwin_jobs(cluster)
    store = tmp_path / "tune.db"
    done = subprocess.run(
        tune_argv(store, tmp_path / "tuned.yaml", budget=2, site=site),
        capture_output=True, text=True, env={**os.environ, **cluster.env}, cwd=scratch,
        timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert "executor slurm" in done.stdout + done.stderr
    assert iotwin_jobs(cluster) - jobs_before == 2   # one sbatch job per real run
    with sqlite3.connect(store) as db:
        rows = db.execute("select status from evaluations where source = 'real'").fetchall()
        spec = json.loads(db.execute("select spec from campaigns").fetchone()[0])
    assert rows == [("ok",), ("ok",)]
    assert spec["executor"] == "slurm" and spec["site"] == str(site)


def test_an_unknown_executor_names_the_choices() -> None:
    from iotwin.executors import executor_kind

    with pytest.raises(UserError, match="local or twin or slurm"):
        executor_kind("pbs")


# -- a campaign's batch of jobs: kill-and-resume, Ctrl-C ----------------------------------------

BUDGET = 3


@contextlib.contextmanager
def node_drained(cluster: SlurmCluster) -> Iterator[None]:
    """Jobs submitted meanwhile stay PENDING: the kill lands with all of them queued."""
    scontrol(cluster, "update", f"nodename={cluster.node}", "state=drain", "reason=test")
    try:
        yield
    finally:
        scontrol(cluster, "update", f"nodename={cluster.node}", "state=resume")


def scontrol(cluster: SlurmCluster, *argv: str) -> None:
    subprocess.run(["scontrol", *argv], check=True, env={**os.environ, **cluster.env})


def tune_argv(store: Path, output: Path, budget: int = BUDGET,
              site: Path | None = None) -> list[str]:
    """``iotwin tune`` of vpic-io on 2 ranks by random search, on the Slurm executor."""
    return [sys.executable, "-m", "iotwin", "tune", "--executor", "slurm",
            *(["--site", str(site)] if site else []), "--kernel", "vpic-io", "--ranks", "2",
            "--strategy", "random", "--real-budget", str(budget), "--confirm", "0",
            "--summary-repeat", "0", "--timeout", "120", "--store", str(store), "--output",
            str(output), "--", "--particles", str(PARTICLES)]


def started_with_jobs_queued(cluster: SlurmCluster, argv: list[str], store: Path,
                             cwd: Path) -> subprocess.Popen[str]:
    """``iotwin tune`` started, once it has stored the handles of its whole batch."""
    tune = subprocess.Popen(argv, env={**os.environ, **cluster.env}, cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=with_default_sigint)
    for _ in range(600):
        if job_states(store).count("queued") == BUDGET:
            return tune
        assert tune.poll() is None, tune.communicate()
        time.sleep(0.1)
    tune.kill()
    raise AssertionError(f"no batch of {BUDGET} jobs in the store: {tune.communicate()}")


def job_states(store: Path) -> list[str]:
    if not store.exists():
        return []
    with contextlib.closing(sqlite3.connect(store)) as db:
        try:
            return [state for (state,) in db.execute("select state from jobs")]
        except sqlite3.OperationalError:  # the tables are not made yet
            return []


def queued_in_slurm(cluster: SlurmCluster) -> list[str]:
    return subprocess.run(["squeue", "-h", "-n", "iotwin", "-o", "%i"], capture_output=True,
                          text=True, check=True, env={**os.environ, **cluster.env}).stdout.split()


def left_in_slurm(cluster: SlurmCluster, wait_s: float = 60) -> list[str]:
    """The jobs still queued once a cancellation has gone through: slurmctld may list a job
    it was told to cancel for a moment after scancel returns (a busy controller); one that
    stays is a job not cancelled."""
    deadline = time.monotonic() + wait_s
    while (queued := queued_in_slurm(cluster)) and time.monotonic() < deadline:
        time.sleep(0.5)
    return queued


def resumed(cluster: SlurmCluster, store: Path, output: Path, cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "iotwin", "tune", "--resume", "1", "--store",
                           str(store), "--output", str(output)], capture_output=True, text=True,
                          env={**os.environ, **cluster.env}, cwd=cwd, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def search_runs(store: Path) -> list[tuple[str, int]]:
    with contextlib.closing(sqlite3.connect(store)) as db:
        return db.execute("select status, json_extract(details, '$.measured_index') from "
                          "evaluations where source = 'real' order by id").fetchall()


def test_a_campaign_killed_with_jobs_queued_collects_them_when_resumed(
        cluster: SlurmCluster, scratch: Path, tmp_path: Path) -> None:
    store, output = tmp_path / "tune.db", tmp_path / "tuned.yaml"
    jobs_before = iotwin_jobs(cluster)
    with node_drained(cluster):
        tune = started_with_jobs_queued(cluster, tune_argv(store, output), store, scratch)
        tune.kill()  # SIGKILL: nothing of iotwin's runs after this
        tune.wait()
        assert len(queued_in_slurm(cluster)) == BUDGET  # the jobs outlive their submitter
    resumed(cluster, store, output, scratch)
    assert job_states(store) == ["collected"] * BUDGET
    assert search_runs(store) == [("ok", index) for index in range(BUDGET)]  # none lost
    assert iotwin_jobs(cluster) - jobs_before == BUDGET  # none run twice
    assert output.exists()


def test_ctrl_c_cancels_the_jobs_it_submitted(cluster: SlurmCluster, scratch: Path,
                                             tmp_path: Path) -> None:
    store, output = tmp_path / "tune.db", tmp_path / "tuned.yaml"
    with node_drained(cluster):
        tune = started_with_jobs_queued(cluster, tune_argv(store, output), store, scratch)
        tune.send_signal(signal.SIGINT)
        _, stderr = tune.communicate(timeout=120)
        assert tune.returncode == 130, stderr
        assert "interrupted" in stderr
        assert left_in_slurm(cluster) == []
        assert job_states(store) == ["cancelled"] * BUDGET
    jobs_before = iotwin_jobs(cluster)
    resumed(cluster, store, output, scratch)  # submits the cancelled runs anew
    assert search_runs(store) == [("ok", index) for index in range(BUDGET)]
    assert iotwin_jobs(cluster) - jobs_before == BUDGET
