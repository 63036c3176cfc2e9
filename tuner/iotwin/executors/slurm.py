"""Real runs through Slurm.

Inside an allocation (``SLURM_JOB_ID`` set: an salloc shell, a batch script running iotwin)
each run is a job step: the site's launcher (srun) started from here, as the local executor
starts mpiexec. Elsewhere each run is one `sbatch` job: a campaign submits a batch of them
(JobExecutor), follows them and collects each result as its job ends. The job runs
the site's launcher (a site file, tuner/iotwin/data/sites/) in the working directory, as the
local executor runs mpiexec (iotwin.executors.working_dir: what the run writes there is
removed when it ends; runs in one directory take turns), with its run folder in the scratch
root on the shared file system: the same config file, interposer, report and result parsing
(`local.run_result`). The job records the launcher's exit status and wall time in the run
folder; stdout and stderr land there too.

Scheduler outcomes become run statuses: COMPLETED -> the program's own result; FAILED,
OUT_OF_MEMORY, CANCELLED -> failed (with the state and the program's stderr); TIMEOUT -> timeout;
NODE_FAIL, PREEMPTED, BOOT_FAIL -> submitted once more, then failed. An interrupt (Ctrl-C)
cancels the jobs submitted and not collected (iotwin.tuning.job_batch).

Measurements must not share the machine with each other: by default a site's jobs carry
``--dependency=singleton`` (Slurm starts a job named iotwin only when the user's previous one
ended), so a batch waits in the queue and runs one job at a time. A site file with
``one_job_at_a_time: false`` lets them run side by side (runs on disjoint nodes of a machine
whose file system is big enough not to notice).
"""

from __future__ import annotations

import math
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iotwin.config.types import Config
from iotwin.core import paths
from iotwin.core.errors import InputError, UserError
from iotwin.core.limits import RUN_TIMEOUT_S
from iotwin.core.mpi_flavours import Flavour
from iotwin.core.run_records import RunResult, Source, Target
from iotwin.core.text import check_printable
from iotwin.core.yaml_files import check_keys, read_input
from iotwin.executors.interposer_reports import read_reports
from iotwin.executors.launch import Completed, Launcher, launcher
from iotwin.executors.local import (
    REPORT_NAME,
    LocalExecutor,
    default_scratch_root,
    preload_prefix,
    prepare_run_dir,
    program_argv,
    run_result,
)
from iotwin.executors.mpi_flavour import flavour_of
from iotwin.executors.run_folder import check_scratch_root
from iotwin.executors.working_dir import STATUS_NAME
from iotwin.formats.bounds import load_bounds, shown

JOB_NAME = "iotwin"
SCRIPT_NAME = "iotwin-job.sh"
POLL_S = 0.5
RETRIED_STATES = ("NODE_FAIL", "PREEMPTED", "BOOT_FAIL")
FAILED_STATES = ("FAILED", "OUT_OF_MEMORY", "CANCELLED", "DEADLINE", "REVOKED")
ENDED_STATES = ("COMPLETED", "TIMEOUT", *FAILED_STATES, *RETRIED_STATES)


@dataclass(frozen=True)
class Site:
    """A cluster's sbatch options and launcher (a site YAML)."""

    name: str = "default"
    sbatch: Mapping[str, Any] = field(default_factory=dict)
    cores_per_node: int = 16
    launcher: str | None = None  # a name of launchers.yaml, or a template; None: the flavour's
    one_job_at_a_time: bool = True  # --dependency=singleton: runs do not disturb each other

    @classmethod
    def load(cls, path: Path | None = None) -> Site:
        return read_input(path or paths.data_dir() / "sites" / "default.yaml", "site file",
                          cls.parse)

    @classmethod
    def parse(cls, document: Any, origin: str) -> Site:
        data = dict(check_keys(document, _SITE_KEYS, origin))
        sbatch = data["sbatch"] = {} if data.get("sbatch") is None else data["sbatch"]
        check_keys(sbatch, _SBATCH_KEYS, origin, "sbatch")
        for key, kind in _SITE_KEYS.items():
            if key in data and key != "sbatch":
                kind(data[key], origin, key)
        for key, kind in _SBATCH_KEYS.items():
            if key in sbatch:
                kind(sbatch[key], origin, f"sbatch.{key}")
        site = cls(**data)
        try:
            if site.launcher is not None:
                launcher(site.launcher)
        except UserError as error:
            raise InputError(origin, "launcher", str(error)) from None
        return site

    def sbatch_options(self, ranks: int, time_limit_s: float | None) -> list[str]:
        options = [f"--ntasks={ranks}", f"--nodes={math.ceil(ranks / self.cores_per_node)}"]
        if time_limit_s is not None:
            options.append(f"--time={max(1, math.ceil(time_limit_s / 60))}")
        if self.one_job_at_a_time:
            options.append("--dependency=singleton")
        for key, value in self.sbatch.items():
            if key == "extra":
                options.extend(str(v) for v in value or ())
            elif value is not None:
                options.append(f"--{key}={value}")
        return options

    def launcher_for(self, flavour: Flavour) -> Launcher:
        """The site's launcher, or the one of the program's MPI flavour."""
        return launcher(self.launcher or flavour.launcher)


def _text(value: Any, origin: str, where: str) -> None:
    if not isinstance(value, str) or not value:
        raise InputError(origin, where, f"expected text, got {shown(value)}")
    check_printable(value, f"{origin}: {where}")


def _text_or_null(value: Any, origin: str, where: str) -> None:
    if value is not None:
        _text(value, origin, where)


def _texts(value: Any, origin: str, where: str) -> None:
    if value is None:
        return
    if not isinstance(value, list):
        raise InputError(origin, where, "expected a list of sbatch arguments")
    for i, item in enumerate(value):
        _text(item, origin, f"{where}[{i}]")


def _cores(value: Any, origin: str, where: str) -> None:
    load_bounds()["cores_per_node"].check(value, origin, where)


def _flag(value: Any, origin: str, where: str) -> None:
    if not isinstance(value, bool):
        raise InputError(origin, where, f"expected true or false, got {shown(value)}")


#: a site file's keys and how each is checked (sbatch: its own keys below)
_SITE_KEYS: dict[str, Callable[[Any, str, str], None]] = {
    "name": _text, "sbatch": lambda value, origin, where: None, "cores_per_node": _cores,
    "launcher": _text_or_null, "one_job_at_a_time": _flag}
_SBATCH_KEYS: dict[str, Callable[[Any, str, str], None]] = {
    "partition": _text_or_null, "account": _text_or_null, "qos": _text_or_null,
    "extra": _texts}


@dataclass
class SlurmExecutor:
    """Runs a Target as one Slurm job per run (source = real); a JobExecutor outside an
    allocation, so that a campaign submits a batch of runs at once."""

    timeout_s: float | None = RUN_TIMEOUT_S
    site: Site = field(default_factory=Site.load)
    scratch_root: Path | None = None  # None: default_scratch_root(workdir)
    workdir: Path = field(default_factory=Path.cwd)  # where the program runs
    env: Mapping[str, str] = field(default_factory=dict)  # for sbatch/squeue (SLURM_CONF, ...)
    source: Source = "real"

    def __post_init__(self) -> None:
        self.workdir = Path(os.path.abspath(self.workdir))
        self.scratch = self.scratch_root or default_scratch_root(self.workdir)
        check_scratch_root(self.scratch, self.workdir)

    @property
    def queues_jobs(self) -> bool:
        return not in_allocation(self.env)

    def run_once(self, target: Target, config: Config, *, seed: int = 0) -> RunResult:
        if not self.queues_jobs:  # inside a job already: each run is a job step
            step = self.site.launcher_for(flavour_of(target, self.env))
            return LocalExecutor(timeout_s=self.timeout_s, scratch_root=self.scratch,
                                 workdir=self.workdir, launcher=step).run_once(target, config)
        handle = self.submit(target, config, seed=seed)
        try:
            return self.collect(target, handle, on_resubmit=lambda new: None)
        except BaseException:  # an interrupt: the job must not go on without us
            self.cancel(handle)
            raise

    def submit(self, target: Target, config: Config, *,
               seed: int = 0) -> dict[str, Any]:
        """The run's job script in a new directory of the scratch root, submitted; the handle
        is {"job": id, "dir": the directory, "attempt": 0}."""
        self.scratch.mkdir(parents=True, exist_ok=True)
        run_dir = Path(tempfile.mkdtemp(prefix="job-", dir=self.scratch))
        script = self._write_script(run_dir, target, config)
        try:
            job = self._sbatch(run_dir, script, target.ranks)
        except BaseException:
            shutil.rmtree(run_dir, ignore_errors=True)
            raise
        return {"job": job, "dir": str(run_dir), "attempt": 0}

    def collect(self, target: Target, handle: Mapping[str, Any],
                on_resubmit: Callable[[dict[str, Any]], None]) -> RunResult:
        run_dir = Path(handle["dir"])
        state = self._wait(str(handle["job"]))
        if state in RETRIED_STATES and handle.get("attempt", 0) == 0:
            # the machine's fault, not the config's: once more
            job = self._sbatch(run_dir, run_dir / SCRIPT_NAME, target.ranks)
            on_resubmit({**handle, "job": job, "attempt": 1})
            state = self._wait(job)
        result = self._result(run_dir, target, state)
        shutil.rmtree(run_dir, ignore_errors=True)
        return result

    def cancel(self, handle: Mapping[str, Any]) -> None:
        self._slurm("scancel", str(handle["job"]))
        shutil.rmtree(handle["dir"], ignore_errors=True)

    def _write_script(self, run_dir: Path, target: Target, config: Config) -> Path:
        env = prepare_run_dir(run_dir, config)
        exports = "\n".join(f"export {k}={shlex.quote(v)}" for k, v in env.items())
        flavour = flavour_of(target, self.env)
        launch = self.site.launcher_for(flavour).line(
            target.ranks, [*preload_prefix(flavour), *program_argv(target, flavour)], list(env))
        script = run_dir / SCRIPT_NAME
        script.write_text(f"""#!/bin/bash
cd {shlex.quote(str(self.workdir))} || exit 1
{exports}
exec {shlex.quote(sys.executable)} -m iotwin.executors.working_dir {shlex.quote(str(run_dir))} \\
  -- {launch}
""")
        return script

    def _sbatch(self, run_dir: Path, script: Path, ranks: int) -> str:
        options = self.site.sbatch_options(ranks, self.timeout_s)
        done = self._slurm("sbatch", "--parsable", f"--job-name={JOB_NAME}", f"--chdir={run_dir}",
                           f"--output={run_dir}/slurm.out", *options, str(script))
        if done.returncode != 0:
            raise UserError(f"sbatch {' '.join(options)} {script}: exit status "
                            f"{done.returncode}: {done.stderr.strip()}")
        return done.stdout.strip().split(";")[0]

    def _wait(self, job: str) -> str:
        while True:
            state = job_state(job, self.env)
            if state in ENDED_STATES:
                return state
            time.sleep(POLL_S)

    def _result(self, run_dir: Path, target: Target, state: str) -> RunResult:
        reports = read_reports(run_dir / REPORT_NAME)
        stdout, stderr = (_read(run_dir / name) for name in ("stdout", "stderr"))
        if state == "TIMEOUT":
            return RunResult("timeout", reports=reports,
                             error=f"Slurm ended the job at its time limit "
                                   f"({self.timeout_s:g} s asked)\n{stderr[-2000:]}")
        status = _read(run_dir / STATUS_NAME).split()
        if len(status) != 3:  # the job ended before its program did (cancelled, killed)
            return RunResult("failed", reports=reports,
                             error=f"Slurm job {state.lower()} before the program ended\n"
                                   f"{stderr[-2000:]}{_read(run_dir / 'slurm.out')[-1000:]}")
        code, start, end = int(status[0]), float(status[1]), float(status[2])
        return run_result(target, Completed(code, stdout, stderr), end - start, reports,
                          self.timeout_s)

    def _slurm(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(argv, capture_output=True, text=True, check=False,
                              env={**os.environ, **self.env})


def in_allocation(env: Mapping[str, str]) -> bool:
    """True inside a Slurm job (an salloc shell, a batch script): runs become job steps."""
    return "SLURM_JOB_ID" in {**os.environ, **env}


def job_state(job: str, env: Mapping[str, str]) -> str:
    """The job's state as Slurm names it (PENDING, RUNNING, COMPLETED, TIMEOUT, ...): from the
    controller while it remembers the job, else from accounting (sacct)."""
    full_env = {**os.environ, **env}
    shown = subprocess.run(["scontrol", "-o", "show", "job", job], capture_output=True,
                           text=True, check=False, env=full_env)
    for word in shown.stdout.split():
        if word.startswith("JobState="):
            return word.split("=", 1)[1]
    accounted = subprocess.run(["sacct", "-n", "-P", "-X", "-j", job, "-o", "State"],
                               capture_output=True, text=True, check=False, env=full_env)
    lines = accounted.stdout.split()
    if accounted.returncode == 0 and lines:
        return lines[0].split()[0]
    raise UserError(f"Slurm knows no job {job} (scontrol: {shown.stderr.strip()}; "
                    f"sacct: {accounted.stderr.strip()})")


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""
