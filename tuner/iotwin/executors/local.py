"""Real runs on this machine: mpiexec with the interposer preloaded.

Each run starts in the working directory (the one iotwin was started in, or ``workdir``), as
under mpiexec; the files it writes there are removed when it ends, or the last run's kept
(iotwin.executors.working_dir). iotwin's own files of the run (the config as YAML, the
interposer's report, the program's stdout and stderr) live in a run folder of the scratch root,
removed afterwards or kept per run under ``keep`` (iotwin.executors.run_folder), which also
cleans up after runs whose iotwin was killed, before the first run.

``warm_up_bytes``: write that much into a file of the working directory and remove it just
before each run, so that the memory the run's writes take in the page cache has just been
freed. On a virtual machine that gives freed memory back to its host (virtio free page
reporting, ~2 s after the free), pages given back cost a host fault each when written again:
writes into the page cache then run at ~0.4 GB/s instead of ~5 GB/s, depending on how long ago
the previous run ended (validation/local/README.md). Physical nodes never pay it, so 0 (off)
is the default.

A kernel of kernels/ prints one JSON result line (kernels/README.md) and its times are used.
Any other program is timed by the interposer: its time inside HDF5 and MPI-IO calls (open,
writes, flushes, close) is its I/O time, the rest of the span from its first file open to its
last close its computation (reported apart); mpiexec's wall time (launch included) is kept
beside it, for ``--objective wall``. Its bytes come from the interposer's reports too. A config
the interposer rejected makes the run a failure whose error is the interposer's reason (the
program ran without the config, so what it measured is not the config's).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iotwin.config.dumping import dump_config
from iotwin.config.resolution import mca_environment
from iotwin.config.types import Config
from iotwin.core.limits import RUN_TIMEOUT_S
from iotwin.core.mpi_flavours import Flavour
from iotwin.core.run_records import RunResult, Source, Target
from iotwin.executors.interposer_reports import (
    config_rejection,
    io_time,
    read_reports,
    total_bytes,
)
from iotwin.executors.launch import Completed, Launcher, launcher, run_mpi
from iotwin.executors.mpi_flavour import flavour_of
from iotwin.executors.run_folder import (
    RUN_MARKER,
    KeptRuns,
    check_scratch_root,
    clean_killed_runs,
    kill_run,
    new_run_folder,
)
from iotwin.executors.working_dir import appeared, exclusive, listing, remove, save_listing

CONFIG_NAME = "iotwin-config.yaml"
REPORT_NAME = "iotwin-report.jsonl"
OUTPUT_TAIL_LINES = 15
NO_HDF5_IO = ("the interposer reported no HDF5, MPI-IO or POSIX data file closed: no I/O to "
              "time (did the program write through HDF5 or MPI-IO, linked to the shared "
              "libraries? one linked statically must be rebuilt with -shlib; or write at least "
              "1 MiB to a file of its own through POSIX calls?)")
WARM_UP_BLOCK = 4 * 2**20
WARM_UP_NAME = ".iotwin-warm-up"  # hidden: never taken for a run's output
SCRATCH_FOLDER = Path(".iotwin", "runs")  # in the working directory: run folders
SCRATCH_FULL_BELOW = 2**20  # bytes left under which a failed run's scratch counts as full


def default_scratch_root(workdir: Path | None = None) -> Path:
    """Where run folders go: ``$IOTWIN_SCRATCH``, else ``.iotwin/runs`` in the working
    directory (default: the current one; hidden, so never taken for a run's output), else,
    where that cannot be written, ``iotwin-runs`` in ``$TMPDIR``; never the install tree."""
    env = os.environ.get("IOTWIN_SCRATCH")
    if env:
        return Path(env)
    workdir = Path(os.path.abspath(workdir or Path.cwd()))
    local = workdir / SCRATCH_FOLDER
    if os.access(local if local.is_dir() else workdir, os.W_OK | os.X_OK):
        return local
    return Path(tempfile.gettempdir()) / "iotwin-runs"


@dataclass
class LocalExecutor:
    """Runs a Target on this machine under the launcher of its MPI flavour (source = real)."""

    timeout_s: float | None = RUN_TIMEOUT_S
    scratch_root: Path | None = None  # None: default_scratch_root(workdir)
    workdir: Path = field(default_factory=Path.cwd)  # where the program runs
    keep: Path | None = None  # keep the last run's output files and every run's own files
    preload: bool = True  # False: run without the interposer (overhead baselines)
    source: Source = "real"
    launcher: Launcher | None = None  # None: the target's MPI flavour's (mpi_flavour)
    env: Mapping[str, str] = field(default_factory=dict)  # more variables for the ranks
    warm_up_bytes: int = 0  # written and removed in the working directory before each run
    config_name: str = "the config"  # where the configs come from, as a refusal names them

    def __post_init__(self) -> None:
        self.workdir = Path(os.path.abspath(self.workdir))
        self.scratch = self.scratch_root or default_scratch_root(self.workdir)
        check_scratch_root(self.scratch, self.workdir)
        self._kept = KeptRuns(self.keep) if self.keep is not None else None
        if self._kept is not None:
            self._kept.check(self.workdir)
        self._cleaned = False

    def run_once(self, target: Target, config: Config, *, seed: int = 0) -> RunResult:
        if not self._cleaned:  # what runs of a killed iotwin left
            clean_killed_runs(self.scratch, sys.stderr)
            self._cleaned = True
        excluded = [self.scratch, *([self.keep] if self.keep else [])]
        with exclusive(self.workdir, sys.stderr):  # the run folder too: it may lie in the directory
            try:
                run_dir = new_run_folder(self.scratch, self.workdir, excluded)
            except OSError as error:
                return RunResult("failed", error=f"scratch {self.scratch}: cannot make "
                                                 f"the run's folder: {error.strerror}")
            try:
                result = self._run_there(run_dir, target, config, [*excluded, run_dir])
            finally:
                kept = self._dispose(run_dir)
        if kept is not None and not result.ok:
            result.error = f"{result.error}\n(the program's output: {kept}/stdout, stderr)"
        return result

    def _run_there(self, run_dir: Path, target: Target, config: Config,
                   excluded: list[Path]) -> RunResult:
        """The run in the working directory, what it wrote there kept or removed after it."""
        warm_up_page_cache(self.workdir / WARM_UP_NAME, self.warm_up_bytes)
        before = listing(self.workdir, excluded)
        save_listing(run_dir, before)
        try:
            return self._run_in(run_dir, target, config)
        finally:
            self._settle(appeared(self.workdir, before, excluded))

    def _run_in(self, run_dir: Path, target: Target, config: Config) -> RunResult:
        flavour = flavour_of(target, self.env)
        argv = [*self._preload_prefix(flavour), *program_argv(target, flavour)]
        try:
            env = {**self.env, **prepare_run_dir(run_dir, config)}
        except OSError as error:
            return RunResult("failed", error=f"scratch {run_dir}: cannot prepare the run: "
                                             f"{error.strerror}")
        started = time.perf_counter()
        try:
            completed = run_mpi(target.ranks, argv, env=env, cwd=self.workdir,
                                timeout=self.timeout_s, output=run_dir,
                                using=self.launcher or launcher(flavour.launcher))
        except BaseException:  # an interrupt: the run must not go on without us
            kill_run(run_dir)
            raise
        wall_s = time.perf_counter() - started
        if completed.timed_out:
            kill_run(run_dir)
        result = run_result(target, completed, wall_s, read_reports(run_dir / REPORT_NAME),
                            self.timeout_s, config_name=self.config_name)
        full = disk_full(self.workdir, run_dir)
        if not result.ok and full:
            result.error = f"{full}\n{result.error or ''}".rstrip()
        return result

    def _preload_prefix(self, flavour: Flavour) -> list[str]:
        return preload_prefix(flavour) if self.preload else []

    def _settle(self, outputs: list[str]) -> None:
        """The files the run wrote in the working directory: kept, or removed."""
        if self._kept is not None:
            self._kept.outputs(self.workdir, outputs)
        else:
            remove(self.workdir, outputs)

    def _dispose(self, run_dir: Path) -> Path | None:
        """Remove the run's folder, or keep it: where it went."""
        if self._kept is None:
            shutil.rmtree(run_dir, ignore_errors=True)
            return None
        return self._kept.run_folder(run_dir)


def disk_full(*written: Path) -> str | None:
    """Why a failed run failed when a file system it wrote into (its working directory, its run
    folder) is full, less than :data:`SCRATCH_FULL_BELOW` left to users: its writes did not
    fit."""
    for path in written:
        stats = os.statvfs(path)
        free = stats.f_bavail * stats.f_frsize
        if free < SCRATCH_FULL_BELOW:
            return (f"the file system is full ({free} bytes left where the run wrote, {path}): "
                    f"free space, or run elsewhere (--workdir, IOTWIN_SCRATCH)")
    return None


def warm_up_page_cache(path: Path, nbytes: int) -> None:
    """Write ``nbytes`` of zeros to ``path`` and remove it: its pages go back to the free lists,
    where the next writer finds them first."""
    if nbytes <= 0:
        return
    block = bytes(min(nbytes, WARM_UP_BLOCK))
    with path.open("wb") as out:
        for _ in range(-(-nbytes // len(block))):
            out.write(block)
    path.unlink()


def preload_prefix(flavour: Flavour) -> list[str]:
    """``env LD_PRELOAD=...`` before the program: the interposer of the program's MPI flavour
    goes to the ranks only, not to the launcher and its proxies."""
    preload = [str(flavour.interposer()), os.environ.get("LD_PRELOAD", "")]
    return ["env", "LD_PRELOAD=" + ":".join(filter(None, preload))]


def prepare_run_dir(run_dir: Path, config: Config) -> dict[str, str]:
    """Writes the config into ``run_dir``; the environment the interposer reads there, and the
    Open MPI parameters the config sets."""
    config_path = run_dir / CONFIG_NAME
    config_path.write_text(dump_config(dict(config)))
    return {"IOTWIN_CONFIG": str(config_path), "IOTWIN_REPORT": str(run_dir / REPORT_NAME),
            RUN_MARKER: str(run_dir), **mca_environment(config)}


def run_result(target: Target, completed: Completed, wall_s: float,
               reports: list[dict[str, Any]], timeout_s: float | None, *,
               config_name: str = "the config") -> RunResult:
    """What one launch of ``target`` measured, from its exit, output and interposer reports;
    a run whose config the interposer refused (``config_name``: where it came from) failed,
    as it measured the program without the settings asked for."""
    refusal = config_rejection(reports)
    if refusal is not None:   # the program ran without the config: not its measurement
        return RunResult("failed", reports=reports,
                         error=f"{config_name}: refused by the interposer, nothing applied: "
                               f"{refusal}")
    if completed.timed_out:
        return RunResult("timeout", reports=reports,
                         error=f"killed after {timeout_s:g} s\n{_tail(completed.stderr)}")
    if completed.returncode != 0:
        # mpiexec reports a rank killed by a signal on stdout, not stderr
        diagnosis = "\n".join(filter(None, (_tail(completed.stderr), _tail(completed.stdout))))
        return RunResult("failed", reports=reports,
                         error=f"exit status {completed.returncode}\n{diagnosis}")
    line = kernel_result_line(completed.stdout)
    if line is not None:
        phases = {key: float(value) for key, value in line.items()
                  if key.endswith("_s") and isinstance(value, (int, float))}
        return RunResult("ok", total_s=float(line["total_s"]),
                         rate_mbs=_number(line.get("rate_mbs")), bytes=line.get("bytes"),
                         phases={"wall_s": wall_s, **phases}, reports=reports)
    if target.kernel is not None:
        return RunResult("failed", reports=reports,
                         error=f"{target.kernel} printed no JSON result line\n"
                               f"{_tail(completed.stdout)}")
    return program_result(reports, wall_s)


def program_result(reports: list[dict[str, Any]], wall_s: float) -> RunResult:
    """A program's run timed by the interposer: its I/O time inside HDF5 and MPI-IO calls, the
    rest of the span from its first file open to its last close its computation; the
    launcher's wall time (start-up included) is kept beside them, never used as the I/O time."""
    nbytes, timed = total_bytes(reports), io_time(reports)
    if timed is None or timed.io_s <= 0:
        return RunResult("failed", reports=reports, phases={"wall_s": wall_s},
                         error=NO_HDF5_IO)
    rate = nbytes / 1e6 / timed.io_s if nbytes is not None else None
    return RunResult("ok", total_s=timed.io_s, rate_mbs=rate, bytes=nbytes,
                     phases={"io_s": timed.io_s, "compute_s": timed.compute_s,
                             "wall_s": wall_s}, reports=reports)


def program_argv(target: Target, flavour: Flavour) -> list[str]:
    """The program and its arguments (a kernel: its build for ``flavour``). A program named by
    a relative path is found from the directory iotwin was started in, wherever it runs; its
    arguments are passed as they are, and name files relative to the working directory, as
    under ``mpiexec -wdir``."""
    if target.kernel is not None:
        return [str(flavour.kernel(target.kernel)), *target.args]
    program, *args = target.command
    return [absolute_program(program), *args]


def absolute_program(program: str) -> str:
    """``program`` made absolute if it names a file of the caller's directory (a missing one
    is left as typed, for the error that names it)."""
    local = not os.path.isabs(program) and os.path.isfile(program)
    return os.path.abspath(program) if local else program


def kernel_result_line(stdout: str) -> dict[str, Any] | None:
    """The last stdout line that is a kernel's JSON result (it has ``total_s``), if any."""
    for line in reversed(stdout.splitlines()):
        if not line.startswith("{"):
            continue
        try:
            parsed = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(parsed, dict) and isinstance(parsed.get("total_s"), (int, float)):
            return parsed
    return None


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def _tail(text: str, lines: int = OUTPUT_TAIL_LINES) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])

