"""Starting MPI programs: the one place that knows how mpiexec is called here.

Debian can have several MPI flavours installed side by side; iotwin's kernels and interposer
are built against MPICH, so its launcher is used explicitly (``IOTWIN_MPIEXEC`` overrides).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from iotwin.errors import UserError


def mpiexec() -> str:
    for candidate in (os.environ.get("IOTWIN_MPIEXEC"), "mpiexec.mpich", "mpiexec.hydra"):
        if candidate and shutil.which(candidate):
            return candidate
    raise UserError("no MPICH launcher found (mpiexec.mpich): run `make deps`")


def require_program(program: str | Path) -> None:
    """Refuse, before any run, a program that is neither an executable file nor on PATH."""
    name = str(program)
    if os.sep in name:
        if not os.path.isfile(name):
            raise UserError(f"program not found: {name}")
        if not os.access(name, os.X_OK):
            raise UserError(f"program is not executable: {name}")
    elif shutil.which(name) is None:
        raise UserError(f"program not found on PATH: {name}")


def mpi_command(ranks: int, argv: Sequence[str | Path]) -> list[str]:
    return [mpiexec(), "-n", str(ranks), *map(str, argv)]


@dataclass
class Completed:
    returncode: int | None  # None: killed on timeout
    stdout: str
    stderr: str

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def run_mpi(ranks: int, argv: Sequence[str | Path], *, env: Mapping[str, str] | None = None,
            cwd: str | Path | None = None, timeout: float | None = None) -> Completed:
    """Run ``argv`` on ``ranks`` ranks; on timeout the whole process group is killed."""
    full_env = {**os.environ, **(env or {})}
    with subprocess.Popen(mpi_command(ranks, argv), env=full_env, cwd=cwd, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
            return Completed(proc.returncode, out, err)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            return Completed(None, out, err)
